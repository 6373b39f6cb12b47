// The model cache: a reopen gives the same model as a load from the file; a cache file made from
// another state of the file, truncated, damaged or foreign is rejected and replaced; the folder
// keeps to its cap; the CLI's cache commands and --no-cache.
#include "core/cache/trace_cache.h"
#include "core/cache/trace_file.h"
#include "core/load/load.h"
#include "core/reports/summary.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <iterator>
#include <thread>

namespace ls::test {
namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::shared_ptr<const Trace> loadVia(const fs::path& file, const fs::path& cacheDir) {
    LoadOptions o;
    o.cacheDir = cacheDir.string();
    auto r = loadTrace(file.string(), o);
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->reason : "");
    waitForCacheWrites();
    return r.trace;
}

bool fromCache(const Trace& t) {
    return !t.loadPhases.empty() && t.loadPhases.front().first == "read model cache";
}

std::vector<fs::path> cacheFiles(const fs::path& dir) {
    std::vector<fs::path> out;
    if (fs::exists(dir))
        for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
    return out;
}

// The CLI's outputs that cover most of the model: kernels with their links and costs, the layer
// tree, iterations, NVTX kernel totals, ops; and the reports that read some tables only (from
// the cache, some columns only).
std::string cliOutputs(const fs::path& file) {
    std::string all;
    std::vector<std::vector<std::string>> commands = {{"kernels", file.string()},
                                                      {"ops", file.string()}};
    for (const char* report :
         {"layer_tree", "iter_sum", "nvtx_kern_sum", "idle_sum", "gpukernsum", "kern_sum",
          "api_sum", "nvtx_sum", "mem_time_sum", "gpu_sum", "kern_exec_sum", "osrt_sum",
          "gpu_trace", "api_trace", "nvtx_gpu_proj"})
        commands.push_back({"summary", file.string(), "--report", report});
    commands.push_back({"info", file.string()});
    for (const auto& args : commands) {
        const auto r = runCli(args);
        EXPECT_EQ(r.rc, 0) << r.err;
        all +=
            r.out.substr(0, r.out.find("load time: ")); // info's last line: the time and where from
    }
    return all;
}

// Runs the in-process CLI with the cache on, in `home` as XDG_CACHE_HOME.
class CliCacheOn {
  public:
    explicit CliCacheOn(const fs::path& home) {
        setEnv("XDG_CACHE_HOME", home.string().c_str());
        setEnv("LAYERSCOPE_NO_CACHE", nullptr);
    }
    ~CliCacheOn() {
        setEnv("LAYERSCOPE_NO_CACHE", "1");
        setEnv("XDG_CACHE_HOME", nullptr);
    }
};

TEST(TraceCache, AWrittenModelReadsBackByteForByte) {
    TempDir tmp;
    const auto trace = loadTrace(sampleTrace().string()).trace;
    ASSERT_TRUE(trace);
    const std::string identity = traceFileIdentity(sampleTrace().string());
    ASSERT_FALSE(identity.empty());
    ASSERT_EQ(writeTraceFile(*trace, identity, (tmp / "a").string()), "");
    const auto back = readTraceFile((tmp / "a").string(), identity);
    ASSERT_TRUE(back.trace) << back.reason;
    ASSERT_EQ(writeTraceFile(*back.trace, identity, (tmp / "b").string()), "");
    EXPECT_EQ(slurp(tmp / "a"), slurp(tmp / "b"));
    EXPECT_EQ(back.trace->kernels.size(), trace->kernels.size());
    EXPECT_EQ(back.trace->str(back.trace->kernels.name[7]), trace->str(trace->kernels.name[7]));
    EXPECT_EQ(back.trace->iterations.size(), trace->iterations.size());
    // What gpu_trace and api_trace print beyond the rest (cache format 2).
    EXPECT_EQ(back.trace->memcpys.srcKind, trace->memcpys.srcKind);
    EXPECT_EQ(back.trace->memsets.memKind, trace->memsets.memKind);
    EXPECT_EQ(back.trace->apiCalls.result, trace->apiCalls.result);
    // The narrow columns of correlation and costs (cache format 15).
    const Trace& b = *back.trace;
    EXPECT_EQ(b.ops.range, trace->ops.range);
    EXPECT_EQ(b.ops.extent, trace->ops.extent);
    EXPECT_EQ(b.ops.layer, trace->ops.layer);
    EXPECT_EQ(b.kernelLinks.op, trace->kernelLinks.op);
    EXPECT_EQ(b.kernelLinks.opInstance, trace->kernelLinks.opInstance);
    EXPECT_EQ(b.kernelLinks.layer, trace->kernelLinks.layer);
    EXPECT_EQ(b.metrics.rule, trace->metrics.rule);
    // Starts and ends in 3 bytes, paired sizes, narrow correlation ids and shared memory, grid
    // and block codes (cache formats 16 to 18).
    EXPECT_EQ(b.ranges.start, trace->ranges.start);
    EXPECT_EQ(b.ranges.end, trace->ranges.end);
    EXPECT_EQ(b.apiCalls.start, trace->apiCalls.start);
    EXPECT_EQ(b.apiCalls.end, trace->apiCalls.end);
    EXPECT_TRUE(b.ranges.sizes.paired);
    EXPECT_EQ(b.ranges.name, trace->ranges.name);
    EXPECT_EQ(b.ranges.sizes, trace->ranges.sizes);
    EXPECT_EQ(b.apiCalls.correlation, trace->apiCalls.correlation);
    EXPECT_EQ(b.kernels.staticSmem, trace->kernels.staticSmem);
    EXPECT_EQ(b.kernels.smemConfig, trace->kernels.smemConfig);
    EXPECT_EQ(b.kernels.grid, trace->kernels.grid);
    // A range's kind, flags and depth in one byte, FLOPs and bytes as codes (cache format 19).
    EXPECT_EQ(b.ranges.kind, trace->ranges.kind);
    EXPECT_EQ(b.ranges.flags, trace->ranges.flags);
    EXPECT_EQ(b.ranges.depth, trace->ranges.depth);
    EXPECT_EQ(b.ranges.shape.distinct.size(), trace->ranges.shape.distinct.size());
    EXPECT_EQ(b.metrics.flops, trace->metrics.flops); // bit for bit: NaNs included
    EXPECT_EQ(b.metrics.bytes, trace->metrics.bytes);
    EXPECT_EQ(b.apiCalls.thread, trace->apiCalls.thread);
    EXPECT_EQ(b.apiCalls.name, trace->apiCalls.name);
    EXPECT_TRUE(std::any_of(trace->threads.begin(), trace->threads.end(),
                            [](const Thread& th) { return th.priority != kNoThreadPriority; }));
    for (size_t i = 0; i < trace->threads.size(); ++i)
        EXPECT_EQ(back.trace->threads[i].priority, trace->threads[i].priority);
    // The pool answers lookups again, not only views.
    EXPECT_EQ(back.trace->strings.find(trace->str(trace->kernels.name[7])),
              back.trace->kernels.name[7]);
}

TEST(TraceCache, ReopenGivesTheSameOutputsAndWritesOnlyTheCacheFolder) {
    TempDir tmp;
    const fs::path file = tmp / "run.sqlite", home = tmp / "home";
    fs::copy_file(sampleTrace(), file);
    const std::string cold = cliOutputs(file);
    {
        CliCacheOn on(home);
        EXPECT_EQ(cliOutputs(file), cold); // the first command writes the cache, the rest read it
        const auto files = cacheFiles(home / "layerscope" / "traces");
        ASSERT_EQ(files.size(), 1u);
        EXPECT_EQ(files[0].extension(), ".lstrace");
        EXPECT_EQ(cliOutputs(file), cold);
    }
    EXPECT_EQ(cacheFiles(tmp.path()).size(), 2u)
        << "something was written beside the trace"; // run.sqlite and home
    const auto t = loadVia(file, home / "layerscope" / "traces");
    EXPECT_TRUE(fromCache(*t));
    CliCacheOn on(home);
    EXPECT_NE(runCli({"info", file.string()}).out.find("(from the model cache"), std::string::npos);
}

// The compact columns (times from an origin, sparse seq, parents as distances, dictionary-coded
// dims) read back from the cache as they were built: the same outputs on a Kineto trace and on an
// export with PyTorch markers and iterations.
TEST(TraceCache, ReopenGivesTheSameOutputsOnKinetoAndMarkerTraces) {
    for (const fs::path& source :
         {sourceDir() / "tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz",
          sourceDir() / "tests/data/iterations/gpt2_fp16_5it_h100.sqlite"}) {
        TempDir tmp;
        const fs::path file = tmp / source.filename().string(), home = tmp / "home";
        fs::copy_file(source, file);
        const std::string cold = cliOutputs(file);
        CliCacheOn on(home);
        EXPECT_EQ(cliOutputs(file), cold) << source; // the first command writes the cache
        EXPECT_FALSE(cacheFiles(home / "layerscope" / "traces").empty()) << source;
        EXPECT_EQ(cliOutputs(file), cold) << source;
    }
}

// The app holds a first load's cache write back until its window is prepared: nothing is written
// while the load's cacheWriteAfter is pending, and the write happens once it is set.
TEST(TraceCache, ABackgroundWriteWaitsForItsGate) {
    TempDir tmp;
    const fs::path file = tmp / "run.sqlite", dir = tmp / "cache";
    fs::copy_file(sampleTrace(), file);
    std::promise<void> prepared;
    LoadOptions o;
    o.cacheDir = dir.string();
    o.cacheWriteAfter = prepared.get_future().share();
    const auto r = loadTrace(file.string(), o);
    ASSERT_TRUE(r.ok());
    std::this_thread::sleep_for(
        std::chrono::milliseconds(300)); // the sample's write takes a few ms
    EXPECT_TRUE(cacheFiles(dir).empty()) << "written before the gate opened";
    prepared.set_value();
    waitForCacheWrites();
    const auto files = cacheFiles(dir);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].extension(), ".lstrace");
    EXPECT_TRUE(fromCache(*loadVia(file, dir)));
}

TEST(TraceCache, AChangedTraceFileIsLoadedAgainAndItsCacheReplaced) {
    TempDir tmp;
    const fs::path file = tmp / "run.sqlite", dir = tmp / "cache";
    fs::copy_file(sampleTrace(), file);
    EXPECT_FALSE(fromCache(*loadVia(file, dir)));
    EXPECT_TRUE(fromCache(*loadVia(file, dir)));
    // Another export under the same name: the identity's size, hashes and mtime change.
    fs::copy_file(sharedDir() / "traces" / "gpt2_2layer_bf16_b8_h200.sqlite", file,
                  fs::copy_options::overwrite_existing);
    if (!fs::exists(sharedDir() / "traces" / "gpt2_2layer_bf16_b8_h200.sqlite"))
        GTEST_SKIP() << "bf16 trace absent";
    EXPECT_EQ(lookupTraceCache(dir.string(), file.string()).miss, "made from another file");
    const auto reloaded = loadVia(file, dir);
    EXPECT_FALSE(fromCache(*reloaded));
    EXPECT_EQ(reloaded->kernels.size(), 201u);
    EXPECT_EQ(cacheFiles(dir).size(), 1u) << "the old cache file was not replaced";
    const auto again = loadVia(file, dir);
    EXPECT_TRUE(fromCache(*again));
    EXPECT_EQ(again->kernels.size(), 201u);
}

TEST(TraceCache, TruncatedDamagedAndForeignCacheFilesAreRejectedAndReplaced) {
    TempDir tmp;
    const fs::path file = tmp / "run.sqlite", dir = tmp / "cache";
    fs::copy_file(sampleTrace(), file);
    loadVia(file, dir);
    ASSERT_EQ(cacheFiles(dir).size(), 1u);
    const fs::path cache = cacheFiles(dir)[0];
    const std::string good = slurp(cache);
    auto rewrite = [&](const std::string& bytes) {
        std::ofstream(cache, std::ios::binary | std::ios::trunc) << bytes;
    };

    rewrite(good.substr(0, good.size() / 2));
    EXPECT_EQ(lookupTraceCache(dir.string(), file.string()).miss, "truncated");
    std::string flipped = good;
    flipped[flipped.size() / 2] ^= 0x40;
    rewrite(flipped);
    EXPECT_EQ(lookupTraceCache(dir.string(), file.string()).miss.rfind("damaged", 0), 0u);
    rewrite("SQLite format 3" + std::string(200, '\0'));
    EXPECT_EQ(lookupTraceCache(dir.string(), file.string()).miss, "not a Layerscope cache file");
    std::string otherVersion = good;
    otherVersion[8] = static_cast<char>(kTraceCacheVersion + 1);
    rewrite(otherVersion);
    EXPECT_EQ(lookupTraceCache(dir.string(), file.string()).miss,
              "made by another version of the cache format");

    const auto loaded = loadVia(file, dir); // rejected: loaded from the file, cache rewritten
    EXPECT_FALSE(fromCache(*loaded));
    EXPECT_EQ(loaded->kernels.size(), 214u);
    EXPECT_EQ(slurp(cache), good);
    EXPECT_TRUE(fromCache(*loadVia(file, dir)));
}

// The offset of `bytes` in `file`'s bytes (a column's first values), or npos.
size_t offsetOf(const std::string& file, const void* bytes, size_t n) {
    return file.find(std::string_view(static_cast<const char*>(bytes), n));
}

// The sample loaded and written as a cache file into a temporary folder.
struct WrittenSample {
    TempDir tmp;
    std::shared_ptr<const Trace> trace = loadTrace(sampleTrace().string()).trace;
    std::string identity = traceFileIdentity(sampleTrace().string());
    std::string file = (tmp / "a").string();
    bool written = trace && writeTraceFile(*trace, identity, file).empty();
};

TEST(TraceCache, APartialReadHoldsOnlyTheColumnsItsPartsNeed) {
    const WrittenSample sample;
    ASSERT_TRUE(sample.written);
    const auto& [tmp, trace, identity, file, written] = sample;

    const auto kernels = readTraceFile(file, identity, kLoadKernels);
    ASSERT_TRUE(kernels.trace) << kernels.reason;
    const Trace& k = *kernels.trace;
    EXPECT_EQ(k.parts, uint32_t(kLoadKernels));
    EXPECT_EQ(k.kernels.start, trace->kernels.start);
    EXPECT_EQ(k.kernels.name, trace->kernels.name);
    EXPECT_EQ(k.str(k.kernels.name[7]), trace->str(trace->kernels.name[7]));
    EXPECT_EQ(k.streamKernels.ids, trace->streamKernels.ids);
    EXPECT_TRUE(k.apiCalls.start.empty());
    EXPECT_TRUE(k.ranges.start.empty());
    EXPECT_TRUE(k.memcpys.start.empty());
    EXPECT_TRUE(k.metrics.flops.empty());
    EXPECT_TRUE(k.kernelLinks.range.empty());
    EXPECT_TRUE(std::none_of(k.kernels.launch.begin(), k.kernels.launch.end(), [](ApiCallId c) {
        return c.valid();
    })) << "no kernel points at an API call that was not read";

    const auto correlated = readTraceFile(file, identity, kLoadCorrelation);
    ASSERT_TRUE(correlated.trace) << correlated.reason;
    const Trace& c = *correlated.trace;
    EXPECT_EQ(c.parts, closeLoadParts(kLoadCorrelation));
    EXPECT_EQ(c.kernels.launch, trace->kernels.launch);
    EXPECT_EQ(c.apiCalls.start, trace->apiCalls.start);
    EXPECT_EQ(c.rangeSourceRows, trace->rangeSourceRows);
    EXPECT_EQ(c.kernelLinks.range, trace->kernelLinks.range);
    EXPECT_EQ(c.startEndTree, trace->startEndTree);
    EXPECT_TRUE(c.metrics.flops.empty());

    // Through the loader: a kernels-only load is answered from the cache.
    const fs::path copy = tmp / "run.sqlite", dir = tmp / "cache";
    fs::copy_file(sampleTrace(), copy);
    loadVia(copy, dir);
    LoadOptions o;
    o.cacheDir = dir.string();
    o.parts = kLoadKernels;
    const auto partial = loadTrace(copy.string(), o);
    ASSERT_TRUE(partial.ok());
    EXPECT_TRUE(fromCache(*partial.trace));
    EXPECT_EQ(partial.trace->parts, uint32_t(kLoadKernels));
    EXPECT_EQ(partial.trace->kernels.size(), 214u);
}

TEST(TraceCache, EveryColumnReadIsCheckedAndOnlyThose) {
    const WrittenSample sample;
    ASSERT_TRUE(sample.written);
    const auto& [tmp, trace, identity, file, written] = sample;
    const std::string good = slurp(file);
    auto damagedAt = [&](size_t at) {
        std::string bytes = good;
        bytes[at] ^= 0x20;
        std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    };
    // A byte of the kernels' start column: found by its first values.
    const size_t kernelStarts = offsetOf(good, trace->kernels.start.data(), 4 * sizeof(TimeNs));
    ASSERT_NE(kernelStarts, std::string::npos);
    damagedAt(kernelStarts + 3);
    EXPECT_EQ(readTraceFile(file, identity, kLoadKernels).reason,
              "damaged (sections do not add up or a column's checksum differs)");
    EXPECT_FALSE(readTraceFile(file, identity).trace);
    // A byte of the ranges' start column: a kernels-only read does not read it, a full read fails.
    const size_t rangeStarts =
        offsetOf(good, trace->ranges.start.blockOffset.data(), 8 * sizeof(UInt24));
    ASSERT_NE(rangeStarts, std::string::npos);
    damagedAt(rangeStarts + 3);
    const auto kernelsOnly = readTraceFile(file, identity, kLoadKernels);
    ASSERT_TRUE(kernelsOnly.trace) << kernelsOnly.reason;
    EXPECT_EQ(kernelsOnly.trace->kernels.start, trace->kernels.start);
    EXPECT_EQ(readTraceFile(file, identity).reason,
              "damaged (sections do not add up or a column's checksum differs)");
}

TEST(TraceCache, TheLeastRecentlyUsedFilesGoBeyondTheCap) {
    TempDir tmp;
    const fs::path dir = tmp / "cache";
    std::vector<fs::path> files;
    for (int i = 0; i < 3; ++i) {
        files.push_back(tmp / ("run" + std::to_string(i) + ".sqlite"));
        fs::copy_file(sampleTrace(), files.back());
    }
    const auto trace = loadTrace(sampleTrace().string()).trace;
    ASSERT_EQ(
        storeTraceCache(dir.string(), *trace, traceFileIdentity(files[0].string()), 1ull << 40),
        "");
    const uint64_t one = traceCacheInfo(dir.string()).bytes;
    ASSERT_EQ(
        storeTraceCache(dir.string(), *trace, traceFileIdentity(files[1].string()), 1ull << 40),
        "");
    // Use the first again: the second is now the least recently used, and goes.
    fs::last_write_time(cacheFiles(dir)[0],
                        fs::file_time_type::clock::now() - std::chrono::hours(1));
    ASSERT_TRUE(lookupTraceCache(dir.string(), files[0].string()).trace);
    ASSERT_EQ(storeTraceCache(dir.string(), *trace, traceFileIdentity(files[2].string()),
                              2 * one + one / 2),
              "");
    const CacheInfo info = traceCacheInfo(dir.string());
    ASSERT_EQ(info.entries.size(), 2u);
    EXPECT_LE(info.bytes, 2 * one + one / 2);
    EXPECT_EQ(info.entries[0].source, fs::weakly_canonical(files[2]).string());
    EXPECT_EQ(info.entries[1].source, fs::weakly_canonical(files[0]).string());
}

TEST(TraceCache, CliNoCacheWritesNothingAndCacheInfoAndClearWork) {
    TempDir tmp;
    const fs::path home = tmp / "home", dir = home / "layerscope" / "traces";
    CliCacheOn on(home);
    ASSERT_EQ(runCli({"info", sampleTrace().string(), "--no-cache"}).rc, 0);
    EXPECT_TRUE(cacheFiles(dir).empty());
    // A report that reads only some tables does not write a (partial) model either.
    ASSERT_EQ(runCli({"summary", sampleTrace().string(), "--report", "gpukernsum"}).rc, 0);
    EXPECT_TRUE(cacheFiles(dir).empty());
    ASSERT_EQ(runCli({"info", sampleTrace().string()}).rc, 0);
    EXPECT_EQ(cacheFiles(dir).size(), 1u);
    const auto info = runCli({"cache", "info"});
    EXPECT_EQ(info.rc, 0);
    EXPECT_NE(info.out.find(dir.string()), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("files: 1,"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find(fs::weakly_canonical(sampleTrace()).string()), std::string::npos)
        << info.out;
    const auto clear = runCli({"cache", "clear"});
    EXPECT_EQ(clear.out, "removed 1 cache file from " + dir.string() + "\n");
    EXPECT_TRUE(cacheFiles(dir).empty());
    EXPECT_EQ(runCli({"cache", "flush"}).rc, 2);
}

} // namespace
} // namespace ls::test
