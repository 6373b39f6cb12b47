#include "core/model/column.h"

#if !defined(_WIN32)
#include <sys/mman.h>
#endif

namespace ls::column_memory {
namespace {

size_t pagesFor(size_t bytes) { return (bytes + kPageBytes - 1) & ~(kPageBytes - 1); }

struct Adoption {
    void* pages = nullptr;
    size_t bytes = 0;
};
thread_local Adoption pending;

} // namespace

#if !defined(_WIN32)

void* allocate(size_t bytes) {
    if (bytes < kMappedBytes) return ::operator new(bytes);
    void* p = ::mmap(nullptr, pagesFor(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
}

void deallocate(void* p, size_t bytes) noexcept {
    if (!p) return;
    if (bytes < kMappedBytes) ::operator delete(p);
    else ::munmap(p, pagesFor(bytes));
}

#else // no mappings: every block from operator new, and nothing is adopted

void* allocate(size_t bytes) { return ::operator new(bytes); }
void deallocate(void* p, size_t) noexcept { ::operator delete(p); }

#endif

void adoptNext(void* pages, size_t bytes) noexcept { pending = {pages, bytes}; }

void* takeAdopted(size_t bytes) noexcept {
    // Only blocks deallocate() unmaps may be adopted.
    if (!pending.pages || pending.bytes != bytes || bytes < kMappedBytes) return nullptr;
    return std::exchange(pending, {}).pages;
}

} // namespace ls::column_memory
