#pragma once
// The vector type of the model's columns. It is a std::vector whose allocator can hand a column
// the pages of a memory-mapped cache file instead of new memory (core/cache/trace_file.cpp): a
// reopened model then reads the file's pages where they lie, paged in as they are used, rather
// than copying 600 MB into freshly faulted memory.
//
// Big blocks are their own anonymous mappings and small ones come from operator new, so one
// deallocate works for both kinds: a block's size says which it is.
#include <algorithm>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace ls {

namespace column_memory {

// Blocks of at least this many bytes are page mappings (anonymous, or a cache file's pages).
constexpr size_t kMappedBytes = size_t(256) << 10;
constexpr size_t kPageBytes = 4096;

void* allocate(size_t bytes);
void deallocate(void* p, size_t bytes) noexcept;

// The next allocation of exactly `bytes` on this thread returns `pages` (a private, writable
// mapping of kMappedBytes or more, page aligned) instead of new memory; the column that gets it
// owns the mapping and unmaps it when freed. takeAdopted() is what allocate() calls.
void adoptNext(void* pages, size_t bytes) noexcept;
void* takeAdopted(size_t bytes) noexcept;

} // namespace column_memory

template <typename T> struct ColumnAllocator {
    using value_type = T;
    ColumnAllocator() noexcept = default;
    template <typename U> ColumnAllocator(const ColumnAllocator<U>&) noexcept {} // NOLINT(google-explicit-constructor)

    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (void* adopted = column_memory::takeAdopted(bytes)) return static_cast<T*>(adopted);
        return static_cast<T*>(column_memory::allocate(bytes));
    }
    void deallocate(T* p, size_t n) noexcept { column_memory::deallocate(p, n * sizeof(T)); }

    // Copying an element onto itself is skipped: that is how an adopted block becomes a
    // column's contents (assign(pages, pages + n)) without a write, which would fault in a private
    // copy of every page.
    template <typename U> void construct(U* p, const U& v) {
        if (p != &v) ::new (static_cast<void*>(p)) U(v);
    }
    template <typename U, typename... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    template <typename U> bool operator==(const ColumnAllocator<U>&) const noexcept { return true; }
};

template <typename T> using Column = std::vector<T, ColumnAllocator<T>>;

// A column equals a plain vector holding the same values (tests compare them).
template <typename T> bool operator==(const Column<T>& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

} // namespace ls
