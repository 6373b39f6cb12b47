// The model's column type: it behaves as a std::vector (zeros on resize, values kept as it
// grows, equal copies), its big blocks are page mappings of their own, and an adopted block
// becomes a column's contents as it is, taken only by the allocation of its size.
#include "core/model/column.h"
#include "core/model/ids.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <numeric>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

using ls::Column;
namespace mem = ls::column_memory;

constexpr size_t kBig = mem::kMappedBytes / sizeof(uint32_t) + 1000; // a block of its own

TEST(Column, ResizeGivesZerosInSmallAndBigBlocksAfterAClear) {
    for (size_t n : {size_t(10), kBig}) {
        Column<uint32_t> c;
        c.resize(n);
        EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](uint32_t v) { return v == 0; }));
        std::fill(c.begin(), c.end(), 7u);
        c.clear();
        c.resize(n);
        EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](uint32_t v) { return v == 0; }))
            << n << " values";
    }
}

// Presized columns read as value-initialized ones, big (left to the system's zeroed pages) or
// small (written), and so does a type whose default is not all zero bytes (an invalid id).
TEST(Column, PresizedColumnsReadAsDefaultValuesWhateverTheirSize) {
    for (const size_t n : {size_t(10), size_t(3'000'000)}) {
        Column<uint16_t> codes;
        ls::presizeZeroed(codes, n);
        ASSERT_EQ(codes.size(), n);
        EXPECT_TRUE(std::all_of(codes.begin(), codes.end(), [](uint16_t v) { return v == 0; }));
        codes[n - 1] = 7; // writable to the last row
        Column<ls::StringId> ids;
        ls::presizeZeroed(ids, n);
        ASSERT_EQ(ids.size(), n);
        EXPECT_TRUE(std::all_of(ids.begin(), ids.end(), [](ls::StringId v) { return !v.valid(); }));
    }
    Column<uint32_t> held = {1, 2, 3}; // a column with rows grows as resize() grows it
    ls::presizeZeroed(held, 5);
    EXPECT_EQ(held, (std::vector<uint32_t>{1, 2, 3, 0, 0}));
}

TEST(Column, ValuesSurviveGrowthPastTheMappedSizeAndCopiesAreEqual) {
    Column<uint64_t> c;
    for (uint64_t i = 0; i < kBig; ++i) c.push_back(i * 3);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % mem::kPageBytes, 0u)
        << "a big block is a mapping of its own";
    for (uint64_t i = 0; i < kBig; ++i) ASSERT_EQ(c[i], i * 3);
    const Column<uint64_t> copy = c;
    EXPECT_EQ(copy, c);
    EXPECT_NE(copy.data(), c.data());
    std::vector<uint64_t> plain(kBig);
    std::iota(plain.begin(), plain.end(), 0);
    for (auto& v : plain) v *= 3;
    EXPECT_EQ(c, plain);
}

#if defined(__linux__)
TEST(Column, AnAdoptedBlockBecomesTheColumnAndOnlyAnAllocationOfItsSizeTakesIt) {
    const size_t n = kBig, bytes = n * sizeof(uint32_t),
                 length = (bytes + mem::kPageBytes - 1) & ~(mem::kPageBytes - 1);
    void* pages =
        ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(pages, MAP_FAILED);
    auto* values = static_cast<uint32_t*>(pages);
    std::iota(values, values + n, 5u);

    mem::adoptNext(pages, bytes);
    Column<uint32_t> other(n + 1); // another size: new memory
    EXPECT_NE(other.data(), values);
    Column<uint8_t> small(16);
    EXPECT_NE(static_cast<void*>(small.data()), pages);
    EXPECT_EQ(mem::takeAdopted(bytes), pages) << "still pending";

    Column<uint32_t> c(3, 7u); // a block of its own, given up
    ls::adoptColumn(c, pages, n);
    EXPECT_EQ(c.data(), values);
    EXPECT_EQ(c.size(), n);
    EXPECT_EQ(mem::takeAdopted(bytes), nullptr) << "taken once";
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], 5u + i);
    c.push_back(1); // grows into new memory; the adopted block is unmapped
    EXPECT_NE(c.data(), values);
    EXPECT_EQ(c[n - 1], 5u + n - 1);
}

// Columns of several huge pages start on a 2 MiB boundary, so that all but their last partial
// huge page can be faulted in as huge pages; the whole block is writable and unmaps cleanly.
TEST(Column, BlocksOfSeveralHugePagesStartOnAHugePageBoundary) {
    constexpr size_t kHuge = size_t(2) << 20;
    for (size_t bytes : {4 * kHuge, 4 * kHuge + 3 * mem::kPageBytes, 9 * kHuge + 12345}) {
        Column<uint8_t> c(bytes, uint8_t(5));
        EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % kHuge, 0u) << bytes;
        EXPECT_EQ(c.front(), 5);
        EXPECT_EQ(c.back(), 5);
        c[bytes / 2] = 9;
        EXPECT_EQ(std::count(c.begin(), c.end(), uint8_t(9)), 1);
    }
    // Smaller mapped blocks keep the system's placement (page aligned only).
    Column<uint8_t> small(mem::kMappedBytes + 1);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % mem::kPageBytes, 0u);
}

TEST(Column, SmallBlocksAreNeverAdopted) {
    alignas(16) static uint32_t values[64] = {};
    mem::adoptNext(values, sizeof values);
    EXPECT_EQ(mem::takeAdopted(sizeof values), nullptr)
        << "deallocate would unmap a block that is no mapping";
}
#endif

} // namespace
