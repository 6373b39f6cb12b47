#include "core/findings/rank_findings.h"

#include "core/findings/finding_text.h"
#include "core/reports/collectives.h"
#include "core/reports/rank_summary.h"

#include <algorithm>
#include <map>

namespace ls {

std::vector<Finding> rankFindings(const Session& session, const std::vector<int>& iterations) {
    std::vector<Finding> out;
    if (session.ranks.size() < 2) return out;
    const std::vector<RankTimeRow> rows = rankTimeSummary(session);
    const CollectiveMatch match = matchCollectives(session);
    // The rank that starts collectives last, weighted by how long the others waited for it.
    std::map<int, TimeNs> waitedFor;
    std::map<int, uint64_t> lastCount;
    std::map<Collective, TimeNs> waitedByType;
    for (const MatchedCollective& c : match.collectives) {
        if (c.lastRank < 0) continue;
        waitedFor[c.lastRank] += c.waited;
        ++lastCount[c.lastRank];
        waitedByType[c.type] += c.waited;
    }
    int straggler = -1;
    TimeNs most = 0;
    for (const auto& [r, w] : waitedFor)
        if (w > most) most = w, straggler = r;
    // The rank with the most exposed communication per iteration: the one that waits.
    size_t worst = 0;
    double worstPerIter = -1;
    for (size_t i = 0; i < rows.size(); ++i) {
        const int n = i < iterations.size() ? std::max(1, iterations[i]) : 1;
        const double per = static_cast<double>(rows[i].exposedComm) / n;
        if (per > worstPerIter) worstPerIter = per, worst = i;
    }
    if (rows.empty() || worstPerIter <= 0) return out;
    const RankTimeRow& w = rows[worst];
    const int n = worst < iterations.size() ? std::max(1, iterations[worst]) : 1;
    Finding f;
    f.rule = "exposed_comm";
    f.costMsPerIteration = worstPerIter / 1e6;
    std::string types;
    for (const auto& [type, v] : waitedByType)
        types += (types.empty() ? "" : ", ") + std::string(collectiveName(type)) + " " +
                 findingMs(static_cast<double>(v));
    f.statement = "rank " + std::to_string(w.rank) + " spends " +
                  findingMs(static_cast<double>(w.exposedComm)) +
                  " in communication not hidden by compute over " + std::to_string(n) +
                  " iterations";
    if (straggler >= 0)
        f.statement += "; rank " + std::to_string(straggler) + " starts " +
                       std::to_string(lastCount[straggler]) + " of " +
                       std::to_string(match.collectives.size()) +
                       " collectives last (waited for: " + types + ")";
    f.bound = "the waiting rank's exposed communication (rank_sum), as if the ranks arrived "
              "together and it overlapped compute";
    f.fix = straggler >= 0 && straggler != w.rank
                ? "Find what delays rank " + std::to_string(straggler) +
                      " before its collectives (its findings: host ranges, data loading, "
                      "uneven work) and balance it."
                : "Overlap communication with compute (DDP bucket size, FSDP prefetch) or "
                  "reduce what is communicated.";
    f.figures = {{"exposed_comm_ns", static_cast<double>(w.exposedComm)},
                 {"iterations", static_cast<double>(n)},
                 {"rank", static_cast<double>(w.rank)},
                 {"straggler", static_cast<double>(straggler)}};
    f.evidence.ranks = {w.rank};
    if (straggler >= 0 && straggler != w.rank) f.evidence.ranks.push_back(straggler);
    // The waiting rank's collective kernels, the longest waits first.
    const int wi = session.rankIndexOf(session.ranks[worst].trace, session.ranks[worst].process,
                                       session.ranks[worst].device);
    std::vector<std::pair<TimeNs, KernelId>> waits;
    for (const MatchedCollective& c : match.collectives)
        for (const CollectiveMember& m : c.members)
            if (static_cast<int>(m.rank) == wi) waits.push_back({c.lastStart - m.start, m.kernel});
    std::sort(waits.begin(), waits.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    f.evidence.trace = session.ranks[worst].trace;
    for (size_t i = 0; i < waits.size() && i < kMaxEvidence; ++i)
        f.evidence.kernels.push_back(waits[i].second);
    if (!waits.empty()) {
        const Trace& t = *session.traces[f.evidence.trace].trace;
        const KernelId k = waits[0].second;
        f.evidence.windowStart = t.kernels.start[k.value];
        f.evidence.windowEnd = t.kernels.end[k.value];
    }
    f.evidence.text =
        "rank " + std::to_string(w.rank) + "'s collective kernels, longest wait first";
    out.push_back(std::move(f));
    return out;
}

} // namespace ls
