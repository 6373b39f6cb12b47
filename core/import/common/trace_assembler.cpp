#include "core/import/common/trace_assembler.h"

#include "core/import/common/correlation_index.h"
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
    StreamId streamOf(const Stream& s); // the trace's stream, numbered as first met
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
    CorrelationIndex apiByCorrelation_; // calls by (process bucket, correlation id)
    void indexApiCalls(const RowFlags* backtrace);
    // hint: as CorrelationIndex::find's, one per caller walking ops in start order.
    ApiCallId callByCorrelation(ProcessId p, uint32_t id, size_t& hint) const;
    ApiCallId callByCorrelation(ProcessId p, uint32_t id) const {
        size_t hint = SIZE_MAX;
        return callByCorrelation(p, id, hint);
    }
    uint32_t bucketOf(ProcessId p) const {
        return p.valid() && p.value < t_.processes.size()
                   ? p.value
                   : static_cast<uint32_t>(t_.processes.size());
    }
};

void Assembler::indexApiCalls(const RowFlags* backtrace) {
    const auto& a = t_.apiCalls;
    apiByCorrelation_.build(
        a.size(), t_.processes.size() + 1, // the last bucket for calls of no known process
        [&](uint32_t i) { return bucketOf(t_.threads[a.importThread[i].value].process); },
        [&](uint32_t i) { return a.importCorrelation[i]; },
        [&](uint32_t i) { return backtrace && i < backtrace->size() && (*backtrace)[i]; });
}

ApiCallId Assembler::callByCorrelation(ProcessId p, uint32_t id, size_t& hint) const {
    const auto& a = t_.apiCalls;
    const bool packed = a.importCorrelation.empty();
    const uint32_t row = apiByCorrelation_.find(
        bucketOf(p), id,
        [&](uint32_t i) { return packed ? a.correlationOf(i) : a.importCorrelation[i]; }, hint);
    return row == CorrelationIndex::kNone ? ApiCallId() : ApiCallId(row);
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
    in_.apiIsBacktrace.clear();
    const uint64_t duplicates = apiByCorrelation_.duplicateCount();
    // No row moves: the index is final.
    if (!duplicates && std::is_sorted(a.start.begin(), a.start.end())) return;
    const RowFlags dropped = apiByCorrelation_.takeDuplicates();
    apiByCorrelation_.clear();
    if (duplicates) {
        t_.report.add(Anomaly::DuplicateRuntimeRow, duplicates, "CUPTI_ACTIVITY_KIND_RUNTIME");
        struct Kept {
            const RowFlags& dropped;
            bool operator[](size_t i) const { return !dropped[i]; }
        };
        columns::compact(a, Kept{dropped});
    }
    sortByStart(a);
    indexApiCalls(nullptr);
}

StreamId Assembler::streamOf(const Stream& s) {
    auto [it, inserted] =
        streamByKey_.try_emplace(std::make_tuple(s.process.value, s.device, s.context, s.stream),
                                 static_cast<uint32_t>(t_.streams.size()));
    if (inserted) t_.streams.push_back(s);
    return it->second;
}

void Assembler::assignStreams(GpuOpColumns& c) {
    if (!c.importStreams.empty()) { // streamIndex holds indexes into importStreams
        std::vector<StreamId> ids(c.importStreams.size());
        for (size_t i = 0; i < c.size(); ++i) {
            const uint32_t code = c.streamIndex[i].value;
            if (!ids[code].valid()) ids[code] = streamOf(c.importStreams[code]);
            c.streamIndex[i] = ids[code];
        }
        std::vector<Stream>().swap(c.importStreams);
        return;
    }
    c.streamIndex.resize(c.size()); // importers may leave it empty
    for (size_t i = 0; i < c.size(); ++i)
        c.streamIndex[i] = streamOf(
            {c.importProcess[i], c.importDevice[i], c.importContext[i], c.importStream[i]});
    // The stream says them from here on (Trace::streamOf).
    columns::release(c.importProcess);
    columns::release(c.importDevice);
    columns::release(c.importContext);
    columns::release(c.importStream);
}

void Assembler::correlate(GpuOpColumns& c) {
    // A search per row, each from where the last ended (ids rise nearly with the starts): the
    // rows split over the workers.
    const unsigned parts = c.size() >= kParallelRows ? std::max(1u, threads_) : 1;
    std::vector<uint64_t> orphansPerPart(parts, 0);
    if (c.launch.size() != c.size()) c.launch.assign(c.size(), ApiCallId()); // may be empty
    parallelFor(c.size(), parts, [&](size_t from, size_t to, unsigned part) {
        size_t hint = SIZE_MAX;
        for (size_t i = from; i < to; ++i) {
            const ApiCallId call =
                callByCorrelation(t_.streamOf(c, i).process, c.correlation[i], hint);
            if (call.valid())
                c.launch[i] = call;
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
    // The GPU ops and the calls are in start order by now: their first rows start first.
    auto gpuOps = [&](const GpuOpColumns& c) {
        if (c.start.empty()) return;
        lo = std::min(lo, c.start.front());
        hi = std::max(hi, *std::max_element(c.end.begin(), c.end.end()));
    };
    gpuOps(t_.kernels);
    gpuOps(t_.memcpys);
    gpuOps(t_.memsets);
    const auto& a = t_.apiCalls; // packed already: ends as durations
    const auto& r = t_.ranges;   // not yet in start order; unended ranges end at their start here
    const unsigned parts = a.size() + r.size() >= kParallelRows ? std::max(1u, threads_) : 1;
    std::vector<TimeNs> los(parts, lo), his(parts, hi);
    if (!a.start.empty()) los[0] = std::min(lo, a.start.front());
    parallelFor(a.size(), parts, [&](size_t first, size_t last, unsigned part) {
        for (size_t i = first; i < last; ++i) his[part] = std::max(his[part], a.end[i]);
    });
    // Rows in parallel pieces, each start decoded once with its import duration.
    parallelFor(r.size(), parts, [&](size_t first, size_t last, unsigned part) {
        TimeNs l = los[part], h = his[part];
        for (size_t i = first; i < last; ++i) {
            const TimeNs s = r.start[i];
            l = std::min(l, s);
            h = std::max(h, s + r.importEnd.duration(i));
        }
        los[part] = l;
        his[part] = h;
    });
    lo = *std::min_element(los.begin(), los.end());
    hi = *std::max_element(his.begin(), his.end());
    if (lo > hi) lo = hi = 0;
    t_.captureStart = lo;
    t_.captureEnd = hi;
}

void Assembler::indexRanges() {
    auto& r = t_.ranges;
    uint64_t unended = 0;
    for (size_t i = 0; i < r.size(); ++i)
        if (r.importFlags[i] & kUnended) {
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
    Column<uint32_t> perm = unwrittenColumn<uint32_t>(r.size()); // every row written below
    std::vector<uint32_t> fill(t_.threadRangeBegin.begin(), t_.threadRangeBegin.end() - 1);
    // Whether each thread's rows, in file order, are in order already (by start, longer first):
    // checked as they are placed, from the rows read in file order, not gathered afterwards.
    struct Last {
        TimeNs start = std::numeric_limits<TimeNs>::min(), end = 0;
        bool inOrder = true;
    };
    std::vector<Last> last(threads);
    auto place = [&](uint32_t i, uint32_t thread) {
        perm[fill[thread]++] = i;
        const TimeNs start = r.start[i], end = start + r.importEnd.duration(i);
        Last& l = last[thread];
        if (start < l.start || (start == l.start && end > l.end)) l.inOrder = false;
        l.start = start;
        l.end = end;
    };
    {
        // The threads' pages go back to the system as they are read: the permutation's pages
        // are faulted in meanwhile, and the two are not both whole at this step of the peak.
        auto& th = r.importThread;
        if (th.wide.empty()) {
            column_memory::ReadOnce pages(th.code);
            for (uint32_t i = 0; i < r.size(); ++i) {
                place(i, th.distinct[th.code[i]]);
                pages.readThrough(i);
            }
        } else {
            for (uint32_t i = 0; i < r.size(); ++i) place(i, th.wide[i].value);
        }
    }
    r.importThread = {}; // threadRangeBegin says it from here on
    auto before = [&](uint32_t a, uint32_t b) {
        return r.start[a] != r.start[b] ? r.start[a] < r.start[b] : r.importEnd[a] > r.importEnd[b];
    };
    for (size_t th = 0; th < threads; ++th) {
        auto first = perm.begin() + t_.threadRangeBegin[th],
             end = perm.begin() + t_.threadRangeBegin[th + 1];
        if (!last[th].inOrder) std::stable_sort(first, end, before);
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
    Column<uint8_t> depth(r.size()); // packed into the shape with the kinds and flags below
    r.parent.back.resize(r.size());

    // Threads nest independently: split them over the workers (a PyTorch job has a main and an
    // autograd thread of similar size).
    std::vector<uint64_t> improperPerPart(threads_, 0);
    // Parents more than 65,534 rows up, per part: parts are consecutive threads, so their rows
    // come in order.
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> farPerPart(threads_);
    parallelFor(threads, threads_, [&](size_t firstThread, size_t lastThread, unsigned part) {
        struct Open { // a push/pop range still open, its times decoded once
            uint32_t row;
            TimeNs start, end;
        };
        std::vector<Open> stack;
        for (size_t th = firstThread; th < lastThread; ++th) {
            stack.clear();
            for (uint32_t i = t_.threadRangeBegin[th]; i < t_.threadRangeBegin[th + 1]; ++i) {
                // Only push/pop ranges nest; start/end ranges may overlap anything (they are found
                // by interval, Trace::threadStartEnd) and marks have no extent. Those hang under
                // the innermost push/pop range still open at their start.
                const bool pushPop = r.importKind[i] == RangeKind::PushPop;
                const TimeNs start = r.start[i], end = r.end[i];
                while (!stack.empty() &&
                       (pushPop ? !(stack.back().start <= start && end <= stack.back().end)
                                : stack.back().end < start)) {
                    if (pushPop && stack.back().end > start) ++improperPerPart[part];
                    stack.pop_back();
                }
                depth[i] = static_cast<uint8_t>(std::min<size_t>(stack.size(), 255));
                const RangeId parent = stack.empty() ? RangeId() : RangeId(stack.back().row);
                r.parent.back[i] = BackRefColumn<RangeId>::code(i, parent);
                if (r.parent.back[i] == BackRefColumn<RangeId>::kFar)
                    farPerPart[part].emplace_back(i, parent.value);
                if (pushPop) stack.push_back({i, start, end});
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
    r.shape = RangeShapeColumn::of(r.importKind, r.importFlags, depth, r.size());
    columns::release(r.importKind);
    columns::release(r.importFlags);
    columns::release(depth);
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
    apiByCorrelation_.clear();
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
