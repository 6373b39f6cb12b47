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
#include <cstring>
#include <iterator>
#include <new>
#include <type_traits>
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
// Gives back the pages of [from, to) bytes of a block of `capacityBytes` that its owner will not
// read again before freeing it, where the block is a mapping of its own (else nothing): a column
// being converted into another form then does not hold both forms whole.
void discard(void* block, size_t capacityBytes, size_t from, size_t to) noexcept;
void adoptNext(void* pages, size_t bytes) noexcept;

// For a loop that reads a column once, front to back, into another form: the pages of the rows
// read go back to the system every 2^18 rows (a megabyte or so), so the two forms are not both
// resident. The column must not be read again before it is freed.
template <typename T, typename A> class ReadOnce {
  public:
    explicit ReadOnce(std::vector<T, A>& c) : c_(c) {}
    // Rows [0, i] have been read.
    void readThrough(size_t i) {
        if (i + 1 - done_ < kRows) return;
        discard(c_.data(), c_.capacity() * sizeof(T), done_ * sizeof(T), (i + 1) * sizeof(T));
        done_ = i + 1;
    }

  private:
    static constexpr size_t kRows = size_t(1) << 18;
    std::vector<T, A>& c_;
    size_t done_ = 0;
};
void* takeAdopted(size_t bytes) noexcept;
// Whether a block of `bytes` comes as a fresh mapping, every byte zero until written.
bool freshBlocksAreZero(size_t bytes) noexcept;

// What adoptColumn "constructs" each element of an adopted block from: nothing.
struct AsTheyAre {};
// Positions 0..n as iterators over AsTheyAre values, so that a column made of them has n elements.
class AsTheyAreIterator {
  public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = AsTheyAre;
    using difference_type = std::ptrdiff_t;
    using pointer = const AsTheyAre*;
    using reference = AsTheyAre;
    explicit AsTheyAreIterator(size_t at) : at_(at) {}
    AsTheyAre operator*() const { return {}; }
    AsTheyAreIterator& operator++() {
        ++at_;
        return *this;
    }
    AsTheyAreIterator operator++(int) { return AsTheyAreIterator(at_++); }
    difference_type operator-(const AsTheyAreIterator& o) const {
        return static_cast<difference_type>(at_ - o.at_);
    }
    bool operator==(const AsTheyAreIterator& o) const { return at_ == o.at_; }

  private:
    size_t at_;
};

} // namespace column_memory

template <typename T> struct ColumnAllocator {
    using value_type = T;
    ColumnAllocator() noexcept = default;
    template <typename U>
    ColumnAllocator(const ColumnAllocator<U>&) noexcept {} // NOLINT(google-explicit-constructor)

    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (void* adopted = column_memory::takeAdopted(bytes)) return static_cast<T*>(adopted);
        return static_cast<T*>(column_memory::allocate(bytes));
    }
    void deallocate(T* p, size_t n) noexcept { column_memory::deallocate(p, n * sizeof(T)); }

    // An element of an adopted block is left as it is (adoptColumn): no write, which would fault
    // in a private copy of every page, and no step per element, which the compiler drops.
    template <typename U> void construct(U*, column_memory::AsTheyAre) noexcept {}
    template <typename U, typename... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    template <typename U> bool operator==(const ColumnAllocator<U>&) const noexcept { return true; }
};

template <typename T> using Column = std::vector<T, ColumnAllocator<T>>;

// Makes `c` the column of the n elements in `pages` as they are (a private, writable mapping of
// kMappedBytes or more, page aligned; the column owns it from now on).
template <typename T> void adoptColumn(Column<T>& c, void* pages, size_t n) {
    column_memory::adoptNext(pages, n * sizeof(T));
    Column<T>(column_memory::AsTheyAreIterator(0), column_memory::AsTheyAreIterator(n))
        .swap(c); // the old block goes
}

// A column of n elements left unwritten, for a caller that writes every one before reading it:
// a large one's fresh pages are faulted in only as they are written, not zeroed all at once.
template <typename T> Column<T> unwrittenColumn(size_t n) {
    static_assert(std::is_trivially_default_constructible_v<T>);
    return Column<T>(column_memory::AsTheyAreIterator(0), column_memory::AsTheyAreIterator(n));
}

// Grows an empty column to n elements that read as T{}, without writing them where that is
// already what they hold: a large column is a fresh mapping, whose pages the system gives zeroed
// as they are first written. Presizing a load's columns (hundreds of MB) then costs nothing at
// once, and each page is faulted in by the reader that writes it, not by a zero-filling burst on
// every core that a window's paint has to wait behind.
template <typename T> void presizeZeroed(Column<T>& c, size_t n) {
    if constexpr (std::is_trivially_copyable_v<T>) {
        static const bool zeroIsDefault = [] {
            const T value{};
            const unsigned char zero[sizeof(T)] = {};
            return std::memcmp(&value, zero, sizeof(T)) == 0;
        }();
        if (c.empty() && zeroIsDefault && column_memory::freshBlocksAreZero(n * sizeof(T))) {
            Column<T>(column_memory::AsTheyAreIterator(0), column_memory::AsTheyAreIterator(n))
                .swap(c);
            return;
        }
    }
    c.resize(n);
}

// A column equals a plain vector holding the same values (tests compare them).
template <typename T> bool operator==(const Column<T>& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

} // namespace ls
