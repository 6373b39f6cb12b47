#include "core/findings/findings.h"

#include "core/findings/compute_findings.h"
#include "core/findings/idle_findings.h"
#include "core/findings/kernel_findings.h"
#include "core/findings/rank_findings.h"
#include "core/reports/roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>

namespace ls {

FindingList findings(const Session& session) {
    FindingList list;
    // LAYERSCOPE_FINDINGS_TIMING=1: each step's seconds on stderr (docs/performance.md).
    const bool timing = std::getenv("LAYERSCOPE_FINDINGS_TIMING") != nullptr;
    auto t0 = std::chrono::steady_clock::now();
    auto lap = [&](const char* what) {
        if (!timing) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "findings: %s %.3f s\n", what,
                     std::chrono::duration<double>(now - t0).count());
        t0 = now;
    };
    // Per trace, computed once: its iterations, its GPU gaps and its roofline points. The gaps
    // take longest; the other two run beside them (docs/performance.md).
    const size_t n = session.traces.size();
    std::vector<std::unique_ptr<IterationWindows>> windows(n);
    std::vector<std::unique_ptr<GpuIdle>> idle(n);
    std::vector<std::vector<RooflinePoint>> points(n);
    for (size_t i = 0; i < n; ++i) {
        const Trace& t = *session.traces[i].trace;
        auto beside = std::async(std::launch::async, [&t] {
            return std::make_pair(iterationWindows(t), roofline(t, RooflineGrouping::Kernel));
        });
        idle[i] = std::make_unique<GpuIdle>(gpuIdle(t));
        auto [w, p] = beside.get();
        windows[i] = std::make_unique<IterationWindows>(std::move(w));
        points[i] = std::move(p);
        lap("iterations, gpu idle and roofline");
    }
    const bool several = session.ranks.size() > 1;
    std::vector<char> tracesDone(session.traces.size(), 0);
    std::vector<int> iterations;
    for (const SessionRank& r : session.ranks) {
        FindingScope scope;
        scope.trace = session.traces[r.trace].trace.get();
        scope.traceIndex = r.trace;
        scope.device = r.device;
        scope.process = r.process;
        scope.ranks = {r.rank};
        if (several) scope.prefix = "rank " + std::to_string(r.rank) + ": ";
        const IterationWindows& w = *windows[r.trace];
        iterations.push_back(w.iterations);
        auto kernelRules =
            std::async(std::launch::async, [&scope, &w] { return kernelFindings(scope, w); });
        for (Finding& f : idleFindings(scope, *idle[r.trace], w)) list.findings.push_back(f);
        for (Finding& f : kernelRules.get()) list.findings.push_back(f);
        lap("idle and kernel findings");
        if (!tracesDone[r.trace]) { // the trace's kernels, whatever rank they belong to
            tracesDone[r.trace] = 1;
            FindingScope whole = scope;
            if (session.ranks.size() > 1 &&
                std::count_if(session.ranks.begin(), session.ranks.end(),
                              [&](const SessionRank& o) { return o.trace == r.trace; }) > 1)
                whole.ranks.clear(), whole.prefix = "trace " + std::to_string(r.trace) + ": ";
            for (Finding& f : computeFindings(whole, w, *idle[r.trace], points[r.trace]))
                list.findings.push_back(f);
            lap("compute findings");
            for (Finding& f : farBelowRoofline(whole, w, points[r.trace]))
                list.findings.push_back(f);
            lap("roofline findings");
        }
        if (w.periodNs / 1e6 > list.iterationMs) {
            list.iterationMs = w.periodNs / 1e6;
            list.iterations = w.iterations;
            list.iterationBasis = w.basis;
        }
    }
    for (Finding& f : rankFindings(session, iterations)) list.findings.push_back(std::move(f));
    std::stable_sort(list.findings.begin(), list.findings.end(),
                     [](const Finding& a, const Finding& b) {
                         return a.costMsPerIteration > b.costMsPerIteration;
                     });
    return list;
}

} // namespace ls
