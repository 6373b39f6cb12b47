#include "core/import/nsys/trace_builder.h"

#include "core/import/common/trace_assembler.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace ls {
namespace {

// Row i's chunk-local id in a 16-bit column, as the reader wrote it: its code, or the id kept
// in the chunk where it did not fit (by row, then column: the order the reader writes a row's
// columns in).
template <typename Id>
uint32_t localId(const Dict16Filler<Id>& filler, const Chunk& ch, WideLocal::Column column,
                 size_t i) {
    const uint16_t code = filler.local(i);
    if (code != kWideLocalCode) return code;
    const auto it = std::lower_bound(
        ch.wideLocals.begin(), ch.wideLocals.end(), std::pair(i, column),
        [](const WideLocal& w, const auto& key) { return std::pair(w.row, w.column) < key; });
    return it->id;
}

// One chunk's rows of one 16-bit column: their chunk-local ids become the column's codes (or
// ids, once it is wide). `ids` are the column's ids of the local ones, `more` those the chunk
// sets later by Dict16Filler::set. The column's code of each local id is looked up once a
// chunk, not once a row.
template <typename Id> class ChunkCodes {
  public:
    ChunkCodes(Dict16Filler<Id>& filler, const Chunk& ch, WideLocal::Column column,
               std::vector<Id> ids, const std::vector<Id>& more = {})
        : filler_(filler), ch_(ch), column_(column), ids_(std::move(ids)) {
        std::vector<Id> all = ids_;
        all.insert(all.end(), more.begin(), more.end());
        filler_.beginChunk(all);
        if (filler_.wide()) return;
        codes_.reserve(ids_.size());
        for (Id id : ids_) codes_.push_back(filler_.codeOf(id));
    }
    // Sets row i (a valid one); returns its local id.
    uint32_t fill(size_t i) {
        const uint32_t local = localId(filler_, ch_, column_, i);
        if (filler_.wide())
            filler_.set(i, ids_[local]);
        else
            filler_.setCode(i, codes_[local]);
        return local;
    }
    void done() { filler_.done(ch_.begin, ch_.end); }

  private:
    Dict16Filler<Id>& filler_;
    const Chunk& ch_;
    WideLocal::Column column_;
    std::vector<Id> ids_;
    std::vector<uint16_t> codes_;
};

class Builder {
  public:
    Builder(EventSink& sink, SmallTables& s, unsigned threads)
        : sink_(sink), t_(sink.trace), s_(s), threads_(threads) {}
    void run(std::vector<Chunk>& chunks);

  private:
    ProcessId process(int64_t globalId);
    ThreadId thread(int64_t globalTid);
    StringId nsysString(StringId raw, const char* what);
    // The pool's string of an export string id; nullopt for an id the export lacks.
    std::optional<StringId> poolString(StringId raw);
    uint32_t streamCode(GpuOpColumns& c, const Stream& s);
    bool valid(EventTable table, size_t row) const {
        return sink_.valid[static_cast<size_t>(table)][row];
    }

    void remapChunk(Chunk& ch,
                    const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames);
    void remapRanges(Chunk& ch, const std::vector<ThreadId>& threads,
                     const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames);
    void remapApiCalls(Chunk& ch, const std::vector<ThreadId>& threads);
    void remapStreams(Chunk& ch, GpuOpColumns& c);
    void compactTables();
    void addGraphLaunchItems();
    void addMemoryEvents();

    EventSink& sink_;
    Trace& t_;
    SmallTables& s_;
    unsigned threads_;
    std::unordered_map<int64_t, ProcessId> processByKey_;
    std::unordered_map<int64_t, ThreadId> threadByKey_;
    std::vector<StringId> nsysToPool_;                    // for ids of the dense StringIds table
    std::unordered_map<uint32_t, StringId> sparseToPool_; // for the rest
    RowRuns rangeRows_; // ranges' rowids in read order where the reader implied them
    // The ranges' and API calls' 16-bit columns, filled chunk by chunk.
    std::optional<Dict16Filler<StringId>> names16_, sizes16_, apiNames16_;
    std::optional<Dict16Filler<ThreadId>> threads16_, apiThreads16_;
    std::optional<Dict16Filler<ApiResultBits>> apiResults16_;
    // Per GPU table and stream, its index in the table's importStreams.
    std::map<std::tuple<const GpuOpColumns*, uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t>
        streamCodes_;
    // The kernels' grid and block dictionaries, filled chunk by chunk (remapChunk).
    std::unordered_map<Dim3, uint32_t, Dim3Hash> gridCodes_, blockCodes_;
    uint32_t dimCode(DictColumn<Dim3>& column, std::unordered_map<Dim3, uint32_t, Dim3Hash>& codes,
                     const Dim3& d);
};

uint32_t Builder::dimCode(DictColumn<Dim3>& column,
                          std::unordered_map<Dim3, uint32_t, Dim3Hash>& codes, const Dim3& d) {
    auto [it, inserted] = codes.try_emplace(d, static_cast<uint32_t>(column.distinct.size()));
    if (inserted) column.distinct.push_back(d);
    return it->second;
}

ProcessId Builder::process(int64_t globalId) {
    const int64_t key = processKey(globalId);
    auto [it, inserted] =
        processByKey_.try_emplace(key, static_cast<uint32_t>(t_.processes.size()));
    if (inserted) {
        Process p;
        p.pid = pidOf(key);
        if (const auto* n = SmallTables::find(s_.processes, key)) p.name = n->name;
        t_.processes.push_back(std::move(p));
    }
    return it->second;
}

ThreadId Builder::thread(int64_t globalTid) {
    auto [it, inserted] =
        threadByKey_.try_emplace(globalTid, static_cast<uint32_t>(t_.threads.size()));
    if (inserted) {
        Thread th;
        th.process = process(globalTid);
        th.tid = tidOf(globalTid);
        if (const auto* n = SmallTables::find(s_.threadNames, globalTid)) {
            if (const std::string* name = s_.strings.find(n->nameId)) th.name = *name;
            th.priority = n->priority;
        }
        t_.threads.push_back(std::move(th));
    }
    return it->second;
}

StringId Builder::nsysString(StringId raw, const char* what) {
    const std::optional<StringId> id = poolString(raw);
    if (!id) t_.report.add(Anomaly::UnknownStringId, 1, what);
    return id.value_or(StringId(0));
}

std::optional<StringId> Builder::poolString(StringId raw) {
    if (raw.value == kNoNsysString) return StringId(0);
    const bool dense = raw.value < s_.strings.text.size(); // never size a cache by a crafted id
    if (dense && raw.value < nsysToPool_.size() && nsysToPool_[raw.value].valid())
        return nsysToPool_[raw.value];
    if (!dense)
        if (auto it = sparseToPool_.find(raw.value); it != sparseToPool_.end()) return it->second;
    const std::string* s = s_.strings.find(raw.value);
    if (!s) return std::nullopt;
    const StringId id = t_.strings.intern(*s);
    if (!dense) return sparseToPool_[raw.value] = id;
    if (raw.value >= nsysToPool_.size()) nsysToPool_.resize(s_.strings.text.size());
    return nsysToPool_[raw.value] = id;
}

uint32_t Builder::streamCode(GpuOpColumns& c, const Stream& s) {
    auto [it, inserted] =
        streamCodes_.try_emplace({&c, s.process.value, s.device, s.context, s.stream},
                                 static_cast<uint32_t>(c.importStreams.size()));
    if (inserted) c.importStreams.push_back(s);
    return it->second;
}

// The rowids of the rows kept, as runs: the reader placed row rowid at position rowid - first,
// so runs of kept positions are runs of rowids. Two passes over the flags, no column of rows.
RowRuns keptRowids(const RowFlags& keep, int64_t first) {
    auto rowid = [&](size_t p) {
        const int64_t r = first + static_cast<int64_t>(p);
        return r < 0 || r > int64_t(UINT32_MAX) ? 0u : static_cast<uint32_t>(r);
    };
    auto eachKept = [&](auto&& f) { // f(row, rowid, starts a run)
        size_t i = 0;
        uint32_t last = 0;
        for (size_t p = 0; p < keep.size(); ++p) {
            if (!keep[p]) continue;
            const uint32_t v = rowid(p);
            f(i, v, i == 0 || v != last + 1);
            last = v;
            ++i;
        }
        return i;
    };
    size_t runs = 0;
    RowRuns out;
    out.count = eachKept([&](size_t, uint32_t, bool starts) { runs += starts; });
    if (runs * 2 > out.count) { // as RowRuns::of decides
        out.plain.resize(out.count);
        eachKept([&](size_t i, uint32_t v, bool) { out.plain[i] = v; });
        return out;
    }
    out.runStart.reserve(runs);
    out.runValue.reserve(runs);
    eachKept([&](size_t i, uint32_t v, bool starts) {
        if (!starts) return;
        out.runStart.push_back(static_cast<uint32_t>(i));
        out.runValue.push_back(v);
    });
    return out;
}

// Chunk-local processes, threads and strings become the trace's, over the chunk's slice.
void Builder::remapChunk(Chunk& ch,
                         const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames) {
    auto rows = [&](auto f) {
        for (size_t i = ch.begin; i < ch.end; ++i)
            if (valid(ch.kind, i)) f(i);
    };
    std::vector<ThreadId> threads;
    for (int64_t key : ch.threads.values()) threads.push_back(thread(key));

    if (!ch.farEnds.empty()) {
        ImportEndColumn& ends =
            ch.kind == EventTable::Runtime ? t_.apiCalls.importEnd : t_.ranges.importEnd;
        std::vector<int64_t> durations;
        durations.reserve(ch.farEnds.size());
        for (const auto& far : ch.farEnds) durations.push_back(far.second);
        const uint32_t offset = ends.adopt(durations);
        for (const auto& far : ch.farEnds) ends.code[far.first] += offset;
        columns::release(ch.farEnds);
    }
    t_.ranges.importOpId.adoptFar(ch.farOpIds);
    t_.ranges.importSeq.adoptFar(ch.farSeqs);

    switch (ch.kind) {
    case EventTable::Kernel: {
        auto& k = t_.kernels;
        std::vector<uint32_t> grids, blocks; // the chunk's codes -> the columns'
        for (const Dim3& d : ch.grids.values()) grids.push_back(dimCode(k.grid, gridCodes_, d));
        for (const Dim3& d : ch.blocks.values()) blocks.push_back(dimCode(k.block, blockCodes_, d));
        remapStreams(ch, k);
        rows([&](size_t i) {
            k.grid.code[i] = grids[k.grid.code[i]];
            k.block.code[i] = blocks[k.block.code[i]];
            k.name[i] = nsysString(k.name[i], "CUPTI_ACTIVITY_KIND_KERNEL.demangledName");
            k.shortName[i] = nsysString(k.shortName[i], "CUPTI_ACTIVITY_KIND_KERNEL.shortName");
        });
        break;
    }
    case EventTable::Memcpy:
        remapStreams(ch, t_.memcpys);
        break;
    case EventTable::Memset:
        remapStreams(ch, t_.memsets);
        break;
    case EventTable::Runtime:
        remapApiCalls(ch, threads);
        break;
    case EventTable::Nvtx:
        remapRanges(ch, threads, domainNames);
        break;
    }
}

// A chunk's GPU operations: their streams, numbered in the chunk, become indexes into the table's
// importStreams (processes numbered as their streams are first met, as rows were before).
void Builder::remapStreams(Chunk& ch, GpuOpColumns& c) {
    std::vector<uint32_t> codes;
    for (const StreamKey& key : ch.streams.values())
        codes.push_back(
            streamCode(c, {process(key.globalPid), key.device, key.context, key.stream}));
    for (size_t i = ch.begin; i < ch.end; ++i)
        if (valid(ch.kind, i)) c.streamIndex[i] = StreamId(codes[c.streamIndex[i].value]);
}

// A chunk's API calls: their local thread, name and result codes become codes of the whole
// columns.
void Builder::remapApiCalls(Chunk& ch, const std::vector<ThreadId>& threads) {
    std::vector<StringId> names;
    std::vector<uint8_t> unknown; // per local name: an id the export's string table lacks
    for (uint32_t raw : ch.apiNames.values()) {
        const std::optional<StringId> id = poolString(StringId(raw));
        names.push_back(id.value_or(StringId(0)));
        unknown.push_back(!id);
    }
    std::vector<ApiResultBits> results;
    for (uint32_t bits : ch.apiResults.values()) results.emplace_back(bits);
    ChunkCodes<ThreadId> threadCodes(*apiThreads16_, ch, WideLocal::Thread, threads);
    ChunkCodes<StringId> nameCodes(*apiNames16_, ch, WideLocal::Name, std::move(names));
    ChunkCodes<ApiResultBits> resultCodes(*apiResults16_, ch, WideLocal::Result,
                                          std::move(results));
    uint64_t unknownRows = 0;
    for (size_t i = ch.begin; i < ch.end; ++i) {
        if (!valid(EventTable::Runtime, i)) continue;
        threadCodes.fill(i);
        unknownRows += unknown[nameCodes.fill(i)];
        resultCodes.fill(i);
    }
    if (unknownRows)
        t_.report.add(Anomaly::UnknownStringId, unknownRows, "CUPTI_ACTIVITY_KIND_RUNTIME.nameId");
    threadCodes.done();
    nameCodes.done();
    resultCodes.done();
    columns::release(ch.wideLocals);
}

// A chunk's ranges: their local thread, name and sizes codes become codes of the whole columns
// (Dict16Filler). Every row's local code is read before the row is set.
void Builder::remapRanges(Chunk& ch, const std::vector<ThreadId>& threads,
                          const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames) {
    std::vector<StringId> strings(ch.strings.size());
    for (uint32_t i = 0; i < strings.size(); ++i)
        strings[i] = t_.strings.intern(ch.strings.view(StringId(i)));
    // Names outside the default domain take the domain's name first.
    std::vector<std::pair<size_t, StringId>> prefixed;
    std::vector<StringId> prefixedIds;
    for (auto& [row, domain] : ch.rangeDomains) {
        const int64_t key =
            processKey(ch.threads.values()[localId(*threads16_, ch, WideLocal::Thread, row)]);
        auto it = domainNames.find({key, domain});
        std::string name =
            it != domainNames.end() ? it->second : "domain " + std::to_string(domain);
        name += ':';
        name += t_.strings.view(strings[localId(*names16_, ch, WideLocal::Name, row)]);
        prefixed.emplace_back(row, t_.strings.intern(name));
        prefixedIds.push_back(prefixed.back().second);
    }
    ChunkCodes<StringId> nameCodes(*names16_, ch, WideLocal::Name, strings, prefixedIds);
    ChunkCodes<StringId> sizeCodes(*sizes16_, ch, WideLocal::Sizes, strings);
    ChunkCodes<ThreadId> threadCodes(*threads16_, ch, WideLocal::Thread, threads);
    for (size_t i = ch.begin; i < ch.end; ++i) {
        if (!valid(EventTable::Nvtx, i)) continue;
        nameCodes.fill(i);
        sizeCodes.fill(i);
        threadCodes.fill(i);
    }
    for (const auto& [row, id] : prefixed) names16_->set(row, id);
    nameCodes.done();
    sizeCodes.done();
    threadCodes.done();
    columns::release(ch.wideLocals);
}

void Builder::compactTables() {
    auto compactIfNeeded = [&](EventTable table, auto& cols, RowFlags* side) {
        auto& keep = sink_.valid[static_cast<size_t>(table)];
        if (!keep.all()) {
            columns::compact(cols, keep, threads_);
            if (side) {
                RowFlags kept(cols.size());
                size_t w = 0;
                for (size_t r = 0; r < side->size(); ++r)
                    if (keep[r]) kept.set(w++, (*side)[r]);
                *side = std::move(kept);
            }
        }
        keep.clear();
    };
    compactIfNeeded(EventTable::Kernel, t_.kernels, nullptr);
    compactIfNeeded(EventTable::Memcpy, t_.memcpys, nullptr);
    compactIfNeeded(EventTable::Memset, t_.memsets, nullptr);
    compactIfNeeded(EventTable::Runtime, t_.apiCalls, &sink_.apiIsBacktrace);
    if (sink_.impliedRangeRows() && t_.ranges.importSourceRow.empty())
        rangeRows_ = keptRowids(sink_.valid[static_cast<size_t>(EventTable::Nvtx)],
                                sink_.firstRowid[static_cast<size_t>(EventTable::Nvtx)]);
    compactIfNeeded(EventTable::Nvtx, t_.ranges, nullptr);
    t_.ranges.importOpId.sortFar(); // the chunks' lists came in merge order
    t_.ranges.importSeq.sortFar();
}

// Each --cuda-graph-trace=graph row becomes one GPU item in the kernel columns, linked to its
// cudaGraphLaunch by correlation id like any kernel (marked as a graph launch after assembly).
void Builder::addGraphLaunchItems() {
    auto& k = t_.kernels;
    const size_t first = k.size(), n = s_.graphLaunches.size();
    if (!n) return;
    // Not the wide columns the reader left empty for the codes it wrote: stream, grid and block.
    const std::array<const void*, 6> empty = {&k.importGrid,    &k.importBlock,  &k.importDevice,
                                              &k.importContext, &k.importStream, &k.importProcess};
    auto grow = [&](auto& c) {
        if (std::find(empty.begin(), empty.end(), static_cast<const void*>(&c)) == empty.end())
            c.resize(first + n);
    };
    std::apply([&](auto&... c) { (grow(c), ...); }, k.tie());
    for (size_t j = 0; j < n; ++j) {
        const auto& r = s_.graphLaunches[j];
        const size_t i = first + j;
        k.start[i] = r.start;
        k.end[i] = r.end;
        k.streamIndex[i] =
            StreamId(streamCode(k, {process(r.globalPid), r.device, r.context, r.stream}));
        k.correlation[i] = r.correlation;
        k.name[i] = k.shortName[i] = t_.strings.intern(graphLaunchItemName(r.graph));
        k.grid.code[i] = dimCode(k.grid, gridCodes_, Dim3());
        k.block.code[i] = dimCode(k.block, blockCodes_, Dim3());
    }
}

// Totals are counted at assembly (core/import/common/memory_events.h): the export has none.
void Builder::addMemoryEvents() {
    auto& m = t_.memory;
    for (const auto& r : s_.memoryUsage) {
        m.time.push_back(r.start);
        m.bytes.push_back(r.bytes);
        m.pool.push_back(MemoryPool::Allocated);
        m.allocated.push_back(kNoMemoryTotal);
        m.reserved.push_back(kNoMemoryTotal);
        m.address.push_back(r.address);
        m.device.push_back(r.device);
        m.thread.push_back(ThreadId());
        m.importProcess.push_back(process(r.globalPid));
        m.importCorrelation.push_back(r.correlation);
    }
    columns::release(s_.memoryUsage);
}

void Builder::run(std::vector<Chunk>& chunks) {
    PhaseTimer timer(t_);
    if (const TimeNs origin = sink_.timeOrigin.load(); origin != EventSink::kNoOrigin) {
        t_.apiCalls.setOrigin(origin);
        t_.ranges.setOrigin(origin);
    }
    std::map<std::pair<int64_t, int64_t>, std::string> domainNames; // (process key, domain id)
    for (auto& ch : chunks) {
        t_.report.merge(ch.report);
        for (auto& d : ch.domains) domainNames[{processKey(d.globalTid), d.domainId}] = d.name;
    }
    const auto& nvtxRows = sink_.valid[static_cast<size_t>(EventTable::Nvtx)];
    names16_.emplace(t_.ranges.importName, nvtxRows);
    sizes16_.emplace(t_.ranges.importSizes, nvtxRows);
    threads16_.emplace(t_.ranges.importThread, nvtxRows);
    const auto& apiRows = sink_.valid[static_cast<size_t>(EventTable::Runtime)];
    apiNames16_.emplace(t_.apiCalls.importName, apiRows);
    apiThreads16_.emplace(t_.apiCalls.importThread, apiRows);
    apiResults16_.emplace(t_.apiCalls.importResult, apiRows);
    // API chunks first, so threads are numbered in the order their calls appear.
    for (auto kind : {EventTable::Runtime, EventTable::Kernel, EventTable::Memcpy,
                      EventTable::Memset, EventTable::Nvtx})
        for (auto& ch : chunks)
            if (ch.kind == kind) remapChunk(ch, domainNames);
    chunks.clear();
    names16_->finish();
    sizes16_->finish();
    threads16_->finish();
    apiNames16_->finish();
    apiThreads16_->finish();
    apiResults16_->finish();
    timer.mark("remap ids");
    compactTables();
    timer.mark("compact");
    addGraphLaunchItems();
    addMemoryEvents();
    assembleTrace(
        t_,
        AssemblyInput{std::move(sink_.apiIsBacktrace), s_.devices, s_.info, std::move(rangeRows_)},
        threads_);
    auto& os = t_.osRuntime;
    for (const auto& r : s_.osRuntime) {
        os.start.push_back(r.start);
        os.end.push_back(r.end);
        os.name.push_back(t_.strings.intern(r.name));
        os.pid.push_back(pidOf(r.globalTid));
        os.tid.push_back(tidOf(r.globalTid));
    }
}

} // namespace

void buildTrace(EventSink& sink, SmallTables& small, std::vector<Chunk>& chunks, unsigned threads) {
    Builder(sink, small, threads).run(chunks);
}

} // namespace ls
