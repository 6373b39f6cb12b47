#include "core/import/ncu/ncu_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ls {
namespace {

std::string shorten(std::string_view s, size_t n) {
    return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

} // namespace

std::string ncuTensorCoreText(TcState s) {
    return s == TcState::Used      ? "used (measured)"
           : s == TcState::NotUsed ? "not used (measured)"
                                   : std::string();
}

NcuMetrics::NcuMetrics(std::shared_ptr<const Trace> trace, std::string path, NcuCsv csv,
                       NcuMatch match)
    : trace_(std::move(trace)), path_(std::move(path)), csv_(std::move(csv)),
      match_(std::move(match)) {
    findTensorCoreTerms();
}

std::optional<uint32_t> NcuMetrics::ncuKernel(KernelId k) const {
    const uint32_t i = match_.ncuOf(k);
    if (i == NcuMatch::kNone) return std::nullopt;
    return i;
}

double NcuMetrics::value(KernelId k, uint32_t m) const {
    const auto i = ncuKernel(k);
    return i && m < metricCount() ? csv_.value(*i, m) : NAN;
}

std::string NcuMetrics::text(KernelId k, uint32_t m) const {
    const auto i = ncuKernel(k);
    return i && m < metricCount() ? csv_.text(*i, m) : std::string();
}

double NcuMetrics::known(KernelId k, NcuKnownMetric m) const {
    const auto i = ncuKernel(k);
    return i ? csv_.knownValue(*i, m) : NAN;
}

std::vector<std::pair<std::string, std::vector<uint32_t>>> NcuMetrics::sections() const {
    std::vector<std::pair<std::string, std::vector<uint32_t>>> out;
    for (uint32_t m = 0; m < metricCount(); ++m) {
        const std::string& s = csv_.metrics[m].section;
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& x) { return x.first == s; });
        if (it == out.end()) it = out.insert(out.end(), {s, {}});
        it->second.push_back(m);
    }
    return out;
}

// Tensor-pipe instruction counters by name (lower-cased): HMMA, GMMA, IMMA, DMMA count as Tensor
// Core math, HFMA2.MMA (FP16 FMA issued on the MMA pipe by many elementwise kernels) is taken off
// again. Of one counter's rollups (.sum, .avg, .max) the .sum is used. A plain tensor-pipe count
// or utilization stands in only when no per-instruction counter is in the file.
void NcuMetrics::findTensorCoreTerms() {
    struct Found {
        uint32_t metric;
        int sign;
        std::string_view label;
        int strength; // 2: per instruction kind, 1: whole tensor pipe, 0: pipe utilization
        bool sum;
    };
    std::map<std::string, Found> byCounter; // counter name without its rollup
    for (uint32_t m = 0; m < metricCount(); ++m) {
        std::string name = csv_.metrics[m].name;
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        Found f{m, 1, "", -1, false};
        if (name.find("hfma2") != std::string::npos && name.find("mma") != std::string::npos)
            f = {m, -1, "HFMA2.MMA", 2, false};
        else if (name.find("inst_executed_pipe_tensor") != std::string::npos) {
            if (name.find("hmma") != std::string::npos)
                f = {m, 1, "HMMA", 2, false};
            else if (name.find("gmma") != std::string::npos)
                f = {m, 1, "GMMA", 2, false};
            else if (name.find("imma") != std::string::npos)
                f = {m, 1, "IMMA", 2, false};
            else if (name.find("dmma") != std::string::npos)
                f = {m, 1, "DMMA", 2, false};
            else
                f = {m, 1, "tensor-pipe instructions", 1, false};
        } else if (name.find("pipe_tensor") != std::string::npos) {
            f = {m, 1, "tensor pipe active", 0, false};
        }
        if (f.strength < 0) continue;
        const size_t dot = name.find('.');
        f.sum = dot != std::string::npos && name.compare(dot, std::string::npos, ".sum") == 0;
        const std::string counter = name.substr(0, dot);
        auto [it, added] = byCounter.try_emplace(counter, f);
        if (!added && f.sum && !it->second.sum) it->second = f;
    }
    int strongest = -1;
    for (const auto& [name, f] : byCounter) strongest = std::max(strongest, f.strength);
    for (const auto& [name, f] : byCounter)
        if (f.strength == strongest || (strongest == 2 && f.sign < 0))
            tcTerms_.push_back(TcTerm{f.metric, f.sign, f.label});
}

std::optional<NcuTensorCore> NcuMetrics::tensorCore(KernelId k) const {
    const auto i = ncuKernel(k);
    if (!i || tcTerms_.empty()) return std::nullopt;
    double total = 0;
    bool any = false, hmma = false, hfma2 = false;
    std::string terms;
    char buf[64];
    for (const TcTerm& term : tcTerms_) {
        const double v = csv_.value(*i, term.metric);
        if (!std::isfinite(v)) continue;
        any = true;
        hmma |= term.label == "HMMA";
        hfma2 |= term.sign < 0;
        total += term.sign * v;
        std::snprintf(buf, sizeof buf, "%.0f", v);
        terms += (terms.empty() ? (term.sign < 0 ? "-" : "") : (term.sign < 0 ? " - " : " + ")) +
                 std::string(term.label) + " " + buf;
    }
    if (!any) return std::nullopt;
    NcuTensorCore r;
    r.state = total > 0 ? TcState::Used : TcState::NotUsed;
    r.reason = "ncu: " + terms + (total > 0 ? " > 0" : " = 0");
    if (hmma && !hfma2) r.reason += " (no HFMA2.MMA count in the file to subtract)";
    return r;
}

std::vector<std::string> NcuMetrics::report(size_t maxReasons) const {
    std::vector<std::string> lines;
    lines.push_back("ncu file: " + path_ + ": " + std::string(ncuPageName(csv_.page)) + " page, " +
                    std::to_string(csv_.kernels.size()) + " kernels, " +
                    std::to_string(metricCount()) + " metrics" +
                    (csv_.skippedLines ? ", " + std::to_string(csv_.skippedLines) +
                                             " lines of program output skipped"
                                       : std::string()));
    lines.push_back("ncu match: " + std::to_string(match_.matched) + " matched, " +
                    std::to_string(match_.unmatched) + " unmatched, " +
                    std::to_string(match_.ambiguous) + " ambiguous");
    for (const auto& n : match_.notes) lines.push_back("  " + n);
    size_t shown = 0;
    for (size_t i = 0; i < csv_.kernels.size() && shown < maxReasons; ++i) {
        if (match_.state[i] == NcuMatchState::Matched) continue;
        ++shown;
        lines.push_back("  " + std::string(ncuMatchStateName(match_.state[i])) + " ncu ID " +
                        std::to_string(csv_.kernels[i].id) + " " +
                        shorten(csv_.kernels[i].name, 60) + ": " + match_.reason[i]);
    }
    const size_t rest = match_.unmatched + match_.ambiguous - shown;
    if (rest)
        lines.push_back("  ... and " + std::to_string(rest) +
                        " more (summary --report ncu_match lists all)");
    for (size_t w = 0; w < csv_.warnings.size() && w < 3; ++w)
        lines.push_back("  warning: " + csv_.warnings[w]);
    if (tcTerms_.empty())
        lines.emplace_back("  tensor cores: no tensor-pipe counts in the file");
    else {
        size_t used = 0, notUsed = 0;
        for (uint32_t k = 0; k < match_.ncuOfKernel.size(); ++k)
            if (auto v = tensorCore(KernelId(k))) (v->state == TcState::Used ? used : notUsed)++;
        lines.push_back("  tensor cores (measured): " + std::to_string(used) + " used, " +
                        std::to_string(notUsed) + " not used");
    }
    return lines;
}

NcuImport importNcuCsv(std::shared_ptr<const Trace> trace, const std::string& path) {
    NcuImport r;
    if (!trace) {
        r.error = "no trace loaded";
        return r;
    }
    NcuParseResult parsed = readNcuCsvFile(path);
    if (!parsed.ok()) {
        r.error = parsed.error;
        return r;
    }
    NcuMatch match = matchNcuKernels(*trace, *parsed.csv);
    r.metrics = std::make_shared<const NcuMetrics>(std::move(trace), path, std::move(*parsed.csv),
                                                   std::move(match));
    return r;
}

std::string formatNcuError(const std::string& path, const std::string& reason) {
    return "error: " + path + ": " + reason;
}

} // namespace ls
