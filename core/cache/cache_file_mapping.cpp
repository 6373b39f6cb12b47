#include "core/cache/cache_file_mapping.h"

#include "core/model/column.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ls {

CacheFileMapping::~CacheFileMapping() = default;

std::string CacheFileMapping::readWhole(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return std::strerror(errno);
    copy_.reserve(size_); // known where the file was examined first
    unsigned char buf[1 << 16];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
        copy_.insert(copy_.end(), buf, buf + n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return "read error";
    data_ = copy_.data();
    size_ = copy_.size();
    return {};
}

std::string CacheFileMapping::open(const std::string& path) {
    if constexpr (!platform::kPageMappings) return readWhole(path);
    std::string error;
    file_ = platform::MappableFile::open(path, error);
    if (!file_) return error;
    size_ = file_->size();
    if (size_ == 0) return {};
    // Pages of a file on a network or user-space file system can vanish under a mapping (another
    // host renames or evicts the cache file: a later page-in gets SIGBUS), so such files are
    // copied.
    if (file_->onLocalFileSystem())
        if (const uint8_t* whole = file_->mapWhole()) {
            data_ = whole;
            return {};
        }
    // Not mapped: read whole, and no range is mapped either.
    file_.reset();
    return readWhole(path);
}

void* CacheFileMapping::mapPrivate(uint64_t offset, size_t bytes) const {
    constexpr uint64_t kPage = column_memory::kPageBytes;
    if (!file_ || offset % platform::pageSize() != 0 || offset > size_ || bytes > size_ - offset)
        return nullptr;
    const size_t length =
        (bytes + kPage - 1) & ~(kPage - 1); // the kernel rounds it up to its pages
    return file_->mapPrivate(offset, length);
}

} // namespace ls
