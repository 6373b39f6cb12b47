// loadTrace's options and inputs besides the happy default: progress reports, the number of
// reader threads (which must not change the result) and file names that URIs treat specially.
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <mutex>
#include <set>
#include <thread>

namespace {

using namespace ls::test;

TEST(LoadProgress, ReportsEveryRowOnceAndNeverOverlaps) {
    std::mutex m;
    std::vector<ls::LoadProgress> seen;
    std::set<std::string> tables;
    std::atomic<int> inside{0};
    bool overlapped = false;
    ls::LoadOptions options;
    options.threads = 4;
    options.progress = [&](const ls::LoadProgress& p) {
        if (inside.fetch_add(1) != 0) overlapped = true;
        {
            std::lock_guard lock(m);
            seen.push_back(p);
            tables.emplace(p.table);
        }
        inside.fetch_sub(1);
    };
    const auto r = ls::loadTrace(sampleTrace().string(), options);
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(seen.empty());
    EXPECT_FALSE(overlapped) << "progress is called from one worker at a time";
    for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].rowsRead, seen[i - 1].rowsRead);
    // The sample's rowids are dense: 214 kernels, 9 memcpy, 12 memset, 482 runtime, 1469 NVTX rows.
    const uint64_t rows = 214 + 9 + 12 + 482 + 1469;
    EXPECT_EQ(seen.back().rowsRead, rows);
    EXPECT_EQ(seen.back().rowsTotal, rows);
    EXPECT_EQ(tables,
              (std::set<std::string>{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                     "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                     "NVTX_EVENTS"}));
}

// Thread 1 reads everything in order; more threads read tables (and windows) in any order.
TEST(LoadThreads, TheNumberOfReaderThreadsDoesNotChangeTheTrace) {
    const TraceCase& c = goldenTrace("pair_gpt1layer_fp16_h200.nsys");
    const fs::path file = fs::exists(c.path) ? c.path : sampleTrace();
    ls::LoadOptions one, many;
    one.threads = 1;
    many.threads = 5;
    const auto a = ls::loadTrace(file.string(), one), b = ls::loadTrace(file.string(), many);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    const ls::Trace &x = *a.trace, &y = *b.trace;
    auto names = [](const ls::Trace& t, const auto& ids) {
        std::vector<std::string> out;
        for (auto id : ids) out.emplace_back(t.str(id));
        return out;
    };
    EXPECT_EQ(x.kernels.start, y.kernels.start);
    EXPECT_EQ(x.kernels.correlation, y.kernels.correlation);
    EXPECT_EQ(x.kernels.launch, y.kernels.launch);
    EXPECT_EQ(names(x, x.kernels.name), names(y, y.kernels.name));
    EXPECT_EQ(x.apiCalls.start, y.apiCalls.start);
    EXPECT_EQ(x.apiCalls.thread, y.apiCalls.thread);
    EXPECT_EQ(names(x, x.apiCalls.name), names(y, y.apiCalls.name));
    EXPECT_EQ(x.ranges.start, y.ranges.start);
    EXPECT_EQ(x.rangeSourceRows, y.rangeSourceRows);
    EXPECT_EQ(x.ranges.parent, y.ranges.parent);
    EXPECT_EQ(names(x, x.ranges.name), names(y, y.ranges.name));
    EXPECT_EQ(x.threadRangeBegin, y.threadRangeBegin);
    EXPECT_EQ(x.streams.size(), y.streams.size());
    EXPECT_EQ(x.captureStart, y.captureStart);
    EXPECT_EQ(x.captureEnd, y.captureEnd);
}

// Users name files "run #3 (50%)?.sqlite"; SQLite reads "file:" URIs, where %, ? and # are special.
TEST(LoadPaths, FileNamesWithUriCharactersLoad) {
    TempDir dir;
    for (const char* name :
         {"run #3.sqlite", "50% done.sqlite", "what?.sqlite", "sp ace&amp;=.sqlite"}) {
        const fs::path copy = dir / name;
        fs::copy_file(sampleTrace(), copy);
        const auto r = ls::loadTrace(copy.string());
        ASSERT_TRUE(r.ok()) << name << ": " << r.error->reason;
        EXPECT_EQ(r.trace->kernels.size(), 214u) << name;
        fs::remove(copy);
    }
}

} // namespace

namespace {

// Cancelling at each progress report of the read: every such load ends Cancelled, with no
// trace. Under the tsan preset this and the next test are the race checks of the parallel read.
TEST(LoadCancel, CancelAtEveryProgressReportEndsCancelled) {
    size_t reports = 0;
    ls::LoadOptions counting;
    counting.threads = 4;
    counting.progress = [&](const ls::LoadProgress&) { ++reports; };
    ASSERT_TRUE(ls::loadTrace(sampleTrace().string(), counting).ok());
    ASSERT_GT(reports, 1u);
    for (size_t k = 1; k <= reports; ++k) {
        std::atomic<bool> cancel{false};
        size_t seen = 0;
        ls::LoadOptions options;
        options.threads = 4;
        options.cancel = &cancel;
        options.progress = [&](const ls::LoadProgress&) {
            if (++seen == k) cancel = true;
        };
        const auto r = ls::loadTrace(sampleTrace().string(), options);
        EXPECT_FALSE(r.ok()) << "cancelled at report " << k << " of " << reports;
        ASSERT_TRUE(r.error.has_value());
        EXPECT_EQ(static_cast<int>(r.error->kind), static_cast<int>(ls::LoadErrorKind::Cancelled))
            << r.error->reason;
    }
}

// Cancelling from another thread at moments spread over a whole load (small tables, read, build,
// correlation, pricing): each load ends Cancelled, or complete when the flag came after the last
// check, never with a partial trace.
TEST(LoadCancel, CancelFromAnotherThreadAtAnyMomentIsCleanOrComplete) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto full = ls::loadTrace(sampleTrace().string());
    const auto whole = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(full.ok());
    size_t cancelled = 0, complete = 0;
    for (int step = 0; step <= 24; ++step) {
        std::atomic<bool> cancel{false};
        ls::LoadOptions options;
        options.threads = 2;
        options.cancel = &cancel;
        ls::LoadResult r;
        {
            std::jthread canceller([&, step] {
                std::this_thread::sleep_for(whole * step / 16);
                cancel = true;
            });
            r = ls::loadTrace(sampleTrace().string(), options);
        }
        if (r.ok()) {
            ++complete;
            EXPECT_EQ(r.trace->kernels.size(), full.trace->kernels.size());
            EXPECT_EQ(r.trace->ranges.size(), full.trace->ranges.size());
            const auto priced = [](const ls::Trace& t) {
                return std::count_if(t.metrics.flops.begin(), t.metrics.flops.end(),
                                     [](double f) { return !std::isnan(f); });
            };
            EXPECT_EQ(priced(*r.trace), priced(*full.trace)) << "a complete load is priced in full";
        } else {
            ++cancelled;
            ASSERT_TRUE(r.error.has_value());
            EXPECT_EQ(static_cast<int>(r.error->kind),
                      static_cast<int>(ls::LoadErrorKind::Cancelled))
                << r.error->reason;
        }
    }
    EXPECT_GT(cancelled, 0u) << "a flag set before the load starts always cancels it";
    std::printf("cancel sweep: %zu cancelled, %zu complete\n", cancelled, complete);
}

} // namespace
