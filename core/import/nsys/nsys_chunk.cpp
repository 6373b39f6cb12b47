#include "core/import/nsys/nsys_chunk.h"

#include "core/import/common/pytorch_marker.h"
#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"
#include "core/model/columns.h"
#include "core/model/platform.h"

#include <algorithm>
#include <limits>

namespace ls {

void EventSink::presize(EventTable table, int64_t firstRow, size_t rows, unsigned threads) {
    const auto k = static_cast<size_t>(table);
    firstRowid[k] = firstRow;
    valid[k].assign(rows, false);
    auto grow = [&](auto&& cols) {
        // No transparent-huge-page advice (there was): where the kernel compacts memory for
        // advised ranges on their first fault (defrag=madvise, Debian's default), a machine up for
        // hours spent twice the system time and loads took up to 12 % longer.
        columns::forEachParallel(
            cols, [&](auto& v) { presizeZeroed(v, rows); }, threads);
    };
    // A GPU op's launch call is written at assembly (Assembler::correlate), which sizes it:
    // presized here it would add to the peak of the read. Nor the wide columns the reader writes
    // codes for instead: the stream's parts (streamIndex) and the grid and block.
    auto growGpuOps = [&](auto& cols) {
        std::vector<const void*> later = {&cols.importDevice, &cols.importContext,
                                          &cols.importStream, &cols.importProcess, &cols.launch};
        if constexpr (requires { cols.importGrid; })
            later.insert(later.end(), {&cols.importGrid, &cols.importBlock});
        columns::forEachParallel(
            cols,
            [&](auto& v) {
                if (std::find(later.begin(), later.end(), static_cast<const void*>(&v)) ==
                    later.end())
                    presizeZeroed(v, rows);
            },
            threads);
    };
    switch (table) {
    case EventTable::Kernel:
        growGpuOps(trace.kernels);
        break;
    case EventTable::Memcpy:
        growGpuOps(trace.memcpys);
        break;
    case EventTable::Memset:
        growGpuOps(trace.memsets);
        break;
    case EventTable::Runtime: {
        ApiCallColumns& a = trace.apiCalls; // the code halves of the 16-bit columns
        columns::Some written{std::tie(a.start.packed, a.importEnd.code, a.importThread.code,
                                       a.importCorrelation, a.importName.code, a.kind,
                                       a.importResult.code)};
        grow(written);
        apiIsBacktrace.assign(rows, false);
        break;
    }
    case EventTable::Nvtx: {
        // Only the columns importers write: depth, parent and the packed columns are made at
        // assembly (Assembler::indexRanges), which sizes them; presized here they would add to
        // the peak of the read. Nor the source rows where the position says them.
        RangeColumns& r = trace.ranges; // the code halves of the 16-bit columns
        columns::Some written{std::tie(r.start.packed, r.importEnd.code, r.importThread.code,
                                       r.importName.code, r.importSizes.code, r.importKind,
                                       r.importFlags)};
        grow(written);
        // Op ids and seqs are coded by the rowid's block where rows sit at their rowids; else
        // whole, with the source row beside them.
        if (impliedRangeRows()) {
            r.importSeq.presizeCoded(firstRow, rows);
            r.importOpId.presizeCoded(firstRow, rows);
        } else {
            presizeZeroed(r.importSeq.wide, rows);
            presizeZeroed(r.importOpId.wide, rows);
            presizeZeroed(r.importSourceRow, rows);
        }
        break;
    }
    }
}

namespace {

constexpr uint64_t kReportEvery = 8192;

// Reads an integer column into a 32-bit field, counting values that do not fit. NULL reads as 0,
// which is what every such column means by it, so no separate NULL check per value.
template <typename Rows>
uint32_t u32(const Rows& st, int col, LoadReport& report, const char* what) {
    const int64_t v = st.int64(col);
    if (v < 0 || v > std::numeric_limits<uint32_t>::max()) {
        report.add(Anomaly::ValueOutOfRange, 1, what);
        return v < 0 ? 0 : std::numeric_limits<uint32_t>::max();
    }
    return static_cast<uint32_t>(v);
}

int32_t i32(int64_t v, LoadReport& report, const char* what) {
    if (v > std::numeric_limits<int32_t>::max()) {
        report.add(Anomaly::ValueOutOfRange, 1, what);
        return std::numeric_limits<int32_t>::max();
    }
    return static_cast<int32_t>(v);
}

// A range's seq and op id (-1: absent), coded where the column is (row i is at its rowid).
void setOpFields(RangeColumns& r, size_t i, int32_t seq, int32_t opId, Chunk& out) {
    if (r.importSeq.coded()) {
        r.importSeq.code[i] = r.importSeq.encode(i, seq, out.farSeqs);
        r.importOpId.code[i] = r.importOpId.encode(i, opId, out.farOpIds);
    } else {
        r.importSeq.wide[i] = seq;
        r.importOpId.wide[i] = opId;
    }
}

template <typename Rows> uint32_t nsysStringRef(const Rows& st, int col) {
    if (st.isNull(col)) return kNoNsysString;
    const int64_t v = st.int64(col);
    return v < 0 || v >= kNoNsysString ? kNoNsysString - 1 : static_cast<uint32_t>(v);
}

// A chunk-local id as a range's or API call's 16-bit code (core/import/nsys/dict16_filler.h); one
// too large waits in the chunk.
uint16_t localCode(uint32_t id, size_t i, WideLocal::Column column, Chunk& out) {
    if (id < kWideLocalCode) return static_cast<uint16_t>(id);
    out.wideLocals.push_back({i, id, column});
    return kWideLocalCode;
}

// A row's end as its duration; a far one waits in the chunk for its index in the table's list.
void writeEnd(ImportEndColumn& ends, size_t i, TimeNs duration, Chunk& out) {
    ends.code[i] = ImportEndColumn::encode(duration, out.farEnds.size());
    if (ImportEndColumn::isFar(ends.code[i])) out.farEnds.emplace_back(i, duration);
}

// Timestamps beyond +-2^62 ns (146 years) are corrupt, and would overflow durations.
bool absurd(TimeNs t) { return t > (TimeNs(1) << 62) || t < -(TimeNs(1) << 62); }

// Reads start/end; false when the row has no usable start. Negative durations are clamped.
template <typename Rows>
bool readSpan(const Rows& st, TimeNs& start, TimeNs& end, LoadReport& report,
              std::string_view table) {
    if (st.isNull(0)) {
        report.add(Anomaly::NullTimestamp, 1, table);
        return false;
    }
    start = st.int64(0);
    end = st.isNull(1) ? start : st.int64(1);
    if (absurd(start) || absurd(end)) {
        report.add(Anomaly::ValueOutOfRange, 1, std::string(table) + ".start/end");
        return false;
    }
    if (end < start) {
        report.add(Anomaly::NegativeDuration, 1, table);
        end = start;
    }
    return true;
}

template <typename Rows>
bool readGpuCommon(const Rows& st, GpuOpColumns& c, size_t i, Chunk& out, std::string_view table) {
    TimeNs s, e;
    if (!readSpan(st, s, e, out.report, table)) return false;
    c.start[i] = s;
    c.end[i] = e;
    StreamKey key;
    key.device = u32(st, kcol::Device, out.report, "deviceId");
    key.context = u32(st, kcol::Context, out.report, "contextId");
    key.stream = u32(st, kcol::Stream, out.report, "streamId");
    c.correlation[i] = u32(st, kcol::Correlation, out.report, "correlationId");
    key.globalPid = st.int64(kcol::GlobalPid); // NULL reads as 0
    c.streamIndex[i] = StreamId(out.streams.get(key));
    return true;
}

CopyKind copyKindFromCupti(int64_t k) {
    switch (k) {
    case 1:
        return CopyKind::HtoD;
    case 2:
        return CopyKind::DtoH;
    case 8:
        return CopyKind::DtoD;
    case 9:
        return CopyKind::HtoH;
    case 10:
        return CopyKind::PtoP;
    case 0:
        return CopyKind::Unknown;
    default:
        return CopyKind::Other;
    }
}

template <typename Rows>
bool readKernelRow(const Rows& st, KernelColumns& k, size_t i, Chunk& out) {
    if (!readGpuCommon(st, k, i, out, "CUPTI_ACTIVITY_KIND_KERNEL")) return false;
    auto& r = out.report;
    k.name[i] = StringId(nsysStringRef(st, kcol::Demangled));
    k.shortName[i] = StringId(nsysStringRef(st, kcol::Short));
    k.grid.code[i] =
        out.grids.get({u32(st, kcol::GridX, r, "gridX"), u32(st, kcol::GridY, r, "gridY"),
                       u32(st, kcol::GridZ, r, "gridZ")});
    k.block.code[i] =
        out.blocks.get({u32(st, kcol::BlockX, r, "blockX"), u32(st, kcol::BlockY, r, "blockY"),
                        u32(st, kcol::BlockZ, r, "blockZ")});
    k.registers[i] = static_cast<uint16_t>(
        std::min<uint32_t>(u32(st, kcol::Registers, r, "registersPerThread"), 65535));
    k.importStaticSmem[i] = u32(st, kcol::StaticSmem, r, "staticSharedMemory");
    k.importDynamicSmem[i] = u32(st, kcol::DynamicSmem, r, "dynamicSharedMemory");
    k.importSmemConfig[i] =
        u32(st, kcol::SmemConfig, r,
            "sharedMemoryExecuted"); // the carveout the driver chose; NULL in older exports
    return true;
}

// A small CUPTI enum value (copy kind, memory kind); kNoCuptiValue for NULL or a value past uint8.
template <typename Rows> uint8_t cuptiValue(const Rows& st, int col) {
    if (st.isNull(col)) return kNoCuptiValue;
    const int64_t v = st.int64(col);
    return v < 0 || v >= kNoCuptiValue ? kNoCuptiValue : static_cast<uint8_t>(v);
}

template <typename Rows> uint64_t nonNegative(const Rows& st, int col) {
    return st.isNull(col) ? 0 : static_cast<uint64_t>(std::max<int64_t>(0, st.int64(col)));
}

template <typename Rows>
bool readMemcpyRow(const Rows& st, MemcpyColumns& m, size_t i, Chunk& out) {
    if (!readGpuCommon(st, m, i, out, "CUPTI_ACTIVITY_KIND_MEMCPY")) return false;
    m.bytes[i] = nonNegative(st, mcol::Bytes);
    m.kind[i] = st.isNull(mcol::Kind) ? CopyKind::Unknown : copyKindFromCupti(st.int64(mcol::Kind));
    m.cuptiCopyKind[i] = cuptiValue(st, mcol::Kind);
    m.srcKind[i] = cuptiValue(st, mcol::SrcKind);
    m.dstKind[i] = cuptiValue(st, mcol::DstKind);
    return true;
}

template <typename Rows>
bool readMemsetRow(const Rows& st, MemsetColumns& m, size_t i, Chunk& out) {
    if (!readGpuCommon(st, m, i, out, "CUPTI_ACTIVITY_KIND_MEMSET")) return false;
    m.bytes[i] = nonNegative(st, scol::Bytes);
    m.value[i] = st.isNull(scol::Value) ? 0 : static_cast<int32_t>(st.int64(scol::Value));
    m.memKind[i] = cuptiValue(st, scol::MemKind);
    return true;
}

template <typename Rows>
bool readRuntimeRow(const Rows& st, EventSink& sink, size_t i, Chunk& out) {
    TimeNs s, e;
    if (!readSpan(st, s, e, out.report, "CUPTI_ACTIVITY_KIND_RUNTIME")) return false;
    auto& a = sink.trace.apiCalls;
    const TimeNs origin = sink.originFor(s);
    if (!TimeColumn::fits(s, origin) || !TimeColumn::fits(e, origin)) {
        out.report.add(Anomaly::ValueOutOfRange, 1, "CUPTI_ACTIVITY_KIND_RUNTIME.start/end");
        return false;
    }
    a.start.packed[i] = TimeColumn::encode(s, origin);
    writeEnd(a.importEnd, i, e - s, out);
    // Thread, name and result as chunk-local codes (core/import/nsys/dict16_filler.h), in the
    // order of WideLocal::Column.
    a.importThread.code[i] = localCode(out.threads.get(st.int64(rcol::GlobalTid)), i,
                                       WideLocal::Thread, out); // NULL reads as 0
    a.importCorrelation[i] = u32(st, rcol::Correlation, out.report, "correlationId");
    a.importName.code[i] =
        localCode(out.apiNames.get(nsysStringRef(st, rcol::NameId)), i, WideLocal::Name, out);
    int32_t result = kNoApiResult;
    if (!st.isNull(rcol::ReturnValue)) {
        const int64_t v = st.int64(rcol::ReturnValue);
        const bool fits = v > kNoApiResult && v <= std::numeric_limits<int32_t>::max();
        if (!fits) out.report.add(Anomaly::ValueOutOfRange, 1, "returnValue");
        if (fits) result = static_cast<int32_t>(v);
    }
    a.importResult.code[i] =
        localCode(out.apiResults.get(static_cast<uint32_t>(result)), i, WideLocal::Result, out);
    const int64_t cls =
        st.isNull(rcol::EventClass) ? event_class::CudaRuntime : st.int64(rcol::EventClass);
    a.kind[i] = cls == event_class::CudaRuntime  ? ApiKind::Runtime
                : cls == event_class::CudaDriver ? ApiKind::Driver
                                                 : ApiKind::Other;
    sink.apiIsBacktrace.set(i, cls == event_class::CudaBacktrace);
    return true;
}

template <typename Rows>
bool readNvtxRow(const Rows& st, const NsysStrings& strings, EventSink& sink, size_t i, Chunk& out,
                 bool names) {
    RangeColumns& r = sink.trace.ranges;
    // NULL and 0 mean the same for globalTid, endGlobalTid and domainId, so those are read
    // without a NULL check; this loop runs millions of times.
    const int64_t type = st.int64(ncol::EventType);
    const int64_t tid = st.int64(ncol::GlobalTid);
    // Without names, a range of a named domain is still read whole: its name's "domain:" prefix is
    // what a raw text read later is given (core/import/common/raw_text.h).
    const int64_t domain = st.int64(ncol::DomainId);
    names = names || domain != 0;
    std::string_view text;
    if (names || type == nvtx_type::DomainCreate) {
        text = st.text(ncol::Text);
        if (text.empty() && st.isNull(ncol::Text) && !st.isNull(ncol::TextId)) {
            if (const std::string* s = strings.find(st.int64(ncol::TextId)))
                text = *s;
            else
                out.report.add(Anomaly::UnknownStringId, 1, "NVTX_EVENTS.textId");
        }
    }
    if (type == nvtx_type::DomainCreate) {
        out.domains.push_back({tid, st.int64(ncol::DomainId), std::string(text)});
        return false;
    }
    const bool pushPop = type == nvtx_type::PushPop || type == nvtx_type::NvtxtPushPop;
    const bool startEnd = type == nvtx_type::StartEnd || type == nvtx_type::NvtxtStartEnd;
    if (!pushPop && !startEnd && type != nvtx_type::Mark) {
        out.report.add(Anomaly::UnknownNvtxEventType, 1, "eventType " + std::to_string(type));
        return false;
    }
    if (st.isNull(ncol::Start)) {
        out.report.add(Anomaly::NullTimestamp, 1, "NVTX_EVENTS");
        return false;
    }
    const TimeNs start = st.int64(ncol::Start);
    if (absurd(start) || (!st.isNull(ncol::End) && absurd(st.int64(ncol::End)))) {
        out.report.add(Anomaly::ValueOutOfRange, 1, "NVTX_EVENTS.start/end");
        return false;
    }
    uint8_t flags = 0;
    TimeNs end = start;
    if (type != nvtx_type::Mark) {
        if (st.isNull(ncol::End)) {
            flags |= kUnended; // set to the capture end once every table is in
        } else {
            end = st.int64(ncol::End);
            if (end < start) {
                out.report.add(Anomaly::NegativeDuration, 1, "NVTX_EVENTS");
                end = start;
            }
        }
    }
    if (const int64_t endTid = st.int64(ncol::EndGlobalTid); endTid != 0 && endTid != tid) {
        flags |= kEndsOnOtherThread;
        out.report.add(Anomaly::RangeEndsOnOtherThread);
    }
    const TimeNs origin = sink.originFor(start);
    if (!TimeColumn::fits(start, origin) || !TimeColumn::fits(end, origin)) {
        out.report.add(Anomaly::ValueOutOfRange, 1, "NVTX_EVENTS.start/end");
        return false;
    }
    r.start.packed[i] = TimeColumn::encode(start, origin);
    writeEnd(r.importEnd, i, end - start, out);
    r.importThread.code[i] = localCode(out.threads.get(tid), i, WideLocal::Thread, out);
    r.importKind[i] = pushPop    ? RangeKind::PushPop
                      : startEnd ? RangeKind::StartEnd
                                 : RangeKind::Mark;
    if (!sink.impliedRangeRows()) {
        const int64_t rowid = st.int64(ncol::RowId);
        r.importSourceRow[i] = rowid < 0 || rowid > std::numeric_limits<uint32_t>::max()
                                   ? 0
                                   : static_cast<uint32_t>(rowid);
    }
    if (!names) {
        r.importName.code[i] = r.importSizes.code[i] = 0; // the chunk's empty string
        setOpFields(r, i, -1, -1, out);
        r.importFlags[i] = flags;
        return true;
    }
    if (domain != 0) out.rangeDomains.emplace_back(i, domain);

    MarkerFields m = parseMarker(text);
    std::optional<DictMarker> dict;
    if (!m.isPytorchMarker &&
        (dict = parseDictMarker(text, false))) { // m's views point into *dict below
        m.name = dict->name;
        m.sizes = dict->sizes;
        m.isPytorchMarker = dict->isOp;
    }
    if (m.seqIsStashed) flags |= kSeqIsStashed;
    if (m.isPytorchMarker) flags |= kPytorchMarker;
    if (m.repeatedInput) flags |= kRepeatedInput;
    if (dict && dict->isOp) flags |= kDictCall;
    r.importName.code[i] = localCode(out.strings.intern(m.name).value, i, WideLocal::Name, out);
    r.importSizes.code[i] =
        m.sizes.empty() ? 0
                        : localCode(out.strings.intern(m.sizes).value, i, WideLocal::Sizes, out);
    setOpFields(r, i, m.seq < 0 ? -1 : i32(m.seq, out.report, "seq"),
                m.opId < 0 ? -1 : i32(m.opId, out.report, "op_id"), out);
    r.importFlags[i] = flags;
    return true;
}

} // namespace

namespace {

void startRange(Statement& st, int64_t first, int64_t last) {
    st.reset();
    st.bind(1, first);
    st.bind(2, last);
}
void startRange(TableScan& scan, int64_t first, int64_t last) { scan.range(first, last); }

template <typename Rows>
void readRows(Rows& st, const ChunkTask& task, const NsysStrings& strings, EventSink& sink,
              Chunk& out, const std::atomic<bool>& stop, const RowsReadFn& rowsRead) {
    const EventTable kind = task.spec->kind;
    const auto k = static_cast<size_t>(kind);
    const int rowidCol = static_cast<int>(task.spec->columns.size()) - 1;
    const int64_t first = sink.firstRowid[k];
    out.kind = kind;
    out.begin = sink.sequential[k] ? 0 : static_cast<size_t>(task.firstRowid - first);
    out.end =
        sink.sequential[k] ? sink.valid[k].size() : static_cast<size_t>(task.lastRowid - first + 1);
    Trace& t = sink.trace;
    auto& valid = sink.valid[k];
    startRange(st, task.firstRowid, task.lastRowid);
    const bool sequential = sink.sequential[k];
    size_t nextRow = out.begin;
    uint64_t sinceReport = 0;
    while (st.step()) {
        const auto i = sequential ? nextRow++ : static_cast<size_t>(st.int64(rowidCol) - first);
        if (i >= valid.size())
            break; // cannot happen in an immutable file; never write past the end
        bool ok = false;
        switch (kind) {
        case EventTable::Kernel:
            ok = readKernelRow(st, t.kernels, i, out);
            break;
        case EventTable::Memcpy:
            ok = readMemcpyRow(st, t.memcpys, i, out);
            break;
        case EventTable::Memset:
            ok = readMemsetRow(st, t.memsets, i, out);
            break;
        case EventTable::Runtime:
            ok = readRuntimeRow(st, sink, i, out);
            break;
        case EventTable::Nvtx:
            ok = readNvtxRow(st, strings, sink, i, out, sink.nvtxNames);
            break;
        }
        valid.set(i, ok);
        if (++sinceReport == kReportEvery) {
            if (rowsRead) rowsRead(sinceReport);
            sinceReport = 0;
            if (stop.load(std::memory_order_relaxed)) return;
        }
    }
    if (rowsRead && sinceReport) rowsRead(sinceReport);
}

} // namespace

void readChunk(Statement& st, const ChunkTask& task, const NsysStrings& strings, EventSink& sink,
               Chunk& out, const std::atomic<bool>& stop, const RowsReadFn& rowsRead) {
    readRows(st, task, strings, sink, out, stop, rowsRead);
}

void readChunk(TableScan& scan, const ChunkTask& task, const NsysStrings& strings, EventSink& sink,
               Chunk& out, const std::atomic<bool>& stop, const RowsReadFn& rowsRead) {
    readRows(scan, task, strings, sink, out, stop, rowsRead);
}

} // namespace ls
