#pragma once
// Anomalies found while loading: named counters with a sentence each. A load never aborts
// for a bad row; it counts it here (Perfetto's stats table is the model).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class Severity { Info, Warning, Error };

enum class Anomaly {
    MissingTable,
    MissingColumn,
    ExtraColumns,
    NullTimestamp,
    NegativeDuration,
    DuplicateRuntimeRow,
    OrphanGpuOp,
    UnknownStringId,
    UnendedRange,
    UnknownNvtxEventType,
    RangeEndsOnOtherThread,
    ImproperNesting,
    ValueOutOfRange,
    ConvertedFromNvprof,
    NoActivity,
    UnpairedMarkerEnd,
    UnknownEventCategory,
    NotModelledEvent,
    MalformedEvent,
    BrokenFlow,
    FlowDisagreement,
    TruncatedJson,
    ConvertedFromNsysRep,
    IterationsDetected,
    CudaGraphLaunches,
    GraphNodesMapped,
    GraphKernelsAroundLaunch,
    GraphKernelsUnattributed,
    Count_
};

struct AnomalyInfo {
    std::string_view key;
    Severity severity;
    std::string_view sentence;
};

const AnomalyInfo& anomalyInfo(Anomaly a);
std::string_view severityName(Severity s);

class LoadReport {
  public:
    void add(Anomaly a, uint64_t n = 1, std::string_view detail = {});
    uint64_t count(Anomaly a) const { return counts_[static_cast<size_t>(a)]; }
    // Details name the table or column; a few per kind are kept for the report.
    const std::vector<std::string>& details(Anomaly a) const {
        return details_[static_cast<size_t>(a)];
    }
    void merge(const LoadReport& other);
    bool empty() const;

  private:
    uint64_t counts_[static_cast<size_t>(Anomaly::Count_)] = {};
    std::vector<std::string> details_[static_cast<size_t>(Anomaly::Count_)];
};

} // namespace ls
