#pragma once
// PaddlePaddle's console summary tables (python/paddle/profiler/profiler_statistic.py), for every
// trace Layerscope reads: Overview (time per event type), Model (step, data loader, forward,
// backward, optimization, others), Distribution (communication, computation, overlap), Operator
// (op -> inner phases -> kernels) and Kernel (per kernel name). How each number is computed, and
// where it differs from Paddle's, is in docs/summary-tables.md.
#include "core/model/trace.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

// Calls, total, max and min of a set of durations (ns).
struct DurationSet {
    uint64_t count = 0;
    TimeNs total = 0, max = 0, min = std::numeric_limits<TimeNs>::max();
    void add(TimeNs d) {
        ++count;
        total += d;
        max = std::max(max, d);
        min = std::min(min, d);
    }
    double avg() const {
        return count ? static_cast<double>(total) / static_cast<double>(count) : 0;
    }
};

// One side (CPU or GPU) of a row: absent (printed "-" / empty) or a total with its statistics.
// Only a total (no avg/max/min) for rows Paddle prints so ("Others", Overview rows).
struct TimeCell {
    bool present = false;
    bool totalOnly = false;
    DurationSet d;
    double ratioPct = 0;
};

enum class SummaryRowKind : uint8_t { Total, EventType, Phase, Op, Inner, Kernel, GpuSection };

struct SummaryTableRow {
    std::string name;
    uint8_t depth = 0; // the tree level (Operator: op 0, inner phase or kernel 1, kernel 2)
    SummaryRowKind kind = SummaryRowKind::EventType;
    bool callsKnown = true;
    uint64_t calls = 0;
    TimeCell cpu, gpu;
    std::vector<KernelId> kernels; // Operator and Kernel tables: the kernels the row counts
};

struct SummaryTable {
    std::string title;    // "Model Summary"
    std::string note;     // how the table is computed, one paragraph
    TimeNs totalTime = 0; // the ratio base: the steps' CPU time
    std::vector<SummaryTableRow> rows;
};

enum class SummarySort : uint8_t {
    CpuTotal,
    CpuAvg,
    CpuMax,
    CpuMin,
    GpuTotal,
    GpuAvg,
    GpuMax,
    GpuMin
};
// "cpu_total" … "gpu_min"; nullopt for anything else.
std::optional<SummarySort> parseSummarySort(std::string_view s);

// The report names `summary --report` takes for these tables.
inline constexpr std::string_view kSummaryTableReports[] = {"overview", "model", "distribution",
                                                            "operator", "kernel_table"};
bool isSummaryTableReport(std::string_view report);

SummaryTable overviewTable(const Trace& t);
SummaryTable modelTable(const Trace& t);
SummaryTable distributionTable(const Trace& t);
SummaryTable operatorTable(const Trace& t, SummarySort sort = SummarySort::CpuTotal);
SummaryTable kernelTable(const Trace& t, SummarySort sort = SummarySort::GpuTotal);
// By report name (one of kSummaryTableReports).
SummaryTable summaryTable(const Trace& t, std::string_view report, SummarySort sort);

} // namespace ls
