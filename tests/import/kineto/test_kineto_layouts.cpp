// Chrome-trace layouts that real profilers write, made at test time: the trace is told by its
// structure (a "traceEvents" member anywhere, or a bare array of events), not by its first bytes;
// AMD ROCm runtime rows write numbers as strings; Paddle ends its events with an empty object.
#include "core/costs/occupancy.h"
#include "core/load/load.h"
#include "core/pytorch/range_roles.h"
#include "tests/support/test_support.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <zlib.h>

namespace ls::test {
namespace {

const std::string kLaunch =
    R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 9, "dur": 1, "args": {"correlation": 1}})";
const std::string kKernel =
    R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2, "args": {"correlation": 1, "stream": 7, "device": 0}})";

LoadResult loadText(const TempDir& dir, const std::string& name, const std::string& text,
                    bool gzip = false) {
    const fs::path p = dir / name;
    if (gzip) {
        gzFile gz = gzopen(p.string().c_str(), "wb");
        gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
        gzclose(gz);
    } else {
        std::ofstream(p, std::ios::binary) << text;
    }
    return loadTrace(p.string(), {});
}

// A "metadata" object larger than any head the importer reads (PyTorch 2.x writes it first).
std::string bigMetadata() {
    std::string m = R"("metadata": {"notes": [)";
    for (int i = 0; i < 20000; ++i)
        m += (i ? ", " : "") + std::string("\"entry ") + std::to_string(i * 7919) + "\"";
    return m + "]}";
}

TEST(KinetoLayouts, TraceEventsAfterOtherMembersInAnyOrder) {
    TempDir dir;
    const std::string events = "\"traceEvents\": [" + kLaunch + ", " + kKernel + "]";
    const std::vector<std::pair<std::string, std::string>> layouts = {
        {"metadata_first.json", "{" + bigMetadata() + ", " + events + ", \"schemaVersion\": 1}"},
        {"metadata_first.pt.trace.json.gz", "{" + bigMetadata() + ", " + events + "}"},
        {"events_last.json",
         R"({"schemaVersion": 1, "displayTimeUnit": "ms", "deviceProperties": [], )" + events +
             "}"},
        {"bare_array.json", "[" + kLaunch + ", " + kKernel + "]"},
        {"bare_array_spaced.json.gz", "\n  [\n" + kLaunch + ",\n" + kKernel + "\n]\n"},
    };
    for (const auto& [name, text] : layouts) {
        SCOPED_TRACE(name);
        const LoadResult r = loadText(dir, name, text, name.ends_with(".gz"));
        ASSERT_TRUE(r.ok()) << r.error->reason;
        EXPECT_EQ(r.trace->kernels.size(), 1u);
        EXPECT_TRUE(r.trace->kernels.launch[0].valid());
        EXPECT_EQ(r.trace->report.count(Anomaly::MalformedEvent), 0u);
    }
}

TEST(KinetoLayouts, JsonThatIsNotATraceIsStillRefused) {
    TempDir dir;
    for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
             {"settings.json", "{" + bigMetadata() + R"(, "editor": {"fontSize": 14}})"},
             {"numbers.json", "[1, 2, 3]"},
             {"strings.json", R"(["traceEvents", "ph"])"},
             {"empty_array.json", "[]"},
         }) {
        const LoadResult r = loadText(dir, name, text);
        ASSERT_FALSE(r.ok()) << name;
        EXPECT_NE(r.error->reason.find("not a trace"), std::string::npos)
            << name << ": " << r.error->reason;
    }
}

// Paddle's profiler (and some converters) end the event list with an empty object.
TEST(KinetoLayouts, AnEmptySentinelEventIsNotDamage) {
    TempDir dir;
    const LoadResult r =
        loadText(dir, "sentinel.json", "{\"traceEvents\": [" + kLaunch + ", " + kKernel + ", {}]}");
    ASSERT_TRUE(r.ok()) << r.error->reason;
    EXPECT_EQ(r.trace->kernels.size(), 1u);
    EXPECT_EQ(r.trace->report.count(Anomaly::MalformedEvent), 0u);
    EXPECT_EQ(r.trace->report.count(Anomaly::UnknownEventCategory), 0u);
}

// ROCm (roctracer) runtime rows write a copy's size and kind as strings ("bytes": "4096"), ROCm
// 6.2 the stream in hexadecimal ("stream": "0x0"): the calls are still read, and their copy and
// kernel link to them by correlation id.
TEST(KinetoLayouts, RocmCopyLinksToItsHipMemcpyCall) {
    TempDir dir;
    const std::string text =
        R"js({"deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X VF", "totalGlobalMem": 205571227648,
        "computeMajor": 9, "computeMinor": 4, "numSms": 304}], "traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyAsync", "pid": 6240, "tid": 6240, "ts": 100.0, "dur": 20.5,
         "args": {"External id": 42, "cid": 153, "correlation": 810, "src": "0x7f03643e9e00", "dst": "0x7f03be8de000", "bytes": "4096", "kind": "1", "stream": "0x0"}},
        {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 2, "tid": 0, "ts": 110.0, "dur": 2.4,
         "args": {"External id": 42, "device": 2, "stream": 0, "correlation": 810, "kind": "HtoD", "bytes": 4096}},
        {"ph": "X", "cat": "cuda_runtime", "name": "hipExtModuleLaunchKernel", "pid": 6240, "tid": 6240, "ts": 130.0, "dur": 5,
         "args": {"correlation": 811, "stream": "0x7f3a"}},
        {"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_HHS_BH_MT128x128x32", "pid": 2, "tid": 0, "ts": 140.0, "dur": 8,
         "args": {"correlation": 811, "device": 2, "stream": 0, "grid": [256, 1, 1], "block": [256, 1, 1]}}
    ]})js";
    const LoadResult r = loadText(dir, "rocm.json", text);
    ASSERT_TRUE(r.ok()) << r.error->reason;
    const Trace& t = *r.trace;
    ASSERT_EQ(t.apiCalls.size(), 2u);
    ASSERT_EQ(t.memcpys.size(), 1u);
    ASSERT_TRUE(t.memcpys.launch[0].valid());
    EXPECT_EQ(t.str(t.apiCalls.name[t.memcpys.launch[0].value]), "hipMemcpyAsync");
    EXPECT_EQ(t.memcpys.bytes[0], 4096u);
    ASSERT_TRUE(t.kernels.launch[0].valid());
    EXPECT_EQ(t.report.count(Anomaly::OrphanGpuOp), 0u);
    EXPECT_EQ(t.report.count(Anomaly::MalformedEvent), 0u);
    // deviceProperties numbers the visible GPU 0; the events call it 2: one GPU, named, with AMD's
    // occupancy not applicable rather than an NVIDIA 9.x number.
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_EQ(t.devices[0].id, 2u);
    EXPECT_EQ(t.devices[0].name, "AMD Instinct MI300X VF");
    ASSERT_EQ(t.metrics.occupancyLimiter.size(), 1u);
    EXPECT_EQ(t.metrics.occupancyLimiter[0], kLimitNotApplicable);
}

// GradScaler.update() runs after Optimizer.step, often outside any range: optimizer work.
TEST(KinetoLayouts, GradScalerOpsAreOptimizerWork) {
    EXPECT_TRUE(isOptimizerOp("aten::_amp_update_scale_"));
    EXPECT_TRUE(isOptimizerOp("aten::_amp_foreach_non_finite_check_and_unscale_"));
    EXPECT_FALSE(isOptimizerOp("aten::add_"));
}

} // namespace
} // namespace ls::test
