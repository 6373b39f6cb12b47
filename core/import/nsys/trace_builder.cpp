#include "core/import/nsys/trace_builder.h"

#include "core/import/common/trace_assembler.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
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
};

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

    switch (ch.kind) {
    case EventTable::Kernel:
        rows([&](size_t i) {
            auto& k = t_.kernels;
            k.importProcess[i] = processes[k.importProcess[i].value];
            k.name[i] = nsysString(k.name[i], "CUPTI_ACTIVITY_KIND_KERNEL.demangledName");
            k.shortName[i] = nsysString(k.shortName[i], "CUPTI_ACTIVITY_KIND_KERNEL.shortName");
        });
        break;
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
    case EventTable::Nvtx: {
        auto& r = t_.ranges;
        std::vector<StringId> strings(ch.strings.size());
        for (uint32_t i = 0; i < strings.size(); ++i)
            strings[i] = t_.strings.intern(ch.strings.view(StringId(i)));
        rows([&](size_t i) {
            r.importName[i] = strings[r.importName[i].value];
            r.importSizes[i] = strings[r.importSizes[i].value];
        });
        for (auto& [row, domain] : ch.rangeDomains) {
            const int64_t key = processKey(ch.keys.keys()[r.importThread[row].value]);
            auto it = domainNames.find({key, domain});
            std::string name =
                it != domainNames.end() ? it->second : "domain " + std::to_string(domain);
            name += ':';
            name += t_.strings.view(r.importName[row]);
            r.importName[row] = t_.strings.intern(name);
        }
        rows([&](size_t i) { r.importThread[i] = threads[r.importThread[i].value]; });
        break;
    }
    }
}

void Builder::compactTables() {
    auto compactIfNeeded = [&](EventTable table, auto& cols, std::vector<uint8_t>* side) {
        auto& keep = sink_.valid[static_cast<size_t>(table)];
        if (std::find(keep.begin(), keep.end(), 0) != keep.end()) {
            columns::compact(cols, keep, threads_);
            if (side) {
                size_t w = 0;
                for (size_t r = 0; r < side->size(); ++r)
                    if (keep[r]) (*side)[w++] = (*side)[r];
                side->resize(w);
            }
        }
        columns::release(keep);
    };
    compactIfNeeded(EventTable::Kernel, t_.kernels, nullptr);
    compactIfNeeded(EventTable::Memcpy, t_.memcpys, nullptr);
    compactIfNeeded(EventTable::Memset, t_.memsets, nullptr);
    compactIfNeeded(EventTable::Runtime, t_.apiCalls, &sink_.apiIsBacktrace);
    compactIfNeeded(EventTable::Nvtx, t_.ranges, nullptr);
}

// Each --cuda-graph-trace=graph row becomes one GPU item in the kernel columns, linked to its
// cudaGraphLaunch by correlation id like any kernel (marked as a graph launch after assembly).
void Builder::addGraphLaunchItems() {
    auto& k = t_.kernels;
    const size_t first = k.size(), n = s_.graphLaunches.size();
    if (!n) return;
    std::apply([&](auto&... c) { (c.resize(first + n), ...); }, k.tie());
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
    // API chunks first, so threads are numbered in the order their calls appear.
    for (auto kind : {EventTable::Runtime, EventTable::Kernel, EventTable::Memcpy,
                      EventTable::Memset, EventTable::Nvtx})
        for (auto& ch : chunks)
            if (ch.kind == kind) remapChunk(ch, domainNames);
    chunks.clear();
    timer.mark("remap ids");
    compactTables();
    timer.mark("compact");
    addGraphLaunchItems();
    addMemoryEvents();
    assembleTrace(t_, AssemblyInput{std::move(sink_.apiIsBacktrace), s_.devices, s_.info},
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
