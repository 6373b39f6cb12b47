#pragma once
// Nsight Compute kernels matched to a loaded trace's kernels, and the imported metrics as a store
// read by KernelId. The two files come from two runs of one program (ncu cannot run under nsys),
// so kernels are matched by launch order and name, never by time; a kernel that cannot be placed
// for sure stays unmatched or ambiguous, with a reason. The Trace itself is never changed.
// docs/ncu.md describes the rules.
#include "core/ncu_csv.h"
#include "core/tensor_core.h"
#include "core/trace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class NcuMatchState : uint8_t { Matched, Unmatched, Ambiguous };
std::string_view ncuMatchStateName(NcuMatchState s); // "matched", "unmatched", "ambiguous"

struct NcuMatch {
    static constexpr uint32_t kNone = UINT32_MAX;
    // Per ncu kernel (NcuCsv::kernels order).
    std::vector<KernelId> kernelOfNcu; // invalid unless matched
    std::vector<NcuMatchState> state;
    std::vector<std::string> reason;   // how it was placed, or why not
    // Per trace kernel: the ncu kernel measured for it, or kNone.
    std::vector<uint32_t> ncuOfKernel;
    size_t matched = 0, unmatched = 0, ambiguous = 0;
    // One line per ncu process: which trace process it was paired with and how it was aligned.
    std::vector<std::string> notes;

    uint32_t ncuOf(KernelId k) const { return k.value < ncuOfKernel.size() ? ncuOfKernel[k.value] : kNone; }
};

// The name key both sides are compared by: ncu's style and Nsight Systems' style of one
// demangled name give the same key (namespace qualifiers dropped, `(int)4` → `4`,
// `(anonymous namespace)` = `<unnamed>`, whitespace collapsed).
std::string ncuNameKey(std::string_view demangledName);

NcuMatch matchNcuKernels(const Trace& t, const NcuCsv& csv);

// The measured Tensor Core verdict for one kernel, from tensor-pipe instruction counts.
struct NcuTensorCore {
    TcState state = TcState::NotApplicable; // Used or NotUsed
    std::string reason;                     // the counts it rests on
};
// "used (measured)" / "not used (measured)".
std::string ncuTensorCoreText(TcState s);

// The imported file, its match against one trace, and per-kernel access by KernelId.
class NcuMetrics {
public:
    NcuMetrics(std::shared_ptr<const Trace> trace, std::string path, NcuCsv csv, NcuMatch match);

    const std::shared_ptr<const Trace>& trace() const { return trace_; }
    const std::string& path() const { return path_; }
    const NcuCsv& csv() const { return csv_; }
    const NcuMatch& match() const { return match_; }

    size_t metricCount() const { return csv_.metrics.size(); }
    const NcuMetricInfo& metric(uint32_t m) const { return csv_.metrics[m]; }
    std::string columnName(uint32_t m) const { return csv_.columnName(m); }
    // Metric indexes grouped by section, in file order (the details pane's grouping).
    std::vector<std::pair<std::string, std::vector<uint32_t>>> sections() const;

    // The ncu kernel measured for trace kernel k, if any.
    std::optional<uint32_t> ncuKernel(KernelId k) const;
    bool has(KernelId k) const { return ncuKernel(k).has_value(); }
    double value(KernelId k, uint32_t m) const;     // NaN when unmatched, missing or not a number
    std::string text(KernelId k, uint32_t m) const; // empty when unmatched or missing
    double known(KernelId k, NcuKnownMetric m) const;

    // Whether the file holds tensor-pipe instruction counts, and the verdict they give.
    bool hasTensorCoreCounts() const { return !tcTerms_.empty(); }
    std::optional<NcuTensorCore> tensorCore(KernelId k) const;

    // Short report lines: counts, notes and the first `maxReasons` unmatched/ambiguous reasons.
    std::vector<std::string> report(size_t maxReasons = 5) const;

private:
    struct TcTerm {
        uint32_t metric;
        int sign;        // +1 HMMA/GMMA/tensor pipe, -1 HFMA2.MMA
        std::string_view label;
    };
    void findTensorCoreTerms();

    std::shared_ptr<const Trace> trace_;
    std::string path_;
    NcuCsv csv_;
    NcuMatch match_;
    std::vector<TcTerm> tcTerms_;
};

struct NcuImport {
    std::shared_ptr<const NcuMetrics> metrics;
    std::string error; // one line without the file name; see formatNcuError
    bool ok() const { return metrics != nullptr; }
};

// Reads, parses and matches a CSV against trace; on error the trace is untouched and no store
// is returned.
NcuImport importNcuCsv(std::shared_ptr<const Trace> trace, const std::string& path);
// "error: FILE: REASON" as the CLI prints it.
std::string formatNcuError(const std::string& path, const std::string& reason);

} // namespace ls
