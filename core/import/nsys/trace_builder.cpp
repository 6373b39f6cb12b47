#include "core/import/nsys/trace_builder.h"

#include "core/import/common/trace_assembler.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace ls {
namespace {

class Builder {
  public:
    Builder(EventSink& sink, SmallTables& s, unsigned threads)
        : sink_(sink), t_(sink.trace), s_(s), threads_(threads) {}
    void run(std::vector<Chunk>& chunks);

  private:
    ProcessId process(int64_t globalId);
    ThreadId thread(int64_t globalTid);
    StringId nsysString(StringId raw, const char* what);
    bool valid(EventTable table, size_t row) const {
        return sink_.valid[static_cast<size_t>(table)][row];
    }

    void remapChunk(Chunk& ch,
                    const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames);
    void remapRanges(Chunk& ch, const std::vector<ThreadId>& threads,
                     const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames);
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
    // The ranges' 16-bit columns, filled chunk by chunk (remapRanges).
    std::optional<Dict16Filler<StringId>> names16_, sizes16_;
    std::optional<Dict16Filler<ThreadId>> threads16_;
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
    if (raw.value == kNoNsysString) return StringId(0);
    const bool dense = raw.value < s_.strings.text.size(); // never size a cache by a crafted id
    if (dense && raw.value < nsysToPool_.size() && nsysToPool_[raw.value].valid())
        return nsysToPool_[raw.value];
    if (!dense)
        if (auto it = sparseToPool_.find(raw.value); it != sparseToPool_.end()) return it->second;
    const std::string* s = s_.strings.find(raw.value);
    if (!s) {
        t_.report.add(Anomaly::UnknownStringId, 1, what);
        return StringId(0);
    }
    const StringId id = t_.strings.intern(*s);
    if (!dense) return sparseToPool_[raw.value] = id;
    if (raw.value >= nsysToPool_.size()) nsysToPool_.resize(s_.strings.text.size());
    return nsysToPool_[raw.value] = id;
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
    std::vector<ProcessId> processes;
    std::vector<ThreadId> threads;
    if (ch.kind == EventTable::Runtime || ch.kind == EventTable::Nvtx)
        for (int64_t key : ch.keys.keys()) threads.push_back(thread(key));
    else
        for (int64_t key : ch.keys.keys()) processes.push_back(process(key));

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
        for (const Dim3& d : ch.grids.dims()) grids.push_back(dimCode(k.grid, gridCodes_, d));
        for (const Dim3& d : ch.blocks.dims()) blocks.push_back(dimCode(k.block, blockCodes_, d));
        rows([&](size_t i) {
            k.grid.code[i] = grids[k.grid.code[i]];
            k.block.code[i] = blocks[k.block.code[i]];
            k.importProcess[i] = processes[k.importProcess[i].value];
            k.name[i] = nsysString(k.name[i], "CUPTI_ACTIVITY_KIND_KERNEL.demangledName");
            k.shortName[i] = nsysString(k.shortName[i], "CUPTI_ACTIVITY_KIND_KERNEL.shortName");
        });
        break;
    }
    case EventTable::Memcpy:
        rows([&](size_t i) {
            t_.memcpys.importProcess[i] = processes[t_.memcpys.importProcess[i].value];
        });
        break;
    case EventTable::Memset:
        rows([&](size_t i) {
            t_.memsets.importProcess[i] = processes[t_.memsets.importProcess[i].value];
        });
        break;
    case EventTable::Runtime:
        rows([&](size_t i) {
            auto& a = t_.apiCalls;
            a.importThread[i] = threads[a.importThread[i].value];
            a.importName[i] = nsysString(a.importName[i], "CUPTI_ACTIVITY_KIND_RUNTIME.nameId");
        });
        break;
    case EventTable::Nvtx:
        remapRanges(ch, threads, domainNames);
        break;
    }
}

// A chunk's ranges: their local thread, name and sizes codes become codes of the whole columns
// (Dict16Filler). Every row's local code is read before the row is set.
void Builder::remapRanges(Chunk& ch, const std::vector<ThreadId>& threads,
                          const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames) {
    std::vector<StringId> strings(ch.strings.size());
    for (uint32_t i = 0; i < strings.size(); ++i)
        strings[i] = t_.strings.intern(ch.strings.view(StringId(i)));
    // The rows whose local id did not fit 16 bits: by row, then column (the order the reader
    // writes a row's columns in).
    auto wideLocal = [&](WideLocal::Column column, size_t row) {
        const auto it = std::lower_bound(
            ch.wideLocals.begin(), ch.wideLocals.end(), std::pair(row, column),
            [](const WideLocal& w, const auto& key) { return std::pair(w.row, w.column) < key; });
        return it->id;
    };
    auto localOf = [&](const auto& filler, WideLocal::Column column, size_t row) -> uint32_t {
        const uint16_t code = filler.local(row);
        return code == kWideLocalCode ? wideLocal(column, row) : code;
    };
    // Names outside the default domain take the domain's name first.
    std::vector<std::pair<size_t, StringId>> prefixed;
    for (auto& [row, domain] : ch.rangeDomains) {
        const int64_t key =
            processKey(ch.keys.keys()[localOf(*threads16_, WideLocal::Thread, row)]);
        auto it = domainNames.find({key, domain});
        std::string name =
            it != domainNames.end() ? it->second : "domain " + std::to_string(domain);
        name += ':';
        name += t_.strings.view(strings[localOf(*names16_, WideLocal::Name, row)]);
        prefixed.emplace_back(row, t_.strings.intern(name));
    }
    std::vector<StringId> names = strings;
    for (const auto& p : prefixed) names.push_back(p.second);
    names16_->beginChunk(names);
    sizes16_->beginChunk(strings);
    threads16_->beginChunk(threads);
    // Per local id, the column's code (looked up once a chunk, not once a row); wide columns
    // take the ids themselves.
    auto codesOf = [](const auto& filler, const auto& ids) {
        std::vector<uint16_t> codes;
        if (!filler.wide()) {
            codes.reserve(ids.size());
            for (auto id : ids) codes.push_back(filler.codeOf(id));
        }
        return codes;
    };
    const std::vector<uint16_t> nameCodes = codesOf(*names16_, strings),
                                sizeCodes = codesOf(*sizes16_, strings),
                                threadCodes = codesOf(*threads16_, threads);
    auto fill = [&](auto& filler, const std::vector<uint16_t>& codes, const auto& ids,
                    WideLocal::Column column, size_t i) {
        const uint32_t local = localOf(filler, column, i);
        if (filler.wide())
            filler.set(i, ids[local]);
        else
            filler.setCode(i, codes[local]);
    };
    for (size_t i = ch.begin; i < ch.end; ++i) {
        if (!valid(EventTable::Nvtx, i)) continue;
        fill(*names16_, nameCodes, strings, WideLocal::Name, i);
        fill(*sizes16_, sizeCodes, strings, WideLocal::Sizes, i);
        fill(*threads16_, threadCodes, threads, WideLocal::Thread, i);
    }
    for (const auto& [row, id] : prefixed) names16_->set(row, id);
    names16_->done(ch.begin, ch.end);
    sizes16_->done(ch.begin, ch.end);
    threads16_->done(ch.begin, ch.end);
    columns::release(ch.wideLocals);
}

void Builder::compactTables() {
    auto compactIfNeeded = [&](EventTable table, auto& cols, std::vector<uint8_t>* side) {
        auto& keep = sink_.valid[static_cast<size_t>(table)];
        if (!keep.all()) {
            columns::compact(cols, keep, threads_);
            if (side) {
                size_t w = 0;
                for (size_t r = 0; r < side->size(); ++r)
                    if (keep[r]) (*side)[w++] = (*side)[r];
                side->resize(w);
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
    // Not the wide grid and block columns, which the reader left empty: it wrote the codes.
    auto grow = [&](auto& c) {
        if (static_cast<const void*>(&c) != &k.importGrid &&
            static_cast<const void*>(&c) != &k.importBlock)
            c.resize(first + n);
    };
    std::apply([&](auto&... c) { (grow(c), ...); }, k.tie());
    for (size_t j = 0; j < n; ++j) {
        const auto& r = s_.graphLaunches[j];
        const size_t i = first + j;
        k.start[i] = r.start;
        k.end[i] = r.end;
        k.importDevice[i] = r.device;
        k.importContext[i] = r.context;
        k.importStream[i] = r.stream;
        k.correlation[i] = r.correlation;
        k.importProcess[i] = process(r.globalPid);
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
    // API chunks first, so threads are numbered in the order their calls appear.
    for (auto kind : {EventTable::Runtime, EventTable::Kernel, EventTable::Memcpy,
                      EventTable::Memset, EventTable::Nvtx})
        for (auto& ch : chunks)
            if (ch.kind == kind) remapChunk(ch, domainNames);
    chunks.clear();
    names16_->finish();
    sizes16_->finish();
    threads16_->finish();
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
