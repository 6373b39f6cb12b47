// Crafted exports that once made the loader allocate by a row or string id, overflow a duration or
// merge unrelated calls: each must load quickly, in little memory, with what is wrong counted in
// the load report. Regression tests for core/load/loader.cpp,
// core/import/nsys/nsys_small_tables.cpp, core/import/nsys/nsys_chunk.cpp,
// core/import/nsys/trace_builder.cpp and core/import/sqlite/sqlite_db.cpp.
#include "core/model/platform.h"
#include "tests/support/nsys_fixture.h"

#include <chrono>
#include <gtest/gtest.h>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(__linux__)
#include <sys/resource.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
// A crafted id must never size an allocation. Under ASan (the dev preset) an allocation beyond
// 4 GiB then fails at once, with a stack, instead of filling the machine's memory.
extern "C" const char* __asan_default_options() { return "max_allocation_size_mb=4096"; }
#elif defined(__SANITIZE_THREAD__)
// ThreadSanitizer (the tsan preset) reserves far more address space than a cap allows: the
// same size limit instead.
extern "C" const char* __tsan_default_options() { return "max_allocation_size_mb=4096"; }
#endif

namespace {

using namespace ls::test;
using namespace ls::test::fixture;
using ls::Anomaly;

constexpr uint64_t kGiB = uint64_t(1) << 30;

// Without a sanitizer (release preset), a cap on the address space makes an allocation sized by a
// crafted id fail (bad_alloc, a load error) instead of taking the machine's memory.
void capAddressSpace() {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(__linux__)
    rlimit r{};
    if (getrlimit(RLIMIT_AS, &r) == 0 && (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > 6 * kGiB)) {
        r.rlim_cur = 6 * kGiB;
        setrlimit(RLIMIT_AS, &r);
    }
#endif
}

// Loads the fixture, timing it; expects it quick and the process's peak resident size small.
std::shared_ptr<const ls::Trace> loadQuickly(const TempDir& dir, std::string_view sql) {
    capAddressSpace();
    const auto t0 = std::chrono::steady_clock::now();
    auto t = load(dir, sql);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 10.0) << "a few rows must not take long, whatever their ids";
    const uint64_t peak = ls::platform::peakRssBytes();
    if (peak) {
        EXPECT_LT(peak, 2 * kGiB) << "sized by an id instead of by the rows";
    }
    return t;
}

TEST(CraftedInputs, OnlyKernelRowAtTheLargestRowidLoads) {
    TempDir dir;
    const auto t = loadQuickly(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(rowid, start, end, correlationId, demangledName, shortName)
            VALUES (9223372036854775807, 10, 20, 1, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->kernels.start[0], 10);
    EXPECT_EQ(t->str(t->kernels.name[0]), "k");
}

TEST(CraftedInputs, RowidsAtBothEndsOfInt64Load) {
    TempDir dir;
    const auto t = loadQuickly(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(rowid, start, end, correlationId, demangledName, shortName)
            VALUES (-9223372036854775808, 10, 20, 1, 1, 1), (9223372036854775807, 30, 45, 2, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 2u);
    EXPECT_EQ(t->kernels.start, (std::vector<int64_t>{10, 30}));
    EXPECT_EQ(t->kernels.correlation, (std::vector<uint32_t>{1, 2}));
}

// Also NVTX and runtime tables, whose rowids feed sourceRow and the API call ids.
TEST(CraftedInputs, ExtremeRowidsInEveryEventTableLoad) {
    TempDir dir;
    const auto t = loadQuickly(dir, cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable, R"(
        INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(rowid, start, end, correlationId, nameId)
            VALUES (-9223372036854775808, 5, 8, 1, 2), (9223372036854775807, 50, 58, 2, 2);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(rowid, start, end, correlationId, demangledName, shortName)
            VALUES (9223372036854775807, 10, 20, 1, 1, 1), (9223372036854775806, 60, 70, 2, 1, 1);
        INSERT INTO NVTX_EVENTS(rowid, start, end, text) VALUES (9223372036854775807, 0, 100, 'r');
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.size(), 2u);
    EXPECT_EQ(t->apiCalls.size(), 2u);
    ASSERT_EQ(t->ranges.size(), 1u);
    EXPECT_TRUE(t->kernels.launch[0].valid());
    EXPECT_TRUE(t->kernels.launch[1].valid());
    EXPECT_EQ(t->kernelLinks.range[0], ls::RangeId(0));
    EXPECT_EQ(t->kernelLinks.range[1], ls::RangeId(0));
}

TEST(CraftedInputs, StringIdAtInt32MaxResolvesWithoutADenseTable) {
    TempDir dir;
    const auto t = loadQuickly(dir, cat({kStringIds, kKernelTable, kRuntimeTable, R"(
        INSERT INTO StringIds VALUES (1, 'short'), (2147483647, 'kernel at the last id'), (2147483646, 'cudaLaunchKernel');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES (1, 5, 1, 2147483646);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName)
            VALUES (10, 20, 1, 2147483647, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->str(t->kernels.name[0]), "kernel at the last id");
    EXPECT_EQ(t->str(t->kernels.shortName[0]), "short");
    ASSERT_TRUE(t->kernels.launch[0].valid());
    EXPECT_EQ(t->str(t->apiCalls.name[t->kernels.launch[0].value]), "cudaLaunchKernel");
    EXPECT_EQ(t->report.count(Anomaly::UnknownStringId), 0u);
}

TEST(CraftedInputs, NegativeAndLargeStringIdsResolveOrAreCounted) {
    TempDir dir;
    const auto t = loadQuickly(dir, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (-7, 'negative id'), (4000000000, 'id 4e9'), (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName)
            VALUES (10, 20, 1, -7, 4000000000), (30, 40, 2, 1, 1);
    )"}));
    ASSERT_TRUE(t);
    ASSERT_EQ(t->kernels.size(), 2u);
    EXPECT_EQ(t->str(t->kernels.shortName[0]), "id 4e9") << "fits 32 bits: a name like any other";
    EXPECT_EQ(t->str(t->kernels.name[0]), "") << "a negative id is not a name";
    EXPECT_EQ(t->report.count(Anomaly::UnknownStringId), 1u);
    EXPECT_EQ(t->str(t->kernels.name[1]), "k");
}

// 9e18 ns fits int64 but end - start or sums of durations would overflow: such rows are
// skipped and counted as ValueOutOfRange (UBSan aborts on signed overflow in the dev preset).
TEST(CraftedInputs, AbsurdTimestampsAreSkippedAndCounted) {
    TempDir dir;
    const auto t = loadQuickly(dir, cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable, R"(
        INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES
            (5, 8, 1, 2), (9000000000000000000, 9000000000000000010, 2, 2), (-9000000000000000000, 8, 3, 2);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES
            (10, 20, 1, 1, 1), (9000000000000000000, 9000000000000000100, 2, 1, 1),
            (30, 9000000000000000000, 3, 1, 1), (-9000000000000000000, 40, 1, 1, 1);
        INSERT INTO NVTX_EVENTS(start, end, text) VALUES
            (0, 100, 'kept'), (9000000000000000000, 9000000000000000005, 'far'), (1, 9000000000000000000, 'long'),
            (9000000000000000000, NULL, 'unended far');
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->apiCalls.size(), 1u);
    ASSERT_EQ(t->ranges.size(), 1u);
    EXPECT_EQ(t->str(t->ranges.name[0]), "kept");
    EXPECT_EQ(t->report.count(Anomaly::ValueOutOfRange), 3u + 2u + 3u);
    EXPECT_EQ(t->captureStart, 0);
    EXPECT_EQ(t->captureEnd, 100);
    EXPECT_EQ(t->report.count(Anomaly::UnendedRange), 0u);
    ASSERT_TRUE(t->kernels.launch[0].valid());
    EXPECT_EQ(t->kernelLinks.range[0], ls::RangeId(0));
    // The summaries over what was kept do not overflow either.
    const auto r =
        runCli({"summary", (dir / "fixture.sqlite").string(), "--report", "nvtx_kern_sum"});
    EXPECT_EQ(r.rc, 0) << r.err;
}

// Correlation id 0 means "no correlation": such calls (cudaGetDevice, cudaStreamIsCapturing on
// some exports) are distinct calls, not a call and its backtrace row.
TEST(CraftedInputs, RuntimeRowsWithCorrelationIdZeroAreNotMergedAsDuplicates) {
    TempDir dir;
    const auto t = load(dir, cat({kStringIds, kRuntimeTable, R"(
        INSERT INTO StringIds VALUES (1, 'cudaGetDevice'), (2, 'cudaLaunchKernel');
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES
            (10, 20, 0, 1), (30, 40, 0, 1), (50, 60, 0, 1), (70, 80, 5, 2);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, correlationId, nameId) VALUES (70, 79, 67, 5, 2);
    )"}));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->apiCalls.size(), 4u);
    EXPECT_EQ(t->report.count(Anomaly::DuplicateRuntimeRow), 1u)
        << "only the backtrace row of call 5";
    const auto& starts = t->apiCalls.start;
    EXPECT_EQ(std::vector<int64_t>(starts.begin(), starts.end()),
              (std::vector<int64_t>{10, 30, 50, 70}));
}

// "/" + "/abs/path": POSIX treats the doubled slash as one; a file: URI must not read "//x" as
// an authority (host) part.
TEST(CraftedInputs, PathWithADoubledLeadingSlashOpens) {
    TempDir dir;
    const auto file = dir / "x.sqlite";
    writeSqliteFixture(file, cat({kStringIds, kKernelTable, R"(
        INSERT INTO StringIds VALUES (1, 'k');
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, demangledName, shortName) VALUES (10, 20, 1, 1, 1);
    )"}));
    ASSERT_TRUE(file.is_absolute());
    const std::string doubled = "/" + file.string();
    ASSERT_EQ(doubled.rfind("//", 0), 0u);
    const auto r = ls::loadTrace(doubled);
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->reason : std::string());
    EXPECT_EQ(r.trace->kernels.size(), 1u);
    const auto cli = runCli({"summary", doubled, "--report", "nvtx_kern_sum"});
    EXPECT_EQ(cli.rc, 0) << cli.err;
    EXPECT_NE(cli.out.find("None,None"), std::string::npos)
        << "raw texts are re-read through the same path";
    const auto triple = ls::loadTrace("//" + file.string());
    EXPECT_TRUE(triple.ok()) << (triple.error ? triple.error->reason : std::string());
}

} // namespace
