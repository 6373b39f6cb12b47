#include "core/model/column.h"

#include "core/model/platform.h"

namespace ls::column_memory {
namespace {

size_t pagesFor(size_t bytes) { return (bytes + kPageBytes - 1) & ~(kPageBytes - 1); }

struct Adoption {
    void* pages = nullptr;
    size_t bytes = 0;
};
thread_local Adoption pending;

// Where the platform has no page mappings every block comes from operator new, and nothing is
// adopted (the model cache then maps no range).
bool mapped(size_t bytes) { return platform::kPageMappings && bytes >= kMappedBytes; }

} // namespace

void* allocate(size_t bytes) {
    if (!mapped(bytes)) return ::operator new(bytes);
    void* p = platform::mapAnonymousPages(pagesFor(bytes));
    if (!p) throw std::bad_alloc();
    return p;
}

void deallocate(void* p, size_t bytes) noexcept {
    if (!p) return;
    if (!mapped(bytes))
        ::operator delete(p);
    else
        platform::unmapPages(p, pagesFor(bytes));
}

void discard(void* block, size_t capacityBytes, size_t from, size_t to) noexcept {
    if (!block || !mapped(capacityBytes) || to <= from) return;
    platform::discardPages(static_cast<char*>(block) + from, to - from);
}
void adoptNext(void* pages, size_t bytes) noexcept { pending = {pages, bytes}; }

bool freshBlocksAreZero(size_t bytes) noexcept { return mapped(bytes); }

void* takeAdopted(size_t bytes) noexcept {
    // Only blocks deallocate() unmaps may be adopted.
    if (!pending.pages || pending.bytes != bytes || bytes < kMappedBytes) return nullptr;
    return std::exchange(pending, {}).pages;
}

} // namespace ls::column_memory
