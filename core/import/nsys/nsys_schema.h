#pragma once
// The columns the Nsight Systems loader reads from each event table, as data. The loader and
// the benchmark's bare-scan floor build their SELECTs from the same specs, so the floor reads
// exactly what the loader reads.
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class EventTable { Kernel, Memcpy, Memset, Runtime, Nvtx };

struct TableSpec {
    EventTable kind;
    std::string_view table;
    std::vector<std::string_view> columns; // SELECT order; readers index by position
    size_t requiredColumns;                // the first N columns must exist or the table is skipped
    std::vector<std::string_view> knownUnused; // columns we know and skip; others are reported
    // Of `columns`: ones that only later exports have, or that only gputrace/cudaapitrace-style
    // reports read (memory kinds, return values); their absence is no anomaly.
    std::vector<std::string_view> newerColumns;
};

const std::vector<TableSpec>& nsysEventTables();

// SELECT over spec's columns, NULL for the ones the table lacks; with a rowid window when ranged.
std::string buildSelect(const TableSpec& spec, const std::set<std::string>& present, bool ranged);

// Column positions, matching nsysEventTables() order. Every SELECT ends with the rowid, which
// places a row in the presized columns.
namespace kcol {
enum {
    Start,
    End,
    Device,
    Context,
    Stream,
    Correlation,
    GlobalPid,
    Demangled,
    Short,
    Registers,
    GridX,
    GridY,
    GridZ,
    BlockX,
    BlockY,
    BlockZ,
    StaticSmem,
    DynamicSmem,
    SmemConfig,
    RowId
};
}
namespace mcol {
enum {
    Start,
    End,
    Device,
    Context,
    Stream,
    Correlation,
    GlobalPid,
    Bytes,
    Kind,
    SrcKind,
    DstKind,
    RowId
};
}
namespace scol {
enum { Start, End, Device, Context, Stream, Correlation, GlobalPid, Bytes, Value, MemKind, RowId };
}
namespace rcol {
enum { Start, End, EventClass, GlobalTid, Correlation, NameId, ReturnValue, RowId };
}
namespace ncol {
enum { Start, End, EventType, GlobalTid, Text, TextId, EndGlobalTid, DomainId, RowId };
}

// NVTX eventType values in NVTX_EVENTS.
namespace nvtx_type {
constexpr int Mark = 34;
constexpr int PushPop = 59;
constexpr int StartEnd = 60;
constexpr int NvtxtPushPop = 70; // ranges recorded through the NVTXT text API
constexpr int NvtxtStartEnd = 71;
constexpr int DomainCreate = 75;
} // namespace nvtx_type

// eventClass of CUPTI_ACTIVITY_KIND_RUNTIME rows.
namespace event_class {
constexpr int CudaRuntime = 0;
constexpr int CudaDriver = 1;
constexpr int CudaBacktrace = 67;
} // namespace event_class

} // namespace ls
