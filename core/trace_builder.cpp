#include "core/trace_builder.h"

#include "core/columns.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace ls {
namespace {

class Builder {
public:
    Builder(Trace& t, SmallTables& s) : t_(t), s_(s) {}

    void run(std::vector<Chunk>& chunks);

private:
    ProcessId process(int64_t globalId);
    ThreadId thread(int64_t globalTid);
    StringId nsysString(StringId raw, const char* what);

    template <typename Cols> void mergeGpuOps(std::vector<Chunk>& chunks, EventTable kind, Cols Chunk::*member, Cols& dest);
    void mergeApiCalls(std::vector<Chunk>& chunks);
    void mergeRanges(std::vector<Chunk>& chunks);

    template <typename Cols> void sortByStart(Cols& c);
    void assignStreams(GpuOpColumns& c);
    void correlate(GpuOpColumns& c);
    void indexApiCalls();
    void indexRanges();
    void computeSpan();
    void finishDevices();

    Trace& t_;
    SmallTables& s_;
    std::unordered_map<int64_t, ProcessId> processByKey_;
    std::unordered_map<int64_t, ThreadId> threadByKey_;
    std::vector<StringId> nsysToPool_;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, StreamId> streamByKey_;
    std::vector<uint32_t> apiByCorrelation_; // API rows sorted by (process, correlation)
};

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
    if (raw.value < nsysToPool_.size() && nsysToPool_[raw.value].valid()) return nsysToPool_[raw.value];
    const std::string* s = s_.strings.find(raw.value);
    if (!s) {
        t_.report.add(Anomaly::UnknownStringId, 1, what);
        return StringId(0);
    }
    if (raw.value >= nsysToPool_.size()) nsysToPool_.resize(raw.value + 1);
    return nsysToPool_[raw.value] = t_.strings.intern(*s);
}

template <typename Cols> void Builder::sortByStart(Cols& c) {
    if (std::is_sorted(c.start.begin(), c.start.end())) return;
    std::vector<uint32_t> perm(c.size());
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(), [&](uint32_t a, uint32_t b) { return c.start[a] < c.start[b]; });
    columns::permute(c, perm);
}

template <typename Cols>
void Builder::mergeGpuOps(std::vector<Chunk>& chunks, EventTable kind, Cols Chunk::*member, Cols& dest) {
    std::vector<Cols> parts;
    for (auto& ch : chunks) {
        if (ch.kind != kind) continue;
        Cols& c = ch.*member;
        std::vector<ProcessId> remap;
        for (int64_t key : ch.keys.keys()) remap.push_back(process(key));
        for (auto& p : c.process) p = remap[p.value];
        if constexpr (std::is_same_v<Cols, KernelColumns>) {
            for (auto& n : c.name) n = nsysString(n, "CUPTI_ACTIVITY_KIND_KERNEL.demangledName");
            for (auto& n : c.shortName) n = nsysString(n, "CUPTI_ACTIVITY_KIND_KERNEL.shortName");
        }
        parts.push_back(std::move(c));
    }
    columns::concat(dest, parts);
    sortByStart(dest);
    assignStreams(dest);
}

void Builder::assignStreams(GpuOpColumns& c) {
    for (size_t i = 0; i < c.size(); ++i) {
        const auto key = std::make_tuple(c.process[i].value, c.device[i], c.context[i], c.stream[i]);
        auto [it, inserted] = streamByKey_.try_emplace(key, static_cast<uint32_t>(t_.streams.size()));
        if (inserted) t_.streams.push_back({c.process[i], c.device[i], c.context[i], c.stream[i]});
        c.streamIndex[i] = it->second;
    }
}

void Builder::mergeApiCalls(std::vector<Chunk>& chunks) {
    std::vector<ApiCallColumns> parts;
    std::vector<uint8_t> backtrace;
    for (auto& ch : chunks) {
        if (ch.kind != EventTable::Runtime) continue;
        std::vector<ThreadId> remap;
        for (int64_t key : ch.keys.keys()) remap.push_back(thread(key));
        for (auto& th : ch.apiCalls.thread) th = remap[th.value];
        for (auto& n : ch.apiCalls.name) n = nsysString(n, "CUPTI_ACTIVITY_KIND_RUNTIME.nameId");
        backtrace.insert(backtrace.end(), ch.apiIsBacktrace.begin(), ch.apiIsBacktrace.end());
        columns::release(ch.apiIsBacktrace);
        parts.push_back(std::move(ch.apiCalls));
    }
    auto& a = t_.apiCalls;
    columns::concat(a, parts);

    // One call per (process, correlation id): older exports add a CUDA backtrace row per call.
    auto processOf = [&](uint32_t row) { return t_.threads[a.thread[row].value].process.value; };
    std::vector<uint32_t> order(a.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return std::make_tuple(processOf(x), a.correlation[x], backtrace[x], x) <
               std::make_tuple(processOf(y), a.correlation[y], backtrace[y], y);
    });
    std::vector<uint8_t> keep(a.size(), 1);
    uint64_t duplicates = 0;
    for (size_t i = 1; i < order.size(); ++i) {
        if (processOf(order[i]) == processOf(order[i - 1]) && a.correlation[order[i]] == a.correlation[order[i - 1]]) {
            keep[order[i]] = 0;
            ++duplicates;
        }
    }
    if (duplicates) {
        t_.report.add(Anomaly::DuplicateRuntimeRow, duplicates, "CUPTI_ACTIVITY_KIND_RUNTIME");
        columns::compact(a, keep);
    }
    sortByStart(a);

    apiByCorrelation_.resize(a.size());
    std::iota(apiByCorrelation_.begin(), apiByCorrelation_.end(), 0u);
    std::sort(apiByCorrelation_.begin(), apiByCorrelation_.end(), [&](uint32_t x, uint32_t y) {
        return std::make_pair(processOf(x), a.correlation[x]) < std::make_pair(processOf(y), a.correlation[y]);
    });
}

void Builder::correlate(GpuOpColumns& c) {
    const auto& a = t_.apiCalls;
    uint64_t orphans = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        const auto key = std::make_pair(c.process[i].value, c.correlation[i]);
        auto it = std::lower_bound(apiByCorrelation_.begin(), apiByCorrelation_.end(), key, [&](uint32_t row, const auto& k) {
            return std::make_pair(t_.threads[a.thread[row].value].process.value, a.correlation[row]) < k;
        });
        if (it != apiByCorrelation_.end() && t_.threads[a.thread[*it].value].process.value == key.first &&
            a.correlation[*it] == key.second)
            c.launch[i] = ApiCallId(*it);
        else
            ++orphans;
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

void Builder::indexApiCalls() {
    const auto& k = t_.kernels;
    buildCsr(t_.apiKernels, t_.apiCalls.size(), k.size(), [&](size_t i) { return k.launch[i]; });
    buildCsr(t_.streamKernels, t_.streams.size(), k.size(), [&](size_t i) { return k.streamIndex[i]; });
    buildCsr(t_.threadApiCalls, t_.threads.size(), t_.apiCalls.size(), [&](size_t i) { return t_.apiCalls.thread[i]; });
}

void Builder::mergeRanges(std::vector<Chunk>& chunks) {
    std::map<std::pair<int64_t, int64_t>, std::string> domainNames; // (process key, domain id)
    for (auto& ch : chunks)
        for (auto& d : ch.domains) domainNames[{processKey(d.globalTid), d.domainId}] = d.name;

    std::vector<RangeColumns> parts;
    for (auto& ch : chunks) {
        if (ch.kind != EventTable::Nvtx) continue;
        auto& r = ch.ranges;
        std::vector<StringId> strings(ch.strings.size());
        for (uint32_t i = 0; i < strings.size(); ++i) strings[i] = t_.strings.intern(ch.strings.view(StringId(i)));
        for (auto& n : r.name) n = strings[n.value];
        for (auto& n : r.sizes) n = strings[n.value];
        for (auto& [row, domain] : ch.rangeDomains) {
            const int64_t key = processKey(ch.keys.keys()[r.thread[row].value]);
            auto it = domainNames.find({key, domain});
            std::string name = it != domainNames.end() ? it->second : "domain " + std::to_string(domain);
            name += ':';
            name += t_.strings.view(r.name[row]);
            r.name[row] = t_.strings.intern(name);
        }
        std::vector<ThreadId> remap;
        for (int64_t key : ch.keys.keys()) remap.push_back(thread(key));
        for (auto& th : r.thread) th = remap[th.value];
        parts.push_back(std::move(r));
    }
    columns::concat(t_.ranges, parts);
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
    auto before = [&](uint32_t a, uint32_t b) {
        return r.start[a] != r.start[b] ? r.start[a] < r.start[b] : r.end[a] > r.end[b];
    };
    for (size_t th = 0; th < threads; ++th) {
        auto first = perm.begin() + t_.threadRangeBegin[th], last = perm.begin() + t_.threadRangeBegin[th + 1];
        if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
    }
    bool identity = true;
    for (uint32_t i = 0; i < perm.size() && identity; ++i) identity = perm[i] == i;
    if (!identity) columns::permute(r, perm);
    columns::release(perm);

    uint64_t improper = 0;
    std::vector<uint32_t> stack;
    for (size_t th = 0; th < threads; ++th) {
        stack.clear();
        for (uint32_t i = t_.threadRangeBegin[th]; i < t_.threadRangeBegin[th + 1]; ++i) {
            while (!stack.empty() && !(r.start[stack.back()] <= r.start[i] && r.end[i] <= r.end[stack.back()])) {
                if (r.end[stack.back()] > r.start[i]) ++improper;
                stack.pop_back();
            }
            r.depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), 65535));
            r.parent[i] = stack.empty() ? RangeId() : RangeId(stack.back());
            if (r.kind[i] != RangeKind::Mark) stack.push_back(i);
        }
    }
    if (improper) t_.report.add(Anomaly::ImproperNesting, improper);
}

void Builder::finishDevices() {
    t_.devices = s_.devices;
    auto ensure = [&](const std::vector<uint32_t>& ids) {
        for (uint32_t id : ids) {
            if (std::none_of(t_.devices.begin(), t_.devices.end(), [&](const Device& d) { return d.id == id; })) {
                Device d;
                d.id = id;
                d.name = "GPU " + std::to_string(id);
                t_.devices.push_back(d);
            }
        }
    };
    std::vector<uint32_t> used;
    for (const auto& s : t_.streams) used.push_back(s.device);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    ensure(used);
    std::sort(t_.devices.begin(), t_.devices.end(), [](const Device& a, const Device& b) { return a.id < b.id; });
}

void Builder::run(std::vector<Chunk>& chunks) {
    for (auto& ch : chunks) t_.report.merge(ch.report);
    mergeApiCalls(chunks);
    mergeGpuOps(chunks, EventTable::Kernel, &Chunk::kernels, t_.kernels);
    mergeGpuOps(chunks, EventTable::Memcpy, &Chunk::memcpys, t_.memcpys);
    mergeGpuOps(chunks, EventTable::Memset, &Chunk::memsets, t_.memsets);
    correlate(t_.kernels);
    correlate(t_.memcpys);
    correlate(t_.memsets);
    mergeRanges(chunks);
    chunks.clear();
    computeSpan();
    indexRanges();
    indexApiCalls();
    finishDevices();
    t_.info = s_.info;
}

} // namespace

void buildTrace(Trace& t, SmallTables& small, std::vector<Chunk>& chunks) {
    Builder(t, small).run(chunks);
}

} // namespace ls
