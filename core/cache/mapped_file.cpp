#include "core/cache/mapped_file.h"

#include "core/model/column.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sys/vfs.h>
#endif

namespace ls {

std::string MappedFile::readWhole(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return std::strerror(errno);
    copy_.reserve(size_); // known where the file was examined first
    unsigned char buf[1 << 16];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) copy_.insert(copy_.end(), buf, buf + n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return "read error";
    data_ = copy_.data();
    size_ = copy_.size();
    return {};
}

#if !defined(_WIN32)

namespace {

// Pages of a file on a network or user-space file system can vanish under a mapping (another
// host renames or evicts the cache file: a later page-in gets SIGBUS), so such files are copied.
bool localFileSystem(int fd) {
#if defined(__linux__)
    struct statfs fs {};
    if (::fstatfs(fd, &fs) != 0) return false;
    switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x6969:     // NFS
    case 0x517B:     // SMB
    case 0xFF534D42: // CIFS
    case 0xFE534D42: // SMB2
    case 0x65735546: // FUSE
    case 0x01021997: // 9P (v9fs)
    case 0x564C:     // NCP
    case 0x47504653: // GPFS
    case 0x0BD00BD0: // Lustre
        return false;
    default: return true;
    }
#else
    (void)fd;
    return true;
#endif
}

} // namespace

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
    if (localFileSystem(fd_)) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
        if (p != MAP_FAILED) {
            data_ = static_cast<const unsigned char*>(p);
            mapped_ = true;
            return {};
        }
    }
    // Not mapped: read whole, and no range is mapped either.
    ::close(fd_);
    fd_ = -1;
    return readWhole(path);
}

void* MappedFile::mapPrivate(uint64_t offset, size_t bytes) const {
    constexpr uint64_t kPage = column_memory::kPageBytes;
    static const uint64_t pageSize = static_cast<uint64_t>(std::max(1L, ::sysconf(_SC_PAGESIZE))); // 4 KiB, or 16/64 KiB
    if (fd_ < 0 || offset % pageSize != 0 || offset > size_ || bytes > size_ - offset) return nullptr;
    const size_t length = (bytes + kPage - 1) & ~(kPage - 1); // the kernel rounds it up to its pages
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, static_cast<off_t>(offset));
    return p == MAP_FAILED ? nullptr : p;
}

#else

MappedFile::~MappedFile() = default;

std::string MappedFile::open(const std::string& path) { return readWhole(path); }

void* MappedFile::mapPrivate(uint64_t, size_t) const { return nullptr; }

#endif

} // namespace ls
