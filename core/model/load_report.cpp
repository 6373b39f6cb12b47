#include "core/model/load_report.h"

#include <algorithm>

namespace ls {
namespace {

constexpr AnomalyInfo kAnomalies[] = {
    {"missing_table", Severity::Info,
     "tables absent from the export (a lazy export omits empty tables); that event kind is empty"},
    {"missing_column", Severity::Warning,
     "columns the loader reads that this schema lacks; their values are empty"},
    {"extra_columns", Severity::Info, "columns this loader does not know; ignored"},
    {"null_timestamp", Severity::Warning, "rows with a NULL start time; skipped"},
    {"negative_duration", Severity::Warning,
     "events whose end precedes their start; their end was set to their start"},
    {"duplicate_runtime_row", Severity::Info,
     "extra API rows sharing a process and correlation id with another row (CUDA backtrace rows of "
     "older exports); each call is counted once"},
    {"orphan_gpu_op", Severity::Warning,
     "GPU operations whose correlation id matches no API call of their process"},
    {"unknown_string_id", Severity::Warning,
     "name ids missing from StringIds; shown as an empty name"},
    {"unended_range", Severity::Warning, "NVTX ranges without an end; they end at the capture end"},
    {"unknown_nvtx_event_type", Severity::Info,
     "NVTX rows of event types the loader does not use (categories, thread names, payload "
     "schemas)"},
    {"range_ends_on_other_thread", Severity::Info,
     "NVTX start/end ranges that ended on another thread; kept on the thread that started them"},
    {"improper_nesting", Severity::Warning,
     "NVTX push/pop ranges that overlap a push/pop range of the same thread without nesting in it"},
    {"value_out_of_range", Severity::Warning,
     "values too large for their column (ids beyond 32 bits, negative sizes); clamped"},
    {"converted_from_nvprof", Severity::Info,
     "a legacy nvprof database, converted on load into a private temporary copy: kernel names "
     "demangled, API names from CUPTI callback ids, thread ids cut to 24 bits"},
    {"no_activity", Severity::Warning,
     "the file holds no kernels, copies or API calls: profiling never started (nvprof "
     "--profile-from-start off without cudaProfilerStart, or the program exited first)"},
    {"unpaired_marker_end", Severity::Warning,
     "nvprof marker end rows whose start row is missing; skipped"},
    {"unknown_event_category", Severity::Info,
     "trace events of categories or phases this importer does not know; ignored"},
    {"not_modelled_event", Severity::Info,
     "trace events this importer understands but does not keep (derived or profiler-internal "
     "spans)"},
    {"malformed_event", Severity::Warning,
     "trace events that are not valid JSON objects or lack a usable time; skipped"},
    {"broken_flow", Severity::Info,
     "flow events (launch -> GPU, forward -> backward) with only one end in the file"},
    {"flow_disagreement", Severity::Warning,
     "fwdbwd flows that join a forward op and a backward node which seq pairing does not join (or "
     "joins to another op)"},
    {"truncated_json", Severity::Warning,
     "the JSON stops before the trace closes (a truncated or damaged file); the events before that "
     "point were loaded"},
    {"converted_from_nsys_rep", Severity::Info,
     "an Nsight Systems report (.nsys-rep/.qdrep), exported to SQLite on open with a local nsys "
     "into Layerscope's cache folder and reused while the report keeps its path, size and time"},
    {"iterations_detected", Severity::Info,
     "iterations found without iteration ranges, from the trace's own period (the rule and how "
     "alike the iterations are in the detail)"},
    {"cuda_graph_launches", Severity::Info,
     "CUDA graph launches: one call starts all its graph's kernels (graphs, nodes and GPU items "
     "in the detail)"},
    {"graph_nodes_mapped", Severity::Info,
     "kernels replayed by a graph launch that take the op, ranges, shapes and layer of the launch "
     "call that created their node during stream capture (clones mapped to their original node)"},
    {"graph_kernels_around_launch", Severity::Warning,
     "kernels replayed by a graph launch whose capture is not in the trace (or which the trace "
     "gives no node id): attributed to the op and ranges around the graph launch call"},
    {"graph_kernels_unattributed", Severity::Info,
     "kernels of a trace with graph launches that have no op, layer or range at all (share of GPU "
     "time in the detail)"},
};
static_assert(std::size(kAnomalies) == static_cast<size_t>(Anomaly::Count_));

constexpr size_t kMaxDetails = 8;

} // namespace

const AnomalyInfo& anomalyInfo(Anomaly a) { return kAnomalies[static_cast<size_t>(a)]; }

std::string_view severityName(Severity s) {
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "?";
}

void LoadReport::add(Anomaly a, uint64_t n, std::string_view detail) {
    const auto i = static_cast<size_t>(a);
    counts_[i] += n;
    if (!detail.empty() && details_[i].size() < kMaxDetails &&
        std::find(details_[i].begin(), details_[i].end(), detail) == details_[i].end())
        details_[i].emplace_back(detail);
}

void LoadReport::merge(const LoadReport& other) {
    for (size_t i = 0; i < static_cast<size_t>(Anomaly::Count_); ++i) {
        counts_[i] += other.counts_[i];
        for (const auto& d : other.details_[i])
            if (details_[i].size() < kMaxDetails &&
                std::find(details_[i].begin(), details_[i].end(), d) == details_[i].end())
                details_[i].push_back(d);
    }
}

bool LoadReport::empty() const {
    return std::all_of(std::begin(counts_), std::end(counts_), [](uint64_t c) { return c == 0; });
}

} // namespace ls
