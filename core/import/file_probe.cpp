#include "core/import/file_probe.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace ls {
namespace {

constexpr size_t kHeadBytes = 4096;
constexpr char kSqliteMagic[] = "SQLite format 3"; // with its NUL: 16 bytes
constexpr size_t kSqliteHeaderBytes = 100;

uint32_t bigEndian(const char* p, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
}

} // namespace

bool FileHead::isSqlite() const {
    return bytes.size() >= 16 && std::memcmp(bytes.data(), kSqliteMagic, 16) == 0;
}

std::optional<LoadError> readFileHead(const std::string& path, FileHead& head) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return LoadError{LoadErrorKind::NotFound, "no such file"};
    if (fs::is_directory(status))
        return LoadError{LoadErrorKind::IsDirectory, "is a directory, not a trace file"};
    const auto size = fs::file_size(path, ec);
    if (ec)
        return LoadError{LoadErrorKind::Unreadable, "cannot read the file size: " + ec.message()};
    if (size == 0) return LoadError{LoadErrorKind::Empty, "empty file"};

    std::ifstream in(path, std::ios::binary);
    if (!in)
        return LoadError{LoadErrorKind::Unreadable, "cannot open for reading (permission denied?)"};
    head.size = static_cast<uint64_t>(size);
    head.bytes.resize(kHeadBytes);
    in.read(head.bytes.data(), static_cast<std::streamsize>(head.bytes.size()));
    head.bytes.resize(static_cast<size_t>(in.gcount()));
    return std::nullopt;
}

std::optional<LoadError> checkSqliteHeader(const FileHead& head) {
    if (head.bytes.size() < kSqliteHeaderBytes)
        return LoadError{LoadErrorKind::Corrupt, "truncated: the SQLite header is incomplete"};
    // Page size at offset 16 (1 means 65536); page count at 28, valid when the change counter
    // at 24 equals the version-valid-for number at 92.
    const char* h = head.bytes.data();
    uint32_t pageSize = bigEndian(h + 16, 2);
    if (pageSize == 1) pageSize = 65536;
    const uint32_t pages = bigEndian(h + 28, 4);
    const bool countValid = bigEndian(h + 24, 4) == bigEndian(h + 92, 4);
    if (countValid && pages > 0 && static_cast<uint64_t>(pages) * pageSize > head.size)
        return LoadError{LoadErrorKind::Corrupt,
                         "truncated: the database declares " +
                             std::to_string(static_cast<uint64_t>(pages) * pageSize) +
                             " bytes but the file has " + std::to_string(head.size)};
    return std::nullopt;
}

} // namespace ls
