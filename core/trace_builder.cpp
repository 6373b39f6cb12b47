#include "core/trace_builder.h"

#include "core/columns.h"
#include "core/parallel.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <tuple>

namespace ls {
namespace {

class Builder {
public:
    Builder(EventSink& sink, SmallTables& s, unsigned threads) : sink_(sink), t_(sink.trace), s_(s), threads_(threads) {}
    void run(std::vector<Chunk>& chunks);

private:
    ProcessId process(int64_t globalId);
    ThreadId thread(int64_t globalTid);
    StringId nsysString(StringId raw, const char* what);
    bool valid(EventTable table, size_t row) const { return sink_.valid[static_cast<size_t>(table)][row]; }

    void remapChunk(Chunk& ch, const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames);
    void compactTables();
    void dedupeApiCalls();
    template <typename Cols> void sortByStart(Cols& c);
    void assignStreams(GpuOpColumns& c);
    void correlate(GpuOpColumns& c);
    void computeSpan();
    void indexRanges();
    void buildIndexes();
    void finishDevices();

    EventSink& sink_;
    Trace& t_;
    SmallTables& s_;
    unsigned threads_;
    std::unordered_map<int64_t, ProcessId> processByKey_;
    std::unordered_map<int64_t, ThreadId> threadByKey_;
    std::vector<StringId> nsysToPool_;                  // for ids of the dense StringIds table
    std::unordered_map<uint32_t, StringId> sparseToPool_; // for the rest
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, StreamId> streamByKey_;
    std::vector<std::pair<uint64_t, uint32_t>> apiByCorrelation_; // ((process << 32) | correlation, row)
};

uint64_t correlationKey(ProcessId p, uint32_t correlation) { return (uint64_t(p.value) << 32) | correlation; }

ProcessId Builder::process(int64_t globalId) {
    const int64_t key = processKey(globalId);
    auto [it, inserted] = processByKey_.try_emplace(key, static_cast<uint32_t>(t_.processes.size()));
    if (inserted) {
        Process p;
        p.pid = pidOf(key);
        if (auto n = s_.processes.find(key); n != s_.processes.end()) p.name = n->second.second;
        t_.processes.push_back(std::move(p));
    }
    return it->second;
}

ThreadId Builder::thread(int64_t globalTid) {
    auto [it, inserted] = threadByKey_.try_emplace(globalTid, static_cast<uint32_t>(t_.threads.size()));
    if (inserted) {
        Thread th;
        th.process = process(globalTid);
        th.tid = tidOf(globalTid);
        if (auto n = s_.threadNames.find(globalTid); n != s_.threadNames.end()) th.name = n->second;
        t_.threads.push_back(std::move(th));
    }
    return it->second;
}

StringId Builder::nsysString(StringId raw, const char* what) {
    if (raw.value == kNoNsysString) return StringId(0);
    const bool dense = raw.value < s_.strings.text.size(); // never size a cache by a crafted id
    if (dense && raw.value < nsysToPool_.size() && nsysToPool_[raw.value].valid()) return nsysToPool_[raw.value];
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
void Builder::remapChunk(Chunk& ch, const std::map<std::pair<int64_t, int64_t>, std::string>& domainNames) {
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
            k.process[i] = processes[k.process[i].value];
            k.name[i] = nsysString(k.name[i], "CUPTI_ACTIVITY_KIND_KERNEL.demangledName");
            k.shortName[i] = nsysString(k.shortName[i], "CUPTI_ACTIVITY_KIND_KERNEL.shortName");
        });
        break;
    case EventTable::Memcpy: rows([&](size_t i) { t_.memcpys.process[i] = processes[t_.memcpys.process[i].value]; }); break;
    case EventTable::Memset: rows([&](size_t i) { t_.memsets.process[i] = processes[t_.memsets.process[i].value]; }); break;
    case EventTable::Runtime:
        rows([&](size_t i) {
            auto& a = t_.apiCalls;
            a.thread[i] = threads[a.thread[i].value];
            a.name[i] = nsysString(a.name[i], "CUPTI_ACTIVITY_KIND_RUNTIME.nameId");
        });
        break;
    case EventTable::Nvtx: {
        auto& r = t_.ranges;
        std::vector<StringId> strings(ch.strings.size());
        for (uint32_t i = 0; i < strings.size(); ++i) strings[i] = t_.strings.intern(ch.strings.view(StringId(i)));
        rows([&](size_t i) {
            r.name[i] = strings[r.name[i].value];
            r.sizes[i] = strings[r.sizes[i].value];
        });
        for (auto& [row, domain] : ch.rangeDomains) {
            const int64_t key = processKey(ch.keys.keys()[r.thread[row].value]);
            auto it = domainNames.find({key, domain});
            std::string name = it != domainNames.end() ? it->second : "domain " + std::to_string(domain);
            name += ':';
            name += t_.strings.view(r.name[row]);
            r.name[row] = t_.strings.intern(name);
        }
        rows([&](size_t i) { r.thread[i] = threads[r.thread[i].value]; });
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

template <typename Cols> void Builder::sortByStart(Cols& c) {
    if (std::is_sorted(c.start.begin(), c.start.end())) return;
    std::vector<uint32_t> perm(c.size());
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(), [&](uint32_t a, uint32_t b) { return c.start[a] < c.start[b]; });
    columns::permute(c, perm);
}

// One call per (process, correlation id): older exports add a CUDA backtrace row per call.
void Builder::dedupeApiCalls() {
    auto& a = t_.apiCalls;
    const auto& backtrace = sink_.apiIsBacktrace;
    std::vector<std::pair<uint64_t, uint32_t>> order(a.size()); // (key, backtrace bit << 31 | row)
    for (uint32_t i = 0; i < a.size(); ++i)
        order[i] = {correlationKey(t_.threads[a.thread[i].value].process, a.correlation[i]), (uint32_t(backtrace[i]) << 31) | i};
    std::sort(order.begin(), order.end());
    std::vector<uint8_t> keep(a.size(), 1);
    uint64_t duplicates = 0;
    for (size_t i = 1; i < order.size(); ++i)
        if (order[i].first == order[i - 1].first && (order[i].first & 0xFFFFFFFFu) != 0) { // id 0: no correlation
            keep[order[i].second & 0x7FFFFFFFu] = 0;
            ++duplicates;
        }
    columns::release(order);
    columns::release(sink_.apiIsBacktrace);
    if (duplicates) {
        t_.report.add(Anomaly::DuplicateRuntimeRow, duplicates, "CUPTI_ACTIVITY_KIND_RUNTIME");
        columns::compact(a, keep);
    }
    sortByStart(a);
    apiByCorrelation_.resize(a.size());
    for (uint32_t i = 0; i < a.size(); ++i) apiByCorrelation_[i] = {correlationKey(t_.threads[a.thread[i].value].process, a.correlation[i]), i};
    std::sort(apiByCorrelation_.begin(), apiByCorrelation_.end());
}

void Builder::assignStreams(GpuOpColumns& c) {
    for (size_t i = 0; i < c.size(); ++i) {
        const auto key = std::make_tuple(c.process[i].value, c.device[i], c.context[i], c.stream[i]);
        auto [it, inserted] = streamByKey_.try_emplace(key, static_cast<uint32_t>(t_.streams.size()));
        if (inserted) t_.streams.push_back({c.process[i], c.device[i], c.context[i], c.stream[i]});
        c.streamIndex[i] = it->second;
    }
}

void Builder::correlate(GpuOpColumns& c) {
    uint64_t orphans = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        const uint64_t key = correlationKey(c.process[i], c.correlation[i]);
        auto it = std::lower_bound(apiByCorrelation_.begin(), apiByCorrelation_.end(), std::make_pair(key, 0u));
        if (it != apiByCorrelation_.end() && it->first == key) c.launch[i] = ApiCallId(it->second);
        else ++orphans;
    }
    if (orphans) t_.report.add(Anomaly::OrphanGpuOp, orphans);
}

template <typename GroupId, typename ItemId, typename KeyFn>
void buildCsr(Csr<GroupId, ItemId>& csr, size_t groups, size_t items, KeyFn groupOf) {
    csr.offsets.assign(groups + 1, 0);
    for (size_t i = 0; i < items; ++i)
        if (auto g = groupOf(i); g.valid()) ++csr.offsets[g.value + 1];
    std::partial_sum(csr.offsets.begin(), csr.offsets.end(), csr.offsets.begin());
    csr.ids.resize(csr.offsets.back());
    std::vector<uint32_t> fill(csr.offsets.begin(), csr.offsets.end() - 1);
    for (size_t i = 0; i < items; ++i)
        if (auto g = groupOf(i); g.valid()) csr.ids[fill[g.value]++] = ItemId(static_cast<uint32_t>(i));
}

void Builder::buildIndexes() {
    const auto& k = t_.kernels;
    buildCsr(t_.apiKernels, t_.apiCalls.size(), k.size(), [&](size_t i) { return k.launch[i]; });
    buildCsr(t_.streamKernels, t_.streams.size(), k.size(), [&](size_t i) { return k.streamIndex[i]; });
    buildCsr(t_.threadApiCalls, t_.threads.size(), t_.apiCalls.size(), [&](size_t i) { return t_.apiCalls.thread[i]; });
}

void Builder::computeSpan() {
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    auto span = [&](const std::vector<TimeNs>& s, const std::vector<TimeNs>& e) {
        if (s.empty()) return;
        lo = std::min(lo, *std::min_element(s.begin(), s.end()));
        hi = std::max(hi, *std::max_element(e.begin(), e.end()));
    };
    span(t_.kernels.start, t_.kernels.end);
    span(t_.memcpys.start, t_.memcpys.end);
    span(t_.memsets.start, t_.memsets.end);
    span(t_.apiCalls.start, t_.apiCalls.end);
    span(t_.ranges.start, t_.ranges.end); // unended ranges still hold end == start here
    if (lo > hi) lo = hi = 0;
    t_.captureStart = lo;
    t_.captureEnd = hi;
}

void Builder::indexRanges() {
    auto& r = t_.ranges;
    uint64_t unended = 0;
    for (size_t i = 0; i < r.size(); ++i)
        if (r.flags[i] & kUnended) {
            r.end[i] = std::max(t_.captureEnd, r.start[i]);
            ++unended;
        }
    if (unended) t_.report.add(Anomaly::UnendedRange, unended);

    // Group by thread (stable, so each thread keeps file order), then sort a thread's slice by
    // start, longer first, only when the file was not already in that order.
    const size_t threads = t_.threads.size();
    t_.threadRangeBegin.assign(threads + 1, 0);
    for (auto th : r.thread) ++t_.threadRangeBegin[th.value + 1];
    std::partial_sum(t_.threadRangeBegin.begin(), t_.threadRangeBegin.end(), t_.threadRangeBegin.begin());
    std::vector<uint32_t> perm(r.size());
    {
        std::vector<uint32_t> fill(t_.threadRangeBegin.begin(), t_.threadRangeBegin.end() - 1);
        for (uint32_t i = 0; i < r.size(); ++i) perm[fill[r.thread[i].value]++] = i;
    }
    auto before = [&](uint32_t a, uint32_t b) { return r.start[a] != r.start[b] ? r.start[a] < r.start[b] : r.end[a] > r.end[b]; };
    for (size_t th = 0; th < threads; ++th) {
        auto first = perm.begin() + t_.threadRangeBegin[th], last = perm.begin() + t_.threadRangeBegin[th + 1];
        if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
    }
    bool identity = true;
    for (uint32_t i = 0; i < perm.size() && identity; ++i) identity = perm[i] == i;
    if (!identity) columns::permute(r, perm, threads_);
    columns::release(perm);

    // Threads nest independently: split them over the workers (a PyTorch job has a main and an
    // autograd thread of similar size).
    std::vector<uint64_t> improperPerPart(threads_, 0);
    parallelFor(threads, threads_, [&](size_t firstThread, size_t lastThread, unsigned part) {
        std::vector<uint32_t> stack;
        for (size_t th = firstThread; th < lastThread; ++th) {
            stack.clear();
            for (uint32_t i = t_.threadRangeBegin[th]; i < t_.threadRangeBegin[th + 1]; ++i) {
                // Only push/pop ranges nest; start/end ranges may overlap anything (they are found
                // by interval, Trace::threadStartEnd) and marks have no extent. Those hang under
                // the innermost push/pop range still open at their start.
                const bool pushPop = r.kind[i] == RangeKind::PushPop;
                while (!stack.empty() && (pushPop ? !(r.start[stack.back()] <= r.start[i] && r.end[i] <= r.end[stack.back()])
                                                  : r.end[stack.back()] < r.start[i])) {
                    if (pushPop && r.end[stack.back()] > r.start[i]) ++improperPerPart[part];
                    stack.pop_back();
                }
                r.depth[i] = static_cast<uint8_t>(std::min<size_t>(stack.size(), 255));
                r.parent[i] = stack.empty() ? RangeId() : RangeId(stack.back());
                if (pushPop) stack.push_back(i);
            }
        }
    });
    const uint64_t improper = std::accumulate(improperPerPart.begin(), improperPerPart.end(), uint64_t(0));
    if (improper) t_.report.add(Anomaly::ImproperNesting, improper);
}

void Builder::finishDevices() {
    t_.devices = s_.devices;
    for (const auto& s : t_.streams) {
        if (std::any_of(t_.devices.begin(), t_.devices.end(), [&](const Device& d) { return d.id == s.device; })) continue;
        Device d;
        d.id = s.device;
        d.name = "GPU " + std::to_string(s.device);
        t_.devices.push_back(d);
    }
    std::sort(t_.devices.begin(), t_.devices.end(), [](const Device& a, const Device& b) { return a.id < b.id; });
}

class PhaseTimer {
public:
    explicit PhaseTimer(Trace& t) : t_(t) {}
    void mark(const char* phase) {
        const auto now = std::chrono::steady_clock::now();
        t_.loadPhases.emplace_back(phase, std::chrono::duration<double>(now - last_).count());
        last_ = now;
    }

private:
    Trace& t_;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

void Builder::run(std::vector<Chunk>& chunks) {
    PhaseTimer timer(t_);
    std::map<std::pair<int64_t, int64_t>, std::string> domainNames; // (process key, domain id)
    for (auto& ch : chunks) {
        t_.report.merge(ch.report);
        for (auto& d : ch.domains) domainNames[{processKey(d.globalTid), d.domainId}] = d.name;
    }
    // API chunks first, so threads are numbered in the order their calls appear.
    for (auto kind : {EventTable::Runtime, EventTable::Kernel, EventTable::Memcpy, EventTable::Memset, EventTable::Nvtx})
        for (auto& ch : chunks)
            if (ch.kind == kind) remapChunk(ch, domainNames);
    chunks.clear();
    timer.mark("remap ids");
    compactTables();
    timer.mark("compact");
    dedupeApiCalls();
    timer.mark("api calls");
    auto finishGpuOps = [&](auto& c) {
        sortByStart(c);
        assignStreams(c);
        correlate(c);
    };
    finishGpuOps(t_.kernels);
    finishGpuOps(t_.memcpys);
    finishGpuOps(t_.memsets);
    timer.mark("gpu ops");
    columns::release(apiByCorrelation_);
    computeSpan();
    indexRanges();
    timer.mark("nvtx nesting");
    buildIndexes();
    finishDevices();
    t_.info = s_.info;
    timer.mark("indexes");
}

} // namespace

void buildTrace(EventSink& sink, SmallTables& small, std::vector<Chunk>& chunks, unsigned threads) {
    Builder(sink, small, threads).run(chunks);
}

} // namespace ls
