// The narrow columns of the model: ends as durations from their start, ids as 16-bit dictionary
// codes, int32 values as small offsets from a block's base. Each reads back exactly what was put
// in, at the edges of its codes too, and copies of the rows keep reading their own starts.
#include "core/import/nsys/dict16_filler.h"
#include "core/model/columns.h"
#include "core/model/end_column.h"
#include "core/model/ids.h"
#include "core/model/narrow_columns.h"
#include "core/model/rowid_block_column.h"
#include "core/model/trace.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <tuple>
#include <vector>

namespace {

using ls::EndColumn;
using ls::StringId;
using ls::TimedRows;

// Rows with these starts and ends, packed.
TimedRows rowsOf(const std::vector<int64_t>& starts, const std::vector<int64_t>& ends) {
    TimedRows r;
    r.setOrigin(1'695'835'542'514'261'000); // a Kineto trace's epoch nanoseconds
    for (size_t i = 0; i < starts.size(); ++i) {
        r.start.push_back(r.start.origin + starts[i]);
        r.importEnd.push_back(r.start.origin + ends[i]);
    }
    r.packEnds();
    return r;
}

TEST(EndColumn, ShortLongAndBackwardDurationsReadBackExactly) {
    const int64_t far = int64_t(EndColumn::kFar); // 2^24 - 1 ns: the first length kept aside
    const std::vector<int64_t> starts = {0, 5, -100, 7, 1'000, 3, 0, -50};
    const std::vector<int64_t> ends = {0,         5 + far - 1, -100 + far, 7 + far + 1,
                                       1'000 - 1, 3 + 3 * far, 12,         -50 + 99};
    const TimedRows r = rowsOf(starts, ends);
    ASSERT_EQ(r.end.size(), starts.size());
    for (size_t i = 0; i < starts.size(); ++i) EXPECT_EQ(r.end[i], r.start.origin + ends[i]) << i;
    // Lengths of 2^24 - 1 ns and more, and the end before its start, are in the side table.
    EXPECT_EQ(r.end.farRows, (std::vector<uint32_t>{2, 3, 4, 5}));
    EXPECT_TRUE(r.importEnd.empty()); // freed once packed
}

TEST(EndColumn, CopiesAndMovesReadTheirOwnStarts) {
    TimedRows a = rowsOf({10, 20}, {15, 40});
    TimedRows copy = a;
    a.start.set(0, a.start.origin + 11); // the original moves: the copy does not
    EXPECT_EQ(copy.end[0], copy.start.origin + 15);
    EXPECT_EQ(a.end[0], a.start.origin + 16);
    TimedRows moved = std::move(copy);
    EXPECT_EQ(moved.end[1], moved.start.origin + 40);
    std::vector<TimedRows> many;
    for (int i = 0; i < 20; ++i) many.push_back(rowsOf({i}, {2 * i})); // reallocations move them
    for (int i = 0; i < 20; ++i) EXPECT_EQ(many[i].end[0] - many[i].start[0], i) << i;
    TimedRows assigned;
    assigned = moved;
    EXPECT_EQ(assigned.end[1], moved.end[1]);
    EXPECT_EQ(assigned.end, moved.end);
}

// Import ends travel with their rows: a far duration's code is an index into the far list, not a
// row, so compacting and permuting the rows (as assembly does before packing) keeps every end.
TEST(ImportEndColumn, FarDurationsFollowTheirRowsThroughCompactAndPermute) {
    TimedRows r;
    r.setOrigin(1'000);
    const std::vector<int64_t> starts = {0, 10, 20, 30, 40, 50};
    const std::vector<int64_t> lengths = {5, int64_t(1) << 31, 7, int64_t(1) << 33, -3, 9};
    for (size_t i = 0; i < starts.size(); ++i) {
        r.start.push_back(1'000 + starts[i]);
        r.importEnd.push_back(1'000 + starts[i] + lengths[i]);
    }
    EXPECT_EQ(r.importEnd.far.size(), 3u) << "2^31, 2^33 and the negative one";
    struct Rows {
        TimedRows& r;
        auto tie() { return std::tie(r.start.packed, r.importEnd.code); }
    } rows{r};
    ls::columns::compact(rows, std::vector<uint8_t>{1, 1, 0, 1, 1, 1}); // drops the row of 7
    ls::columns::permute(rows, std::vector<uint32_t>{4, 3, 2, 1, 0});
    const std::vector<int64_t> want = {9, -3, int64_t(1) << 33, int64_t(1) << 31, 5};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.importEnd.duration(i), want[i]) << i;
    r.packEnds();
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.end[i] - r.start[i], want[i]) << i;
    EXPECT_EQ(r.end.farRows, (std::vector<uint32_t>{1, 2, 3})) << "-3, 2^33 and 2^31";
    EXPECT_TRUE(r.importEnd.empty() && r.importEnd.far.empty());
}

// Op ids coded by their rowid's block follow their rows through compaction and permutation, and
// read back with the rowid: absent ones, values out of a block's reach (in two writers' lists),
// and blocks filled by two writers.
TEST(RowidBlockInt32Column, CodesReadBackByRowidAfterTheRowsMove) {
    ls::RowidBlockInt32Column c;
    const int64_t first = 1'000;
    const size_t n = 200;
    c.presizeCoded(first, n);
    std::vector<int32_t> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = i % 9 == 4 ? -1 : int32_t(5'000'000 + i);
    values[3] = 7;                   // far below block 0's base (set by row 0)
    values[70] = 5'000'000 + 70'000; // far above block 1's
    values[129] = INT32_MAX;         // block 2's base is set by row 128: both far
    values[130] = 0;
    std::vector<ls::RowidBlockInt32Column::Far> writerA, writerB; // rows 0..127, 128..199
    for (size_t i = 0; i < n; ++i) c.code[i] = c.encode(i, values[i], i < 128 ? writerA : writerB);
    EXPECT_EQ(writerA.size(), 2u);
    EXPECT_EQ(writerB.size(), 2u);
    c.adoptFar(writerB);
    c.adoptFar(writerA);
    c.sortFar();
    EXPECT_EQ(c.code[4], ls::RowidBlockInt32Column::kAbsent);
    // Drop every third row, then reverse: each row's rowid goes with it.
    std::vector<uint8_t> keep(n);
    std::vector<int64_t> rowids;
    for (size_t i = 0; i < n; ++i)
        if ((keep[i] = i % 3 != 2)) rowids.push_back(first + int64_t(i));
    struct Rows {
        ls::RowidBlockInt32Column& c;
        auto tie() { return std::tie(c.code, c.wide); }
    } rows{c};
    ls::columns::compact(rows, keep);
    std::vector<uint32_t> reverse(rowids.size());
    for (size_t i = 0; i < reverse.size(); ++i) reverse[i] = uint32_t(reverse.size() - 1 - i);
    ls::columns::permute(rows, reverse);
    std::reverse(rowids.begin(), rowids.end());
    ASSERT_EQ(c.size(), rowids.size());
    size_t held = 0;
    for (size_t i = 0; i < rowids.size(); ++i) {
        EXPECT_EQ(c.value(i, [&] { return rowids[i]; }), values[size_t(rowids[i] - first)]) << i;
        held += values[size_t(rowids[i] - first)] >= 0;
    }
    EXPECT_EQ(c.heldCount(), held);
}

TEST(RowidBlockInt32Column, AWideColumnReadsItsValuesWhatever) {
    ls::RowidBlockInt32Column c;
    c.wide = {5, -1, 42};
    EXPECT_FALSE(c.coded());
    EXPECT_EQ(c.size(), 3u);
    auto noRowid = []() -> int64_t {
        ADD_FAILURE() << "a wide column needs no rowid";
        return 0;
    };
    EXPECT_EQ(c.value(1, noRowid), -1);
    EXPECT_EQ(c.value(2, noRowid), 42);
    EXPECT_EQ(c.heldCount(), 2u);
}

// A range's name and sizes share one 2-byte code a row: both read back, also from copies and
// moves of the ranges' columns, which keep sizes pointed at their own names.
TEST(PairedDict16Column, NameAndSizesShareCodesThroughCopiesAndMoves) {
    std::vector<StringId> names, sizes;
    for (uint32_t i = 0; i < 5000; ++i) {
        names.push_back(StringId(100 + i % 7));
        sizes.push_back(StringId(i % 3 == 0 ? 0 : 900 + (i * 13) % 50));
    }
    ls::RangeColumns r;
    r.name = ls::Dict16Column<StringId>::of(names, names.size());
    r.sizes.pair(r.name, ls::Dict16Column<StringId>::of(sizes, sizes.size()));
    ASSERT_TRUE(r.sizes.paired);
    EXPECT_TRUE(r.sizes.own.empty());
    EXPECT_EQ(r.name.distinct.size(), r.sizes.byPair.size());
    EXPECT_LE(r.sizes.byPair.size(), size_t(7 * 51));
    auto check = [&](const ls::RangeColumns& c, const char* what) {
        ASSERT_EQ(c.sizes.size(), names.size()) << what;
        for (size_t i = 0; i < names.size(); ++i) {
            ASSERT_EQ(c.name[i], names[i]) << what << " " << i;
            ASSERT_EQ(c.sizes[i], sizes[i]) << what << " " << i;
        }
    };
    check(r, "packed");
    ls::RangeColumns copy = r;
    check(copy, "copy");
    std::vector<ls::RangeColumns> moved;
    moved.push_back(std::move(copy));
    moved.emplace_back(); // the vector grows: the first is moved again
    check(moved[0], "moved");
    ls::RangeColumns assigned;
    assigned = moved[0];
    check(assigned, "assigned");
}

// Past 65,536 distinct (name, sizes) pairs the sizes keep codes of their own, also for the rows
// paired before the table filled.
TEST(PairedDict16Column, TooManyPairsKeepCodesOfTheirOwn) {
    std::vector<StringId> names, sizes;
    for (uint32_t i = 0; i < 80000; ++i) {
        names.push_back(StringId(i % 300));
        sizes.push_back(StringId(1000 + i % 257)); // 300 * 257 = 77,100 pairs
    }
    ls::RangeColumns r;
    r.name = ls::Dict16Column<StringId>::of(names, names.size());
    r.sizes.pair(r.name, ls::Dict16Column<StringId>::of(sizes, sizes.size()));
    EXPECT_FALSE(r.sizes.paired);
    EXPECT_EQ(r.name.distinct.size(), 300u);
    for (size_t i = 0; i < names.size(); ++i) {
        ASSERT_EQ(r.name[i], names[i]) << i;
        ASSERT_EQ(r.sizes[i], sizes[i]) << i;
    }
}

// Shared memory sizes take a few dozen values: 2-byte codes; past 65,536 distinct values the
// column keeps them whole, whether made at once or a row at a time.
TEST(ValueDict16Column, FewValuesTakeCodesManyStayWhole) {
    std::vector<uint32_t> few, many;
    for (uint32_t i = 0; i < 100000; ++i) {
        few.push_back(i % 5 == 0 ? 0 : 1024 * (i % 48));
        many.push_back(i * 3);
    }
    const auto a = ls::ValueDict16Column<uint32_t>::of(few, few.size());
    EXPECT_TRUE(a.wide.empty());
    EXPECT_EQ(a.distinct.size(), 48u);
    const auto b = ls::ValueDict16Column<uint32_t>::of(many, many.size());
    EXPECT_TRUE(b.code.empty());
    ls::ValueDict16Column<uint32_t> c;
    for (uint32_t v : many) c.push_back(v);
    EXPECT_TRUE(c.code.empty() && c.distinct.empty());
    ASSERT_EQ(a.size(), few.size());
    ASSERT_EQ(b.size(), many.size());
    ASSERT_EQ(c.size(), many.size());
    for (size_t i = 0; i < few.size(); ++i) {
        ASSERT_EQ(a[i], few[i]) << i;
        ASSERT_EQ(b[i], many[i]) << i;
        ASSERT_EQ(c[i], many[i]) << i;
    }
}

// Row flags take a bit a row: set, cleared and counted across word edges.
TEST(RowFlags, BitsSetAndClearedAcrossWordsAndAllSeesTheLastPartialWord) {
    ls::RowFlags f(130, false);
    EXPECT_FALSE(f.all());
    for (size_t i = 0; i < 130; ++i) f.set(i, i % 3 != 1);
    for (size_t i = 0; i < 130; ++i) ASSERT_EQ(f[i], i % 3 != 1) << i;
    for (size_t i = 0; i < 130; ++i) f.set(i, true);
    EXPECT_TRUE(f.all());
    f.set(129, false);
    EXPECT_FALSE(f.all());
    EXPECT_TRUE(ls::RowFlags(64, true).all());
    EXPECT_TRUE(ls::RowFlags(65, true).all());
    EXPECT_FALSE(ls::RowFlags(65, false).all());
    EXPECT_TRUE(ls::RowFlags().all());
}

// A parallel writer's far durations are numbered from 0 in its own list, then adopted.
TEST(ImportEndColumn, AdoptedFarDurationsAreRenumbered) {
    TimedRows r;
    r.start.push_back(0);
    r.importEnd.push_back(int64_t(1) << 32); // far index 0
    ls::ImportEndColumn::Time local = int64_t(3) << 31;
    r.start.push_back(100);
    r.importEnd.code.push_back(ls::ImportEndColumn::encode(local, 0)); // the writer's index 0
    const uint32_t offset = r.importEnd.adopt({local});
    r.importEnd.code[1] += offset;
    EXPECT_EQ(r.importEnd[0], int64_t(1) << 32);
    EXPECT_EQ(r.importEnd[1], 100 + local);
}

// Chunks set their rows' codes one after another; the chunk that takes the column past 65,536
// distinct ids turns it wide, rows set before keep their ids, and skipped rows are never read.
TEST(Dict16Filler, ThePastMaxChunkTurnsTheColumnWideAndKeepsEveryId) {
    const size_t n = 100'000, half = 40'000;
    ls::Dict16Column<StringId> c;
    c.code.assign(n, 0);
    ls::RowFlags valid(n, true);
    valid.set(7, false);
    ls::Dict16Filler<StringId> filler(c, valid);
    std::vector<StringId> first, second;
    for (uint32_t i = 0; i < half; ++i) first.emplace_back(1'000'000 + i);
    for (uint32_t i = 0; i < n - half; ++i) second.emplace_back(5'000'000 + i);
    filler.beginChunk(first);
    for (size_t i = 0; i < half; ++i)
        if (valid[i]) filler.set(i, first[i]);
    filler.done(0, half);
    EXPECT_TRUE(c.wide.empty()) << "40,000 distinct ids fit";
    filler.beginChunk(second);
    for (size_t i = half; i < n; ++i) filler.set(i, second[i - half]);
    filler.done(half, n);
    filler.finish();
    ASSERT_EQ(c.wide.size(), n);
    EXPECT_TRUE(c.code.empty());
    for (size_t i = 0; i < n; ++i) {
        if (!valid[i]) continue;
        ASSERT_EQ(c[i], i < half ? first[i] : second[i - half]) << i;
    }
}

TEST(Dict16Filler, FewIdsStayCodes) {
    ls::Dict16Column<StringId> c;
    c.code.assign(6, 0);
    const ls::RowFlags valid(6, true);
    ls::Dict16Filler<StringId> filler(c, valid);
    filler.beginChunk({StringId(9), StringId(4)});
    for (size_t i = 0; i < 3; ++i) filler.set(i, StringId(i == 1 ? 4 : 9));
    filler.done(0, 3);
    filler.beginChunk({StringId(4), StringId(300)});
    for (size_t i = 3; i < 6; ++i) filler.set(i, StringId(i == 5 ? 300 : 4));
    filler.done(3, 6);
    filler.finish();
    EXPECT_TRUE(c.wide.empty());
    EXPECT_EQ(c.distinct.size(), 3u);
    const std::vector<uint32_t> want = {9, 4, 9, 4, 4, 300};
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(c[i].value, want[i]) << i;
}

// Ids rising with the rows read back exactly, invalid ones too, and a jump past 16 bits in the
// middle of a block.
TEST(BlockIdColumn, RisingIdsInvalidOnesAndJumpsReadBack) {
    std::vector<ls::RangeId> ids;
    for (uint32_t i = 0; i < 1'000; ++i)
        ids.push_back(i % 9 == 0    ? ls::RangeId()
                      : i == 500    ? ls::RangeId(2'000'000'000)
                      : i % 64 == 3 ? ls::RangeId(7)
                                    : ls::RangeId(100'000 + 3 * i));
    const auto c = ls::BlockIdColumn<ls::RangeId>::of(ids, ids.size());
    ASSERT_EQ(c.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(c[i], ids[i]) << i;
    EXPECT_LT(c.farRows.size(), 40u) << "most rows within reach of their block's bases";
    EXPECT_TRUE(std::is_sorted(c.begin() + 10, c.begin() + 18)) << "iterates as ids";
    EXPECT_EQ(c, ls::BlockIdColumn<ls::RangeId>::of(ids, ids.size()));
}

// Two runs taking turns (a forward thread's ranges and the autograd thread's, far apart) fit the
// two bases of each block; a third run in the same block goes to the side table.
TEST(BlockIdColumn, TwoRunsTakingTurnsNeedNoSideTableAThirdDoes) {
    std::vector<ls::OpId> ids;
    for (uint32_t i = 0; i < 640; ++i)
        ids.emplace_back(i % 2 ? 5'000'000 + i : 10 + i / 2); // 10 blocks of two interleaved runs
    auto c = ls::BlockIdColumn<ls::OpId>::of(ids, ids.size());
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(c[i], ids[i]) << i;
    EXPECT_TRUE(c.farRows.empty());
    ids[100] = ls::OpId(900'000'000);
    ids[101] = ls::OpId(0x7FFE + 5'000'000 + 200); // just out of the second base's reach
    c = ls::BlockIdColumn<ls::OpId>::of(ids, ids.size());
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(c[i], ids[i]) << i;
    EXPECT_EQ(c.farRows, (std::vector<uint32_t>{100, 101}));
}

TEST(EndColumn, AnEmptyColumnHasNoRows) {
    const TimedRows r = rowsOf({}, {});
    EXPECT_TRUE(r.end.empty());
    EXPECT_EQ(r.end.size(), 0u);
    EXPECT_TRUE(r.end.farRows.empty());
}

TEST(Dict16Column, FewDistinctIdsTakeTwoBytesARow) {
    std::vector<StringId> ids;
    for (uint32_t i = 0; i < 10'000; ++i) ids.emplace_back(i % 7 == 0 ? 0 : 1'000 + i % 300);
    ids.push_back(StringId()); // an invalid id is a value like any other
    const auto c = ls::Dict16Column<StringId>::of(ids, ids.size());
    ASSERT_EQ(c.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(c[i], ids[i]) << i;
    EXPECT_TRUE(c.wide.empty());
    EXPECT_EQ(c.distinct.size(), 302u);
    EXPECT_EQ(c.distinct.front(), 0u); // in order of first use
}

TEST(Dict16Column, SparseIdsUseTheHashTableAndReadBack) {
    std::vector<StringId> ids = {StringId(4'000'000'000u), StringId(3), StringId(4'000'000'000u),
                                 StringId(70'000'000)};
    const auto c = ls::Dict16Column<StringId>::of(ids, ids.size());
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(c[i], ids[i]) << i;
    EXPECT_EQ(c.distinct.size(), 3u);
}

TEST(Dict16Column, MoreThan65536DistinctIdsFallBackTo32Bits) {
    for (const uint32_t distinct : {65'536u, 65'537u}) {
        std::vector<StringId> ids;
        for (uint32_t i = 0; i < distinct; ++i) ids.emplace_back(distinct - 1 - i);
        ids.emplace_back(5); // a repeat after the last new one
        const auto c = ls::Dict16Column<StringId>::of(ids, ids.size());
        ASSERT_EQ(c.size(), ids.size());
        for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(c[i], ids[i]) << distinct << " " << i;
        EXPECT_EQ(c.wide.empty(), distinct == 65'536u) << distinct;
        EXPECT_EQ(c.code.empty(), distinct == 65'537u) << distinct;
    }
}

// Recoding a coded column through a permutation (or none) gives the very column that coding the
// permuted ids gives: the same codes in the same order of first use, one id listed twice in the
// source's table included, and a wide source stays right.
TEST(Dict16Column, GatherThroughItsCodesEqualsCodingTheGatheredIds) {
    std::vector<StringId> ids;
    for (uint32_t i = 0; i < 5'000; ++i) ids.emplace_back(9'000'000 + (i * 7919) % 211);
    auto from = ls::Dict16Column<StringId>::of(ids, ids.size());
    // A table holding one id under two codes (a merge of chunk tables may give one).
    from.distinct.push_back(from.distinct[3]);
    for (size_t i = 0; i < from.code.size(); i += 5)
        if (from.code[i] == 3) from.code[i] = static_cast<uint16_t>(from.distinct.size() - 1);
    ls::Column<uint32_t> perm(ids.size());
    for (uint32_t i = 0; i < perm.size(); ++i) perm[i] = (i * 4'999u + 17) % 5'000u;
    std::vector<StringId> permuted;
    for (uint32_t p : perm) permuted.push_back(ids[p]);
    const auto want = ls::Dict16Column<StringId>::of(permuted, permuted.size());
    const auto got = ls::Dict16Column<StringId>::gather(from, &perm);
    EXPECT_EQ(got.code, want.code);
    EXPECT_EQ(got.distinct, want.distinct);
    EXPECT_TRUE(got.wide.empty());
    const auto inPlace = ls::Dict16Column<StringId>::gather(from, nullptr);
    EXPECT_EQ(inPlace.distinct, ls::Dict16Column<StringId>::of(ids, ids.size()).distinct);
    for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(inPlace[i], ids[i]) << i;
    std::vector<StringId> many;
    for (uint32_t i = 0; i < 70'000; ++i) many.emplace_back(i);
    const auto wide = ls::Dict16Column<StringId>::of(many, many.size());
    ASSERT_FALSE(wide.wide.empty());
    ls::Column<uint32_t> reverse(many.size());
    for (uint32_t i = 0; i < reverse.size(); ++i) reverse[i] = 69'999 - i;
    const auto back = ls::Dict16Column<StringId>::gather(wide, &reverse);
    for (size_t i = 0; i < many.size(); i += 997) ASSERT_EQ(back[i], many[69'999 - i]) << i;
    EXPECT_TRUE(ls::Dict16Column<StringId>::gather(ls::Dict16Column<StringId>(), nullptr).empty());
}

TEST(Dict16Column, AnEmptyColumnHasNoRows) {
    const auto c = ls::Dict16Column<StringId>::of(std::vector<StringId>{}, 0);
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(c, ls::Dict16Column<StringId>());
}

using OpIds = ls::BlockInt32Column<uint16_t, -1>;

TEST(BlockInt32Column, RunsOfIdsAbsentRowsAndFarOnesReadBack) {
    std::vector<int32_t> v;
    for (int32_t i = 0; i < 1'000; ++i) v.push_back(17'236 + i);
    v[10] = -1;                                  // absent
    v[70] = std::numeric_limits<int32_t>::max(); // far from its block
    v[71] = std::numeric_limits<int32_t>::min(); // below every base
    v[130] = 17'236 + 130 + OpIds::kFarCode - 1; // just out of reach of the block's least
    v[200] = -1'000'000;                         // far below its block
    v.push_back(-1);                             // a last block of one absent row
    const auto c = OpIds::of(v, v.size());
    ASSERT_EQ(c.size(), v.size());
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(c[i], v[i]) << i;
    EXPECT_EQ(c.base.size(), (v.size() + 63) / 64);
    EXPECT_EQ(c.farRows, (std::vector<uint32_t>{70, 71, 130, 200}));
    EXPECT_EQ(sizeof(c.offset[0]), 2u);
}

TEST(BlockInt32Column, ABlockTakesTheBaseThatReachesMostOfItsValues) {
    // One small value among 63 large ones: the large ones are in reach, the small one is far.
    std::vector<int32_t> v(64);
    v[0] = 5;
    for (int32_t i = 1; i < 64; ++i) v[i] = 1'000'000 + i;
    const auto c = OpIds::of(v, v.size());
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(c[i], v[i]) << i;
    EXPECT_EQ(c.farRows, (std::vector<uint32_t>{0}));
}

TEST(BlockInt32Column, ByteOffsetsHoldAResultColumn) {
    using Results = ls::BlockInt32Column<uint8_t, std::numeric_limits<int32_t>::min()>;
    std::vector<int32_t> v(300, 0);
    v[3] = 2;                                   // cudaErrorMemoryAllocation
    v[4] = std::numeric_limits<int32_t>::min(); // not recorded
    v[5] = 999;                                 // too far for a byte
    v[6] = -1;
    const auto c = Results::of(v, v.size());
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(c[i], v[i]) << i;
    EXPECT_EQ(c.farRows, (std::vector<uint32_t>{5}));
    EXPECT_EQ(sizeof(c.offset[0]), 1u);
}

TEST(BlockInt32Column, AnEmptyColumnHasNoRows) {
    const auto c = OpIds::of(std::vector<int32_t>{}, 0);
    EXPECT_TRUE(c.empty());
    EXPECT_TRUE(c.base.empty());
}

} // namespace

namespace {

// FLOPs and bytes are written kernel by kernel in any order: each value once in the table, every
// NaN of one bit pattern one value, and past 65,536 distinct values the column turns whole
// part way through, keeping the rows written before.
TEST(ValueDict16Writer, RowsSetInAnyOrderReadBackAndManyValuesTurnWhole) {
    const size_t n = 200000;
    auto valueOf = [](size_t i, size_t distinct) {
        return i % 3 == 0 ? std::nan("") : double(i % distinct) * 1.5e9;
    };
    for (size_t distinct : {size_t(100), size_t(150000)}) { // 100 and 100,000 values set
        ls::ValueDict16Column<double> c;
        ls::ValueDict16Writer<double> w(c, n, std::nan(""));
        for (size_t k = 0; k < n; ++k) {
            const size_t i = (k * 7919) % n; // every row once, out of order
            if (i % 3 != 0) w.set(i, valueOf(i, distinct));
        }
        ASSERT_EQ(c.size(), n);
        EXPECT_EQ(c.wide.empty(), distinct == 100) << distinct;
        if (distinct == 100) {
            EXPECT_EQ(c.distinct.size(), 100u + 1u) << "the NaN once";
        }
        for (size_t i = 0; i < n; ++i) {
            const double want = valueOf(i, distinct);
            if (std::isnan(want))
                ASSERT_TRUE(std::isnan(c[i])) << i;
            else
                ASSERT_EQ(c[i], want) << i;
        }
    }
    // of() tells values by their bits too: NaNs make one code, not one each.
    std::vector<double> nans(70000, std::nan(""));
    nans[5] = 2.0;
    const auto d = ls::ValueDict16Column<double>::of(nans, nans.size());
    EXPECT_TRUE(d.wide.empty());
    EXPECT_EQ(d.distinct.size(), 2u);
}

// A range's kind, flags and depth take one byte: a code of the combination, read back through
// the three views; past 256 combinations the rows keep theirs whole.
TEST(RangeShapeColumn, KindsFlagsAndDepthsReadBackThroughTheirViews) {
    for (size_t depths : {size_t(10), size_t(200)}) {
        const size_t n = 5000;
        std::vector<ls::RangeKind> kinds;
        std::vector<uint8_t> flags, depth;
        for (size_t i = 0; i < n; ++i) {
            kinds.push_back(static_cast<ls::RangeKind>(i % 3));
            flags.push_back(static_cast<uint8_t>(i % 7 == 0 ? ls::kPytorchMarker : 0));
            depth.push_back(static_cast<uint8_t>(i % depths));
        }
        ls::RangeColumns r;
        r.shape = ls::RangeShapeColumn::of(kinds, flags, depth, n);
        EXPECT_EQ(r.shape.wide.empty(), depths == 10) << depths;
        // Copies and moves read their own shape.
        ls::RangeColumns copy = r;
        r.shape = {};
        const ls::RangeColumns moved = std::move(copy);
        ASSERT_EQ(moved.kind.size(), n);
        for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(moved.kind[i], kinds[i]) << i;
            ASSERT_EQ(moved.flags[i], flags[i]) << i;
            ASSERT_EQ(moved.depth[i], depth[i]) << i;
        }
        EXPECT_EQ(std::count(moved.kind.begin(), moved.kind.end(), ls::RangeKind::Mark),
                  std::ptrdiff_t(n / 3));
    }
}

// Ends and starts pack straight through a permutation: the same columns as a permutation first,
// then the packing.
TEST(TimedRows, PackingThroughAPermutationEqualsPermutingFirst) {
    const size_t n = 100000;
    TimedRows a, b;
    for (TimedRows* r : {&a, &b}) r->setOrigin(1'000'000'000'000);
    std::vector<int64_t> starts, ends;
    for (size_t i = 0; i < n; ++i) {
        starts.push_back(1'000'000'000'000 + int64_t((i * 7) % n) * 1000 +
                         (i % 5 == 0 ? 1 << 30 : 0));
        ends.push_back(starts.back() + (i % 11 == 0 ? int64_t(1) << 33 : int64_t(i % 900)));
    }
    ls::Column<uint32_t> perm = ls::unwrittenColumn<uint32_t>(n);
    for (size_t i = 0; i < n; ++i) perm[i] = uint32_t((i * 31) % n);
    for (size_t i = 0; i < n; ++i) {
        a.start.push_back(starts[i]);
        a.importEnd.push_back(ends[i]);
        b.start.push_back(starts[perm[i]]);
        b.importEnd.push_back(ends[perm[i]]);
    }
    a.packEnds(&perm);
    a.start.packBlocks(&perm);
    b.packEnds();
    b.start.packBlocks();
    ASSERT_TRUE(a.start.blocksConsistent());
    for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(a.start[i], starts[perm[i]]) << i;
        ASSERT_EQ(a.end[i], ends[perm[i]]) << i;
    }
    EXPECT_EQ(a.start.farRows, b.start.farRows);
    EXPECT_EQ(a.end.farRows, b.end.farRows);
}

} // namespace
