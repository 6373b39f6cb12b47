#include "core/import/common/trace_assembler.h"

#include "core/import/common/memory_events.h"
#include "core/import/common/pack_columns.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

namespace ls {

void PhaseTimer::mark(const char* phase) {
    const auto now = std::chrono::steady_clock::now();
    t_.loadPhases.emplace_back(phase, std::chrono::duration<double>(now - last_).count());
    last_ = now;
}

namespace {

class Assembler {
  public:
    Assembler(Trace& t, AssemblyInput& in, unsigned threads) : t_(t), in_(in), threads_(threads) {}
    void run();

  private:
    void dedupeApiCalls();
    template <typename Cols> void sortByStart(Cols& c);
    void assignStreams(GpuOpColumns& c);
    void correlate(GpuOpColumns& c);
    void indexStartEndRanges(); // Trace::threadStartEnd and its max-end trees
    void computeSpan();
    void indexRanges();
    void buildIndexes();
    void finishDevices();

    Trace& t_;
    AssemblyInput& in_;
    unsigned threads_;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, StreamId> streamByKey_;
    // API calls by (process, correlation id), for the GPU ops to find their launch: per process a
    // run of correlation << 32 | row, sorted (8 bytes a call, not a 16-byte pair: 2.4M calls of a
    // 1M-kernel trace are part of the load's peak).
    struct CorrelationIndex {
        std::vector<uint32_t>
            begin; // per process bucket, where its run starts; one more at the end
        std::vector<uint64_t> entries;
    } apiByCorrelation_;
    void indexApiCalls(const std::vector<uint8_t>* backtrace);
    void sortRuns(); // each process's run of the index, by id then row
    ApiCallId callByCorrelation(ProcessId p, uint32_t id) const;
    uint32_t bucketOf(ProcessId p) const {
        return p.valid() && p.value < t_.processes.size()
                   ? p.value
                   : static_cast<uint32_t>(t_.processes.size());
    }
};

// Entries of the correlation index: the id above the row, so a run sorts by id, then by row; the
// row's top bit marks a CUDA backtrace row, which sorts after the call of the same id.
constexpr uint64_t kBacktraceBit = uint64_t(1) << 31;
uint32_t correlationOf(uint64_t entry) { return static_cast<uint32_t>(entry >> 32); }
uint32_t rowOf(uint64_t entry) { return static_cast<uint32_t>(entry & 0x7FFFFFFFu); }

void Assembler::indexApiCalls(const std::vector<uint8_t>* backtrace) {
    const auto& a = t_.apiCalls;
    auto& index = apiByCorrelation_;
    const size_t buckets = t_.processes.size() + 1; // the last for calls of no known process
    index.begin.assign(buckets + 1, 0);
    for (uint32_t i = 0; i < a.size(); ++i)
        ++index.begin[bucketOf(t_.threads[a.importThread[i].value].process) + 1];
    for (size_t b = 0; b < buckets; ++b) index.begin[b + 1] += index.begin[b];
    std::vector<uint32_t> next(index.begin.begin(), index.begin.end() - 1);
    index.entries.resize(a.size());
    for (uint32_t i = 0; i < a.size(); ++i) {
        const bool bt = backtrace && i < backtrace->size() && (*backtrace)[i];
        index.entries[next[bucketOf(t_.threads[a.importThread[i].value].process)]++] =
            uint64_t(a.importCorrelation[i]) << 32 | (bt ? kBacktraceBit : 0) | i;
    }
    sortRuns();
}

void Assembler::sortRuns() {
    auto& index = apiByCorrelation_;
    for (size_t b = 0; b + 1 < index.begin.size(); ++b)
        std::sort(index.entries.begin() + index.begin[b],
                  index.entries.begin() + index.begin[b + 1]);
}

ApiCallId Assembler::callByCorrelation(ProcessId p, uint32_t id) const {
    const uint32_t b = bucketOf(p);
    const auto first = apiByCorrelation_.entries.begin() + apiByCorrelation_.begin[b],
               last = apiByCorrelation_.entries.begin() + apiByCorrelation_.begin[b + 1];
    const auto it = std::lower_bound(first, last, uint64_t(id) << 32);
    return it != last && correlationOf(*it) == id ? ApiCallId(rowOf(*it)) : ApiCallId();
}

template <typename Cols> void Assembler::sortByStart(Cols& c) {
    if (std::is_sorted(c.start.begin(), c.start.end())) return;
    std::vector<uint32_t> perm(c.size());
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](uint32_t a, uint32_t b) { return c.start[a] < c.start[b]; });
    columns::permute(c, perm);
}

// One call per (process, correlation id): older exports add a CUDA backtrace row per call.
void Assembler::dedupeApiCalls() {
    auto& a = t_.apiCalls;
    indexApiCalls(&in_.apiIsBacktrace);
    auto& index = apiByCorrelation_;
    std::vector<uint8_t> keep(a.size(), 1);
    uint64_t duplicates = 0;
    for (size_t b = 0; b + 1 < index.begin.size(); ++b)
        for (size_t i = index.begin[b] + 1; i < index.begin[b + 1]; ++i) {
            const uint32_t id = correlationOf(index.entries[i]);
            if (id == correlationOf(index.entries[i - 1]) && id != 0) { // id 0: no correlation
                keep[rowOf(index.entries[i])] = 0;
                ++duplicates;
            }
        }
    columns::release(in_.apiIsBacktrace);
    if (!duplicates && std::is_sorted(a.start.begin(), a.start.end())) {
        // No row moves: the entries just sorted are the index, once the backtrace marks are off.
        bool marked = false;
        for (auto& e : index.entries) {
            marked |= (e & kBacktraceBit) != 0;
            e &= ~kBacktraceBit;
        }
        if (marked) sortRuns();
        return;
    }
    columns::release(index.entries);
    if (duplicates) {
        t_.report.add(Anomaly::DuplicateRuntimeRow, duplicates, "CUPTI_ACTIVITY_KIND_RUNTIME");
        columns::compact(a, keep);
    }
    sortByStart(a);
    indexApiCalls(nullptr);
}

void Assembler::assignStreams(GpuOpColumns& c) {
    c.streamIndex.resize(c.size()); // importers may leave it empty
    for (size_t i = 0; i < c.size(); ++i) {
        const auto key = std::make_tuple(c.importProcess[i].value, c.importDevice[i],
                                         c.importContext[i], c.importStream[i]);
        auto [it, inserted] =
            streamByKey_.try_emplace(key, static_cast<uint32_t>(t_.streams.size()));
        if (inserted)
            t_.streams.push_back(
                {c.importProcess[i], c.importDevice[i], c.importContext[i], c.importStream[i]});
        c.streamIndex[i] = it->second;
    }
    // The stream says them from here on (Trace::streamOf).
    columns::release(c.importProcess);
    columns::release(c.importDevice);
    columns::release(c.importContext);
    columns::release(c.importStream);
}

void Assembler::correlate(GpuOpColumns& c) {
    // A binary search per row, each on its own: the rows split over the workers.
    const unsigned parts = c.size() >= kParallelRows ? std::max(1u, threads_) : 1;
    std::vector<uint64_t> orphansPerPart(parts, 0);
    if (c.launch.size() != c.size()) c.launch.assign(c.size(), ApiCallId()); // may be empty
    parallelFor(c.size(), parts, [&](size_t from, size_t to, unsigned part) {
        for (size_t i = from; i < to; ++i) {
            const uint32_t b = bucketOf(t_.streamOf(c, i).process);
            const auto first = apiByCorrelation_.entries.begin() + apiByCorrelation_.begin[b],
                       last = apiByCorrelation_.entries.begin() + apiByCorrelation_.begin[b + 1];
            const auto it = std::lower_bound(first, last, uint64_t(c.correlation[i]) << 32);
            if (it != last && correlationOf(*it) == c.correlation[i])
                c.launch[i] = ApiCallId(rowOf(*it));
            else
                ++orphansPerPart[part];
        }
    });
    if (const uint64_t orphans =
            std::accumulate(orphansPerPart.begin(), orphansPerPart.end(), uint64_t(0)))
        t_.report.add(Anomaly::OrphanGpuOp, orphans);
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
        if (auto g = groupOf(i); g.valid())
            csr.ids[fill[g.value]++] = ItemId(static_cast<uint32_t>(i));
}

void Assembler::buildIndexes() {
    const auto& k = t_.kernels;
    std::vector<std::function<void()>> indexes; // each writes its own index: at once
    indexes.emplace_back([&] {
        buildCsr(t_.threadApiCalls, t_.threads.size(), t_.apiCalls.size(),
                 [&](size_t i) { return t_.apiCalls.thread[i]; });
    });
    indexes.emplace_back([&] {
        buildCsr(t_.apiKernels, t_.apiCalls.size(), k.size(),
                 [&](size_t i) { return k.launch[i]; });
    });
    indexes.emplace_back([&] {
        buildCsr(t_.streamKernels, t_.streams.size(), k.size(),
                 [&](size_t i) { return k.streamIndex[i]; });
    });
    runTasks(indexes, k.size() + t_.apiCalls.size() >= kParallelRows ? std::max(1u, threads_) : 1);
}

void Assembler::computeSpan() {
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    auto span = [&](const auto& s, const auto& e) {
        if (s.empty()) return;
        lo = std::min(lo, *std::min_element(s.begin(), s.end()));
        for (size_t i = 0; i < e.size(); ++i) hi = std::max(hi, e[i]);
    };
    span(t_.kernels.start, t_.kernels.end);
    span(t_.memcpys.start, t_.memcpys.end);
    span(t_.memsets.start, t_.memsets.end);
    span(t_.apiCalls.start, t_.apiCalls.end);   // packed already: ends as durations
    span(t_.ranges.start, t_.ranges.importEnd); // unended ranges still hold end == start here
    if (lo > hi) lo = hi = 0;
    t_.captureStart = lo;
    t_.captureEnd = hi;
    // The importers' origin is the first time one of their workers read: the middle of the capture
    // instead, so that a trace's model is the same bytes whichever worker read first. Packed ends
    // are durations, whatever the origin.
    const TimeNs middle = lo + (hi - lo) / 2;
    auto rebase = [&](std::initializer_list<TimeColumn*> times) {
        if (times.begin()[0]->origin == middle || !TimeColumn::fits(lo, middle) ||
            !TimeColumn::fits(hi, middle))
            return;
        for (TimeColumn* c : times) {
            const TimeNs was = c->origin;
            for (auto& p : c->packed) p = TimeColumn::encode(was + TimeColumn::decode(p), middle);
            c->origin = middle;
        }
    };
    rebase({&t_.apiCalls.start});
    rebase({&t_.ranges.start}); // the ends are durations
}

void Assembler::indexRanges() {
    auto& r = t_.ranges;
    uint64_t unended = 0;
    for (size_t i = 0; i < r.size(); ++i)
        if (r.flags[i] & kUnended) {
            r.importEnd.set(i, std::max(t_.captureEnd, r.start[i]));
            ++unended;
        }
    if (unended) t_.report.add(Anomaly::UnendedRange, unended);

    // Group by thread (stable, so each thread keeps file order), then sort a thread's slice by
    // start, longer first, only when the file was not already in that order.
    const size_t threads = t_.threads.size();
    t_.threadRangeBegin.assign(threads + 1, 0);
    for (auto th : r.importThread) ++t_.threadRangeBegin[th.value + 1];
    std::partial_sum(t_.threadRangeBegin.begin(), t_.threadRangeBegin.end(),
                     t_.threadRangeBegin.begin());
    std::vector<uint32_t> perm(r.size());
    {
        std::vector<uint32_t> fill(t_.threadRangeBegin.begin(), t_.threadRangeBegin.end() - 1);
        for (uint32_t i = 0; i < r.size(); ++i) perm[fill[r.importThread[i].value]++] = i;
    }
    r.importThread = {}; // threadRangeBegin says it from here on
    auto before = [&](uint32_t a, uint32_t b) {
        return r.start[a] != r.start[b] ? r.start[a] < r.start[b] : r.importEnd[a] > r.importEnd[b];
    };
    for (size_t th = 0; th < threads; ++th) {
        auto first = perm.begin() + t_.threadRangeBegin[th],
             last = perm.begin() + t_.threadRangeBegin[th + 1];
        if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
    }
    // Source rows are packed straight from the permutation, so their column is not permuted
    // (nor held) at the peak the permutation makes.
    if (r.importSourceRow.empty() && in_.rangeSourceRows.size() == r.size()) {
        // Rows in the permutation's order mostly follow each other within a thread.
        RowRuns::Cursor kept(in_.rangeSourceRows);
        auto sourceOf = [&](size_t i) { return kept(perm[i]); };
        t_.rangeSourceRows = RowRuns::of(perm.size(), sourceOf);
    } else
        t_.rangeSourceRows = RowRuns::of(r.importSourceRow, perm);
    columns::release(r.importSourceRow);
    in_.rangeSourceRows = {};
    packRanges(r, perm, t_.rangeSourceRows, threads_); // the nesting below reads the packed ends
    columns::release(perm);
    r.depth.resize(r.size()); // written below (importers leave them empty)
    r.parent.back.resize(r.size());

    // Threads nest independently: split them over the workers (a PyTorch job has a main and an
    // autograd thread of similar size).
    std::vector<uint64_t> improperPerPart(threads_, 0);
    // Parents more than 65,534 rows up, per part: parts are consecutive threads, so their rows
    // come in order.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> farPerPart(threads_);
    parallelFor(threads, threads_, [&](size_t firstThread, size_t lastThread, unsigned part) {
        std::vector<uint32_t> stack;
        for (size_t th = firstThread; th < lastThread; ++th) {
            stack.clear();
            for (uint32_t i = t_.threadRangeBegin[th]; i < t_.threadRangeBegin[th + 1]; ++i) {
                // Only push/pop ranges nest; start/end ranges may overlap anything (they are found
                // by interval, Trace::threadStartEnd) and marks have no extent. Those hang under
                // the innermost push/pop range still open at their start.
                const bool pushPop = r.kind[i] == RangeKind::PushPop;
                while (!stack.empty() && (pushPop ? !(r.start[stack.back()] <= r.start[i] &&
                                                      r.end[i] <= r.end[stack.back()])
                                                  : r.end[stack.back()] < r.start[i])) {
                    if (pushPop && r.end[stack.back()] > r.start[i]) ++improperPerPart[part];
                    stack.pop_back();
                }
                r.depth[i] = static_cast<uint8_t>(std::min<size_t>(stack.size(), 255));
                const RangeId parent = stack.empty() ? RangeId() : RangeId(stack.back());
                r.parent.back[i] = BackRefColumn<RangeId>::code(i, parent);
                if (r.parent.back[i] == BackRefColumn<RangeId>::kFar)
                    farPerPart[part].emplace_back(i, parent.value);
                if (pushPop) stack.push_back(i);
            }
        }
    });
    const uint64_t improper =
        std::accumulate(improperPerPart.begin(), improperPerPart.end(), uint64_t(0));
    if (improper) t_.report.add(Anomaly::ImproperNesting, improper);
    r.parent.farRows.clear();
    r.parent.farIds.clear();
    for (const auto& far : farPerPart)
        for (const auto& [row, id] : far) {
            r.parent.farRows.push_back(row);
            r.parent.farIds.push_back(id);
        }
    indexStartEndRanges();
}

void Assembler::indexStartEndRanges() {
    const auto& r = t_.ranges;
    const size_t threads = t_.threads.size();
    auto& csr = t_.threadStartEnd;
    csr.offsets.assign(threads + 1, 0);
    csr.ids.clear();
    t_.startEndTree.clear();
    t_.startEndTreeBegin.assign(threads + 1, 0);
    for (uint32_t th = 0; th < threads; ++th) {
        const size_t begin = csr.ids.size();
        for (uint32_t i = t_.threadRangeBegin[th]; i < t_.threadRangeBegin[th + 1]; ++i)
            if (r.kind[i] == RangeKind::StartEnd) csr.ids.emplace_back(i); // already by start
        csr.offsets[th + 1] = static_cast<uint32_t>(csr.ids.size());
        const size_t count = csr.ids.size() - begin;
        t_.startEndTreeBegin[th] = static_cast<uint32_t>(t_.startEndTree.size());
        if (count == 0) continue;
        const size_t leaves = Trace::startEndTreeLeaves(count);
        std::vector<TimeNs> tree(2 * leaves, std::numeric_limits<TimeNs>::min());
        for (size_t j = 0; j < count; ++j) tree[leaves + j] = r.end[csr.ids[begin + j].value];
        for (size_t node = leaves - 1; node >= 1; --node)
            tree[node] = std::max(tree[2 * node], tree[2 * node + 1]);
        t_.startEndTree.insert(t_.startEndTree.end(), tree.begin(), tree.end());
    }
    t_.startEndTreeBegin[threads] = static_cast<uint32_t>(t_.startEndTree.size());
}

void Assembler::finishDevices() {
    t_.devices = std::move(in_.devices);
    for (const auto& s : t_.streams) {
        if (std::any_of(t_.devices.begin(), t_.devices.end(),
                        [&](const Device& d) { return d.id == s.device; }))
            continue;
        Device d;
        d.id = s.device;
        d.name = "GPU " + std::to_string(s.device);
        t_.devices.push_back(d);
    }
    std::sort(t_.devices.begin(), t_.devices.end(),
              [](const Device& a, const Device& b) { return a.id < b.id; });
}

void Assembler::run() {
    PhaseTimer timer(t_);
    // Each GPU table in start order with its streams first: that frees its importers' process,
    // device, context and stream columns (16 bytes an op) before the correlation index of the
    // API calls is built (8 bytes a call), which is the load's peak.
    auto orderGpuOps = [&](auto& c) {
        sortByStart(c);
        assignStreams(c);
    };
    orderGpuOps(t_.kernels);
    auto& k = t_.kernels;
    if (k.importGrid.size() == k.size() && k.importBlock.size() == k.size()) {
        k.grid = DictColumn<Dim3>::of<Dim3Hash>(k.importGrid, k.size());
        columns::release(k.importGrid);
        k.block = DictColumn<Dim3>::of<Dim3Hash>(k.importBlock, k.size());
        columns::release(k.importBlock);
    }
    // A trace has a few dozen distinct shared memory sizes: 2-byte codes from here on.
    for (auto [from, to] : {std::pair{&k.importStaticSmem, &k.staticSmem},
                            std::pair{&k.importDynamicSmem, &k.dynamicSmem},
                            std::pair{&k.importSmemConfig, &k.smemConfig}}) {
        if (from->size() != k.size()) continue; // a model built another way fills them itself
        *to = ValueDict16Column<uint32_t>::of(*from, k.size());
        columns::release(*from);
    }
    orderGpuOps(t_.memcpys);
    orderGpuOps(t_.memsets);
    timer.mark("gpu ops");
    dedupeApiCalls();
    packApiCalls(t_.apiCalls);
    timer.mark("api calls");
    correlate(t_.kernels);
    correlate(t_.memcpys);
    correlate(t_.memsets);
    timer.mark("correlation");
    finishMemoryEvents(t_, [&](ProcessId p, uint32_t id) { return callByCorrelation(p, id); });
    columns::release(apiByCorrelation_.entries);
    computeSpan();
    indexRanges();
    timer.mark("nvtx nesting");
    buildIndexes();
    finishDevices();
    t_.info = std::move(in_.info);
    timer.mark("indexes");
}

} // namespace

void assembleTrace(Trace& t, AssemblyInput input, unsigned threads) {
    Assembler(t, input, threads).run();
}

} // namespace ls
