// The platform's memory pages: anonymous blocks for the model's columns, files mapped whole
// (read-only, for the page reader) or by ranges (private, for the model cache). Declared in
// platform.h; kept apart from platform.cpp, whose calls are about processes and folders.
#include "core/model/platform.h"

#include <algorithm>
#include <cerrno>
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

namespace ls::platform {

#if defined(_WIN32)

void* mapAnonymousPages(size_t) { return nullptr; }
void unmapPages(void*, size_t) {}
void discardPages(void*, size_t) {}
uint64_t pageSize() { return 4096; }

std::unique_ptr<MappedFile> MappedFile::open(const std::string&) {
    return nullptr;
} // read through SQLite instead
MappedFile::~MappedFile() = default;
void MappedFile::release(size_t, size_t) const {}

std::unique_ptr<MappableFile> MappableFile::open(const std::string&, std::string& error) {
    error = "file mappings are not available";
    return nullptr;
}
MappableFile::~MappableFile() = default;
bool MappableFile::onLocalFileSystem() const { return false; }
const uint8_t* MappableFile::mapWhole() { return nullptr; }
void* MappableFile::mapPrivate(uint64_t, size_t) const { return nullptr; }

#else

void* mapAnonymousPages(size_t bytes) {
    // A model's big columns are written once, front to back: in 2 MiB pages where the system
    // gives them (transparent huge pages on request), each such stretch is one page fault
    // instead of 512. In a virtual machine a fault cost about 4 ms a megabyte, which made a
    // 5M-kernel load spend as long in the kernel as in the loader. Advice only.
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    // Blocks of a few huge pages or more start on a 2 MiB boundary: else the stretch before the
    // first boundary, a megabyte on average, faults in one small page at a time (about 15,000
    // faults over a million-kernel load's columns). Only the start is moved: rounding the end
    // up would make the last huge page resident whole.
    const bool align = bytes >= 4 * kHuge;
    const size_t mapped = align ? bytes + kHuge : bytes;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    if (align) {
        const auto base = reinterpret_cast<uintptr_t>(p);
        const auto start = (base + kHuge - 1) & ~(kHuge - 1);
        if (start > base) ::munmap(p, start - base);
        if (start + bytes < base + mapped)
            ::munmap(reinterpret_cast<void*>(start + bytes), base + mapped - (start + bytes));
        p = reinterpret_cast<void*>(start);
    }
    const auto from = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const auto to = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
    return p;
}

void unmapPages(void* pages, size_t bytes) { ::munmap(pages, bytes); }

void discardPages(void* p, size_t bytes) {
    static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto from = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
    const auto to = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

uint64_t pageSize() {
    static const uint64_t size =
        static_cast<uint64_t>(std::max(1L, ::sysconf(_SC_PAGESIZE))); // 4 KiB, or 16/64 KiB
    return size;
}

std::unique_ptr<MappedFile> MappedFile::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat st {};
    void* p = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd); // the mapping keeps the file
    if (p == MAP_FAILED) return nullptr;
    return std::unique_ptr<MappedFile>(
        new MappedFile(static_cast<const uint8_t*>(p), static_cast<size_t>(st.st_size)));
}

MappedFile::~MappedFile() { ::munmap(const_cast<uint8_t*>(data_), size_); }

void MappedFile::release(size_t offset, size_t length) const {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t begin = (offset + page - 1) / page * page,
                 end = std::min(offset + length, size_) / page * page;
    if (end > begin)
        ::madvise(const_cast<uint8_t*>(data_) + begin, end - begin,
                  MADV_DONTNEED); // advice: failure is harmless
}

std::unique_ptr<MappableFile> MappableFile::open(const std::string& path, std::string& error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = std::strerror(errno);
        return nullptr;
    }
    std::unique_ptr<MappableFile> file(new MappableFile(fd)); // closes fd on every return below
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        error = std::strerror(errno);
        return nullptr;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "not a regular file";
        return nullptr;
    }
    file->size_ = static_cast<uint64_t>(st.st_size);
    return file;
}

MappableFile::~MappableFile() {
    if (whole_) ::munmap(const_cast<uint8_t*>(whole_), size_);
    if (fd_ >= 0) ::close(fd_);
}

bool MappableFile::onLocalFileSystem() const {
#if defined(__linux__)
    struct statfs fs {};
    if (::fstatfs(fd_, &fs) != 0) return false;
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
    default:
        return true;
    }
#else
    return true;
#endif
}

const uint8_t* MappableFile::mapWhole() {
    if (whole_) return whole_;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) return nullptr;
    whole_ = static_cast<const uint8_t*>(p);
    return whole_;
}

void* MappableFile::mapPrivate(uint64_t offset, size_t length) const {
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_,
                     static_cast<off_t>(offset));
    return p == MAP_FAILED ? nullptr : p;
}

#endif

} // namespace ls::platform
