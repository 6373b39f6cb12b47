#include "core/cache/mapped_file.h"

#include "core/model/column.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace ls {

#if !defined(_WIN32)

MappedFile::~MappedFile() {
    if (mapped_) ::munmap(const_cast<unsigned char*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
}

std::string MappedFile::open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return std::strerror(errno);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return std::strerror(errno);
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ == 0) return {};
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) return std::strerror(errno);
    data_ = static_cast<const unsigned char*>(p);
    mapped_ = true;
    return {};
}

void* MappedFile::mapPrivate(uint64_t offset, size_t bytes) const {
    constexpr uint64_t kPage = column_memory::kPageBytes;
    if (fd_ < 0 || offset % kPage != 0 || offset > size_ || bytes > size_ - offset) return nullptr;
    const size_t length = (bytes + kPage - 1) & ~(kPage - 1);
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, static_cast<off_t>(offset));
    return p == MAP_FAILED ? nullptr : p;
}

#else

MappedFile::~MappedFile() = default;

std::string MappedFile::open(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return std::strerror(errno);
    unsigned char buf[1 << 16];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) copy_.insert(copy_.end(), buf, buf + n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return "read error";
    data_ = copy_.data();
    size_ = copy_.size();
    return {};
}

void* MappedFile::mapPrivate(uint64_t, size_t) const { return nullptr; }

#endif

} // namespace ls
