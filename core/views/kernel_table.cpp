#include "core/views/kernel_table.h"

#include "core/costs/kernel_metrics.h"
#include "core/costs/occupancy.h"
#include "core/import/common/raw_text.h"
#include "core/model/rank_labels.h"
#include "core/pytorch/correlation.h"
#include "core/pytorch/graph_replay.h"
#include "core/views/ancestor_walk.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace ls {
namespace {

using F = KernelField;
using U = FieldUnit;

const std::vector<KernelFieldInfo> kFields = {
    {F::Id, "id", "ID", U::Integer, "Row of the kernel in the loaded trace (by start)"},
    {F::Start, "start_ns", "Start", U::Timestamp, "GPU start on the trace clock"},
    {F::End, "end_ns", "End", U::Timestamp, "GPU end on the trace clock"},
    {F::Duration, "duration_ns", "Duration", U::Duration, "GPU time of the kernel"},
    {F::Device, "device", "Device", U::Integer, "CUDA device id"},
    {F::Context, "context", "Context", U::Integer, "CUDA context id"},
    {F::Stream, "stream", "Stream", U::Integer, "CUDA stream id"},
    {F::Pid, "pid", "PID", U::Integer, "Process that launched it"},
    {F::Tid, "tid", "TID", U::Integer, "Thread of the launch call"},
    {F::Correlation, "correlation_id", "Correlation", U::Integer,
     "CUPTI correlation id of the launch"},
    {F::Api, "api", "Launch API", U::Text, "The CUDA call that enqueued it"},
    {F::Name, "name", "Kernel", U::Text, "Demangled kernel name"},
    {F::ShortName, "short_name", "Short name", U::Text, "Base name of the kernel"},
    {F::Grid, "grid", "Grid", U::Dim, "Grid dimensions x,y,z"},
    {F::Block, "block", "Block", U::Dim, "Block dimensions x,y,z"},
    {F::Registers, "registers", "Registers", U::Integer, "Registers per thread"},
    {F::StaticSmem, "static_smem", "Static smem", U::Bytes, "Static shared memory per block"},
    {F::DynamicSmem, "dynamic_smem", "Dynamic smem", U::Bytes, "Dynamic shared memory per block"},
    {F::NvtxRange, "nvtx_range", "NVTX range", U::Text,
     "Innermost NVTX range around the launch (raw text)"},
    {F::NvtxPath, "nvtx_path", "NVTX path", U::Text, "NVTX stack of the launch, outermost first"},
    {F::Layer, "layer", "Layer", U::Text, "Layer (backward kernels take their forward op's)"},
    {F::Op, "op", "Op", U::Text, "Innermost PyTorch op around the launch"},
    {F::Seq, "seq", "Seq", U::Integer, "Autograd sequence number of the op"},
    {F::TorchOpId, "op_id", "Op id", U::Integer, "PyTorch op_id of the op"},
    {F::Dir, "direction", "Direction", U::Text, "forward, backward, optimizer or other"},
    {F::FwdOpId, "fwd_op_id", "Forward op id", U::Integer,
     "op_id of the paired forward op (backward kernels)"},
    {F::Sizes, "sizes", "Shapes", U::Text, "Input shapes recorded by the op marker"},
    {F::Flops, "flops", "FLOPs", U::Flops, "Floating-point operations (an FMA counts 2)"},
    {F::Bytes, "bytes", "Bytes", U::Bytes, "Algorithmic minimum of bytes read and written"},
    {F::DataType, "dtype", "dtype", U::Text, "Data type of the math"},
    {F::Intensity, "intensity", "FLOP/byte", U::Intensity, "Arithmetic intensity"},
    {F::TflopsS, "tflops_s", "TFLOP/s", U::Tflops, "Achieved FLOP rate"},
    {F::GbytesS, "gbytes_s", "GB/s", U::Gbytes, "Achieved byte rate"},
    {F::Tc, "tc", "Tensor Cores", U::Text, "used, not used (eligible), n/a"},
    {F::TcReason, "tc_reason", "TC reason", U::Text, "The Tensor Core rule that fired"},
    {F::FlopsRule, "flops_rule", "FLOPs rule", U::Text, "The formula that gave FLOPs and bytes"},
    {F::DataTypeSource, "dtype_source", "dtype source", U::Text, "Where the dtype came from"},
    {F::Rank, "rank", "Rank", U::Integer,
     "The rank of the job whose GPU ran the kernel (from the environment, distributedInfo, the "
     "file name, the device or the order opened)"},
    {F::OccupancyPct, "occupancy_pct", "Occupancy %", U::Percent,
     "Theoretical occupancy: the warps of this launch one SM can hold, as a percentage of its "
     "maximum"},
    {F::OccupancyLimiter, "occupancy_limiter", "Occupancy limiter", U::Text,
     "What caps the theoretical occupancy: registers, shared memory, warps or blocks (ties joined "
     "by +)"},
    {F::Graph, "graph", "Graph", U::Text,
     "CUDA graph and node that replayed it; \"(launch op)\": no capture in the trace, attributed "
     "to the op around the graph launch; \"(whole launch)\": one GPU item per graph launch"},
};

std::string dim(const Dim3& d) {
    return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

// A measured or computed quantity: empty when unknown, never a made-up zero.
std::string fixed(double v, int decimals) {
    if (!std::isfinite(v)) return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

double orNan(int64_t v) { return v < 0 ? NAN : static_cast<double>(v); }

std::string_view dtypeSourceName(DTypeSource s) {
    return s == DTypeSource::KernelName ? "kernel name" : s == DTypeSource::Marker ? "marker" : "";
}

} // namespace

const std::vector<KernelFieldInfo>& kernelFields() { return kFields; }
const KernelFieldInfo& kernelFieldInfo(KernelField f) { return kFields[static_cast<size_t>(f)]; }

std::optional<KernelField> kernelFieldByName(std::string_view name) {
    for (const auto& info : kFields)
        if (info.name == name) return info.field;
    return std::nullopt;
}

KernelTable::KernelTable(std::shared_ptr<const Trace> trace) : trace_(std::move(trace)) {
    paths_ = std::make_shared<const KernelPaths>(buildKernelPaths(*trace_));
    Session alone;
    alone.traces.push_back({trace_->displayPath(), trace_, 0});
    labelRanks(alone);
    setRanks(alone, 0);
}

KernelTable::KernelTable(std::shared_ptr<const Trace> trace, const Session& session,
                         uint32_t traceIndex)
    : KernelTable(trace, session, traceIndex,
                  std::make_shared<const KernelPaths>(buildKernelPaths(*trace))) {}

KernelTable::KernelTable(std::shared_ptr<const Trace> trace, const Session& session,
                         uint32_t traceIndex, std::shared_ptr<const KernelPaths> paths)
    : trace_(std::move(trace)), paths_(std::move(paths)) {
    setRanks(session, traceIndex);
}

void KernelTable::setRanks(const Session& session, uint32_t traceIndex) {
    ranks_.clear();
    for (const auto& r : session.ranks)
        if (r.trace == traceIndex) ranks_.push_back({r.process, r.device, r.rank});
}

int KernelTable::rankOf(KernelId k) const {
    const Stream& st = trace_->streamOf(trace_->kernels, k.value);
    for (const auto& r : ranks_)
        if (r.process == st.process && r.device == st.device) return r.rank;
    return -1;
}
KernelTable::~KernelTable() = default;

KernelPaths buildKernelPaths(const Trace& t) {
    KernelPaths paths;
    auto& pathNodes = paths.nodes;
    auto& kernelPath = paths.ofKernel;
    pathNodes.assign(1, KernelPaths::Node{0, StringId()});
    kernelPath.assign(t.kernels.size(), 0);
    std::unordered_map<uint64_t, uint32_t> child;
    const auto childOf = [&](uint32_t node, StringId name) {
        const uint64_t key = (static_cast<uint64_t>(node) << 32) | name.value;
        auto [pos, added] = child.try_emplace(key, static_cast<uint32_t>(pathNodes.size()));
        if (added) pathNodes.push_back(KernelPaths::Node{node, name});
        return pos->second;
    };
    // Without start/end ranges a kernel's stack is its innermost range and that range's parents,
    // whose nodes come from the walk's last stack of the thread where they repeat.
    const bool pushPopOnly = std::none_of(t.ranges.kind.begin(), t.ranges.kind.end(),
                                          [](RangeKind k) { return k == RangeKind::StartEnd; });
    if (pushPopOnly && t.kernels.size() > 0 && t.kernelLinks.range.size() == t.kernels.size()) {
        AncestorWalk<uint32_t> walk(t);
        for (uint32_t k = 0; k < t.kernels.size(); ++k) {
            const RangeId r = t.contextCall(k).valid() ? t.kernelLinks.range[k] : RangeId();
            if (r.valid())
                kernelPath[k] = walk.of(r, [&](const uint32_t* parent, RangeId a) {
                    return childOf(parent ? *parent : 0, t.ranges.name[a.value]);
                });
        }
        return paths;
    }
    std::unordered_map<uint32_t, uint32_t>
        byCall; // kernels of one call (graph launches) share a stack
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const ApiCallId call = t.contextCall(k); // a replayed graph node: its capture
        if (!call.valid()) continue;
        if (auto it = byCall.find(call.value); it != byCall.end()) {
            kernelPath[k] = it->second;
            continue;
        }
        const auto stack = rangesContaining(t, call);
        uint32_t node = 0;
        for (auto it = stack.rbegin(); it != stack.rend(); ++it)
            node = childOf(node, t.ranges.name[it->value]);
        kernelPath[k] = node;
        if (t.apiKernels.of(call).second - t.apiKernels.of(call).first > 1)
            byCall.emplace(call.value, node);
    }
    return paths;
}

std::string KernelTable::nvtxPath(KernelId k) const { return pathText(paths_->ofKernel[k.value]); }

std::string KernelTable::pathText(uint32_t node) const {
    std::vector<StringId> names;
    for (uint32_t n = node; n != 0; n = paths_->nodes[n].parent)
        names.push_back(paths_->nodes[n].name);
    std::string path;
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
        if (!path.empty()) path += kPathSeparator;
        path += trace_->str(*it);
    }
    return path;
}

std::optional<StringId> KernelTable::stringId(KernelId k, KernelField f) const {
    const Trace& t = *trace_;
    const uint32_t i = k.value;
    const RangeId op = t.kernelLinks.op[i];
    switch (f) {
    case F::Api: {
        const ApiCallId call = t.kernels.launch[i];
        return call.valid() ? t.apiCalls.name[call.value] : StringId(0);
    }
    case F::Name:
        return t.kernels.name[i];
    case F::ShortName:
        return t.kernels.shortName[i];
    case F::Layer:
        return t.kernelLinks.layer[i].valid() ? t.kernelLinks.layer[i] : StringId(0);
    case F::Op:
        return op.valid() ? t.ranges.name[op.value] : StringId(0);
    case F::Sizes:
        return op.valid() ? t.ranges.sizes[op.value] : StringId(0);
    case F::FlopsRule:
        return t.metrics.rule[i].valid() ? t.metrics.rule[i] : StringId(0);
    default:
        return std::nullopt;
    }
}

std::string KernelTable::text(KernelId k, KernelField f) const {
    const Trace& t = *trace_;
    const uint32_t i = k.value;
    const auto& kern = t.kernels;
    if (auto s = stringId(k, f)) return std::string(t.str(*s));
    switch (f) {
    case F::Id:
        return std::to_string(i);
    case F::Start:
        return std::to_string(kern.start[i]);
    case F::End:
        return std::to_string(kern.end[i]);
    case F::Duration:
        return std::to_string(kern.duration(i));
    case F::Device:
        return std::to_string(t.streamOf(kern, i).device);
    case F::Context:
        return std::to_string(t.streamOf(kern, i).context);
    case F::Stream:
        return std::to_string(t.streamOf(kern, i).stream);
    case F::Pid:
        return std::to_string(t.processes[t.streamOf(kern, i).process.value].pid);
    case F::Tid: {
        const ApiCallId call = kern.launch[i];
        return call.valid() ? std::to_string(t.threads[t.apiCalls.thread[call.value].value].tid)
                            : std::string();
    }
    case F::Correlation:
        return std::to_string(kern.correlation[i]);
    case F::Grid:
        return dim(kern.grid[i]);
    case F::Block:
        return dim(kern.block[i]);
    case F::Registers:
        return std::to_string(kern.registers[i]);
    case F::StaticSmem:
        return std::to_string(kern.staticSmem[i]);
    case F::DynamicSmem:
        return std::to_string(kern.dynamicSmem[i]);
    case F::NvtxRange: {
        const RangeId r = t.kernelLinks.range[i];
        if (!r.valid()) return {};
        if (!raw_) raw_ = std::make_unique<RawTextReader>(t);
        return raw_->text(r);
    }
    case F::NvtxPath:
        return nvtxPath(k);
    case F::Dir:
        return std::string(directionName(t.kernelLinks.direction[i]));
    case F::DataType:
        return std::string(dtypeName(t.metrics.dtype[i]));
    case F::Tc:
        return std::string(tcStateName(t.metrics.tc[i]));
    case F::TcReason:
        return std::string(tcReason(tensorCoreVerdict(t, k)));
    case F::DataTypeSource:
        return std::string(dtypeSourceName(t.metrics.dtypeSource[i]));
    case F::Rank: {
        const int rank = rankOf(k);
        return rank < 0 ? std::string() : std::to_string(rank);
    }
    case F::OccupancyPct:
        return fixed(number(k, f), 2);
    case F::OccupancyLimiter:
        return i < t.metrics.occupancyLimiter.size()
                   ? occupancyLimiterText(t.metrics.occupancyLimiter[i])
                   : std::string();
    case F::Graph:
        return graphLabel(t, i);
    case F::Flops:
        return fixed(t.metrics.flops[i], 0);
    case F::Bytes:
        return fixed(t.metrics.bytes[i], 0);
    case F::Intensity:
    case F::TflopsS:
    case F::GbytesS:
        return fixed(number(k, f), 3);
    default:
        break;
    }
    const double v = number(k, f);
    return std::isfinite(v) ? std::to_string(static_cast<int64_t>(v)) : std::string();
}

double KernelTable::number(KernelId k, KernelField f) const {
    const Trace& t = *trace_;
    const uint32_t i = k.value;
    const auto& kern = t.kernels;
    const auto& m = t.metrics;
    const double ns = static_cast<double>(kern.duration(i));
    const RangeId op = t.kernelLinks.op[i];
    const OpId inst = t.kernelLinks.opInstance[i];
    switch (f) {
    case F::Id:
        return i;
    case F::Start:
        return static_cast<double>(kern.start[i]);
    case F::End:
        return static_cast<double>(kern.end[i]);
    case F::Duration:
        return ns;
    case F::Device:
        return t.streamOf(kern, i).device;
    case F::Context:
        return t.streamOf(kern, i).context;
    case F::Stream:
        return t.streamOf(kern, i).stream;
    case F::Pid:
        return t.processes[t.streamOf(kern, i).process.value].pid;
    case F::Tid: {
        const ApiCallId call = kern.launch[i];
        return call.valid() ? t.threads[t.apiCalls.thread[call.value].value].tid : NAN;
    }
    case F::Correlation:
        return kern.correlation[i];
    case F::Rank: {
        const int rank = rankOf(k);
        return rank < 0 ? NAN : rank;
    }
    case F::Grid:
        return static_cast<double>(kern.grid[i].x) * kern.grid[i].y * kern.grid[i].z;
    case F::Block:
        return static_cast<double>(kern.block[i].x) * kern.block[i].y * kern.block[i].z;
    case F::Registers:
        return kern.registers[i];
    case F::StaticSmem:
        return kern.staticSmem[i];
    case F::DynamicSmem:
        return kern.dynamicSmem[i];
    case F::Seq:
        return inst.valid() ? orNan(t.ranges.seq[t.ops.range[inst.value].value]) : NAN;
    case F::TorchOpId:
        return op.valid() ? orNan(t.ranges.opId[op.value]) : NAN;
    case F::FwdOpId: {
        if (!inst.valid() || t.ops.direction[inst.value] != Direction::Backward) return NAN;
        const OpId fwd = t.ops.paired[inst.value];
        return fwd.valid() ? orNan(t.ranges.opId[t.ops.range[fwd.value].value]) : NAN;
    }
    case F::Flops:
        return m.flops[i];
    case F::Bytes:
        return m.bytes[i];
    case F::Intensity:
        return m.bytes[i] > 0 ? m.flops[i] / m.bytes[i] : NAN;
    case F::TflopsS:
        return ns > 0 ? m.flops[i] / ns / 1e3 : NAN; // FLOP/ns = GFLOP/s
    case F::GbytesS:
        return ns > 0 ? m.bytes[i] / ns : NAN; // byte/ns = GB/s
    case F::OccupancyPct:
        return i < m.occupancy.size() ? m.occupancy[i] : NAN;
    default:
        return NAN;
    }
}

bool KernelTable::isVocabulary(KernelField f) {
    return f == F::Dir || f == F::DataType || f == F::Tc || f == F::TcReason ||
           f == F::DataTypeSource || f == F::OccupancyLimiter;
}

uint32_t KernelTable::vocabularyCode(KernelId k, KernelField f) const {
    const auto& m = trace_->metrics;
    const uint32_t i = k.value;
    switch (f) {
    case F::Dir:
        return static_cast<uint32_t>(trace_->kernelLinks.direction[i]);
    case F::DataType:
        return static_cast<uint32_t>(m.dtype[i]);
    case F::Tc:
        return static_cast<uint32_t>(m.tc[i]);
    case F::DataTypeSource:
        return static_cast<uint32_t>(m.dtypeSource[i]);
    case F::OccupancyLimiter:
        return i < m.occupancyLimiter.size() ? m.occupancyLimiter[i] : 0;
    case F::TcReason:
        return (static_cast<uint32_t>(m.tcRule[i]) << 2) |
               static_cast<uint32_t>(m.tc[i]); // the verdict
    default:
        return 0;
    }
}

// Rank of each distinct text among rows, in byte order of the text.
std::vector<int64_t> KernelTable::textKeys(const std::vector<KernelId>& rows, KernelField f,
                                           std::vector<std::string>* labels) const {
    std::vector<int64_t> keys(rows.size());
    const Trace& t = *trace_;
    if (f == F::NvtxPath) {
        const auto ranks = pathRanks();
        for (size_t r = 0; r < rows.size(); ++r) keys[r] = ranks[paths_->ofKernel[rows[r].value]];
        if (labels) {
            labels->assign(paths_->nodes.size(), std::string());
            for (uint32_t n = 0; n < paths_->nodes.size(); ++n) (*labels)[ranks[n]] = pathText(n);
        }
        return keys;
    }
    if (f == F::NvtxRange) {
        // By the range's normalized name, then op_id: the raw texts are not in memory.
        std::vector<StringId> names(rows.size());
        for (size_t r = 0; r < rows.size(); ++r) {
            const RangeId range = t.kernelLinks.range[rows[r].value];
            names[r] = range.valid() ? t.ranges.name[range.value] : StringId(0);
        }
        // The distinct names by a mark per string (a few hundred among a million rows: no sort
        // of the rows' names and no hash lookup per row), then ranked by their text.
        std::vector<int64_t> rank(t.strings.size() + 1, -1);
        std::vector<StringId> distinct;
        for (const StringId n : names)
            if (rank[n.value] < 0) {
                rank[n.value] = 0;
                distinct.push_back(n);
            }
        std::sort(distinct.begin(), distinct.end(),
                  [&](StringId a, StringId b) { return t.str(a) < t.str(b); });
        for (size_t d = 0; d < distinct.size(); ++d)
            rank[distinct[d].value] = static_cast<int64_t>(d);
        for (size_t r = 0; r < rows.size(); ++r) {
            const RangeId range = t.kernelLinks.range[rows[r].value];
            const int64_t opId = range.valid() ? t.ranges.opId[range.value] + 1 : 0;
            keys[r] = (rank[names[r].value] << 32) | (opId & 0xFFFFFFFF);
        }
        if (labels)
            for (StringId d : distinct) labels->emplace_back(t.str(d));
        return keys;
    }
    if (!rows.empty() && stringId(rows[0], f)) {
        // As for range names: distinct ids by a mark per string, not a sort of every row's id.
        std::vector<uint32_t> ids(rows.size());
        std::vector<int64_t> rankOf(t.strings.size() + 1, -1);
        std::vector<uint32_t> distinct;
        for (size_t r = 0; r < rows.size(); ++r) {
            const uint32_t id = ids[r] = stringId(rows[r], f)->value;
            if (rankOf[id] < 0) {
                rankOf[id] = 0;
                distinct.push_back(id);
            }
        }
        std::sort(distinct.begin(), distinct.end(),
                  [&](uint32_t a, uint32_t b) { return t.str(StringId(a)) < t.str(StringId(b)); });
        for (size_t d = 0; d < distinct.size(); ++d) rankOf[distinct[d]] = static_cast<int64_t>(d);
        for (size_t r = 0; r < rows.size(); ++r) keys[r] = rankOf[ids[r]];
        if (labels)
            for (uint32_t d : distinct) labels->emplace_back(t.str(StringId(d)));
        return keys;
    }
    // Small closed vocabularies (direction, dtype, tc, …): rank each code by its text once.
    std::vector<uint32_t> codes(rows.size());
    uint32_t maxCode = 0;
    for (size_t r = 0; r < rows.size(); ++r)
        maxCode = std::max(maxCode, codes[r] = vocabularyCode(rows[r], f));
    std::vector<std::pair<std::string, uint32_t>> texts;
    std::vector<KernelId> example(maxCode + 1u, KernelId());
    for (size_t r = 0; r < rows.size(); ++r)
        if (!example[codes[r]].valid()) example[codes[r]] = rows[r];
    for (uint32_t c = 0; c <= maxCode; ++c)
        if (example[c].valid()) texts.emplace_back(text(example[c], f), c);
    std::sort(texts.begin(), texts.end());
    std::vector<int64_t> rankOf(maxCode + 1u, 0);
    for (size_t l = 0; l < texts.size(); ++l) rankOf[texts[l].second] = static_cast<int64_t>(l);
    for (size_t r = 0; r < rows.size(); ++r) keys[r] = rankOf[codes[r]];
    if (labels)
        for (auto& [label, code] : texts) labels->push_back(std::move(label));
    return keys;
}

// Rank of every trie node in component-wise order of its names (parents before children).
std::vector<uint32_t> KernelTable::pathRanks() const {
    const Trace& t = *trace_;
    std::vector<std::vector<uint32_t>> children(paths_->nodes.size());
    for (uint32_t n = 1; n < paths_->nodes.size(); ++n)
        children[paths_->nodes[n].parent].push_back(n);
    std::vector<uint32_t> rank(paths_->nodes.size(), 0);
    uint32_t next = 0;
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
        const uint32_t n = stack.back();
        stack.pop_back();
        rank[n] = next++;
        auto& c = children[n];
        // Reverse order on the stack pops the smallest name first.
        std::sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) {
            return t.str(paths_->nodes[a].name) > t.str(paths_->nodes[b].name);
        });
        stack.insert(stack.end(), c.begin(), c.end());
    }
    return rank;
}

} // namespace ls
