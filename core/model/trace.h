#pragma once
// One loaded trace: an immutable value of columns (struct of arrays) per event kind, small
// tables for processes/threads/devices/streams, interned strings and the load-time indexes.
// Shared as std::shared_ptr<const Trace> once loading ends.
#include "core/model/column.h"
#include "core/model/compact_columns.h"
#include "core/model/direction.h"
#include "core/model/dtype.h"
#include "core/model/end_column.h"
#include "core/model/ids.h"
#include "core/model/load_parts.h"
#include "core/model/load_report.h"
#include "core/model/narrow_columns.h"
#include "core/model/paired_dict16_column.h"
#include "core/model/range_shape_column.h"
#include "core/model/row_runs.h"
#include "core/model/rowid_block_column.h"
#include "core/model/string_pool.h"
#include "core/model/tensor_core_state.h"
#include "core/model/time_column.h"
#include "core/model/value_dict16_column.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ls {

using TimeNs = int64_t;

struct Dim3 {
    uint32_t x = 0, y = 0, z = 0;
    auto operator<=>(const Dim3&) const =
        default; // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads defaulted <=>
};
struct Dim3Hash {
    size_t operator()(const Dim3& d) const noexcept {
        return (uint64_t(d.x) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(d.y) << 21) ^
               (uint64_t(d.z) << 42);
    }
};

// A GPU stream: the process, the CUDA device id as the export numbers it, context and stream.
struct Stream {
    ProcessId process;
    uint32_t device = 0, context = 0, stream = 0;
};

// Columns every GPU operation (kernel, memcpy, memset) has. Rows are sorted by start. Its process,
// device, context and stream are those of its Stream (Trace::streamOf).
struct GpuOpColumns {
    Column<TimeNs> start, end;
    // Filled by importers and released at assembly once each row has its streamIndex (15 MB of
    // a million kernels): the CUDA device id as the export numbers it, context, stream, process.
    Column<uint32_t> importDevice, importContext, importStream;
    Column<ProcessId> importProcess;
    // The nsys reader's form of the four above, 4 bytes an op instead of 16: each row's
    // streamIndex is an index into this list until assembly numbers the trace's streams.
    std::vector<Stream> importStreams;
    Column<StreamId> streamIndex;
    Column<uint32_t> correlation;
    Column<ApiCallId> launch; // the API call that enqueued it (invalid for orphans)

    size_t size() const { return start.size(); }
    TimeNs duration(size_t i) const { return end[i] - start[i]; }
    auto tie() {
        return std::tie(start, end, importDevice, importContext, importStream, streamIndex,
                        correlation, importProcess, launch);
    }
};

struct KernelColumns : GpuOpColumns {
    Column<StringId> name;      // demangled
    Column<StringId> shortName; // base name
    // A trace has a few hundred distinct grids and blocks: the nsys reader writes codes of each
    // chunk's own into grid.code and block.code, which the merge makes codes of the columns'
    // dictionaries. Other importers fill importGrid and importBlock, packed at assembly.
    Column<Dim3> importGrid, importBlock;
    DictColumn<Dim3> grid, block;
    Column<uint16_t> registers;
    // Shared memory per block, and per SM as the driver configured it for the launch (0:
    // unknown), in bytes: importers write the import columns, packed at assembly (a trace has a
    // few dozen distinct values).
    Column<uint32_t> importStaticSmem, importDynamicSmem, importSmemConfig;
    ValueDict16Column<uint32_t> staticSmem, dynamicSmem, smemConfig; // not in tie()
    auto tie() {
        return std::tuple_cat(GpuOpColumns::tie(),
                              std::tie(name, shortName, importGrid, importBlock, grid.code,
                                       block.code, registers, importStaticSmem, importDynamicSmem,
                                       importSmemConfig));
    }
};

enum class CopyKind : uint8_t { Unknown, HtoD, DtoH, HtoH, DtoD, PtoP, Other };
std::string_view copyKindName(CopyKind k);

// A CUPTI enum value as the export stores it (copy operation, memory kind), or none where the
// export has no value: kept raw so that reports name them as nsys does.
inline constexpr uint8_t kNoCuptiValue = 0xFF;

struct MemcpyColumns : GpuOpColumns {
    Column<uint64_t> bytes;
    Column<CopyKind> kind;
    Column<uint8_t> cuptiCopyKind;    // 1 HtoD, 2 DtoH, 3 HtoA … 13 unified DtoD: finer than kind
    Column<uint8_t> srcKind, dstKind; // CUPTI memory kinds: 0 pageable, 1 pinned, 2 device, …
    auto tie() {
        return std::tuple_cat(GpuOpColumns::tie(),
                              std::tie(bytes, kind, cuptiCopyKind, srcKind, dstKind));
    }
};

struct MemsetColumns : GpuOpColumns {
    Column<uint64_t> bytes;
    Column<int32_t> value;
    Column<uint8_t> memKind; // CUPTI memory kind of the memory set
    auto tie() { return std::tuple_cat(GpuOpColumns::tie(), std::tie(bytes, value, memKind)); }
};

enum class ApiKind : uint8_t { Runtime, Driver, Other };

// An API call's return value where the export has none.
inline constexpr int32_t kNoApiResult = INT32_MIN;
// An API call's return value as its int32 bit pattern, so that a Dict16Column holds it.
using ApiResultBits = Id<struct ApiResultTag>;

// CUDA runtime and driver calls, one row per call (duplicate export rows dropped), by start.
// Starts are 6 bytes a row (TimeColumn), ends 4 (EndColumn: the duration). Importers fill the
// import* columns and importEnd; assembly packs them into end, thread, name and result once the
// rows are in their order (core/import/common/pack_columns.h) and frees them.
struct ApiCallColumns : TimedRows {
    // Thread, name and result are 16-bit codes from the nsys read on (Kineto's importer writes
    // them wide).
    Dict16Column<ThreadId> importThread;
    Column<uint32_t> importCorrelation; // packed into `correlation` once the rows are final
    Dict16Column<StringId> importName;
    Column<ApiKind> kind;
    Dict16Column<ApiResultBits> importResult;
    Dict16Column<ThreadId> thread;
    Dict16Column<StringId> name;
    BlockInt32Column<uint8_t, kNoApiResult> result; // cudaError_t or CUresult; kNoApiResult
    // CUPTI's correlation id as a 32-bit pattern: ids rise with the calls' starts, so a block's
    // lie close together (read it with correlationOf).
    BlockInt32Column<uint16_t, INT32_MIN> correlation;
    uint32_t correlationOf(size_t i) const { return static_cast<uint32_t>(correlation[i]); }
    // The columns importers write (resized, joined and compacted before assembly).
    auto importTie() {
        return std::tie(start.packed, importEnd.code, importThread.code, importThread.wide,
                        importCorrelation, importName.code, importName.wide, kind,
                        importResult.code, importResult.wide);
    }
    // Every per-row column (the model cache, the memory breakdown).
    auto tie() {
        return std::tuple_cat(importTie(),
                              std::tie(start.blockOffset, end.length, thread.code, thread.wide,
                                       name.code, name.wide, result.offset, correlation.offset));
    }
};

// NVTX ranges and marks, grouped by thread (Trace::threadRangeBegin) and within a thread sorted
// by start, longer ranges first. PyTorch markers are parsed at load: `name` is the normalized
// name and seq/opId/sizes hold what the raw text said; the raw text is re-read on demand by
// its source row (see nvtxRawText). Starts and ends are 3 bytes a row once packed (TimeColumn,
// EndColumn). Importers fill the import* columns and importEnd; assembly packs them once the
// rows are in their order (core/import/common/pack_columns.h) and frees them.
struct RangeColumnsData : TimedRows {
    // Released at assembly, once the rows are grouped by thread (Trace::rangeThread) and their
    // source rows packed (Trace::rangeSourceRows). Thread, name and sizes are 16-bit codes from
    // the read on (Kineto's importer writes them wide).
    Dict16Column<ThreadId> importThread;
    Dict16Column<StringId> importName, importSizes;
    RowidBlockInt32Column importSeq, importOpId; // -1 when absent
    Dict16Column<StringId> name; // normalized, with "domain:" prefix for non-default domains
    // PyTorch `sizes = [...]` text, empty id when absent; shares name's codes where it can.
    PairedDict16Column<StringId> sizes;
    SparseInt32Column seq; // -1 when absent: most ranges have none (only autograd ops do)
    BlockInt32Column<uint16_t, -1> opId; // -1 when absent; mostly one more than the row before
    // Kind and RangeFlag bits as importers write them: packed with the depth into `shape` at
    // assembly, which then reads them as kind, flags and depth (RangeColumns).
    Column<RangeKind> importKind;
    Column<uint8_t> importFlags;
    RangeShapeColumn shape;
    BackRefColumn<RangeId> parent;    // invalid for outermost; written at assembly
    Column<uint32_t> importSourceRow; // rowid in the export's NVTX table (JSON: event index)
    // The columns importers write (resized, joined and compacted before assembly).
    auto importTie() {
        return std::tie(start.packed, importEnd.code, importThread.code, importThread.wide,
                        importName.code, importName.wide, importSizes.code, importSizes.wide,
                        importSeq.code, importSeq.wide, importOpId.code, importOpId.wide,
                        importKind, importFlags, importSourceRow);
    }
    // Every per-row column (the model cache, the memory breakdown).
    auto tie() {
        return std::tuple_cat(importTie(), std::tie(start.blockOffset, shape.code, shape.wide,
                                                    parent.back, end.length, name.code, name.wide,
                                                    sizes.own.code, sizes.own.wide, opId.offset));
    }
};

// The ranges' columns, with sizes kept pointed at the name codes it may share, and the views of
// the shape pointed at it.
struct RangeColumns : RangeColumnsData {
    RangeShapeField<RangeKind, &RangeShape::kind> kind{&shape};
    RangeShapeField<uint8_t, &RangeShape::flags> flags{&shape}; // RangeFlag bits
    RangeShapeField<uint8_t, &RangeShape::depth> depth{&shape}; // 0 for outermost, up to 255

    RangeColumns() { pointViews(); }
    RangeColumns(const RangeColumns& o) : RangeColumnsData(o) { pointViews(); }
    RangeColumns(RangeColumns&& o) noexcept : RangeColumnsData(std::move(o)) { pointViews(); }
    RangeColumns& operator=(const RangeColumns& o) {
        RangeColumnsData::operator=(o);
        pointViews();
        return *this;
    }
    RangeColumns& operator=(RangeColumns&& o) noexcept {
        RangeColumnsData::operator=(std::move(o));
        pointViews();
        return *this;
    }
    ~RangeColumns() = default;

  private:
    void pointViews() {
        sizes.pointAt(&name);
        kind.pointAt(&shape);
        flags.pointAt(&shape);
        depth.pointAt(&shape);
    }
};

enum RangeFlag : uint8_t {
    kSeqIsStashed = 1, // older PyTorch: "stashed seq = N"
    kUnended = 2,      // no end in the export; ends at the capture end
    kEndsOnOtherThread = 4,
    kPytorchMarker = 8,
    kRepeatedInput =
        16, // input_op_ids lists one tensor twice: read once (core/costs/kernel_metrics.cpp)
    kDictCall = 32, // an apex/pyprof dict marker of a call ({'mod', 'op', 'args'})
    kModuleScope =
        64, // a PyTorch profiler nn.Module scope (with_stack): a layer only as a fallback
};

// One row per op instance: a top-level forward op marker (aten::linear, with its nested ops) or a
// backward node (its autograd engine wrapper and everything run inside it). Built at load by
// core/pytorch/correlation.cpp.
// Range, extent and layer are narrow (2 bytes a row): ops are found in range order.
struct OpColumns {
    BlockIdColumn<RangeId> range;  // the marker carrying name, seq and op_id (backward: the node)
    BlockIdColumn<RangeId> extent; // the range whose launches belong to the op (backward: the
                                   // wrapper); ascending
    Column<Direction> direction;
    Dict16Column<StringId> layer; // backward: the paired forward op's layer
    Column<OpId> paired;          // forward op <-> backward node by seq
    size_t size() const { return range.size(); }
};

// Per kernel (same row order as KernelColumns): where its launch call sits. Narrow columns: the
// ranges and ops of kernels in start order rise with them, and layers are few.
struct KernelLinks {
    BlockIdColumn<RangeId> range; // innermost NVTX range around the launch call, on its thread
    BlockIdColumn<RangeId>
        op; // innermost PyTorch op marker around it (aten::addmm in aten::linear)
    BlockIdColumn<OpId> opInstance; // the op instance it belongs to
    Column<Direction> direction;
    Dict16Column<StringId> layer; // nearest user range; backward kernels take their forward op's
};

// Per kernel (same row order): FLOPs, bytes and Tensor Core use (core/costs/kernel_metrics.h).
struct KernelMetrics {
    // NAN where no formula applies or a needed value is unknown. 2-byte codes: an op's cost
    // repeats at every iteration.
    ValueDict16Column<double> flops, bytes;
    Column<DType> dtype;
    Column<DTypeSource> dtypeSource;
    Dict16Column<StringId> rule; // the formula that gave flops/bytes (empty id: none)
    Column<TcState> tc;
    Column<uint8_t> tcRule;   // index into tensorCoreRules(); 0xFF none fired
    Column<uint8_t> tcMathOp; // the verdict treated the kernel as its op's math kernel
    Column<float>
        occupancy; // theoretical, percent; NAN when the device is unknown (core/costs/occupancy.h)
    Column<uint8_t> occupancyLimiter; // OccupancyLimiter bits
};

// How a kernel replayed by a CUDA graph launch found its CPU context (KernelGraphColumns).
enum class GraphAttribution : uint8_t {
    None,         // not replayed by a graph launch
    Capture,      // from the launch call that created its node during stream capture
    AroundLaunch, // no capture in the trace: the op and ranges around the graph launch call
    LaunchItem,   // a whole graph launch as one GPU item (nsys --cuda-graph-trace=graph)
};

inline constexpr uint64_t kNoGraphNode = UINT64_MAX;

// CUDA graph replay, per kernel (same row order as KernelColumns); every column is empty when the
// trace holds no graph launch. Filled at import (node ids) and by core/pytorch/graph_replay.h.
struct KernelGraphColumns {
    Column<uint32_t> graph;        // the executed graph's id as the export numbers it; 0 unknown
    Column<uint64_t> node;         // the executed node's id; kNoGraphNode unknown
    Column<uint64_t> originalNode; // the captured node it was cloned from at instantiation
    Column<ApiCallId> capture;     // the launch call that created the original node
    Column<GraphAttribution> how;
    bool empty() const { return how.empty(); }
    // n rows of "no graph" unless filled already (the columns stay empty for a trace without
    // graphs).
    void allocate(size_t n) {
        if (!empty()) return;
        graph.assign(n, 0);
        node.assign(n, kNoGraphNode);
        originalNode.assign(n, kNoGraphNode);
        capture.assign(n, ApiCallId());
        how.assign(n, GraphAttribution::None);
    }
};

struct Process {
    uint32_t pid = 0;
    std::string name;
};

// A thread's scheduling priority where the export has none (no ThreadNames row).
inline constexpr int32_t kNoThreadPriority = INT32_MIN;

struct Thread {
    ProcessId process;
    uint32_t tid = 0;
    std::string name;
    int32_t priority = kNoThreadPriority; // as the export recorded it (nsys: ThreadNames.priority)
};

struct Device {
    uint32_t id = 0; // as the export numbers it
    std::string name;
    uint32_t smCount = 0;
    uint64_t memoryBytes = 0;
    int computeMajor = 0, computeMinor = 0;
};

// A CSR pair: the ids of group g are ids[offsets[g] .. offsets[g+1]).
template <typename GroupId, typename ItemId> struct Csr {
    Column<uint32_t> offsets{0};
    Column<ItemId> ids;
    std::pair<const ItemId*, const ItemId*> of(GroupId g) const {
        if (!g.valid() || g.value + 1 >= offsets.size()) return {nullptr, nullptr};
        return {ids.data() + offsets[g.value], ids.data() + offsets[g.value + 1]};
    }
};

// A PyTorch profiler fwdbwd flow: from the forward op starting at fromTs on fromThread to the
// backward node starting at toTs on toThread (checked against seq pairing at correlation).
struct FwdBwdFlow {
    ThreadId fromThread;
    TimeNs fromTs = 0;
    ThreadId toThread;
    TimeNs toTs = 0;
};

// What a PyTorch profiler trace says of a collective kernel (its args), keyed by the kernel's
// start and correlation id: the message size and the process group it ran on.
struct CollectiveArgs {
    TimeNs start = 0;
    uint32_t correlation = 0;
    uint64_t bytes = 0; // max(in, out) elements × element size; 0 when the element type is unknown
    StringId group;     // "Process Group Name"; invalid when absent
    auto key() const { return std::pair(start, correlation); }
};

// OS runtime calls a Nsight Systems trace records with -t osrt (poll, pthread_cond_wait, read …),
// the OSRT_API rows of event class 27 (the class nsys stats osrtsum reads), by start.
struct OsRuntimeColumns {
    Column<TimeNs> start, end;
    Column<StringId> name;
    Column<uint32_t> pid, tid;
    size_t size() const { return start.size(); }
};

// What a GPU memory event changes: the memory handed to tensors (allocated), or the caching
// allocator's reserve of device memory (PyTorch's and Paddle's reserved memory).
enum class MemoryPool : uint8_t { Allocated, Reserved };

// A device total where the trace records none (Nsight Systems has no reserved memory).
inline constexpr uint64_t kNoMemoryTotal = UINT64_MAX;

// GPU memory over time: one row per allocation or release on a GPU that the trace records
// (PyTorch profiler and Paddle [memory] events, Nsight Systems CUDA memory usage events), by time,
// ties in file order. Host memory events are not kept (counted in the load report).
struct MemoryEventColumns {
    Column<TimeNs> time;
    Column<int64_t> bytes; // the change: > 0 an allocation, < 0 a release
    Column<MemoryPool> pool;
    Column<uint64_t> allocated; // the device's allocated bytes after the event
    Column<uint64_t> reserved;  // reserved bytes after the event; kNoMemoryTotal when unknown
    Column<uint64_t> address;   // 0 when unknown
    Column<uint32_t> device;    // as the export numbers it
    Column<ThreadId> thread;    // the thread that allocated or freed; invalid when unknown
    // Filled by the Nsight Systems importer, whose events name their cudaMalloc/cudaFree by
    // correlation id, and released at assembly once `thread` is known.
    Column<ProcessId> importProcess;
    Column<uint32_t> importCorrelation;
    size_t size() const { return time.size(); }
    auto tie() {
        return std::tie(time, bytes, pool, allocated, reserved, address, device, thread,
                        importProcess, importCorrelation);
    }
};

// One iteration (training step or inference pass) on the CPU timeline: what was launched between
// start and end belongs to it (core/pytorch/iterations.h finds them at load).
struct IterationSpan {
    int number = 0;
    std::string name; // "iteration 3" (the range's), or "step 3" for detected ones
    TimeNs start = 0, end = 0;
};
enum class IterationRule : uint8_t { None, Ranges, OptimizerSteps, RepeatingOps };

struct ExportInfo {
    std::string format;         // "Nsight Systems SQLite export"
    std::string productVersion; // e.g. 2025.3.2.0
    std::string schemaVersion;  // e.g. 3.20.3
    std::vector<std::pair<std::string, std::string>> metadata;
    // Where and when it was recorded, for sessions of several traces (core/model/session.h).
    std::string host;    // the recording machine's host name; empty when the export has none
    int64_t epochNs = 0; // UTC ns of the trace's time 0 (0 when the times are UTC already)
    bool epochKnown = false;
    // The rank-related variables of the profiled process's environment (RANK, LOCAL_RANK,
    // OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, WORLD_SIZE …), as the export recorded them.
    std::vector<std::pair<std::string, std::string>> environment;
};

struct Trace {
    std::string
        path; // the file the trace's rows are read from (raw NVTX texts are re-read from it)
    std::string sourcePath; // the user's file when path is a converted copy (nvprof), else empty
    std::shared_ptr<const void> ownedFiles; // keeps a converted copy alive as long as the trace
    ExportInfo info;
    StringPool strings;

    KernelColumns kernels;
    MemcpyColumns memcpys;
    MemsetColumns memsets;
    ApiCallColumns apiCalls;
    RangeColumns ranges;

    std::vector<Process> processes;
    std::vector<Thread> threads;
    std::vector<Device> devices;
    std::vector<Stream> streams;
    OsRuntimeColumns osRuntime;
    MemoryEventColumns memory;                  // GPU memory usage, by time
    std::vector<FwdBwdFlow> fwdBwdFlows;        // PyTorch profiler traces only, by fromTs
    std::vector<CollectiveArgs> collectiveArgs; // PyTorch profiler traces only, by key()

    // Indexes built once at load.
    Csr<StreamId, KernelId> streamKernels;   // per stream, by start
    Csr<ThreadId, ApiCallId> threadApiCalls; // per thread, by start
    Column<uint32_t> threadRangeBegin;       // ranges of thread t are [begin[t], begin[t+1])
    RowRuns rangeSourceRows; // per range: its rowid in the export's NVTX table (JSON: event index)
    Csr<ApiCallId, KernelId> apiKernels; // a graph launch has many kernels
    // CUDA graphs: per kernel, its graph node and capture; per capture-time launch call, the
    // kernels its node ran at each replay (core/pytorch/graph_replay.h).
    KernelGraphColumns kernelGraph;
    Csr<ApiCallId, KernelId> captureKernels;

    // Correlation (core/pytorch/correlation.h), built once at load.
    OpColumns ops;
    KernelLinks kernelLinks;
    KernelMetrics metrics;
    // Start/end ranges per thread, by start, built with the NVTX nesting (they need no
    // correlation: nvtx_kern_sum loads without it).
    Csr<ThreadId, RangeId> threadStartEnd;
    // Per thread, a max-end segment tree over those ranges (2 * startEndTreeLeaves nodes,
    // starting at startEndTreeBegin[thread]) for stabbing queries that skip ranges ended early.
    Column<TimeNs> startEndTree;
    Column<uint32_t> startEndTreeBegin;
    static size_t startEndTreeLeaves(size_t ranges) {
        size_t p = 1;
        while (p < ranges) p <<= 1;
        return p;
    }

    // Iterations of the whole trace, found once at load (core/pytorch/iterations.h).
    std::vector<IterationSpan> iterations;
    IterationRule iterationRule = IterationRule::None;
    double iterationConfidence = 0;

    TimeNs captureStart = 0, captureEnd = 0;
    LoadReport report;
    double loadSeconds = 0;
    uint32_t parts = kLoadEverything; // what the load read and computed (core/model/load_parts.h)
    std::vector<std::pair<std::string, double>> loadPhases; // seconds per load phase, in order

    std::string_view str(StringId id) const { return strings.view(id); }
    ThreadId rangeThread(RangeId r) const; // by threadRangeBegin
    const Stream& streamOf(const GpuOpColumns& c, size_t i) const {
        return streams[c.streamIndex[i].value];
    }
    // The call whose CPU context (ranges, op, layer) kernel k takes: the launch call made during
    // stream capture for a replayed graph node whose capture is in the trace, else its launch.
    ApiCallId contextCall(size_t k) const {
        if (!kernelGraph.empty() && kernelGraph.capture[k].valid()) return kernelGraph.capture[k];
        return kernels.launch[k];
    }
    const std::string& displayPath() const { return sourcePath.empty() ? path : sourcePath; }
};

} // namespace ls
