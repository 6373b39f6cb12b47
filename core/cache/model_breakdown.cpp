#include "core/cache/model_breakdown.h"

#include "core/cache/model_bytes.h"

#include <array>
#include <string_view>
#include <tuple>

namespace ls {
namespace {

template <typename T, typename A>
ModelBytesRow rowOf(std::string_view table, std::string_view column, const std::vector<T, A>& v) {
    return {std::string(table), std::string(column), v.size(), v.capacity() * sizeof(T)};
}

// One row per element of `columns` (a tie of vectors), named in order; the names must match the
// tie's length, which the static_assert keeps true when a column is added.
template <typename Tuple, size_t N>
void addColumns(std::vector<ModelBytesRow>& out, std::string_view table, const Tuple& columns,
                const std::array<std::string_view, N>& names) {
    static_assert(std::tuple_size_v<Tuple> == N, "name every column of the table");
    [&]<size_t... K>(std::index_sequence<K...>) {
        (out.push_back(rowOf(table, names[K], std::get<K>(columns))), ...);
    }
    (std::make_index_sequence<N>{});
}

template <typename G, typename I>
void addCsr(std::vector<ModelBytesRow>& out, std::string_view name, const Csr<G, I>& c) {
    ModelBytesRow r = rowOf("index", name, c.ids);
    r.bytes += c.offsets.capacity() * sizeof(c.offsets[0]);
    out.push_back(r);
}

// A packed column's row: its per-row codes and its side tables.
template <typename T, typename A> uint64_t bytesOf(const std::vector<T, A>& v) {
    return v.capacity() * sizeof(T);
}
ModelBytesRow packedRow(std::string_view table, std::string_view column, const TimeColumn& c) {
    ModelBytesRow r = rowOf(table, column, c.blockOffset);
    r.bytes += bytesOf(c.blockBase) + bytesOf(c.farRows) + bytesOf(c.farTimes);
    return r;
}
ModelBytesRow packedRow(std::string_view table, std::string_view column, const EndColumn& e) {
    ModelBytesRow r = rowOf(table, column, e.length);
    r.bytes += bytesOf(e.farRows) + bytesOf(e.farLength);
    return r;
}
template <typename Id>
ModelBytesRow packedRow(std::string_view table, std::string_view column,
                        const Dict16Column<Id>& d) {
    ModelBytesRow r = rowOf(table, column, d.code);
    r.rows = d.size();
    r.bytes += bytesOf(d.distinct) + bytesOf(d.wide);
    return r;
}
template <typename Id>
ModelBytesRow packedRow(std::string_view table, std::string_view column,
                        const BlockIdColumn<Id>& c) {
    ModelBytesRow r = rowOf(table, column, c.offset);
    r.bytes += bytesOf(c.base) + bytesOf(c.farRows) + bytesOf(c.farIds);
    return r;
}
template <typename Offset, int32_t Absent>
ModelBytesRow packedRow(std::string_view table, std::string_view column,
                        const BlockInt32Column<Offset, Absent>& c) {
    ModelBytesRow r = rowOf(table, column, c.offset);
    r.bytes += bytesOf(c.base) + bytesOf(c.farRows) + bytesOf(c.farValues);
    return r;
}

constexpr std::array<std::string_view, 9> kGpuOp = {
    "start",       "end",         "importDevice",  "importContext", "importStream",
    "streamIndex", "correlation", "importProcess", "launch"};

template <size_t N, size_t M>
constexpr std::array<std::string_view, N + M> join(const std::array<std::string_view, N>& a,
                                                   const std::array<std::string_view, M>& b) {
    std::array<std::string_view, N + M> out{};
    for (size_t i = 0; i < N; ++i) out[i] = a[i];
    for (size_t i = 0; i < M; ++i) out[N + i] = b[i];
    return out;
}

} // namespace

std::vector<ModelBytesRow> modelBytesBreakdown(const Trace& trace) {
    // The tables' tie() are not const: they only hand out references, read here.
    Trace& t = const_cast<Trace&>(trace); // NOLINT(cppcoreguidelines-pro-type-const-cast)
    std::vector<ModelBytesRow> out;
    addColumns(out, "kernels", t.kernels.tie(),
               join(kGpuOp,
                    std::array<std::string_view, 10>{
                        "name", "shortName", "importGrid", "importBlock", "grid", "block",
                        "registers", "importStaticSmem", "importDynamicSmem", "importSmemConfig"}));
    auto values = [&](std::string_view table, std::string_view name, const auto& c) {
        ModelBytesRow row = rowOf(table, name, c.code);
        row.rows = c.size();
        row.bytes += bytesOf(c.distinct) + bytesOf(c.wide);
        out.push_back(row);
    };
    values("kernels", "staticSmem", t.kernels.staticSmem);
    values("kernels", "dynamicSmem", t.kernels.dynamicSmem);
    values("kernels", "smemConfig", t.kernels.smemConfig);
    auto dict = [&](std::string_view name, const DictColumn<Dim3>& d) {
        out.push_back(rowOf("kernels", name, d.distinct));
    };
    dict("grid values", t.kernels.grid);
    dict("block values", t.kernels.block);
    addColumns(out, "memcpys", t.memcpys.tie(),
               join(kGpuOp, std::array<std::string_view, 5>{"bytes", "kind", "cuptiCopyKind",
                                                            "srcKind", "dstKind"}));
    addColumns(out, "memsets", t.memsets.tie(),
               join(kGpuOp, std::array<std::string_view, 3>{"bytes", "value", "memKind"}));
    const ApiCallColumns& a = t.apiCalls;
    addColumns(out, "API calls", t.apiCalls.importTie(),
               std::array<std::string_view, 10>{"start", "importEnd", "importThread",
                                                "importThread (wide)", "importCorrelation",
                                                "importName", "importName (wide)", "kind",
                                                "importResult", "importResult (wide)"});
    out.push_back(packedRow("API calls", "correlation", a.correlation));
    out.push_back(packedRow("API calls", "start (blocks)", a.start));
    out.push_back(packedRow("API calls", "end", a.end));
    out.push_back(packedRow("API calls", "thread", a.thread));
    out.push_back(packedRow("API calls", "name", a.name));
    out.push_back(packedRow("API calls", "result", a.result));
    const RangeColumns& rc = t.ranges;
    addColumns(out, "NVTX ranges", t.ranges.importTie(),
               std::array<std::string_view, 15>{
                   "start", "importEnd", "importThread", "importThread (wide)", "importName",
                   "importName (wide)", "importSizes", "importSizes (wide)", "importSeq",
                   "importSeq (wide)", "importOpId", "importOpId (wide)", "importKind",
                   "importFlags", "importSourceRow"});
    out.push_back(packedRow("NVTX ranges", "start (blocks)", rc.start));
    out.push_back(packedRow("NVTX ranges", "end", rc.end));
    out.push_back(packedRow("NVTX ranges", "name", rc.name));
    {
        // Paired, its codes are the name's: only its table of ids is its own.
        ModelBytesRow row = packedRow("NVTX ranges", "sizes", rc.sizes.own);
        row.rows = rc.sizes.size();
        row.bytes += bytesOf(rc.sizes.byPair);
        out.push_back(row);
    }
    out.push_back(packedRow("NVTX ranges", "opId", rc.opId));
    {
        ModelBytesRow row = rowOf("NVTX ranges", "kind+flags+depth", rc.shape.code);
        row.rows = rc.shape.size();
        row.bytes += bytesOf(rc.shape.distinct) + bytesOf(rc.shape.wide);
        out.push_back(row);
    }
    out.push_back(rowOf("NVTX ranges", "parent", rc.parent.back));
    {
        const SparseInt32Column& seq = t.ranges.seq;
        ModelBytesRow row = rowOf("NVTX ranges", "seq", seq.values);
        row.rows = seq.size();
        row.bytes +=
            seq.present.capacity() * sizeof(uint64_t) + seq.before.capacity() * sizeof(uint32_t);
        out.push_back(row);
        const BackRefColumn<RangeId>& p = t.ranges.parent;
        out.push_back(rowOf("NVTX ranges", "parent (far)", p.farRows));
        out.back().bytes += p.farIds.capacity() * sizeof(uint32_t);
    }
    const KernelLinks& l = t.kernelLinks;
    out.push_back(packedRow("kernel links", "range", l.range));
    out.push_back(packedRow("kernel links", "op", l.op));
    out.push_back(packedRow("kernel links", "opInstance", l.opInstance));
    out.push_back(rowOf("kernel links", "direction", l.direction));
    out.push_back(packedRow("kernel links", "layer", l.layer));
    const OpColumns& o = t.ops;
    out.push_back(packedRow("ops", "range", o.range));
    out.push_back(packedRow("ops", "extent", o.extent));
    out.push_back(rowOf("ops", "direction", o.direction));
    out.push_back(packedRow("ops", "layer", o.layer));
    out.push_back(rowOf("ops", "paired", o.paired));
    const KernelMetrics& m = t.metrics;
    values("kernel metrics", "flops", m.flops);
    values("kernel metrics", "bytes", m.bytes);
    addColumns(out, "kernel metrics",
               std::tie(m.dtype, m.dtypeSource, m.tc, m.tcRule, m.tcMathOp, m.occupancy,
                        m.occupancyLimiter),
               std::array<std::string_view, 7>{"dtype", "dtypeSource", "tc", "tcRule", "tcMathOp",
                                               "occupancy", "occupancyLimiter"});
    out.push_back(packedRow("kernel metrics", "rule", m.rule));
    const KernelGraphColumns& g = t.kernelGraph;
    addColumns(out, "kernel graph", std::tie(g.graph, g.node, g.originalNode, g.capture, g.how),
               std::array<std::string_view, 5>{"graph", "node", "originalNode", "capture", "how"});
    addColumns(out, "OS runtime",
               std::tie(t.osRuntime.start, t.osRuntime.end, t.osRuntime.name, t.osRuntime.pid,
                        t.osRuntime.tid),
               std::array<std::string_view, 5>{"start", "end", "name", "pid", "tid"});
    const MemoryEventColumns& me = t.memory;
    addColumns(out, "memory events",
               std::tie(me.time, me.bytes, me.pool, me.allocated, me.reserved, me.address,
                        me.device, me.thread),
               std::array<std::string_view, 8>{"time", "bytes", "pool", "allocated", "reserved",
                                               "address", "device", "thread"});
    addCsr(out, "streamKernels", t.streamKernels);
    addCsr(out, "threadApiCalls", t.threadApiCalls);
    addCsr(out, "apiKernels", t.apiKernels);
    addCsr(out, "captureKernels", t.captureKernels);
    addCsr(out, "threadStartEnd", t.threadStartEnd);
    out.push_back(rowOf("index", "threadRangeBegin", t.threadRangeBegin));
    out.push_back(rowOf("index", "startEndTree", t.startEndTree));
    out.push_back(rowOf("index", "startEndTreeBegin", t.startEndTreeBegin));
    const auto& src = t.rangeSourceRows;
    ModelBytesRow sources = rowOf("index", "rangeSourceRows", src.plain);
    sources.bytes += src.runStart.capacity() * sizeof(src.runStart[0]) +
                     src.runValue.capacity() * sizeof(src.runValue[0]);
    sources.rows += src.runStart.size();
    out.push_back(sources);
    out.push_back({"strings", "pool", t.strings.size(), t.strings.bytes()});
    uint64_t named = 0;
    for (const ModelBytesRow& r : out) named += r.bytes;
    const uint64_t total = modelBytes(trace);
    out.push_back(
        {"other", "lists, small tables, the load report", 0, total > named ? total - named : 0});
    return out;
}

} // namespace ls
