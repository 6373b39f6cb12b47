// LoadOptions::imported: the app builds its timeline lanes while a load correlates and prices the
// trace, reading the columns that are final after the import. The hook comes once per file, after
// the NVTX nesting and before correlation, its lanes equal those of the finished trace, and what
// it returns runs before the load returns, also when the load ends early.
#include "core/load/load.h"
#include "core/views/timeline_tracks.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <atomic>

namespace ls::test {
namespace {

bool sameTracks(const TimelineTracks& a, const TimelineTracks& b) {
    if (a.start != b.start || a.end != b.end || a.groups.size() != b.groups.size() || a.lanes.size() != b.lanes.size()) return false;
    for (size_t g = 0; g < a.groups.size(); ++g)
        if (a.groups[g].label != b.groups[g].label || a.groups[g].gpu != b.groups[g].gpu) return false;
    for (size_t l = 0; l < a.lanes.size(); ++l) {
        const TimelineLane &x = a.lanes[l], &y = b.lanes[l];
        if (x.group != y.group || x.kind != y.kind || x.level != y.level || x.events != y.events) return false;
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
    EXPECT_TRUE(sameTracks(atHook, buildTimelineTracks(*r.trace))) << "the lanes changed after the import";
}

TEST(LoadImportedHook, LanesBuiltAtTheHookEqualTheFinishedTracesLanes) {
    expectLanesOfTheImportedTraceAreFinal(sampleTrace());
    expectLanesOfTheImportedTraceAreFinal(sourceDir() / "tests/data/iterations/gpt2_fp16_5it_h100.sqlite");
    expectLanesOfTheImportedTraceAreFinal(sourceDir() / "tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz");
}

TEST(LoadImportedHook, WhatTheHookReturnsRunsWhenTheLoadEndsEarly) {
    std::atomic<bool> cancel{false};
    bool joined = false;
    LoadOptions options;
    options.cancel = &cancel;
    options.imported = [&](const Trace&) -> std::function<void()> {
        cancel = true; // the load stops after its phases, with the trace gone
        return [&] { joined = true; };
    };
    const LoadResult r = loadTrace(sampleTrace().string(), options);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(joined);
}

} // namespace
} // namespace ls::test
