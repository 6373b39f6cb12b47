#include "app/bench/report_bench.h"

#include "app/bench/bench_median.h"
#include "app/cli/cli.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <utility>
#include <vector>

namespace {

// Counts what a report writes and drops it.
class CountingBuffer : public std::streambuf {
  public:
    uint64_t bytes = 0;

  protected:
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) ++bytes;
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char*, std::streamsize n) override {
        bytes += static_cast<uint64_t>(n);
        return n;
    }
};

// The reports `summary` makes from a trace alone (ncu_match needs an Nsight Compute CSV), and
// `findings`, which stands on them.
const std::vector<std::string> kReports = {
    "kern_sum",      "gpukernsum",   "api_sum",      "osrt_sum", "nvtx_sum",      "nvtx_kern_sum",
    "nvtx_gpu_proj", "layer_sum",    "op_sum",       "tc_sum",   "layer_tree",    "iter_sum",
    "idle_sum",      "gaps",         "launch_sum",   "roofline", "rank_sum",      "collective_sum",
    "rank_iter_sum", "mem_time_sum", "mem_size_sum", "gpu_sum",  "kern_exec_sum", "gpu_trace",
    "api_trace",     "findings"};

struct Run {
    double seconds = 0;
    uint64_t bytes = 0;
    bool ok = false;
};

Run runCli(const std::vector<std::string>& args) {
    CountingBuffer buffer;
    std::ostream out(&buffer);
    std::ostringstream err;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = ls::cli::run(args, out, err);
    Run r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.bytes = buffer.bytes;
    r.ok = rc == 0;
    if (!r.ok)
        std::fprintf(stderr, "%s %s: %s", args[0].c_str(), args.size() > 3 ? args[3].c_str() : "",
                     err.str().c_str());
    return r;
}

double median(std::vector<double> v) { return benchMedian(std::move(v)); }

} // namespace

int runReportBench(const std::string& path, int runs, bool json,
                   const std::vector<std::string>& only) {
    for (const auto& name : only)
        if (std::find(kReports.begin(), kReports.end(), name) == kReports.end()) {
            std::fprintf(stderr, "error: no report named %s\n", name.c_str());
            return 2;
        }
    const std::vector<std::string>& reports = only.empty() ? kReports : only;
    std::vector<double> loads;
    std::map<std::string, std::vector<double>> times;
    std::map<std::string, uint64_t> bytes;
    bool allOk = true;
    for (int r = 0; r < runs; ++r) {
        const Run load = runCli({"info", path, "--no-cache"});
        allOk &= load.ok;
        loads.push_back(load.seconds);
        for (const auto& report : reports) {
            const Run run = report == "findings"
                                ? runCli({"findings", path, "--no-cache", "--format", "csv"})
                                : runCli({"summary", path, "--report", report, "--no-cache"});
            allOk &= run.ok;
            times[report].push_back(run.seconds);
            bytes[report] = run.bytes;
        }
    }
    const double load = median(loads);
    std::string slowest;
    double slowestRatio = 0;
    for (const auto& report : reports)
        if (const double ratio = median(times[report]) / load;
            ratio > slowestRatio && report != "nvtx_kern_sum") {
            slowestRatio = ratio;
            slowest = report;
        }
    if (json) {
        std::printf(
            "{\"file\": \"%s\", \"runs\": %d, \"load_s\": %.4f, \"slowest_other_report\": \"%s\", "
            "\"slowest_other_ratio\": %.3f, \"reports\": {",
            path.c_str(), runs, load, slowest.c_str(), slowestRatio);
        for (size_t i = 0; i < reports.size(); ++i)
            std::printf("%s\"%s\": {\"s\": %.4f, \"ratio\": %.3f, \"bytes\": %llu}", i ? ", " : "",
                        reports[i].c_str(), median(times[reports[i]]),
                        median(times[reports[i]]) / load,
                        static_cast<unsigned long long>(bytes[reports[i]]));
        std::printf("}}\n");
    } else {
        std::printf("file: %s\nruns: %d (medians; each report alternating with the load)\nfull "
                    "load (info --no-cache): %.3f s\n\n",
                    path.c_str(), runs, load);
        std::printf("%-16s %9s %7s %14s\n", "report", "seconds", "ratio", "output bytes");
        for (const auto& report : reports)
            std::printf("%-16s %9.3f %7.2f %14llu\n", report.c_str(), median(times[report]),
                        median(times[report]) / load,
                        static_cast<unsigned long long>(bytes[report]));
        std::printf("\nslowest report other than nvtx_kern_sum: %s, %.2f x the load\n",
                    slowest.c_str(), slowestRatio);
    }
    return allOk ? 0 : 1;
}
