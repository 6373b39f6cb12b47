// The view cache (core/prepared/view_file.h): the window's views written beside the model cache
// read back equal to those built; views of another load or state of the file, damaged files and
// views that do not fit the trace are rejected; a view file is counted, evicted and cleared with
// its model cache file.
#include "core/cache/trace_cache.h"
#include "core/load/load.h"
#include "core/prepared/view_file.h"
#include "tests/support/test_support.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>

namespace ls::test {
namespace {

struct BuiltViews {
    LayerTree layers;
    TimelineTracks tracks;
    KernelPaths paths;
    IterationSummary iterations;
    std::vector<KernelId> sorted;

    explicit BuiltViews(const std::shared_ptr<const Trace>& trace)
        : layers(buildLayerTree(*trace)), tracks(buildTimelineTracks(*trace)),
          paths(buildKernelPaths(*trace)), iterations(iterationSummary(*trace)) {
        KernelTable kt(trace);
        for (uint32_t k = 0; k < trace->kernels.size(); ++k) sorted.push_back(KernelId(k));
        kt.sort(sorted, KernelField::Duration, true);
    }
    ViewsToStore toStore() const {
        ViewsToStore v;
        v.layers = &layers;
        v.tracks = &tracks;
        v.paths = &paths;
        v.iterations = &iterations;
        v.sortedRows = &sorted;
        v.sortColumn = static_cast<int>(KernelField::Duration);
        v.sortDescending = true;
        return v;
    }
};

void expectIterationRowsEqual(const IterationRow& a, const IterationRow& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.number, b.number);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.end, b.end);
    EXPECT_EQ(a.kernels, b.kernels);
    EXPECT_EQ(a.busy, b.busy);
    EXPECT_EQ(a.forward, b.forward);
    EXPECT_EQ(a.backward, b.backward);
    EXPECT_EQ(a.optimizer, b.optimizer);
    EXPECT_EQ(a.comm, b.comm);
    EXPECT_EQ(a.idle, b.idle);
    EXPECT_EQ(a.outlier, b.outlier);
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

struct Sample {
    TempDir tmp;
    fs::path file = tmp / "run.sqlite";
    fs::path dir = tmp / "cache";
    std::string identity;
    std::shared_ptr<const Trace> trace;
    Sample() {
        fs::copy_file(sampleTrace(), file);
        identity = traceFileIdentity(file.string());
        trace = loadTrace(file.string()).trace;
    }
};

TEST(ViewCache, StoredViewsReadBackEqualToThoseBuilt) {
    Sample s;
    ASSERT_TRUE(s.trace);
    const BuiltViews built(s.trace);
    ASSERT_GT(built.iterations.rows.size(), 0u);
    ASSERT_GT(built.layers.size(), 1u);
    EXPECT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    const auto hit = lookupViewCache(s.dir.string(), s.identity, *s.trace);
    ASSERT_TRUE(hit.views) << hit.miss;
    const CachedViews& v = *hit.views;

    const LayerTree &a = v.layers, &b = built.layers;
    EXPECT_EQ(a.parent, b.parent);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.depth, b.depth);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.direction, b.direction);
    EXPECT_EQ(a.childBegin, b.childBegin);
    EXPECT_EQ(a.children, b.children);
    EXPECT_EQ(a.kernels, b.kernels);
    EXPECT_EQ(a.gpuTimeNs, b.gpuTimeNs);
    EXPECT_EQ(a.flopsTimeNs, b.flopsTimeNs);
    EXPECT_EQ(a.tcUsedTimeNs, b.tcUsedTimeNs);
    EXPECT_EQ(a.orderedKernels, b.orderedKernels);
    EXPECT_EQ(a.kernelBegin, b.kernelBegin);
    EXPECT_EQ(a.kernelEnd, b.kernelEnd);
    EXPECT_EQ(a.kernelNode, b.kernelNode);
    ASSERT_EQ(a.flops.size(), b.flops.size());
    for (size_t n = 0; n < a.flops.size(); ++n)
        EXPECT_TRUE(a.flops[n] == b.flops[n] || (std::isnan(a.flops[n]) && std::isnan(b.flops[n])));

    ASSERT_EQ(v.tracks.groups.size(), built.tracks.groups.size());
    for (size_t g = 0; g < v.tracks.groups.size(); ++g) {
        EXPECT_EQ(v.tracks.groups[g].label, built.tracks.groups[g].label);
        EXPECT_EQ(v.tracks.groups[g].gpu, built.tracks.groups[g].gpu);
        EXPECT_EQ(v.tracks.groups[g].thread, built.tracks.groups[g].thread);
        EXPECT_EQ(v.tracks.groups[g].stream, built.tracks.groups[g].stream);
    }
    ASSERT_EQ(v.tracks.lanes.size(), built.tracks.lanes.size());
    for (size_t l = 0; l < v.tracks.lanes.size(); ++l) {
        EXPECT_EQ(v.tracks.lanes[l].group, built.tracks.lanes[l].group);
        EXPECT_EQ(v.tracks.lanes[l].kind, built.tracks.lanes[l].kind);
        EXPECT_EQ(v.tracks.lanes[l].level, built.tracks.lanes[l].level);
        EXPECT_EQ(v.tracks.lanes[l].events, built.tracks.lanes[l].events);
    }
    EXPECT_EQ(v.tracks.start, built.tracks.start);
    EXPECT_EQ(v.tracks.end, built.tracks.end);

    ASSERT_EQ(v.paths.nodes.size(), built.paths.nodes.size());
    for (size_t n = 0; n < v.paths.nodes.size(); ++n) {
        EXPECT_EQ(v.paths.nodes[n].parent, built.paths.nodes[n].parent);
        EXPECT_EQ(v.paths.nodes[n].name, built.paths.nodes[n].name);
    }
    EXPECT_EQ(v.paths.ofKernel, built.paths.ofKernel);

    ASSERT_EQ(v.iterations.rows.size(), built.iterations.rows.size());
    for (size_t r = 0; r < v.iterations.rows.size(); ++r)
        expectIterationRowsEqual(v.iterations.rows[r], built.iterations.rows[r]);
    expectIterationRowsEqual(v.iterations.median, built.iterations.median);
    EXPECT_EQ(v.iterations.rule, built.iterations.rule);
    EXPECT_EQ(v.iterations.confidence, built.iterations.confidence);

    EXPECT_EQ(v.sorted.column, static_cast<int>(KernelField::Duration));
    EXPECT_TRUE(v.sorted.descending);
    EXPECT_EQ(v.sorted.rows, built.sorted);
    EXPECT_NE(built.sorted.front(), KernelId(0))
        << "the order is not the identity: the test would not see a lost order";
}

TEST(ViewCache, ViewsOfAnotherLoadOrStateOfTheFileAreNotUsed) {
    Sample s;
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss, "no cache file");
    const BuiltViews built(s.trace);
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    // Another load of the same file (without NVTX) has other views.
    LoadOptions kernelsOnly;
    kernelsOnly.parts = kLoadKernels;
    const auto partial = loadTrace(s.file.string(), kernelsOnly).trace;
    ASSERT_TRUE(partial);
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *partial).miss, "made from another file");
    // The file changed since: its identity differs.
    std::ofstream(s.file, std::ios::app) << "more";
    const std::string changed = traceFileIdentity(s.file.string());
    ASSERT_NE(changed, s.identity);
    EXPECT_EQ(lookupViewCache(s.dir.string(), changed, *s.trace).miss, "made from another file");
    EXPECT_TRUE(lookupViewCache(s.dir.string(), s.identity, *s.trace).views);
}

TEST(ViewCache, DamagedFilesAndViewsThatDoNotFitTheTraceAreRejected) {
    Sample s;
    BuiltViews built(s.trace);
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    const fs::path file = companionCacheFile(s.dir.string(), s.identity, ".lsviews");
    const std::string good = slurp(file);
    std::string flipped = good;
    flipped[flipped.size() / 2] ^= 0x10;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << flipped;
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss.rfind("damaged", 0), 0u);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() - 3);
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss, "truncated");

    // Well-formed, but a kernel's leaf is no node of the tree.
    built.layers.kernelNode.back() = static_cast<uint32_t>(built.layers.size());
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss,
              "damaged (views do not fit the trace)");
    // The tree's children and parents disagree (a node listed under the root that is not its
    // child).
    built = BuiltViews(s.trace);
    ASSERT_GT(built.layers.depth.back(), 1u);
    built.layers.children.front() = static_cast<uint32_t>(built.layers.size() - 1);
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss,
              "damaged (views do not fit the trace)");
    // A kernel twice in the sorted rows, another missing.
    built = BuiltViews(s.trace);
    built.sorted[1] = built.sorted[0];
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss,
              "damaged (views do not fit the trace)");
    // A lane of no known kind.
    built = BuiltViews(s.trace);
    built.tracks.lanes.back().kind = static_cast<TimelineEventKind>(9);
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss,
              "damaged (views do not fit the trace)");
    built = BuiltViews(s.trace);
    built.tracks.lanes.back().events.push_back(static_cast<uint32_t>(
        s.trace->kernels.size() + s.trace->apiCalls.size() + s.trace->ranges.size() +
        s.trace->memcpys.size() + s.trace->memsets.size()));
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    EXPECT_EQ(lookupViewCache(s.dir.string(), s.identity, *s.trace).miss,
              "damaged (views do not fit the trace)");
}

TEST(ViewCache, AViewFileIsCountedEvictedAndClearedWithItsModelCacheFile) {
    Sample s;
    ASSERT_EQ(storeTraceCache(s.dir.string(), *s.trace, s.identity, kDefaultTraceCacheCap), "");
    const BuiltViews built(s.trace);
    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()), "");
    const fs::path views = companionCacheFile(s.dir.string(), s.identity, ".lsviews");
    CacheInfo info = traceCacheInfo(s.dir.string());
    ASSERT_EQ(info.entries.size(), 1u);
    ASSERT_EQ(info.entries[0].companions.size(), 1u);
    EXPECT_EQ(info.entries[0].companions[0], views.string());
    EXPECT_EQ(info.entries[0].bytes, fs::file_size(info.entries[0].file) + fs::file_size(views));
    EXPECT_EQ(info.bytes, info.entries[0].bytes);

    // A second trace's write past a cap that holds one model evicts the first with its views.
    const fs::path other = s.tmp / "other.sqlite";
    fs::copy_file(sampleTrace(), other);
    std::ofstream(other, std::ios::app) << "x"; // another state: another identity
    const auto otherTrace = loadTrace(other.string()).trace;
    ASSERT_TRUE(otherTrace);
    ASSERT_EQ(storeTraceCache(s.dir.string(), *otherTrace, traceFileIdentity(other.string()),
                              info.bytes - 1),
              "");
    EXPECT_FALSE(fs::exists(views));
    EXPECT_FALSE(fs::exists(traceCacheFile(s.dir.string(), s.identity)));
    EXPECT_EQ(traceCacheInfo(s.dir.string()).entries.size(), 1u);

    ASSERT_EQ(storeViewCache(s.dir.string(), s.identity, *s.trace, built.toStore()),
              ""); // views whose model went
    info = traceCacheInfo(s.dir.string());
    ASSERT_EQ(info.entries.size(), 2u) << "a view file on its own still counts";
    for (const auto& e : info.entries)
        EXPECT_NE(e.lastUsedNs, 0) << e.file << ": its time is its own write's";
    EXPECT_EQ(clearTraceCache(s.dir.string()), 1u);
    EXPECT_TRUE(fs::is_empty(s.dir));
}

} // namespace
} // namespace ls::test
