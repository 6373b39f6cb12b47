#include "core/nsys_chunk.h"

#include "core/pytorch_marker.h"
#include "core/sqlite_db.h"

#include <limits>

namespace ls {

uint32_t LocalKeys::get(int64_t key) {
    if (lastIndex_ != UINT32_MAX && key == lastKey_) return lastIndex_;
    auto [it, inserted] = index_.try_emplace(key, static_cast<uint32_t>(keys_.size()));
    if (inserted) keys_.push_back(key);
    lastKey_ = key;
    lastIndex_ = it->second;
    return it->second;
}

namespace {

constexpr uint64_t kReportEvery = 8192;

// Reads an integer column into a 32-bit field, counting values that do not fit.
uint32_t u32(const Statement& st, int col, LoadReport& report, const char* what) {
    if (st.isNull(col)) return 0;
    const int64_t v = st.int64(col);
    if (v < 0 || v > std::numeric_limits<uint32_t>::max()) {
        report.add(Anomaly::ValueOutOfRange, 1, what);
        return v < 0 ? 0 : std::numeric_limits<uint32_t>::max();
    }
    return static_cast<uint32_t>(v);
}

uint32_t nsysStringRef(const Statement& st, int col) {
    if (st.isNull(col)) return kNoNsysString;
    const int64_t v = st.int64(col);
    return v < 0 || v >= kNoNsysString ? kNoNsysString - 1 : static_cast<uint32_t>(v);
}

// Reads start/end; false when the row has no start. Negative durations are clamped.
bool readSpan(const Statement& st, TimeNs& start, TimeNs& end, LoadReport& report, std::string_view table) {
    if (st.isNull(0)) {
        report.add(Anomaly::NullTimestamp, 1, table);
        return false;
    }
    start = st.int64(0);
    end = st.isNull(1) ? start : st.int64(1);
    if (end < start) {
        report.add(Anomaly::NegativeDuration, 1, table);
        end = start;
    }
    return true;
}

void readGpuCommon(const Statement& st, GpuOpColumns& c, TimeNs start, TimeNs end, Chunk& out) {
    c.start.push_back(start);
    c.end.push_back(end);
    c.device.push_back(u32(st, kcol::Device, out.report, "deviceId"));
    c.context.push_back(u32(st, kcol::Context, out.report, "contextId"));
    c.stream.push_back(u32(st, kcol::Stream, out.report, "streamId"));
    c.streamIndex.emplace_back();
    c.correlation.push_back(u32(st, kcol::Correlation, out.report, "correlationId"));
    c.process.emplace_back(out.keys.get(st.isNull(kcol::GlobalPid) ? 0 : st.int64(kcol::GlobalPid)));
    c.launch.emplace_back();
}

CopyKind copyKindFromCupti(int64_t k) {
    switch (k) {
    case 1: return CopyKind::HtoD;
    case 2: return CopyKind::DtoH;
    case 8: return CopyKind::DtoD;
    case 9: return CopyKind::HtoH;
    case 10: return CopyKind::PtoP;
    case 0: return CopyKind::Unknown;
    default: return CopyKind::Other;
    }
}

void readKernelRow(const Statement& st, Chunk& out) {
    TimeNs s, e;
    if (!readSpan(st, s, e, out.report, "CUPTI_ACTIVITY_KIND_KERNEL")) return;
    auto& k = out.kernels;
    readGpuCommon(st, k, s, e, out);
    k.name.emplace_back(nsysStringRef(st, kcol::Demangled));
    k.shortName.emplace_back(nsysStringRef(st, kcol::Short));
    auto& r = out.report;
    k.grid.push_back({u32(st, kcol::GridX, r, "gridX"), u32(st, kcol::GridY, r, "gridY"), u32(st, kcol::GridZ, r, "gridZ")});
    k.block.push_back({u32(st, kcol::BlockX, r, "blockX"), u32(st, kcol::BlockY, r, "blockY"), u32(st, kcol::BlockZ, r, "blockZ")});
    const uint32_t regs = u32(st, kcol::Registers, r, "registersPerThread");
    k.registers.push_back(static_cast<uint16_t>(std::min<uint32_t>(regs, 65535)));
    k.staticSmem.push_back(u32(st, kcol::StaticSmem, r, "staticSharedMemory"));
    k.dynamicSmem.push_back(u32(st, kcol::DynamicSmem, r, "dynamicSharedMemory"));
}

void readMemcpyRow(const Statement& st, Chunk& out) {
    TimeNs s, e;
    if (!readSpan(st, s, e, out.report, "CUPTI_ACTIVITY_KIND_MEMCPY")) return;
    readGpuCommon(st, out.memcpys, s, e, out);
    out.memcpys.bytes.push_back(st.isNull(mcol::Bytes) ? 0 : static_cast<uint64_t>(std::max<int64_t>(0, st.int64(mcol::Bytes))));
    out.memcpys.kind.push_back(st.isNull(mcol::Kind) ? CopyKind::Unknown : copyKindFromCupti(st.int64(mcol::Kind)));
}

void readMemsetRow(const Statement& st, Chunk& out) {
    TimeNs s, e;
    if (!readSpan(st, s, e, out.report, "CUPTI_ACTIVITY_KIND_MEMSET")) return;
    readGpuCommon(st, out.memsets, s, e, out);
    out.memsets.bytes.push_back(st.isNull(scol::Bytes) ? 0 : static_cast<uint64_t>(std::max<int64_t>(0, st.int64(scol::Bytes))));
    out.memsets.value.push_back(st.isNull(scol::Value) ? 0 : static_cast<int32_t>(st.int64(scol::Value)));
}

void readRuntimeRow(const Statement& st, Chunk& out) {
    TimeNs s, e;
    if (!readSpan(st, s, e, out.report, "CUPTI_ACTIVITY_KIND_RUNTIME")) return;
    auto& a = out.apiCalls;
    a.start.push_back(s);
    a.end.push_back(e);
    a.thread.emplace_back(out.keys.get(st.isNull(rcol::GlobalTid) ? 0 : st.int64(rcol::GlobalTid)));
    a.correlation.push_back(u32(st, rcol::Correlation, out.report, "correlationId"));
    a.name.emplace_back(nsysStringRef(st, rcol::NameId));
    const int64_t cls = st.isNull(rcol::EventClass) ? event_class::CudaRuntime : st.int64(rcol::EventClass);
    a.kind.push_back(cls == event_class::CudaRuntime ? ApiKind::Runtime
                     : cls == event_class::CudaDriver ? ApiKind::Driver
                                                      : ApiKind::Other);
    out.apiIsBacktrace.push_back(cls == event_class::CudaBacktrace ? 1 : 0);
}

void readNvtxRow(const Statement& st, const NsysStrings& strings, Chunk& out) {
    const int64_t type = st.int64(ncol::EventType);
    const int64_t tid = st.isNull(ncol::GlobalTid) ? 0 : st.int64(ncol::GlobalTid);
    std::string_view text = st.text(ncol::Text);
    if (st.isNull(ncol::Text) && !st.isNull(ncol::TextId)) {
        if (const std::string* s = strings.find(st.int64(ncol::TextId))) text = *s;
        else out.report.add(Anomaly::UnknownStringId, 1, "NVTX_EVENTS.textId");
    }
    if (type == nvtx_type::DomainCreate) {
        out.domains.push_back({tid, st.isNull(ncol::DomainId) ? 0 : st.int64(ncol::DomainId), std::string(text)});
        return;
    }
    if (type != nvtx_type::PushPop && type != nvtx_type::StartEnd && type != nvtx_type::Mark) {
        out.report.add(Anomaly::UnknownNvtxEventType, 1, "eventType " + std::to_string(type));
        return;
    }
    if (st.isNull(ncol::Start)) {
        out.report.add(Anomaly::NullTimestamp, 1, "NVTX_EVENTS");
        return;
    }
    auto& r = out.ranges;
    const auto row = static_cast<uint32_t>(r.size());
    const TimeNs start = st.int64(ncol::Start);
    uint8_t flags = 0;
    TimeNs end = start;
    if (type != nvtx_type::Mark) {
        if (st.isNull(ncol::End)) {
            flags |= kUnended; // fixed to the capture end after merging
        } else {
            end = st.int64(ncol::End);
            if (end < start) {
                out.report.add(Anomaly::NegativeDuration, 1, "NVTX_EVENTS");
                end = start;
            }
        }
    }
    if (!st.isNull(ncol::EndGlobalTid) && st.int64(ncol::EndGlobalTid) != tid) {
        flags |= kEndsOnOtherThread;
        out.report.add(Anomaly::RangeEndsOnOtherThread);
    }
    if (!st.isNull(ncol::DomainId) && st.int64(ncol::DomainId) != 0)
        out.rangeDomains.emplace_back(row, st.int64(ncol::DomainId));

    const MarkerFields m = parseMarker(text);
    if (m.seqIsStashed) flags |= kSeqIsStashed;
    if (m.isPytorchMarker) flags |= kPytorchMarker;
    int32_t seq = -1;
    if (m.seq >= 0) {
        if (m.seq > std::numeric_limits<int32_t>::max()) out.report.add(Anomaly::ValueOutOfRange, 1, "seq");
        seq = static_cast<int32_t>(std::min<int64_t>(m.seq, std::numeric_limits<int32_t>::max()));
    }
    r.start.push_back(start);
    r.end.push_back(end);
    r.thread.emplace_back(out.keys.get(tid));
    r.name.push_back(out.strings.intern(m.name));
    r.sizes.push_back(m.sizes.empty() ? StringId(0) : out.strings.intern(m.sizes));
    r.seq.push_back(seq);
    r.opId.push_back(m.opId);
    r.kind.push_back(type == nvtx_type::PushPop ? RangeKind::PushPop
                     : type == nvtx_type::StartEnd ? RangeKind::StartEnd
                                                   : RangeKind::Mark);
    r.depth.push_back(0);
    r.parent.emplace_back();
    r.flags.push_back(flags);
    r.sourceRow.push_back(st.int64(ncol::RowId));
}

} // namespace

void readChunk(Statement& st, const ChunkTask& task, const NsysStrings& strings, Chunk& out,
               const std::atomic<bool>& stop, const RowsReadFn& rowsRead) {
    out.kind = task.spec->kind;
    st.reset();
    st.bind(1, task.firstRowid);
    st.bind(2, task.lastRowid);
    uint64_t sinceReport = 0;
    while (st.step()) {
        switch (task.spec->kind) {
        case EventTable::Kernel: readKernelRow(st, out); break;
        case EventTable::Memcpy: readMemcpyRow(st, out); break;
        case EventTable::Memset: readMemsetRow(st, out); break;
        case EventTable::Runtime: readRuntimeRow(st, out); break;
        case EventTable::Nvtx: readNvtxRow(st, strings, out); break;
        }
        if (++sinceReport == kReportEvery) {
            if (rowsRead) rowsRead(sinceReport);
            sinceReport = 0;
            if (stop.load(std::memory_order_relaxed)) return;
        }
    }
    if (rowsRead && sinceReport) rowsRead(sinceReport);
}

} // namespace ls
