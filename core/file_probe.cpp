#include "core/file_probe.h"

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ls {
namespace {

uint32_t bigEndian(const unsigned char* p, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
    return v;
}

} // namespace

std::optional<LoadError> probeSqliteFile(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return LoadError{LoadErrorKind::NotFound, "no such file"};
    if (fs::is_directory(status)) return LoadError{LoadErrorKind::IsDirectory, "is a directory, not a trace file"};
    const auto size = fs::file_size(path, ec);
    if (ec) return LoadError{LoadErrorKind::Unreadable, "cannot read the file size: " + ec.message()};
    if (size == 0) return LoadError{LoadErrorKind::Empty, "empty file"};

    std::ifstream in(path, std::ios::binary);
    if (!in) return LoadError{LoadErrorKind::Unreadable, "cannot open for reading (permission denied?)"};
    std::array<unsigned char, 100> header{};
    in.read(reinterpret_cast<char*>(header.data()), header.size());
    const auto got = static_cast<size_t>(in.gcount());
    static const char kMagic[] = "SQLite format 3";
    if (got < 16 || std::memcmp(header.data(), kMagic, 16) != 0)
        return LoadError{LoadErrorKind::NotSqlite, "not an SQLite database (Nsight Systems traces must be exported with `nsys export --type sqlite`)"};
    if (got < header.size()) return LoadError{LoadErrorKind::Corrupt, "truncated: the SQLite header is incomplete"};

    // Page size at offset 16 (1 means 65536); page count at 28, valid when the change counter
    // at 24 equals the version-valid-for number at 92.
    uint32_t pageSize = bigEndian(header.data() + 16, 2);
    if (pageSize == 1) pageSize = 65536;
    const uint32_t pages = bigEndian(header.data() + 28, 4);
    const bool countValid = bigEndian(header.data() + 24, 4) == bigEndian(header.data() + 92, 4);
    if (countValid && pages > 0 && static_cast<uint64_t>(pages) * pageSize > size)
        return LoadError{LoadErrorKind::Corrupt,
                         "truncated: the database declares " + std::to_string(static_cast<uint64_t>(pages) * pageSize) +
                             " bytes but the file has " + std::to_string(size)};
    return std::nullopt;
}

} // namespace ls
