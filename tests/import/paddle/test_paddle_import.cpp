// The PaddlePaddle profiler importer on fixtures written field by field after Paddle's
// chrometracing_logger.cc (tests/data/paddle/make_fixtures.py): every category and field the
// logger writes reaches the model or the load report, the lowercase categories of older releases
// read the same, and damaged files fail with the one-line reasons Kineto files get.
#include "core/import/paddle/paddle_event.h"
#include "core/import/paddle/paddle_memory.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <zlib.h>

namespace ls::test {
namespace {

fs::path paddleFixture(const std::string& stem = "paddle_gpt_2steps") {
    return sourceDir() / "tests" / "data" / "paddle" / (stem + ".paddle_trace.json");
}

std::shared_ptr<const Trace> load(const fs::path& p) {
    const LoadResult r = loadTrace(p.string(), {});
    EXPECT_TRUE(r.ok()) << (r.error ? r.error->reason : "");
    return r.trace;
}

std::string metadata(const Trace& t, std::string_view key) {
    for (const auto& [k, v] : t.info.metadata)
        if (k == key) return v;
    return "(absent)";
}

size_t kernelsNamed(const Trace& t, std::string_view name) {
    size_t n = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) n += t.str(t.kernels.name[i]) == name;
    return n;
}

int64_t rangeNamed(const Trace& t, std::string_view name) {
    for (uint32_t r = 0; r < t.ranges.size(); ++r)
        if (t.str(t.ranges.name[r]) == name) return r;
    return -1;
}

TEST(PaddleEvent, NamesLoseTheirDurationAndThreadIdsTheirLanguage) {
    EXPECT_EQ(stripPaddleDuration("matmul dygraph[0.125 ms]"), "matmul dygraph");
    EXPECT_EQ(stripPaddleDuration("ProfileStep#3[12.500 us]"), "ProfileStep#3");
    EXPECT_EQ(stripPaddleDuration("void k<float>(float*)"), "void k<float>(float*)");
    EXPECT_EQ(stripPaddleDuration("a[i]"), "a[i]"); // not a duration
    int64_t tid = 0;
    ASSERT_TRUE(paddleThreadId("1234(Python)", tid));
    EXPECT_EQ(tid, 1234);
    ASSERT_TRUE(paddleThreadId("1234(C++)", tid));
    EXPECT_EQ(tid, 1234);
    EXPECT_FALSE(paddleThreadId("(C++)", tid));
}

TEST(PaddleImport, HeaderDevicesAndExtraInfo) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    EXPECT_EQ(t->info.format, "PaddlePaddle profiler JSON");
    EXPECT_EQ(t->info.schemaVersion, "1.0.1");
    EXPECT_EQ(metadata(*t, "span_indx"), "0");
    EXPECT_EQ(metadata(*t, "displayTimeUnit"), "ms");
    EXPECT_EQ(metadata(*t, "ExtraInfo.Process Cpu Utilization"), "1.02");
    EXPECT_EQ(metadata(*t, "ExtraInfo.System Cpu Utilization"), "0.35");
    ASSERT_EQ(t->devices.size(), 1u);
    EXPECT_EQ(t->devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(t->devices[0].smCount, 132u); // Paddle's "smCount"
    EXPECT_EQ(t->devices[0].computeMajor, 9);
    EXPECT_EQ(t->devices[0].memoryBytes, 85045231616u);
}

TEST(PaddleImport, HostThreadIsOneThreadForPythonAndCpp) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    size_t hostThreads = 0;
    for (const auto& th : t->threads)
        if (th.tid == 4242) ++hostThreads;
    EXPECT_EQ(hostThreads, 1u);
    // ProfileStep (Python) encloses the ops (C++): one nesting, so the steps are iterations.
    ASSERT_EQ(t->iterations.size(), 2u);
    EXPECT_EQ(t->iterations[0].name, "ProfileStep#0");
    EXPECT_EQ(t->iterations[1].end - t->iterations[1].start, 9'000'000);
}

TEST(PaddleImport, KernelsCopiesSetsAndTheirLaunches) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    EXPECT_EQ(t->kernels.size(), 20u);
    EXPECT_EQ(t->memcpys.size(), 2u);
    EXPECT_EQ(t->memsets.size(), 2u);
    EXPECT_EQ(t->apiCalls.size(), 24u);
    EXPECT_EQ(kernelsNamed(*t, "volta_h884gemm_64x64_nt"), 4u); // "[0.300 ms]" stripped
    for (size_t i = 0; i < t->kernels.size(); ++i) {
        ASSERT_TRUE(t->kernels.launch[i].valid()) << "kernel " << i << " has no launch";
        EXPECT_EQ(t->kernels.grid[i], (Dim3{128, 1, 1}));
        EXPECT_EQ(t->kernels.block[i], (Dim3{256, 1, 1}));
        EXPECT_EQ(t->kernels.registers[i], 128u);
        EXPECT_EQ(t->kernels.staticSmem[i], 49152u);
    }
    // Device events: pid is the device, tid the stream.
    std::vector<uint32_t> streams;
    for (const auto& s : t->streams) streams.push_back(s.stream);
    EXPECT_NE(std::find(streams.begin(), streams.end(), 7u), streams.end());
    EXPECT_NE(std::find(streams.begin(), streams.end(), 13u), streams.end());
    EXPECT_EQ(t->streams.size(), 2u); // copies have no "context": they take their device's
    EXPECT_EQ(t->memcpys.bytes[0], 4u << 20);
    EXPECT_EQ(t->memcpys.kind[0], CopyKind::HtoD);
    EXPECT_EQ(t->memcpys.duration(0), 30'500); // "dur": 30.5 us
    ASSERT_TRUE(t->memcpys.launch[0].valid());
    EXPECT_EQ(t->memsets.bytes[0], 1024u);
    ASSERT_TRUE(t->memsets.launch[0].valid());
    EXPECT_EQ(t->report.count(Anomaly::BrokenFlow), 0u); // every "launch" flow has both ends
    EXPECT_EQ(t->report.count(Anomaly::OrphanGpuOp), 0u);
    EXPECT_EQ(t->report.count(Anomaly::MalformedEvent), 0u);
    EXPECT_EQ(t->report.count(Anomaly::UnknownEventCategory), 0u);
    EXPECT_EQ(metadata(*t, "paddle.kernels_with_occupancy"), "20");
    EXPECT_EQ(metadata(*t, "paddle.copies_with_bandwidth"), "2");
}

TEST(PaddleImport, OpsCarryShapesAndPhasesSetDirections) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    const int64_t matmul = rangeNamed(*t, "matmul dygraph");
    ASSERT_GE(matmul, 0);
    EXPECT_EQ(t->str(t->ranges.sizes[matmul]), "[[8, 768], [768, 3072]]");
    EXPECT_EQ(metadata(*t, "paddle.ops_with_input_shapes"), "4");
    EXPECT_EQ(metadata(*t, "paddle.ops_with_input_dtypes"), "4");
    EXPECT_EQ(metadata(*t, "paddle.ops_with_callstack"), "4");
    const int64_t model = rangeNamed(*t, "GPTModel");
    ASSERT_GE(model, 0);
    EXPECT_TRUE(t->ranges.flags[model] & kModuleScope); // a Forward event is a layer scope
    // Operator, OperatorInner and Communication events are ops; top-level ones are instances.
    EXPECT_EQ(t->ops.size(), 16u);
    for (size_t k = 0; k < t->kernels.size(); ++k) {
        const std::string_view name = t->str(t->kernels.name[k]);
        const Direction d = t->kernelLinks.direction[k];
        if (name == "volta_h884gemm_64x64_nt" || name.starts_with("nccl") ||
            name == "elementwise_add_grad_kernel")
            EXPECT_EQ(d, Direction::Backward) << name; // inside "Gradient Backward"
        else if (name == "adamw_kernel")
            EXPECT_EQ(d, Direction::Optimizer) << name; // inside "Optimization Step"
        else
            EXPECT_EQ(d, Direction::Forward) << name;
        if (name == "softmax_kernel") {
            EXPECT_EQ(t->str(t->kernelLinks.layer[k]), "attention_block");
        }
    }
}

// Paddle's eager op names ("matmul dygraph") find the FLOPs formula of their op from the
// shapes the event carries: 2 x M x N x K for X [8, 768] @ Y [768, 3072].
TEST(PaddleImport, OpShapesGiveFlops) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    size_t priced = 0;
    for (size_t k = 0; k < t->kernels.size(); ++k)
        if (t->str(t->kernels.name[k]) == "volta_h884gemm_128x64_nn") {
            EXPECT_DOUBLE_EQ(t->metrics.flops[k], 2.0 * 8 * 768 * 3072);
            ++priced;
        }
    EXPECT_EQ(priced, 4u);
}

TEST(PaddleImport, GpuMemoryEventsBecomeTheModelsMemoryEvents) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    // Per step (make_fixtures.py): ReservedAllocate 8 MiB, Allocate 4096, Free 4096,
    // ReservedFree 8 MiB, each with the totals after it.
    const auto& m = t->memory;
    ASSERT_EQ(m.size(), 8u);
    const int64_t mib8 = 8 << 20;
    const int64_t bytes[] = {mib8, 4096, -4096, -mib8};
    const MemoryPool pools[] = {MemoryPool::Reserved, MemoryPool::Allocated, MemoryPool::Allocated,
                                MemoryPool::Reserved};
    const uint64_t allocated[] = {0, 4096, 0, 0};
    const uint64_t reserved[] = {uint64_t(mib8), uint64_t(mib8), uint64_t(mib8), 0};
    const TimeNs offsets[] = {604, 605, 950, 8950};
    for (size_t i = 0; i < m.size(); ++i) {
        SCOPED_TRACE(i);
        const size_t k = i % 4;
        EXPECT_EQ(m.time[i], (1000 + TimeNs(i / 4) * 10000 + offsets[k]) * 1000);
        EXPECT_EQ(m.bytes[i], bytes[k]);
        EXPECT_EQ(m.pool[i], pools[k]);
        EXPECT_EQ(m.allocated[i], allocated[k]);
        EXPECT_EQ(m.reserved[i], reserved[k]);
        EXPECT_EQ(m.address[i], 140245603024896u);
        EXPECT_EQ(m.device[i], 0u);
        ASSERT_TRUE(m.thread[i].valid());
        EXPECT_EQ(t->threads[m.thread[i].value].tid, 4242u);
    }
}

TEST(PaddleImport, PythonOpAndHostMemoryEventsAreCountedInTheLoadReport) {
    const auto t = load(paddleFixture());
    ASSERT_TRUE(t);
    const auto& details = t->report.details(Anomaly::NotModelledEvent);
    std::string all;
    for (const auto& d : details) all += d + "\n";
    EXPECT_EQ(all.find("[memory]"), std::string::npos) << all; // every one is on gpu:0
    EXPECT_NE(all.find("2 PythonOp"), std::string::npos) << all;
}

TEST(PaddleImport, PlacesOtherThanAGpuAreHostMemory) {
    EXPECT_EQ(paddleGpuOfPlace("Place(gpu:0)"), 0u);
    EXPECT_EQ(paddleGpuOfPlace("Place(gpu:12)"), 12u);
    EXPECT_FALSE(paddleGpuOfPlace("Place(cpu)"));
    EXPECT_FALSE(paddleGpuOfPlace("Place(gpu_pinned)"));
    EXPECT_FALSE(paddleGpuOfPlace("Place(gpu:)"));
    EXPECT_FALSE(paddleGpuOfPlace("Place(gpu:1"));
}

TEST(PaddleImport, LowercaseCategoriesOfOlderReleasesReadTheSame) {
    const auto a = load(paddleFixture());
    const auto b = load(paddleFixture("paddle_gpt_2steps_lowercase"));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(b->info.schemaVersion, "1.0.0");
    EXPECT_EQ(a->kernels.size(), b->kernels.size());
    EXPECT_EQ(a->apiCalls.size(), b->apiCalls.size());
    EXPECT_EQ(a->ranges.size(), b->ranges.size());
    EXPECT_EQ(a->ops.size(), b->ops.size());
    EXPECT_EQ(a->iterations.size(), b->iterations.size());
    EXPECT_EQ(b->report.count(Anomaly::UnknownEventCategory), 0u);
}

TEST(PaddleImport, GzipReadsTheSame) {
    TempDir dir;
    const std::string text = readFile(paddleFixture());
    const fs::path gz = dir / "trace.json.gz";
    gzFile f = gzopen(gz.string().c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    const auto t = load(gz);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->info.format, "PaddlePaddle profiler JSON");
    EXPECT_EQ(t->kernels.size(), 20u);
}

TEST(PaddleImport, KinetoTracesStayKineto) {
    const auto t =
        load(sourceDir() / "tests" / "data" / "kineto" / "gpt2_2layer_fp16_h200.kineto.json.gz");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->info.format, "PyTorch profiler (Kineto) JSON");
}

// Damaged copies: one clear line each, as Kineto files get (tests/import/kineto/).
LoadResult loadText(const TempDir& dir, const std::string& name, const std::string& text) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return loadTrace(p.string(), {});
}

void expectOneLineError(const LoadResult& r, std::string_view contains, const std::string& what) {
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.error->reason.find('\n'), std::string::npos) << what;
    EXPECT_NE(r.error->reason.find(contains), std::string::npos) << what << ": " << r.error->reason;
}

TEST(PaddleDamaged, TruncatedNotJsonMissingOrEmptyEvents) {
    TempDir dir;
    const std::string text = readFile(paddleFixture());
    const size_t events = text.find("\"traceEvents\"");
    ASSERT_NE(events, std::string::npos);
    // Cut inside the header, after it: no traceEvents array.
    expectOneLineError(loadText(dir, "header.json", text.substr(0, events)),
                       "not a PaddlePaddle profiler trace", "cut before traceEvents");
    // Cut inside the first event: nothing read.
    expectOneLineError(loadText(dir, "first.json", text.substr(0, events + 40)), "truncated",
                       "cut in the first event");
    // A header and no traceEvents member at all.
    expectOneLineError(loadText(dir, "nomember.json",
                                "{\"schemaVersion\": \"1.0.1\", \"displayTimeUnit\": \"ms\", "
                                "\"span_indx\": \"0\", \"ExtraInfo\": {}}"),
                       "no traceEvents", "no traceEvents member");
    // Only the sentinel.
    expectOneLineError(loadText(dir, "sentinel.json",
                                "{\"schemaVersion\": \"1.0.1\", \"span_indx\": \"0\", "
                                "\"traceEvents\": [{}]}"),
                       "no trace events", "only the {} sentinel");
    // Not JSON after a Paddle start.
    expectOneLineError(loadText(dir, "garbage.json",
                                "{\"schemaVersion\": \"1.0.1\", \"span_indx\": \"0\", \x01\x02"),
                       "not a", "garbage after the header");
    // Cut in the middle: loads, with the truncation in the load report.
    const LoadResult half = loadText(dir, "half.json", text.substr(0, text.size() / 2));
    ASSERT_TRUE(half.ok()) << half.error->reason;
    EXPECT_EQ(half.trace->report.count(Anomaly::TruncatedJson), 1u);
    EXPECT_GT(half.trace->kernels.size(), 0u);
}

// Cut at many points and with bytes flipped (fixed seed): every copy loads, with what it lost in
// the load report, or fails with one line; never a crash or a hang.
TEST(PaddleDamaged, CutAndFlippedCopiesNeverCrash) {
    TempDir dir;
    const std::string text = readFile(paddleFixture());
    std::mt19937 random(47);
    for (int i = 0; i < 60; ++i) {
        std::string bytes = text;
        if (i % 2 == 0) {
            bytes.resize(random() % text.size());
        } else {
            for (int flips = 0; flips < 8; ++flips)
                bytes[random() % bytes.size()] = static_cast<char>(random() % 256);
        }
        const LoadResult r = loadText(dir, "damaged" + std::to_string(i) + ".json", bytes);
        if (!r.ok()) {
            EXPECT_FALSE(r.error->reason.empty()) << i;
            EXPECT_EQ(r.error->reason.find('\n'), std::string::npos) << i;
        }
    }
}

TEST(PaddleDamaged, BadEventsAreCountedNotFatal) {
    TempDir dir;
    std::string text = readFile(paddleFixture());
    // A correlation id that is not a number, and an event that is not an object.
    const size_t corr = text.find("\"correlation id\": ");
    ASSERT_NE(corr, std::string::npos);
    text.replace(corr, 18, "\"correlation id\": [1], \"x\": ");
    const size_t first = text.find("\"traceEvents\": [") + 16;
    text.insert(first, "\n  42,");
    const LoadResult r = loadText(dir, "bad.json", text);
    ASSERT_TRUE(r.ok()) << r.error->reason;
    EXPECT_EQ(r.trace->report.count(Anomaly::MalformedEvent), 2u);
}

} // namespace
} // namespace ls::test
