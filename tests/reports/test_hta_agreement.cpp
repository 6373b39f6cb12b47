// rank_sum against Holistic Trace Analysis (HTA): per rank, HTA's get_temporal_breakdown (idle,
// compute, non-compute, span) and get_comm_comp_overlap (and the communication and overlap times
// behind its percentage), written by tools/hta_golden.py into tests/data/hta (README.md there
// says how), under three HTA configurations:
//   whole_trace_ns  every step, ns timestamps: HTA's definitions are rank_sum's, so every value
//                   agrees, exactly in ns where the trace's times are whole us, else within the
//                   ~1 ns per GPU op that HTA's doubles lose (times near 4.6e12 us are 2^-10 us
//                   apart)
//   whole_trace     HTA's rounding of sub-us times (each op's start up, end down to a whole us):
//                   within 2 us per GPU op
//   default         also leaves out the GPU work launched in the last ProfilerStep: the ops HTA
//                   kept are those whose launch began before that step did.
// HTA's idle counts copies and sets as busy, its compute is the union of kernels not named as
// communication, copies or syncs; its non-compute is busy minus compute; its communication is
// the union of NCCL kernels; its overlap percentage is |compute ∩ comm| / comm.
#include "core/load/session_load.h"
#include "core/reports/rank_summary.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <map>

namespace ls::test {
namespace {

struct HtaSet {
    std::string name;
    std::vector<fs::path> files;
};
void PrintTo(const HtaSet& s, std::ostream* os) { *os << s.name; }

std::vector<HtaSet> htaSets() {
    // fsdp: the copies of ../shared/traces/fsdp_rank*.kineto.json.gz kept in tests/data/kineto
    // (the same bytes); trace_filter: HTA's own two-rank test traces (MIT), committed in the
    // corpus (tests/corpus/data, their licence in tests/corpus/licences).
    const fs::path kineto = sourceDir() / "tests/data/kineto",
                   corpus = sourceDir() / "tests/corpus/data";
    return {{"fsdp", {kineto / "fsdp_rank0.kineto.json.gz", kineto / "fsdp_rank1.kineto.json.gz"}},
            {"trace_filter",
             {corpus / "hta_sampled_rank0.json.gz", corpus / "hta_sampled_rank1.json.gz"}}};
}

// One golden CSV file as rows of column -> field.
std::vector<std::map<std::string, std::string>> golden(const std::string& set,
                                                       const std::string& analysis) {
    const fs::path file = sourceDir() / "tests/data/hta" / (set + "." + analysis + ".csv");
    std::string error;
    const CsvTable t = parseCsv(readFile(file), &error);
    EXPECT_EQ(error, "") << file;
    std::vector<std::map<std::string, std::string>> rows;
    for (size_t r = 1; r < t.size(); ++r) {
        EXPECT_EQ(t[r].size(), t[0].size()) << file << " row " << r;
        auto& row = rows.emplace_back();
        for (size_t c = 0; c < t[0].size() && c < t[r].size(); ++c) row[t[0][c]] = t[r][c];
    }
    EXPECT_FALSE(rows.empty()) << file;
    return rows;
}

int64_t num(const std::map<std::string, std::string>& row, const std::string& column) {
    const auto it = row.find(column);
    EXPECT_NE(it, row.end()) << column;
    return it == row.end() ? 0 : std::stoll(it->second);
}

double real(const std::map<std::string, std::string>& row, const std::string& column) {
    const auto it = row.find(column);
    EXPECT_NE(it, row.end()) << column;
    return it == row.end() ? 0 : std::stod(it->second);
}

// A rank's GPU ops (kernels, copies, sets) and how many of them were launched by a call that
// began before `before`.
struct Ops {
    int64_t all = 0, launchedBefore = 0;
};
Ops opsOf(const Trace& t, const SessionRank& r, TimeNs before) {
    Ops ops;
    for (const GpuOpColumns* c : {static_cast<const GpuOpColumns*>(&t.kernels),
                                  static_cast<const GpuOpColumns*>(&t.memcpys),
                                  static_cast<const GpuOpColumns*>(&t.memsets)})
        for (size_t i = 0; i < c->size(); ++i) {
            if (const Stream& st = t.streamOf(*c, i);
                st.process != r.process || st.device != r.device)
                continue;
            ++ops.all;
            if (const ApiCallId call = c->launch[i];
                call.valid() && t.apiCalls.start[call.value] < before)
                ++ops.launchedBefore;
        }
    return ops;
}

// The start of the trace's last ProfilerStep#N range.
TimeNs lastProfilerStep(const Trace& t) {
    TimeNs last = -1;
    for (size_t i = 0; i < t.ranges.start.size(); ++i)
        if (t.str(t.ranges.name[i]).starts_with("ProfilerStep#"))
            last = std::max(last, t.ranges.start[i]);
    return last;
}

class HtaAgreement : public ::testing::TestWithParam<HtaSet> {};

TEST_P(HtaAgreement, RankSumEqualsHtaBreakdownAndOverlap) {
    const HtaSet& set = GetParam();
    for (const fs::path& f : set.files) LS_REQUIRE_FILE(f);
    std::vector<std::string> files;
    for (const fs::path& f : set.files) files.push_back(f.string());
    const Session s = loadSession(files);
    ASSERT_TRUE(s.failed.empty());
    ASSERT_EQ(s.ranks.size(), set.files.size());
    const auto rows = rankTimeSummary(s);
    ASSERT_EQ(rows.size(), s.ranks.size());

    const auto breakdown = golden(set.name, "temporal_breakdown"),
               overlap = golden(set.name, "comm_comp_overlap");
    ASSERT_EQ(breakdown.size(), overlap.size());
    // Whole-us traces are read by HTA as integers: no rounding, and its times are exact.
    const bool wholeUs = std::any_of(breakdown.begin(), breakdown.end(), [](const auto& r) {
        return r.at("hta_config") == "whole_trace_ns" && r.at("ns_exact") == "yes";
    });
    std::map<std::string, int> configs;
    for (size_t g = 0; g < breakdown.size(); ++g) {
        const auto &b = breakdown[g], &o = overlap[g];
        const std::string config = b.at("hta_config");
        ++configs[config];
        ASSERT_EQ(o.at("hta_config"), config);
        const int rank = static_cast<int>(num(b, "rank"));
        ASSERT_EQ(num(o, "rank"), rank);
        const auto at = std::find_if(s.ranks.begin(), s.ranks.end(),
                                     [&](const SessionRank& r) { return r.rank == rank; });
        ASSERT_NE(at, s.ranks.end()) << "rank " << rank;
        SCOPED_TRACE(set.name + " " + config + " rank " + std::to_string(rank));
        const SessionRank& sr = *at;
        const RankTimeRow& row = rows[static_cast<size_t>(at - s.ranks.begin())];
        const Trace& t = *s.traces[sr.trace].trace;
        const Ops ops = opsOf(t, sr, lastProfilerStep(t));
        const int64_t htaOps = num(b, "gpu_events");
        if (config == "default") {
            // Only the last step's work is missing (HTA's rounding aside, so no sums here).
            EXPECT_EQ(htaOps, ops.launchedBefore)
                << "HTA keeps the ops launched before the last ProfilerStep";
            EXPECT_LT(htaOps, ops.all);
            continue;
        }
        ASSERT_TRUE(config == "whole_trace" || config == "whole_trace_ns") << config;
        EXPECT_EQ(htaOps, ops.all) << "every kernel, copy and set of the rank, and nothing else";
        EXPECT_EQ(num(o, "comm_kernels"), static_cast<int64_t>(row.commKernels))
            << "the same kernels are communication";
        // Rounded to whole us, each op loses under 1 us at each end; in doubles, under 1 ns in all.
        const int64_t tolerance = wholeUs                   ? 0
                                  : config == "whole_trace" ? 2000 * htaOps
                                                            : htaOps + 1;
        EXPECT_EQ(b.at("ns_exact") == "yes", config == "whole_trace" || wholeUs);
        EXPECT_NEAR(row.span, num(b, "kernel_time_ns"), tolerance) << "span";
        EXPECT_NEAR(row.compute, num(b, "compute_time_ns"), tolerance) << "compute";
        EXPECT_NEAR(row.idle, num(b, "idle_time_ns"), tolerance) << "idle";
        EXPECT_NEAR(row.busy - row.compute, num(b, "non_compute_time_ns"), tolerance)
            << "non-compute: busy (copies too) minus compute";
        EXPECT_NEAR(row.comm, num(o, "comm_time_ns"), tolerance) << "communication";
        EXPECT_NEAR(row.overlap, num(o, "overlap_time_ns"), tolerance)
            << "communication under compute";
        if (config != "whole_trace_ns") continue;
        // HTA's percentages, rounded to 2 decimals, from rank_sum's ns.
        const auto pct = [](TimeNs part, TimeNs whole) {
            return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
        };
        EXPECT_NEAR(pct(row.idle, row.span), real(b, "idle_time_pctg"), 0.005 + 1e-9);
        EXPECT_NEAR(pct(row.compute, row.span), real(b, "compute_time_pctg"), 0.005 + 1e-9);
        EXPECT_NEAR(pct(row.busy - row.compute, row.span), real(b, "non_compute_time_pctg"),
                    0.005 + 1e-9);
        EXPECT_NEAR(pct(row.overlap, row.comm), real(o, "comp_comm_overlap_pctg"), 0.005 + 1e-9);
    }
    EXPECT_EQ(configs, (std::map<std::string, int>{
                           {"default", 2}, {"whole_trace", 2}, {"whole_trace_ns", 2}}));
}

INSTANTIATE_TEST_SUITE_P(Sets, HtaAgreement, ::testing::ValuesIn(htaSets()),
                         [](const ::testing::TestParamInfo<HtaSet>& p) { return p.param.name; });

} // namespace
} // namespace ls::test
