// Correlation on hand-built SQL fixtures (DESIGN.md, correlation and PyTorch semantics): NVTX
// nesting, cross-thread start/end, domains, unended ranges, graph launches, duplicate runtime
// rows and kernels outside any range, checked in the model, in `kernels` and in `summary
// --report nvtx_kern_sum`. PyTorch ops and pairing: test_correlation_pytorch.cpp.
#include "core/pytorch/correlation.h"
#include "tests/support/correlation_fixture.h"

#include <gtest/gtest.h>

namespace {

using namespace ls::test;
using namespace ls::test::fixture;
using ls::Anomaly;

ls::RangeId rangeNamed(const ls::Trace& t, std::string_view name) {
    for (uint32_t i = 0; i < t.ranges.size(); ++i)
        if (t.str(t.ranges.name[i]) == name) return ls::RangeId(i);
    ADD_FAILURE() << "no range " << name;
    return {};
}

std::vector<uint32_t> ids(const std::vector<ls::KernelId>& ks) {
    std::vector<uint32_t> out;
    for (auto k : ks) out.push_back(k.value);
    std::sort(out.begin(), out.end());
    return out;
}

// outer[0,1000] > mid[100,900] > inner[200,300] and a second inner[500,600]; calls inside each.
TEST(CorrelationFixtures, NestedPushPopRangesCountAKernelUnderEveryEnclosingRange) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES
            (0, 1000, 'outer'), (100, 900, 'mid'), (200, 300, 'inner'), (500, 600, 'inner');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES
            (200, 300, 1, 11), (400, 410, 2, 11), (950, 960, 3, 11), (510, 520, 5, 11), (295, 305, 6, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (1000, 1100, 1, 1, 1), (1200, 1250, 2, 2, 2), (1300, 1330, 3, 1, 1), (1400, 1420, 5, 1, 1),
            (1500, 1507, 6, 3, 3);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    ASSERT_EQ(t.kernels.size(), 5u);
    expectKernel(l.kernels, 0,
                 {{"nvtx_range", "inner"},
                  {"nvtx_path", "outer > mid > inner"},
                  {"layer", "inner"},
                  {"api", "cudaLaunchKernel"},
                  {"tid", "101"},
                  {"pid", "100"},
                  {"direction", "other"},
                  {"op", ""},
                  {"seq", ""},
                  {"op_id", ""},
                  {"fwd_op_id", ""},
                  {"sizes", ""}});
    expectKernel(l.kernels, 1,
                 {{"nvtx_range", "mid"}, {"nvtx_path", "outer > mid"}, {"layer", "mid"}});
    expectKernel(l.kernels, 2,
                 {{"nvtx_range", "outer"}, {"nvtx_path", "outer"}, {"layer", "outer"}});
    expectKernel(l.kernels, 3, {{"nvtx_range", "inner"}, {"nvtx_path", "outer > mid > inner"}});
    // The call [295,305] starts inside the first inner range but ends after it: mid is innermost.
    expectKernel(l.kernels, 4, {{"nvtx_range", "mid"}, {"nvtx_path", "outer > mid"}});

    const auto stack = ls::rangeStack(t, ls::KernelId(0));
    ASSERT_EQ(stack.size(), 3u);
    EXPECT_EQ(t.str(t.ranges.name[stack[0].value]), "inner");
    EXPECT_EQ(t.str(t.ranges.name[stack[2].value]), "outer");
    EXPECT_EQ(ids(ls::kernelsUnder(t, rangeNamed(t, "outer"))),
              (std::vector<uint32_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(ids(ls::kernelsUnder(t, rangeNamed(t, "mid"))), (std::vector<uint32_t>{0, 1, 3, 4}));
    EXPECT_EQ(ids(ls::kernelsUnder(t, rangeNamed(t, "inner"))), (std::vector<uint32_t>{0}));
    EXPECT_EQ(ls::kernelsUnderRangesNamed(t, "inner").size(), 2u);
    EXPECT_EQ(cliTable({"kernels", l.file, "--range", "inner"}).rows.size(), 2u);

    // inner/k_a: 2 range instances, durations 100 and 20; outer/k_a: 100, 30, 20.
    EXPECT_EQ(l.nvtxKernSum, withHeader({
                                 "inner,PushPop,100,101,2,2,120,60.0,60.0,20,100,56.6,k_a",
                                 "mid,PushPop,100,101,1,2,120,60.0,60.0,20,100,56.6,k_a",
                                 "mid,PushPop,100,101,1,1,50,50.0,50.0,50,50,0.0,k_b",
                                 "mid,PushPop,100,101,1,1,7,7.0,7.0,7,7,0.0,k_c",
                                 "outer,PushPop,100,101,1,3,150,50.0,30.0,20,100,43.6,k_a",
                                 "outer,PushPop,100,101,1,1,50,50.0,50.0,50,50,0.0,k_b",
                                 "outer,PushPop,100,101,1,1,7,7.0,7.0,7,7,0.0,k_c",
                             }));
}

// A start/end range started on 101 and ended on 102 holds 101's launches, not 102's.
TEST(CorrelationFixtures, StartEndRangeEndingOnAnotherThreadCountsOnItsStartingThread) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text, globalTid, endGlobalTid) VALUES
            (100, 500, 60, 'async', (100 << 24) | 101, (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId, globalTid) VALUES
            (200, 210, 1, 11, (100 << 24) | 101), (300, 310, 2, 11, (100 << 24) | 102);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (1000, 1040, 1, 1, 1), (1100, 1110, 2, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    expectKernel(l.kernels, 0, {{"nvtx_range", "async"}, {"nvtx_path", "async"}, {"tid", "101"}});
    expectKernel(l.kernels, 1,
                 {{"nvtx_range", ""}, {"nvtx_path", ""}, {"layer", ""}, {"tid", "102"}});
    EXPECT_EQ(l.nvtxKernSum, withHeader({
                                 "None,None,100,102,0,1,10,10.0,10.0,10,10,0.0,k_b",
                                 "async,StartEnd,100,101,1,1,40,40.0,40.0,40,40,0.0,k_a",
                             }));
}

// A range in a named domain is "Domain:name" everywhere, PyTorch markers included.
TEST(CorrelationFixtures, DomainRangesCarryTheDomainPrefix) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text, domainId) VALUES
            (-5, NULL, 75, 'Dom', 1),
            (100, 500, 59, 'name', 1),
            (200, 300, 59, 'aten::mm, seq = 3, op_id = 4', 1);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (150, 160, 1, 11), (250, 260, 2, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (1000, 1040, 1, 1, 1), (1100, 1110, 2, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    expectKernel(l.kernels, 0,
                 {{"nvtx_range", "Dom:name"}, {"nvtx_path", "Dom:name"}, {"layer", "Dom:name"}});
    expectKernel(l.kernels, 1,
                 {{"nvtx_range", "Dom:aten::mm, seq = 3, op_id = 4"},
                  {"nvtx_path", "Dom:name > Dom:aten::mm"},
                  {"layer", "Dom:name"},
                  {"op", "Dom:aten::mm"},
                  {"seq", "3"},
                  {"op_id", "4"},
                  {"direction", "forward"}});
    EXPECT_EQ(
        l.nvtxKernSum,
        withHeader({
            "\"Dom:aten::mm, seq = 3, op_id = 4\",PushPop,100,101,1,1,10,10.0,10.0,10,10,0.0,k_b",
            "Dom:name,PushPop,100,101,1,1,40,40.0,40.0,40,40,0.0,k_a",
            "Dom:name,PushPop,100,101,1,1,10,10.0,10.0,10,10,0.0,k_b",
        }));
}

// A push without a pop ends at the capture end and holds every later launch of its thread.
TEST(CorrelationFixtures, UnendedRangeEndsAtCaptureEndAndContainsLaterLaunches) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (100, NULL, 'open');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (50, 60, 1, 11), (5000, 5010, 2, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (70, 80, 1, 1, 1), (6000, 6100, 2, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    EXPECT_EQ(l.trace->report.count(Anomaly::UnendedRange), 1u);
    EXPECT_EQ(l.trace->ranges.end[0], 6100);
    expectKernel(l.kernels, 0, {{"nvtx_range", ""}});
    expectKernel(l.kernels, 1, {{"nvtx_range", "open"}, {"layer", "open"}});
    EXPECT_EQ(l.nvtxKernSum, withHeader({
                                 "None,None,100,101,0,1,10,10.0,10.0,10,10,0.0,k_a",
                                 "open,PushPop,100,101,1,1,100,100.0,100.0,100,100,0.0,k_b",
                             }));
}

// One cudaGraphLaunch call, three kernels with its correlation id: all share call and range.
TEST(CorrelationFixtures, GraphLaunchKernelsShareTheCallAndItsRange) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (0, 200, 'graph');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (100, 150, 7, 12);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (300, 310, 7, 1, 1), (320, 330, 7, 2, 2), (340, 360, 7, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    const auto& t = *l.trace;
    ASSERT_EQ(t.kernels.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        expectKernel(
            l.kernels, i,
            {{"api", "cudaGraphLaunch"}, {"correlation_id", "7"}, {"nvtx_range", "graph"}});
        EXPECT_EQ(t.kernels.launch[i], ls::ApiCallId(0));
    }
    const auto [first, last] = t.apiKernels.of(ls::ApiCallId(0));
    EXPECT_EQ(last - first, 3);
    EXPECT_EQ(l.nvtxKernSum, withHeader({
                                 "graph,PushPop,100,101,1,2,30,15.0,15.0,10,20,7.1,k_a",
                                 "graph,PushPop,100,101,1,1,10,10.0,10.0,10,10,0.0,k_b",
                             }));
}

// An older export's backtrace row (eventClass 67) beside the call: the kernel counts once.
TEST(CorrelationFixtures, DuplicateRuntimeRowCountsTheKernelOnce) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (0, 200, 'r');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, correlationId, nameId) VALUES
            (100, 110, 0, 1, 11), (100, 109, 67, 1, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES (300, 400, 1, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    EXPECT_EQ(l.trace->report.count(Anomaly::DuplicateRuntimeRow), 1u);
    EXPECT_EQ(l.kernels.rows.size(), 1u);
    expectKernel(l.kernels, 0, {{"nvtx_range", "r"}, {"api", "cudaLaunchKernel"}});
    EXPECT_EQ(l.nvtxKernSum, withHeader({"r,PushPop,100,101,1,1,100,100.0,100.0,100,100,0.0,k_a"}));
}

// A kernel outside any range: empty range and layer, direction other, the None row.
TEST(CorrelationFixtures, KernelWithoutAnEnclosingRangeFallsUnderNone) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (0, 50, 'earlier');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (100, 110, 1, 13);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (300, 325, 1, 1, 1), (400, 410, 99, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    expectKernel(l.kernels, 0,
                 {{"nvtx_range", ""},
                  {"nvtx_path", ""},
                  {"layer", ""},
                  {"op", ""},
                  {"direction", "other"},
                  {"api", "cuLaunchKernelEx"},
                  {"tid", "101"}});
    expectKernel(l.kernels, 1,
                 {{"nvtx_range", ""}, {"api", ""}, {"tid", ""}, {"direction", "other"}});
    EXPECT_EQ(l.nvtxKernSum, withHeader({
                                 "None,None,,,0,1,10,10.0,10.0,10,10,0.0,k_b",
                                 "None,None,100,101,0,1,25,25.0,25.0,25,25,0.0,k_a",
                             }));
}

// Start/end ranges may overlap without nesting (async work). nsys counts a kernel under every
// range that contains its launch call on the thread, nested or not: here the call [80,90] lies in
// `layer0` [0,100] and in `copy` [55,200], which started inside `layer0` and outlives it.
TEST(CorrelationFixtures, OverlappingStartEndRangesEachCountTheCallsTheyContain) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, eventType, text) VALUES
            (0, 100, 59, 'layer0'), (50, 60, 59, 'inner'), (55, 200, 60, 'copy');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES
            (80, 90, 1, 11), (150, 160, 2, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (1000, 1040, 1, 1, 1), (1100, 1110, 2, 2, 2);
    )");
    ASSERT_TRUE(l.trace);
    EXPECT_EQ(l.trace->report.count(Anomaly::ImproperNesting), 0u)
        << "start/end ranges may overlap";
    expectKernel(l.kernels, 1, {{"nvtx_range", "copy"}, {"nvtx_path", "copy"}});
    EXPECT_EQ(l.nvtxKernSum, withHeader({
                                 "copy,StartEnd,100,101,1,1,40,40.0,40.0,40,40,0.0,k_a",
                                 "copy,StartEnd,100,101,1,1,10,10.0,10.0,10,10,0.0,k_b",
                                 "layer0,PushPop,100,101,1,1,40,40.0,40.0,40,40,0.0,k_a",
                             }));
}

// nsys groups by raw text: `seq = 7` and `stashed seq = 7` on the same op name are two rows.
TEST(CorrelationFixtures, NvtxKernSumKeepsRawTextsThatParseAlikeApart) {
    TempDir dir;
    const auto l = loadFixture(dir, R"(
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES (100, 200, 'aten::mul, seq = 7'), (300, 400, 'aten::mul, stashed seq = 7');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (150, 160, 1, 11), (350, 360, 2, 11);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (1000, 1040, 1, 1, 1), (1100, 1110, 2, 1, 1);
    )");
    ASSERT_TRUE(l.trace);
    EXPECT_EQ(l.nvtxKernSum,
              withHeader({
                  "\"aten::mul, seq = 7\",PushPop,100,101,1,1,40,40.0,40.0,40,40,0.0,k_a",
                  "\"aten::mul, stashed seq = 7\",PushPop,100,101,1,1,10,10.0,10.0,10,10,0.0,k_a",
              }));
}

} // namespace
