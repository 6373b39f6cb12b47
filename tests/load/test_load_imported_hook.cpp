// LoadOptions::imported: the app builds its timeline lanes while a load correlates and prices the
// trace, reading the columns that are final after the import. The hook comes once per file, after
// the NVTX nesting and before correlation, its lanes equal those of the finished trace, and what
// it returns runs before the load returns, also when the load ends early.
// LoadOptions::correlated: the same after the correlation, before the costs; the kernel table's
// NVTX paths and time order built there equal those of the finished trace.
#include "core/load/load.h"
#include "core/views/kernel_table.h"
#include "core/views/timeline_tracks.h"
#include "tests/support/test_support.h"

#include <atomic>
#include <gtest/gtest.h>

namespace ls::test {
namespace {

bool sameTracks(const TimelineTracks& a, const TimelineTracks& b) {
    if (a.start != b.start || a.end != b.end || a.groups.size() != b.groups.size() ||
        a.lanes.size() != b.lanes.size())
        return false;
    for (size_t g = 0; g < a.groups.size(); ++g)
        if (a.groups[g].label != b.groups[g].label || a.groups[g].gpu != b.groups[g].gpu)
            return false;
    for (size_t l = 0; l < a.lanes.size(); ++l) {
        const TimelineLane &x = a.lanes[l], &y = b.lanes[l];
        if (x.group != y.group || x.kind != y.kind || x.level != y.level || x.events != y.events)
            return false;
    }
    return true;
}

void expectLanesOfTheImportedTraceAreFinal(const fs::path& file) {
    SCOPED_TRACE(file.string());
    int calls = 0;
    bool correlatedAtHook = true, joined = false;
    TimelineTracks atHook;
    LoadOptions options;
    options.imported = [&](const Trace& t) -> std::function<void()> {
        ++calls;
        correlatedAtHook = !t.kernelLinks.range.empty(); // correlation fills the kernels' links
        atHook = buildTimelineTracks(t);
        return [&] { joined = true; };
    };
    const LoadResult r = loadTrace(file.string(), options);
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->reason : "");
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(joined);
    EXPECT_FALSE(correlatedAtHook);
    EXPECT_FALSE(atHook.lanes.empty());
    EXPECT_TRUE(sameTracks(atHook, buildTimelineTracks(*r.trace)))
        << "the lanes changed after the import";
}

TEST(LoadImportedHook, LanesBuiltAtTheHookEqualTheFinishedTracesLanes) {
    expectLanesOfTheImportedTraceAreFinal(sampleTrace());
    expectLanesOfTheImportedTraceAreFinal(sourceDir() /
                                          "tests/data/iterations/gpt2_fp16_5it_h100.sqlite");
    expectLanesOfTheImportedTraceAreFinal(sourceDir() /
                                          "tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz");
}

using Hook = std::function<std::function<void()>(const Trace&)> LoadOptions::*;

// The hook cancels the load, which stops after its phases with the trace gone: what the hook
// returned has run by then.
void expectWhatTheHookReturnsRunsWhenTheLoadEndsEarly(Hook hook) {
    std::atomic<bool> cancel{false};
    bool joined = false;
    LoadOptions options;
    options.cancel = &cancel;
    options.*hook = [&](const Trace&) -> std::function<void()> {
        cancel = true;
        return [&] { joined = true; };
    };
    const LoadResult r = loadTrace(sampleTrace().string(), options);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(joined);
}

TEST(LoadImportedHook, WhatTheHookReturnsRunsWhenTheLoadEndsEarly) {
    expectWhatTheHookReturnsRunsWhenTheLoadEndsEarly(&LoadOptions::imported);
}

void expectTablePartsOfTheCorrelatedTraceAreFinal(const fs::path& file) {
    SCOPED_TRACE(file.string());
    int calls = 0;
    bool correlatedAtHook = false, pricedAtHook = true, joined = false;
    KernelPaths pathsAtHook;
    std::vector<std::vector<KernelId>> ordersAtHook;
    const KernelField fields[] = {KernelField::Duration, KernelField::Start, KernelField::End};
    LoadOptions options;
    options.correlated = [&](const Trace& t) -> std::function<void()> {
        ++calls;
        correlatedAtHook = !t.kernelLinks.range.empty();
        pricedAtHook = !t.metrics.flops.empty(); // the costs phase fills them
        pathsAtHook = buildKernelPaths(t);
        for (const KernelField f : fields)
            for (const bool descending : {true, false})
                ordersAtHook.push_back(kernelsInTimeOrder(t, f, descending));
        return [&] { joined = true; };
    };
    const LoadResult r = loadTrace(file.string(), options);
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->reason : "");
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(joined);
    EXPECT_TRUE(correlatedAtHook);
    EXPECT_FALSE(pricedAtHook);
    const KernelTable table(r.trace);
    EXPECT_EQ(pathsAtHook.ofKernel, table.paths()->ofKernel)
        << "the NVTX paths changed after the correlation";
    ASSERT_EQ(pathsAtHook.nodes.size(), table.paths()->nodes.size());
    for (size_t n = 0; n < pathsAtHook.nodes.size(); ++n) {
        EXPECT_EQ(pathsAtHook.nodes[n].parent, table.paths()->nodes[n].parent);
        EXPECT_EQ(pathsAtHook.nodes[n].name, table.paths()->nodes[n].name);
    }
    size_t o = 0;
    for (const KernelField f : fields)
        for (const bool descending : {true, false}) {
            std::vector<KernelId> rows(r.trace->kernels.size());
            for (uint32_t k = 0; k < rows.size(); ++k) rows[k] = KernelId(k);
            table.sort(rows, f, descending);
            EXPECT_EQ(ordersAtHook[o++], rows) << "the table sorts " << kernelFieldInfo(f).name
                                               << (descending ? " down" : " up") << " otherwise";
        }
}

TEST(LoadCorrelatedHook, TablePathsAndTimeOrdersBuiltAtTheHookEqualTheFinishedTracesOnes) {
    expectTablePartsOfTheCorrelatedTraceAreFinal(sampleTrace());
    expectTablePartsOfTheCorrelatedTraceAreFinal(sourceDir() /
                                                 "tests/data/iterations/gpt2_fp16_5it_h100.sqlite");
    expectTablePartsOfTheCorrelatedTraceAreFinal(
        sourceDir() / "tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz");
}

// A load that does not correlate has no correlated columns to offer.
TEST(LoadCorrelatedHook, ALoadWithoutCorrelationNeverCallsIt) {
    int calls = 0;
    LoadOptions options;
    options.parts = kLoadKernels;
    options.correlated = [&](const Trace&) -> std::function<void()> {
        ++calls;
        return {};
    };
    const LoadResult r = loadTrace(sampleTrace().string(), options);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(calls, 0);
}

TEST(LoadCorrelatedHook, WhatTheHookReturnsRunsWhenTheLoadEndsEarly) {
    expectWhatTheHookReturnsRunsWhenTheLoadEndsEarly(&LoadOptions::correlated);
}

} // namespace
} // namespace ls::test
