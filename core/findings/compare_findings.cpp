#include "core/findings/compare_findings.h"

#include "core/findings/finding_text.h"
#include "core/findings/findings.h"

#include <algorithm>
#include <cmath>

namespace ls {
namespace {

// As every rule: nothing under a percent of an iteration.
constexpr double kMinPercent = 1.0;

const char* levelNoun(DiffLevel l) {
    switch (l) {
    case DiffLevel::Layer:
        return "layer";
    case DiffLevel::Op:
        return "op";
    case DiffLevel::Family:
        return "kernel family";
    default:
        return "group";
    }
}

} // namespace

std::vector<Finding> comparisonFindings(const Session& session, const DiffSide& reference,
                                        double iterationNs) {
    std::vector<Finding> out;
    if (session.ranks.empty() || !reference.trace) return out;
    const SessionRank& r = session.ranks.front();
    DiffSide self;
    self.trace = session.traces[r.trace].trace;
    if (session.ranks.size() > 1) self.process = r.process, self.device = r.device;
    self.label = "A: " + session.traces[r.trace].file;
    for (const DiffLevel level : {DiffLevel::Layer, DiffLevel::Op, DiffLevel::Family}) {
        DiffOptions options;
        options.level = level;
        // B − A in run_diff's terms: the reference first, so a positive delta is extra time here.
        const DiffResult d = diffRuns(reference, self, options);
        const double total = d.total.deltaNs();
        if (total <= 0) continue;
        // A layer or a family counts whole, forward and backward together (run_diff splits them
        // by direction); an op's name says its direction already.
        struct Group {
            std::string key;
            double a = 0, b = 0;
            std::vector<const DiffRow*> rows;
            double delta() const { return b - a; }
        };
        std::vector<Group> groups;
        for (const DiffRow& row : d.rows) {
            const std::string key =
                level == DiffLevel::Op || row.direction.empty()
                    ? row.key + (row.direction.empty() ? "" : " (" + row.direction + ")")
                    : row.key;
            auto it = std::find_if(groups.begin(), groups.end(),
                                   [&](const Group& g) { return g.key == key; });
            if (it == groups.end()) it = groups.insert(groups.end(), Group{key, 0, 0, {}});
            it->a += row.a.gpuTimeNs;
            it->b += row.b.gpuTimeNs;
            it->rows.push_back(&row);
        }
        const Group* top = nullptr;
        for (const Group& g : groups)
            if (g.delta() > 0 && (!top || g.delta() > top->delta())) top = &g;
        if (!top || top->delta() < kMinPercent / 100 * iterationNs) continue;
        Finding f;
        f.rule = std::string("compare_") + std::string(diffLevelName(level));
        f.costMsPerIteration = top->delta() / 1e6;
        const std::string& key = top->key;
        f.statement = std::string(levelNoun(level)) + " " + key + " takes " + findingMs(top->b) +
                      " of GPU time per iteration against " + findingMs(top->a) + " in " +
                      reference.label + ": " + findingMs(top->delta()) + " of the " +
                      findingMs(total) + " more (" + findingPercent(100 * top->delta() / total) +
                      ")";
        f.bound = "its extra GPU time per iteration over the reference run (diff --by " +
                  std::string(diffLevelName(level)) + ")";
        f.fix = "Compare the two runs' configuration for it: dtype and autocast, TF32, shapes "
                "and batch size, the library versions that choose its kernels.";
        f.figures = {{"delta_ns", top->delta()},
                     {"total_delta_ns", total},
                     {"gpu_time_ns", top->b},
                     {"reference_gpu_time_ns", top->a}};
        f.evidence.trace = r.trace;
        f.evidence.ranks = {r.rank};
        std::vector<KernelId> kernels;
        for (const DiffRow* row : top->rows)
            for (const KernelId k : diffRowKernels(self, options, *row)) kernels.push_back(k);
        const Trace& t = *self.trace;
        std::sort(kernels.begin(), kernels.end(), [&](KernelId a, KernelId b) {
            return t.kernels.duration(a.value) > t.kernels.duration(b.value);
        });
        if (kernels.size() > kMaxEvidence) kernels.resize(kMaxEvidence);
        if (!kernels.empty()) {
            f.evidence.windowStart = t.kernels.start[kernels.front().value];
            f.evidence.windowEnd = t.kernels.end[kernels.front().value];
        }
        f.evidence.kernels = std::move(kernels);
        f.evidence.text = std::string(levelNoun(level)) + " " + key + "'s kernels, longest first";
        out.push_back(std::move(f));
    }
    return out;
}

FindingList findingsAgainst(const Session& session, const DiffSide& reference) {
    FindingList list = findings(session);
    for (Finding& f : comparisonFindings(session, reference, list.iterationMs * 1e6))
        list.findings.push_back(std::move(f));
    std::stable_sort(list.findings.begin(), list.findings.end(),
                     [](const Finding& a, const Finding& b) {
                         return a.costMsPerIteration > b.costMsPerIteration;
                     });
    return list;
}

} // namespace ls
