#pragma once
// The imported Nsight Compute file, its match against one trace and per-kernel access by
// KernelId: what the CLI's --ncu columns and the GUI's metric columns read. The Trace itself is
// never changed.
#include "core/import/ncu/ncu_match.h"
#include "core/model/tensor_core_state.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ls {

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
        int sign; // +1 HMMA/GMMA/tensor pipe, -1 HFMA2.MMA
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
