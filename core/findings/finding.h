#pragma once
// One finding: something wrong with a trace, the time it costs per iteration and what it rests
// on. Findings are computed from the reports that exist (core/reports, core/costs): every number
// a statement prints is also kept in `figures`, named, so that a test can hold it against the
// report it came from (docs/findings.md lists the rules, their thresholds and why).
#include "core/model/trace.h"

#include <string>
#include <utility>
#include <vector>

namespace ls {

// What a finding points at, for selection: kernels and ranges of one trace of the session (its
// index in Session::traces), ranks, and the stretch of time where it shows.
struct FindingEvidence {
    uint32_t trace = 0;
    std::vector<KernelId> kernels; // the most telling first, at most kMaxEvidence
    std::vector<RangeId> ranges;
    std::vector<int> ranks;                // rank numbers (Session::ranks[].rank)
    TimeNs windowStart = 0, windowEnd = 0; // trace time; both 0 when none
    std::string text;                      // one line: what the kernels/ranges/ranks are
};
inline constexpr size_t kMaxEvidence = 200;

struct Finding {
    std::string rule;      // stable id: idle_sync, no_tensor_cores, …
    std::string statement; // one line, with numbers
    double costMsPerIteration = 0;
    std::string bound; // what the cost is estimated against, one phrase
    std::string fix;   // what usually fixes it, one sentence
    FindingEvidence evidence;
    // The numbers the statement prints, named, in the units the report gives them (ns, counts).
    std::vector<std::pair<std::string, double>> figures;
    double figure(const std::string& name) const {
        for (const auto& [n, v] : figures)
            if (n == name) return v;
        return 0;
    }
};

struct FindingList {
    std::vector<Finding> findings; // costliest first: rank = index + 1
    double iterationMs = 0;        // the typical iteration the costs are per (see iterationBasis)
    int iterations = 0;
    std::string iterationBasis; // one sentence: how the iteration time was measured
};

} // namespace ls
