// A load of only the parts a report needs (core/model/load_parts.h) reads only those tables, and
// every report that asks for fewer parts gives what it gives over a full load.
#include "core/cache/trace_file.h"
#include "core/import/common/raw_text.h"
#include "core/load/load.h"
#include "core/reports/gpu_idle.h"
#include "core/reports/gpu_trace.h"
#include "core/reports/kernel_exec_summary.h"
#include "core/reports/memory_summary.h"
#include "core/reports/nvtx_gpu_projection.h"
#include "core/reports/nvtx_kern_summary.h"
#include "core/reports/nvtx_summary.h"
#include "core/reports/report_parts.h"
#include "core/reports/summary.h"
#include "tests/support/test_support.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace ls::test {
namespace {

std::shared_ptr<const Trace> load(const fs::path& file, uint32_t parts) {
    LoadOptions options;
    options.parts = parts;
    auto r = loadTrace(file.string(), options);
    EXPECT_TRUE(r.ok()) << file << ": " << (r.error ? r.error->reason : "");
    return r.trace;
}

TEST(LoadParts, KernelsOnlyReadsTheKernelTableAndNothingElse) {
    const auto full = load(sampleTrace(), kLoadEverything);
    const auto kernels = load(sampleTrace(), kLoadKernels);
    ASSERT_TRUE(full && kernels);
    SqlReader sql(sampleTrace());
    EXPECT_EQ(kernels->kernels.size(),
              static_cast<size_t>(sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")));
    EXPECT_EQ(kernels->kernels.size(), full->kernels.size());
    EXPECT_EQ(kernels->apiCalls.size(), 0u);
    EXPECT_EQ(kernels->ranges.size(), 0u);
    EXPECT_EQ(kernels->memcpys.size() + kernels->memsets.size(), 0u);
    EXPECT_GT(full->apiCalls.size(), 0u);
    EXPECT_GT(full->ranges.size(), 0u);
    EXPECT_TRUE(kernels->kernelLinks.layer.empty()) << "correlation ran without being asked for";
    EXPECT_TRUE(kernels->metrics.flops.empty()) << "FLOPs were priced without being asked for";
    EXPECT_EQ(kernels->parts, static_cast<uint32_t>(kLoadKernels));
    // Tables left out on purpose are not missing from the file.
    EXPECT_EQ(kernels->report.count(Anomaly::MissingTable),
              full->report.count(Anomaly::MissingTable));
}

TEST(LoadParts, CostsAndIterationsBringTheCorrelationAndItsTables) {
    for (uint32_t wanted :
         {uint32_t(kLoadCosts), uint32_t(kLoadIterations), uint32_t(kLoadCorrelation)}) {
        const uint32_t closed = closeLoadParts(wanted);
        for (uint32_t needed : {kLoadCorrelation, kLoadKernels, kLoadApiCalls, kLoadNvtx})
            EXPECT_TRUE(closed & needed) << wanted;
        EXPECT_FALSE(closed & kLoadOsRuntime);
    }
    EXPECT_EQ(closeLoadParts(kLoadKernels | kLoadMemory),
              static_cast<uint32_t>(kLoadKernels | kLoadMemory));
    EXPECT_EQ(reportLoadParts("layer_sum"), static_cast<uint32_t>(kLoadEverything));
    EXPECT_EQ(reportLoadParts("gpukernsum"), static_cast<uint32_t>(kLoadKernels));
    EXPECT_EQ(reportLoadParts("api_sum"), static_cast<uint32_t>(kLoadApiCalls));
}

TEST(LoadParts, WithoutNamesRangesKeepAllButTheirNamesAndMarkerFields) {
    const fs::path file =
        sharedDir() /
        "traces/ddp_bf16_h200x2_rank0.sqlite"; // PyTorch markers and ranges of named domains
    LS_REQUIRE_FILE(file);
    const auto full = load(file, kLoadEverything);
    const auto bare = load(file, kLoadNvtx);
    ASSERT_TRUE(full && bare);
    EXPECT_FALSE(bare->parts & kLoadNvtxNames);
    const RangeColumns &f = full->ranges, &b = bare->ranges;
    ASSERT_EQ(b.size(), f.size());
    EXPECT_EQ(b.start, f.start);
    EXPECT_EQ(b.end, f.end);
    EXPECT_EQ(b.kind, f.kind);
    EXPECT_EQ(b.parent, f.parent);
    EXPECT_EQ(bare->threadRangeBegin, full->threadRangeBegin);
    EXPECT_EQ(bare->rangeSourceRows, full->rangeSourceRows);
    // Names only for ranges of a named domain (read whole for their "domain:" prefix), as SQL
    // counts them.
    SqlReader sql(file);
    const auto inDomains = static_cast<size_t>(
        sql.scalar("SELECT count(*) FROM NVTX_EVENTS WHERE domainId != 0 AND eventType != 75"));
    size_t named = 0, markers = 0, seqs = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        if (b.name[i].value != 0) { // a range of a named domain: whole
            ++named;
            EXPECT_EQ(bare->str(b.name[i]), full->str(f.name[i]));
            EXPECT_EQ(b.flags[i], f.flags[i]);
            continue;
        }
        markers += (b.flags[i] & kPytorchMarker) != 0;
        seqs += b.seq[i] != -1;
        EXPECT_EQ(b.flags[i], f.flags[i] & (kUnended | kEndsOnOtherThread))
            << "only flags of the row itself, none from its text: " << i;
    }
    EXPECT_EQ(named, inDomains);
    EXPECT_GT(inDomains, 0u);
    EXPECT_EQ(markers, 0u);
    EXPECT_EQ(seqs, 0u);
    EXPECT_GT(f.seq.values.size(), 0u) << "the full load has marker fields to leave out";

    EXPECT_TRUE(closeLoadParts(kLoadCorrelation) & kLoadNvtxNames);
    EXPECT_TRUE(closeLoadParts(kLoadNvtxNames) & kLoadNvtx);
    EXPECT_FALSE(reportLoadParts("nvtx_gpu_proj") & kLoadNvtxNames);
    for (const char* report : {"nvtx_sum", "idle_sum", "gaps"})
        EXPECT_TRUE(closeLoadParts(reportLoadParts(report)) & kLoadNvtxNames) << report;
}

TEST(LoadParts, RawTextsOfATraceLoadedWithoutNamesFailWhenTheFileIsGone) {
    TempDir tmp;
    const fs::path copy = tmp / "run.sqlite";
    fs::copy_file(sampleTrace(), copy);
    const auto full = load(copy, kLoadEverything), bare = load(copy, kLoadNvtx);
    ASSERT_TRUE(full && bare);
    fs::remove(copy);
    const std::vector<RangeId> first = {RangeId(0)};
    size_t handed = 0;
    EXPECT_NO_THROW(forEachRawText(*full, first, [&](size_t, std::string_view) { ++handed; }))
        << "a full load has its names to give";
    EXPECT_EQ(handed, 1u);
    EXPECT_THROW(forEachRawText(*bare, first, [](size_t, std::string_view) {}), std::runtime_error);
}

std::string stats(const DurationStats& s) {
    std::ostringstream o;
    o << s.total << ' ' << s.count << ' ' << s.median << ' ' << s.min << ' ' << s.max << ' '
      << s.stddev;
    return o.str();
}

// A report's rows as text, names resolved, so loads with different string pools compare.
std::string render(const Trace& t, std::string_view report) {
    std::ostringstream o;
    auto rows = [&](const std::vector<SummaryRow>& v) {
        for (const auto& r : v)
            o << r.name << '|' << r.grid << '|' << r.block << '|' << stats(r.stats) << '\n';
    };
    if (report == "kern_sum")
        rows(kernelSummary(t, KernelGrouping::Name, KernelNaming::Demangled));
    else if (report == "gpukernsum")
        rows(kernelSummary(t, KernelGrouping::NameGridBlock, KernelNaming::Demangled));
    else if (report == "api_sum")
        rows(apiSummary(t));
    else if (report == "osrt_sum")
        rows(osRuntimeSummary(t));
    else if (report == "mem_time_sum")
        rows(memoryTimeSummary(t));
    else if (report == "mem_size_sum")
        for (const auto& r : memorySizeSummary(t))
            o << r.operation << '|' << r.bytes.total << ' ' << r.bytes.count << '\n';
    else if (report == "gpu_sum")
        for (const auto& r : gpuSummary(t))
            o << r.kernel << '|' << r.row.name << '|' << stats(r.row.stats) << '\n';
    else if (report == "nvtx_sum")
        for (const auto& r : nvtxRangeSummary(t))
            o << r.name << '|' << r.style << '|' << stats(r.stats) << '\n';
    else if (report == "nvtx_kern_sum")
        nvtxKernelSummary(t, [&](const NvtxKernRow& r) {
            o << r.range << '|' << r.pid.value_or(0) << '|' << r.tid.value_or(0) << '|'
              << r.rangeInstances << '|' << r.kernelInstances << '|' << stats(r.stats) << '|'
              << t.str(r.kernel) << '\n';
        });
    else if (report == "kern_exec_sum")
        for (const auto& r : kernelExecSummary(t))
            o << r.pid << '|' << r.tid << '|' << r.device << '|' << r.api << '|' << t.str(r.kernel)
              << '|' << stats(r.total) << '|' << stats(r.queue) << '\n';
    else if (report == "gpu_trace" || report == "api_trace" || report == "nvtx_gpu_proj") {
        TableWriter w(o, TableFormat::Csv);
        if (report == "gpu_trace")
            writeGpuTrace(w, t);
        else if (report == "api_trace")
            writeApiTrace(w, t);
        else
            writeNvtxGpuProjection(w, t);
        w.finish();
    } else if (report == "idle_sum" || report == "gaps") {
        const GpuIdle idle = gpuIdle(t);
        for (const auto& d : idle.devices)
            o << d.device << '|' << d.busy << '|' << d.span() << '\n';
        for (const auto& g : idle.gaps)
            o << g.device << '|' << g.start << '|' << g.end << '|' << idleCauseName(g.cause) << '|'
              << g.detail << '|' << g.op << '|' << g.tid << '|' << g.next << '\n';
    } else
        ADD_FAILURE() << "no rendering for " << report;
    return o.str();
}

// Schema, small tables and event tables read straight from the pages give the same model, byte
// for byte in the model cache's file, as all of them read through SQLite.
TEST(LoadParts, ThroughThePagesTheModelIsTheOneSqliteReads) {
    TempDir dir;
    size_t compared = 0;
    for (const fs::path& file : {sampleTrace(), sharedDir() / "traces/ddp_bf16_h200x2_rank0.sqlite",
                                 sharedDir() / "traces/gpt2_2layer_bf16_b8_h200.sqlite",
                                 thirdPartyTrace("saxpy_mpi_perlmutter.nsys.sqlite"),
                                 thirdPartyTrace("cloverleaf_perlmutter.nsys.sqlite")}) {
        if (!fs::exists(file)) continue;
        std::string bytes[2];
        for (int viaSqlite : {0, 1}) {
            setEnv("LAYERSCOPE_SQLITE_READ", viaSqlite ? "1" : nullptr);
            const auto t = load(file, kLoadEverything);
            setEnv("LAYERSCOPE_SQLITE_READ", nullptr);
            ASSERT_TRUE(t);
            const fs::path out = dir / ("model" + std::to_string(viaSqlite));
            ASSERT_EQ(writeTraceFile(*t, "same identity", out.string()), "");
            std::ifstream in(out, std::ios::binary);
            bytes[viaSqlite].assign(std::istreambuf_iterator<char>(in), {});
        }
        EXPECT_GT(bytes[0].size(), 1000u);
        EXPECT_TRUE(bytes[0] == bytes[1]) << file << ": the models differ";
        ++compared;
    }
    if (compared < 3) GTEST_SKIP() << "only the bundled sample compared: ../shared/traces absent";
}

class ReducedLoad : public ::testing::TestWithParam<std::string> {};

TEST_P(ReducedLoad, EveryReportOverItsPartsEqualsTheReportOverAFullLoad) {
    const fs::path file = GetParam() == "sample" ? sampleTrace() : sharedDir() / GetParam();
    LS_REQUIRE_FILE(file);
    const auto full = load(file, kLoadEverything);
    ASSERT_TRUE(full);
    size_t nonEmpty = 0;
    for (const char* report :
         {"kern_sum", "gpukernsum", "api_sum", "osrt_sum", "mem_time_sum", "mem_size_sum",
          "gpu_sum", "nvtx_sum", "nvtx_kern_sum", "kern_exec_sum", "gpu_trace", "api_trace",
          "nvtx_gpu_proj", "idle_sum", "gaps"}) {
        const uint32_t parts = reportLoadParts(report);
        ASSERT_NE(parts, static_cast<uint32_t>(kLoadEverything)) << report;
        const auto reduced = load(file, parts);
        ASSERT_TRUE(reduced);
        const std::string expected = render(*full, report);
        EXPECT_EQ(render(*reduced, report), expected) << report << " on " << file;
        nonEmpty += !expected.empty();
    }
    EXPECT_GE(nonEmpty, 6u) << "too few reports had rows to compare";
}

INSTANTIATE_TEST_SUITE_P(Traces, ReducedLoad,
                         ::testing::Values("sample", "traces/ddp_bf16_h200x2_rank0.sqlite",
                                           "traces/gpt2_2layer_bf16_b8_h200.sqlite",
                                           "traces/third-party/saxpy_mpi_perlmutter.nsys.sqlite",
                                           "traces/third-party/pyprof_lstm_v100.nvprof.sql",
                                           "traces/gpt2_2layer_fp16_h200.kineto.json.gz"),
                         [](const auto& p) {
                             std::string n = p.param;
                             n = n.substr(n.rfind('/') + 1);
                             for (char& c : n)
                                 if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

} // namespace
} // namespace ls::test
