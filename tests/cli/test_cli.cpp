// layerscope-cli run in-process: help and usage errors, the `kernels` table (parsed as RFC 4180)
// and the `info` counts, against the bundled sample trace and the model loadTrace builds.
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <regex>

namespace {

using namespace ls::test;

const std::vector<std::string> kKernelColumns = {"id",
                                                 "start_ns",
                                                 "end_ns",
                                                 "duration_ns",
                                                 "device",
                                                 "context",
                                                 "stream",
                                                 "pid",
                                                 "tid",
                                                 "correlation_id",
                                                 "api",
                                                 "name",
                                                 "short_name",
                                                 "grid",
                                                 "block",
                                                 "registers",
                                                 "static_smem",
                                                 "dynamic_smem",
                                                 "nvtx_range",
                                                 "nvtx_path",
                                                 "layer",
                                                 "op",
                                                 "seq",
                                                 "op_id",
                                                 "direction",
                                                 "fwd_op_id",
                                                 "sizes",
                                                 "flops",
                                                 "bytes",
                                                 "dtype",
                                                 "intensity",
                                                 "tflops_s",
                                                 "gbytes_s",
                                                 "tc",
                                                 "tc_reason",
                                                 "flops_rule",
                                                 "dtype_source",
                                                 "rank",
                                                 "occupancy_pct",
                                                 "occupancy_limiter",
                                                 "graph"};

void expectUsageError(const std::vector<std::string>& args, const std::string& mentions = "") {
    const auto r = runCli(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.rc, 2) << joined;
    EXPECT_EQ(r.out, "") << joined;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(mentions), std::string::npos) << joined << "\n" << r.err;
}

TEST(Cli, HelpOnEveryCommandSucceeds) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"},
                                                 {"-h"},
                                                 {"help"},
                                                 {"info", "--help"},
                                                 {"kernels", "--help"},
                                                 {"summary", "--help"},
                                                 {"summary", "-h"},
                                                 {"ops", "--help"},
                                                 {"kernels", "x.sqlite", "--help"}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.rc, 0) << args[0];
        EXPECT_EQ(r.err, "") << args[0];
        EXPECT_EQ(r.out.rfind("usage: layerscope-cli", 0), 0u) << args[0] << ":\n" << r.out;
    }
    EXPECT_NE(runCli({"kernels", "--help"})
                  .out.find("id,start_ns,end_ns,duration_ns,device,context,stream,pid,tid,"
                            "correlation_id,api,name,\n  short_name"),
              std::string::npos)
        << "kernels --help lists the columns";
}

TEST(Cli, NoArgumentsIsAUsageError) {
    const auto r = runCli({});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("usage:"), std::string::npos);
}

TEST(Cli, UnknownCommandsAndOptionsAreUsageErrors) {
    const std::string f = sampleTrace().string();
    expectUsageError({"frobnicate", f}, "frobnicate");
    expectUsageError({"info", f, "--bogus"}, "--bogus");
    expectUsageError({"info", f, "-x"}, "-x");
    expectUsageError({"kernels", f, "--report", "kern_sum"}, "--report");
    expectUsageError({"summary", f, "--report"}, "--report");
    expectUsageError({"summary", f, "--report", "nvtx_summary"}, "--report");
    expectUsageError({"summary", f}, "--report");
    expectUsageError({"summary", f, "--report", "api_sum", "--format", "xml"}, "--format");
    expectUsageError({"kernels", f, "--format=json"}, "--format");
    expectUsageError({"info"}, "FILE");
    expectUsageError({"info", f, f, "--ncu", "x.csv"}, "--ncu takes one FILE");
}

TEST(Cli, KernelsCsvHasOneParsableRowPerKernel) {
    const auto loaded = ls::loadTrace(sampleTrace().string());
    ASSERT_TRUE(loaded.ok());
    const ls::Trace& t = *loaded.trace;
    const auto r = runCli({"kernels", sampleTrace().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
              "id,start_ns,end_ns,duration_ns,device,context,stream,pid,tid,correlation_id,api,"
              "name,short_name,grid,"
              "block,registers,static_smem,dynamic_smem,nvtx_range,nvtx_path,layer,op,seq,op_id,"
              "direction,fwd_op_id,sizes,"
              "flops,bytes,dtype,intensity,tflops_s,gbytes_s,tc,tc_reason,flops_rule,dtype_source,"
              "rank,occupancy_pct,"
              "occupancy_limiter,graph");
    std::string error;
    const auto rows = parseCsv(r.out, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(rows.front(), kKernelColumns);
    ASSERT_EQ(rows.size() - 1, 214u) << "the sample has 214 kernels";
    ASSERT_EQ(rows.size() - 1, t.kernels.size());

    size_t quoted = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const auto& row = rows[i + 1];
        ASSERT_EQ(row.size(), kKernelColumns.size()) << "row " << i;
        EXPECT_EQ(row[0], std::to_string(i));
        EXPECT_EQ(row[1], std::to_string(t.kernels.start[i]));
        EXPECT_EQ(std::stoll(row[3]), std::stoll(row[2]) - std::stoll(row[1]))
            << "duration = end - start, row " << i;
        if (i) {
            EXPECT_LE(std::stoll(rows[i][1]), std::stoll(row[1])) << "by start time";
        }
        EXPECT_EQ(row[9], std::to_string(t.kernels.correlation[i]));
        EXPECT_EQ(row[11], t.str(t.kernels.name[i])) << "row " << i;
        EXPECT_EQ(row[12], t.str(t.kernels.shortName[i])) << "row " << i;
        EXPECT_TRUE(std::regex_match(row[13], std::regex("[0-9]+,[0-9]+,[0-9]+"))) << row[13];
        EXPECT_TRUE(std::regex_match(row[14], std::regex("[0-9]+,[0-9]+,[0-9]+"))) << row[14];
        EXPECT_FALSE(row[10].empty()) << "every sample kernel has its launching call, row " << i;
        EXPECT_EQ(row[7], "654") << "the sample's one process";
        quoted += row[11].find_first_of(",\"") != std::string::npos;
    }
    EXPECT_GT(quoted, 0u) << "the sample should exercise quoted names";
}

TEST(Cli, KernelsTsvAndTableFormats) {
    const auto tsv = runCli({"kernels", sampleTrace().string(), "--format", "tsv"});
    ASSERT_EQ(tsv.rc, 0);
    const auto lines = splitLines(tsv.out);
    ASSERT_EQ(lines.size(), 215u);
    EXPECT_EQ(lines[0].rfind("id\tstart_ns\tend_ns\t", 0), 0u);
    for (const auto& l : lines)
        EXPECT_EQ(std::count(l.begin(), l.end(), '\t'),
                  static_cast<long>(kKernelColumns.size() - 1))
            << l;

    const auto table = runCli({"kernels", sampleTrace().string(), "--format=table"});
    ASSERT_EQ(table.rc, 0);
    const auto tl = splitLines(table.out);
    ASSERT_EQ(tl.size(), 216u) << "header, rule, 214 rows";
    EXPECT_EQ(tl[1].find_first_not_of('-'), std::string::npos);
}

// "key: N" from info's output; -1 when absent.
int64_t infoCount(const std::string& out, const std::string& key) {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex("(^|\n)" + key + ": ([0-9]+)"))) return -1;
    return std::stoll(m[2]);
}

TEST(Cli, InfoCountsMatchTheLoadedModel) {
    const auto loaded = ls::loadTrace(sampleTrace().string());
    ASSERT_TRUE(loaded.ok());
    const ls::Trace& t = *loaded.trace;
    const auto r = runCli({"info", sampleTrace().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    auto n = [](size_t v) { return static_cast<int64_t>(v); };
    EXPECT_EQ(infoCount(r.out, "kernels"), 214);
    EXPECT_EQ(infoCount(r.out, "memcpy"), n(t.memcpys.size()));
    EXPECT_EQ(infoCount(r.out, "memset"), n(t.memsets.size()));
    EXPECT_EQ(infoCount(r.out, "api calls"), 482);
    EXPECT_EQ(infoCount(r.out, "nvtx ranges"), 1468);
    EXPECT_EQ(infoCount(r.out, "processes"), n(t.processes.size()));
    EXPECT_EQ(infoCount(r.out, "threads"), 2);
    EXPECT_EQ(infoCount(r.out, "devices"), n(t.devices.size()));
    EXPECT_EQ(infoCount(r.out, "streams"), n(t.streams.size()));
    EXPECT_NE(r.out.find("(runtime 209, driver 273)"), std::string::npos);
    EXPECT_NE(r.out.find("schema version: 3.20.3"), std::string::npos);
    EXPECT_NE(r.out.find("device 0 context 1 stream 7: 214 kernels"), std::string::npos);
    EXPECT_NE(r.out.find("load report:\n  (nothing to report)\n"), std::string::npos);
}

TEST(Cli, InfoShowsTheLoadReportOfAnOlderExport) {
    const auto& c = goldenTrace("saxpy_mpi_perlmutter.nsys");
    LS_REQUIRE_FILE(c.path);
    const auto r = runCli({"info", c.path.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(infoCount(r.out, "api calls"), 57);
    EXPECT_NE(r.out.find("duplicate_runtime_row: 38 - "), std::string::npos) << r.out;
}

} // namespace
