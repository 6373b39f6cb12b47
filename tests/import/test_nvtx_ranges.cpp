// NVTX_EVENTS variants as small SQL fixtures: text vs textId, domains, unended ranges, ranges
// ending on another thread, nesting (depth, parent, per-thread order) and PyTorch markers.
#include "tests/support/nsys_fixture.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::test;
using namespace ls::test::fixture;
using ls::Anomaly;

// Every fixture needs one GPU table to count as an Nsight Systems export: one runtime call.
std::string withNvtx(std::string_view rows) {
    return cat(
        {kStringIds, kRuntimeTable, kNvtxTable,
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId) VALUES (0, 10, 1);\n",
         rows});
}

// Indexes of the ranges of the thread with this tid, in model order.
std::vector<uint32_t> rangesOf(const ls::Trace& t, uint32_t tid) {
    std::vector<uint32_t> out;
    for (size_t th = 0; th < t.threads.size(); ++th)
        if (t.threads[th].tid == tid)
            for (uint32_t i = t.threadRangeBegin[th]; i < t.threadRangeBegin[th + 1]; ++i)
                out.push_back(i);
    return out;
}

std::vector<std::string> names(const ls::Trace& t, const std::vector<uint32_t>& ids) {
    std::vector<std::string> out;
    for (uint32_t i : ids) out.emplace_back(t.str(t.ranges.name[i]));
    return out;
}

TEST(NvtxRanges, TextIdIsResolvedThroughStringIdsWhenThereIsNoTextColumn) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kRuntimeTable, R"(
        CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER,
                                 textId INTEGER, domainId INTEGER);
        INSERT INTO StringIds VALUES (1, 'layer3'), (2, 'forward');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId) VALUES (0, 10, 1);
        INSERT INTO NVTX_EVENTS VALUES (100, 900, 59, (100 << 24) | 101, 2, 0), (200, 300, 59, (100 << 24) | 101, 1, 0),
                                       (400, 500, 59, (100 << 24) | 101, 77, 0);
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(names(*t, rangesOf(*t, 101)), (std::vector<std::string>{"forward", "layer3", ""}));
    EXPECT_TRUE(hasDetail(*t, Anomaly::UnknownStringId, "NVTX_EVENTS.textId"));
    EXPECT_FALSE(hasDetail(*t, Anomaly::MissingColumn, "NVTX_EVENTS.textId"));
    EXPECT_TRUE(hasDetail(*t, Anomaly::MissingColumn, "NVTX_EVENTS.text"));
}

// A domain is created by an eventType 75 row of its process; its ranges get "Domain:" prefixed.
TEST(NvtxRanges, DomainRangesArePrefixedWithTheirProcessesDomainName) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO StringIds VALUES (5, 'MPI_Init');
        INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, domainId) VALUES
            (-5, NULL, 75, 'cuBLAS', (100 << 24) | 101, 1),
            (-5, NULL, 75, 'NCCL', (200 << 24) | 201, 1),
            (-5, NULL, 75, 'MPI', (100 << 24) | 101, 2),
            (100, 200, 59, 'gemm', (100 << 24) | 101, 1),
            (300, 400, 59, 'allreduce', (200 << 24) | 201, 1),
            (500, 600, 59, 'plain', (100 << 24) | 101, 0),
            (700, 800, 59, 'orphan', (100 << 24) | 101, 9);
        INSERT INTO NVTX_EVENTS(start, end, eventType, textId, globalTid, domainId) VALUES
            (900, 950, 59, 5, (100 << 24) | 101, 2);
    )"));
    ASSERT_TRUE(t);
    EXPECT_EQ(
        names(*t, rangesOf(*t, 101)),
        (std::vector<std::string>{"cuBLAS:gemm", "plain", "domain 9:orphan", "MPI:MPI_Init"}));
    EXPECT_EQ(names(*t, rangesOf(*t, 201)), (std::vector<std::string>{"NCCL:allreduce"}));
    EXPECT_EQ(t->ranges.size(), 5u) << "domain-creation rows are not ranges";
    EXPECT_EQ(t->report.count(Anomaly::UnendedRange), 0u);
}

TEST(NvtxRanges, UnendedRangeEndsAtCaptureEndAndIsCounted) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (5, NULL, 'never popped'), (6, 8, 'inner');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId) VALUES (40, 1234, 2);
    )"));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->ranges.size(), 2u);
    EXPECT_EQ(t->captureEnd, 1234);
    EXPECT_EQ(t->str(t->ranges.name[0]), "never popped");
    EXPECT_EQ(t->ranges.end[0], 1234);
    EXPECT_TRUE(t->ranges.flags[0] & ls::kUnended);
    EXPECT_FALSE(t->ranges.flags[1] & ls::kUnended);
    EXPECT_EQ(t->ranges.parent[1], ls::RangeId(0))
        << "the unended range still encloses later ranges";
    EXPECT_EQ(t->report.count(Anomaly::UnendedRange), 1u);
}

TEST(NvtxRanges, StartEndRangeEndingOnAnotherThreadStaysOnItsStartThread) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, endGlobalTid) VALUES
            (100, 200, 60, 'async work', (100 << 24) | 101, (100 << 24) | 102),
            (300, 400, 60, 'same thread', (100 << 24) | 101, (100 << 24) | 101);
    )"));
    ASSERT_TRUE(t);
    const auto r = rangesOf(*t, 101);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(t->ranges.kind[r[0]], ls::RangeKind::StartEnd);
    EXPECT_TRUE(t->ranges.flags[r[0]] & ls::kEndsOnOtherThread);
    EXPECT_FALSE(t->ranges.flags[r[1]] & ls::kEndsOnOtherThread);
    EXPECT_TRUE(rangesOf(*t, 102).empty());
    EXPECT_EQ(t->report.count(Anomaly::RangeEndsOnOtherThread), 1u);
}

// Thread 101: A[0,100] > B[10,50] > C[20,30], and D[60,90] in A; written out of order, with
// thread 102's E[5,95] in between. Nesting is per thread.
TEST(NvtxRanges, PushPopNestingGivesDepthAndParentPerThread) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, text, globalTid) VALUES
            (60, 90, 'D', (100 << 24) | 101), (0, 100, 'A', (100 << 24) | 101), (5, 95, 'E', (100 << 24) | 102),
            (20, 30, 'C', (100 << 24) | 101), (10, 50, 'B', (100 << 24) | 101);
    )"));
    ASSERT_TRUE(t);
    const auto r = rangesOf(*t, 101);
    ASSERT_EQ(names(*t, r), (std::vector<std::string>{"A", "B", "C", "D"}))
        << "sorted by start within the thread";
    const auto& g = t->ranges;
    EXPECT_EQ(std::vector<uint16_t>({g.depth[r[0]], g.depth[r[1]], g.depth[r[2]], g.depth[r[3]]}),
              (std::vector<uint16_t>{0, 1, 2, 1}));
    EXPECT_FALSE(g.parent[r[0]].valid());
    EXPECT_EQ(g.parent[r[1]], ls::RangeId(r[0]));
    EXPECT_EQ(g.parent[r[2]], ls::RangeId(r[1]));
    EXPECT_EQ(g.parent[r[3]], ls::RangeId(r[0]));
    const auto e = rangesOf(*t, 102);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(g.depth[e[0]], 0) << "E overlaps A..D in time but on another thread";
    EXPECT_FALSE(g.parent[e[0]].valid());
    EXPECT_EQ(t->report.count(Anomaly::ImproperNesting), 0u);
    for (uint32_t i : r)
        EXPECT_EQ(t->rangeThread(ls::RangeId(i)), t->rangeThread(ls::RangeId(r[0])));
}

TEST(NvtxRanges, EqualStartsPutTheLongerRangeFirstAsTheParent) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (200, 250, 'inner'), (200, 300, 'outer'), (100, 150, 'before');
    )"));
    ASSERT_TRUE(t);
    const auto r = rangesOf(*t, 101);
    ASSERT_EQ(names(*t, r), (std::vector<std::string>{"before", "outer", "inner"}));
    EXPECT_EQ(t->ranges.parent[r[2]], ls::RangeId(r[1]));
    EXPECT_EQ(t->ranges.depth[r[2]], 1);
}

// A zero-length range at a mark's time nests in the enclosing range, not in the mark.
TEST(NvtxRanges, MarksNestInRangesButNeverBecomeParents) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text) VALUES
            (0, 100, 59, 'range'), (10, NULL, 34, 'mark'), (10, 10, 59, 'empty'), (20, 30, 59, 'after');
    )"));
    ASSERT_TRUE(t);
    const auto r = rangesOf(*t, 101);
    ASSERT_EQ(names(*t, r), (std::vector<std::string>{"range", "mark", "empty", "after"}));
    const auto& g = t->ranges;
    EXPECT_EQ(g.kind[r[1]], ls::RangeKind::Mark);
    EXPECT_EQ(g.end[r[1]], 10) << "a mark is an instant";
    EXPECT_EQ(g.parent[r[1]], ls::RangeId(r[0]));
    EXPECT_EQ(g.parent[r[2]], ls::RangeId(r[0])) << "not the mark";
    EXPECT_EQ(g.depth[r[2]], 1);
    EXPECT_EQ(g.parent[r[3]], ls::RangeId(r[0]));
    EXPECT_EQ(t->report.count(Anomaly::UnendedRange), 0u) << "marks have no end by nature";
}

// Push/pop ranges must nest; an overlap is bad data. Start/end ranges may overlap freely (see
// StartEndRangesMayOverlapFreely).
TEST(NvtxRanges, PushPopOverlapWithoutNestingIsCounted) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text) VALUES (0, 100, 59, 'first'), (50, 150, 59, 'second');
    )"));
    ASSERT_TRUE(t);
    const auto r = rangesOf(*t, 101);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(t->ranges.depth[r[1]], 0);
    EXPECT_FALSE(t->ranges.parent[r[1]].valid());
    EXPECT_EQ(t->report.count(Anomaly::ImproperNesting), 1u);
}

TEST(NvtxRanges, StartEndRangesMayOverlapFreely) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text) VALUES (0, 100, 59, 'outer'), (10, 20, 59, 'inner'),
            (50, 150, 60, 'async');
    )"));
    ASSERT_TRUE(t);
    const auto r = rangesOf(*t, 101);
    ASSERT_EQ(names(*t, r), (std::vector<std::string>{"outer", "inner", "async"}));
    EXPECT_EQ(t->report.count(Anomaly::ImproperNesting), 0u);
    // The start/end range hangs under the push/pop range open at its start and never becomes a
    // parent, so it cannot cut the push/pop nesting.
    EXPECT_EQ(t->ranges.parent[r[2]], ls::RangeId(r[0]));
    EXPECT_EQ(t->ranges.parent[r[1]], ls::RangeId(r[0]));
}

TEST(NvtxRanges, UnusedEventTypesAndNullStartsAreCountedNotLoaded) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text) VALUES
            (1, NULL, 39, 'MPI Rank 0'), (NULL, 5, 59, 'no start'), (2, 4, 59, 'kept'), (3, 1, 59, 'backwards');
    )"));
    ASSERT_TRUE(t);
    EXPECT_EQ(names(*t, rangesOf(*t, 101)), (std::vector<std::string>{"kept", "backwards"}));
    EXPECT_TRUE(hasDetail(*t, Anomaly::UnknownNvtxEventType, "eventType 39"));
    EXPECT_EQ(t->report.count(Anomaly::NullTimestamp), 1u);
    EXPECT_EQ(t->report.count(Anomaly::NegativeDuration), 1u);
}

// Ends are written as durations while reading, with those of 2^31 ns and more kept aside: every
// end reads back exact, long, very long or short, and each range keeps its NVTX_EVENTS rowid
// across the rows the reader skips (they are not stored, only implied by the row's position).
TEST(NvtxRanges, LongDurationsAndSkippedRowsKeepEndsAndSourceRows) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kRuntimeTable, kNvtxTable, R"(
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId) VALUES
            (0, 10, 1), (20, 20 + 3000000000, 2), (30, 30 + 9000000000, 3), (40, 45, 4);
        INSERT INTO NVTX_EVENTS(rowid, start, end, eventType, text) VALUES
            (1, 100, 100 + 2147483647, 59, 'just short'), (2, 1, NULL, 39, 'skipped type'),
            (3, 200, 200 + 2147483648, 59, 'just far'), (4, NULL, 5, 59, 'no start'),
            (5, 300, 300 + 5000000000, 59, 'past 2^32'), (6, 400, 401, 59, 'short');
    )"}));
    ASSERT_TRUE(t);
    const auto& r = t->ranges;
    const auto ids = rangesOf(*t, 101);
    ASSERT_EQ(names(*t, ids),
              (std::vector<std::string>{"just short", "just far", "past 2^32", "short"}));
    const std::vector<int64_t> lengths = {2147483647, 2147483648, 5000000000, 1};
    const std::vector<uint32_t> rowids = {1, 3, 5, 6};
    for (size_t k = 0; k < ids.size(); ++k) {
        EXPECT_EQ(r.end[ids[k]] - r.start[ids[k]], lengths[k]) << k;
        EXPECT_EQ(t->rangeSourceRows.at(ids[k]), rowids[k]) << k;
    }
    const auto& a = t->apiCalls;
    ASSERT_EQ(a.size(), 4u);
    const std::vector<int64_t> calls = {10, 3000000000, 9000000000, 5};
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a.end[i] - a.start[i], calls[i]) << i;
    EXPECT_TRUE(r.importEnd.empty() && a.importEnd.empty()) << "freed once packed";
}

// Names, sizes and threads are 16-bit codes from the read on. 70,000 distinct names overflow
// both a chunk's local codes and the column's 65,536 codes: the column turns wide and every
// range keeps its own name and sizes, whether the rows are placed by rowid or (sparse rowids)
// in read order.
TEST(NvtxRanges, MoreDistinctNamesThanSixteenBitCodesKeepEveryName) {
    for (const char* spacing : {"1", "1000"}) {
        TempDir dir;
        const auto t = load(dir, withNvtx(std::string(R"(
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 70000)
            INSERT INTO NVTX_EVENTS(rowid, start, end, text, globalTid)
                SELECT i * )") + spacing + R"(, 10 * i, 10 * i + 5,
                       'aten::op_' || i || ', sizes = [[' || (i % 3) || ']]',
                       (100 << 24) | (101 + i % 2) FROM n;
        )"));
        ASSERT_TRUE(t) << spacing;
        const auto& r = t->ranges;
        ASSERT_EQ(r.size(), 70000u) << spacing;
        EXPECT_FALSE(r.name.wide.empty()) << "more than 65,536 distinct names";
        for (uint32_t i = 0; i < r.size(); ++i) {
            const int64_t n = r.start[i] / 10; // row n started at 10 n
            ASSERT_EQ(t->str(r.name[i]), "aten::op_" + std::to_string(n)) << spacing << " " << i;
            ASSERT_EQ(t->str(r.sizes[i]), "[[" + std::to_string(n % 3) + "]]") << spacing;
            ASSERT_EQ(int64_t(t->threads[t->rangeThread(ls::RangeId(i)).value].tid), 101 + n % 2);
            ASSERT_EQ(int64_t(t->rangeSourceRows.at(i)), n * std::stoll(spacing)) << spacing;
        }
    }
}

// Op ids and seqs are 16-bit codes above a base per 64 rowids while the rows are read: over two
// read chunks and two threads (grouping them moves every row), with absent values, values far
// from their block's others, and rows the read drops (absurd times), each range keeps its own. Rows
// read in one pass (sparse rowids) keep them whole.
TEST(NvtxRanges, OpIdsAndSeqsOfRangesInSeveralChunksReadBack) {
    for (const char* spacing : {"1", "1000"}) {
        TempDir dir;
        const auto t =
            load(dir, withNvtx(std::string(R"(
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
            INSERT INTO NVTX_EVENTS(rowid, start, end, text, globalTid)
                SELECT i * )") +
                               spacing +
                               R"(, CASE WHEN i % 1000 = 7 THEN 5000000000000000000 ELSE 10 * i END,
                       10 * i + 5,
                       'aten::op, seq = ' || (CASE WHEN i % 5 = 0 THEN 4000000000 + i
                                                   ELSE 300000 - i END)
                       || ', op_id = ' || (CASE WHEN i % 97 = 3 THEN i * 5000 ELSE i END),
                       (100 << 24) | (101 + (i / 10) % 2) FROM n
                WHERE i % 4 != 1;
            UPDATE NVTX_EVENTS SET text = 'layer' WHERE rowid % 11 = 0;
        )"));
        ASSERT_TRUE(t) << spacing;
        const auto& r = t->ranges;
        size_t checked = 0;
        for (uint32_t j = 0; j < r.size(); ++j) {
            const int64_t i = r.start[j] / 10; // row i started at 10 i
            if ((i * std::stoll(spacing)) % 11 == 0) {
                ASSERT_EQ(r.opId[j], -1) << spacing << " " << i;
                ASSERT_EQ(r.seq[j], -1) << spacing << " " << i;
                continue;
            }
            // seq above 2^31 is out of range: counted, and clamped.
            const int64_t seq = i % 5 == 0 ? INT32_MAX : 300000 - i;
            ASSERT_EQ(r.opId[j], i % 97 == 3 ? i * 5000 : i) << spacing << " " << i;
            ASSERT_EQ(r.seq[j], seq) << spacing << " " << i;
            ++checked;
        }
        EXPECT_GT(checked, 200000u) << spacing;
    }
}

TEST(NvtxRanges, PytorchMarkersAreParsedAtLoadAndShareANormalizedName) {
    TempDir dir;
    const auto t = load(dir, withNvtx(R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES
            (100, 200, 'aten::addmm, seq = 5, op_id = 12, sizes = [[8, 768], [768, 3072]], input_op_ids = [(11,0), (0,-1)]'),
            (300, 400, 'aten::addmm, seq = 6, op_id = 13, sizes = [[8, 768], [768, 3072]], input_op_ids = [(12,0), (0,-1)]'),
            (500, 600, 'aten::mul, stashed seq = 7'),
            (700, 800, 'layer3');
    )"));
    ASSERT_TRUE(t);
    const auto& g = t->ranges;
    ASSERT_EQ(g.size(), 4u);
    EXPECT_EQ(g.name[0], g.name[1]) << "op_id and seq are not part of the name";
    EXPECT_EQ(t->str(g.name[0]), "aten::addmm");
    EXPECT_EQ(g.seq[0], 5);
    EXPECT_EQ(g.opId[1], 13);
    EXPECT_EQ(t->str(g.sizes[0]), "[[8, 768], [768, 3072]]");
    EXPECT_TRUE(g.flags[0] & ls::kPytorchMarker);
    EXPECT_EQ(t->rangeSourceRows.at(0), 1u) << "rowid in NVTX_EVENTS, to re-read the raw text";
    EXPECT_EQ(t->rangeSourceRows.at(3), 4u);
    EXPECT_EQ(t->str(g.name[2]), "aten::mul");
    EXPECT_EQ(g.seq[2], 7);
    EXPECT_TRUE(g.flags[2] & ls::kSeqIsStashed);
    EXPECT_EQ(t->str(g.name[3]), "layer3");
    EXPECT_EQ(g.seq[3], -1);
    EXPECT_EQ(g.opId[3], -1);
    EXPECT_FALSE(g.flags[3] & ls::kPytorchMarker);
}

} // namespace
