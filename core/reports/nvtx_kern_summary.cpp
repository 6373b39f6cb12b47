#include "core/reports/nvtx_kern_summary.h"

#include "core/import/raw_text.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"
#include "core/model/text_sort.h"
#include "core/pytorch/correlation.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <tuple>
#include <utility>

namespace ls {

std::string_view rangeStyleName(RangeKind k) { return k == RangeKind::StartEnd ? "StartEnd" : "PushPop"; }

namespace {

// Threads ranked by (pid, tid): nsys orders a range's rows by them.
struct ThreadOrder {
    std::vector<uint32_t> byRank, rankOf;
    explicit ThreadOrder(const Trace& t) : byRank(t.threads.size()), rankOf(t.threads.size()) {
        std::iota(byRank.begin(), byRank.end(), 0u);
        auto key = [&](uint32_t i) { return std::make_pair(t.processes[t.threads[i].process.value].pid, t.threads[i].tid); };
        std::stable_sort(byRank.begin(), byRank.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
        for (uint32_t i = 0; i < byRank.size(); ++i) rankOf[byRank[i]] = i;
    }
};

// The ranges holding kernels, by id, and the kernels under each: a CSR.
struct HeldRanges {
    std::vector<RangeId> ranges;
    std::vector<uint32_t> begin, kernels;
};

// Positions into HeldRanges::ranges ordered by text; same[i] is 1 where text i equals i - 1's.
struct TextOrder {
    std::vector<uint32_t> order;
    std::vector<uint8_t> same;
};

// One group's durations and kernels become a row (a kernel under two ranges of one text counts once).
struct RowBuilder {
    std::vector<int64_t> durations;
    std::vector<uint32_t> kernels;
    void add(const Trace& t, uint32_t kernel) {
        durations.push_back(t.kernels.duration(kernel));
        kernels.push_back(kernel);
    }
    void finish(NvtxKernRow& row) {
        std::sort(kernels.begin(), kernels.end());
        row.kernelInstances = static_cast<uint64_t>(std::unique(kernels.begin(), kernels.end()) - kernels.begin());
        row.stats = durationStats(durations);
        durations.clear();
        kernels.clear();
    }
};

void setThread(const Trace& t, NvtxKernRow& row, uint32_t thread) {
    const Thread& th = t.threads[thread];
    row.pid = t.processes[th.process.value].pid;
    row.tid = th.tid;
}

bool byTotalThenName(const Trace& t, const NvtxKernRow& a, const NvtxKernRow& b) {
    if (a.stats.total != b.stats.total) return a.stats.total > b.stats.total;
    return t.str(a.kernel) < t.str(b.kernel);
}

// Kernels outside every range: one "None" row per launching thread and kernel name, first.
void emitKernelsOutsideRanges(const Trace& t, std::vector<uint32_t>& outside, const ThreadOrder& threads,
                              const std::function<void(const NvtxKernRow&)>& emit) {
    const auto& k = t.kernels;
    auto key = [&](uint32_t i) {
        const ApiCallId call = k.launch[i];
        // Kernels without a launch call (no pid, no tid) come before every thread.
        const uint32_t thread = call.valid() ? t.apiCalls.thread[call.value].value : UINT32_MAX;
        return std::make_tuple(thread == UINT32_MAX ? 0u : threads.rankOf[thread] + 1, thread, k.name[i].value);
    };
    std::sort(outside.begin(), outside.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    std::vector<NvtxKernRow> rows;
    RowBuilder group;
    for (size_t g = 0; g < outside.size();) {
        const auto groupKey = key(outside[g]);
        NvtxKernRow row;
        row.noRange = true;
        if (std::get<1>(groupKey) != UINT32_MAX) setThread(t, row, std::get<1>(groupKey));
        row.kernel = StringId(std::get<2>(groupKey));
        for (; g < outside.size() && key(outside[g]) == groupKey; ++g) group.add(t, outside[g]);
        group.finish(row);
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(), [&](const NvtxKernRow& a, const NvtxKernRow& b) {
        if (a.pid != b.pid) return a.pid < b.pid;
        if (a.tid != b.tid) return a.tid < b.tid;
        return byTotalThenName(t, a, b);
    });
    for (const auto& row : rows) emit(row);
}

// One text's kernels by thread, style and kernel name; then its rows by thread, total time
// descending and kernel name.
void makeRows(const Trace& t, const HeldRanges& held, const RawTexts& texts, const TextOrder& byText, const ThreadOrder& threads,
              const std::function<void(NvtxKernRow&&)>& keep) {
    const auto& k = t.kernels;
    struct Entry {
        uint32_t thread, name, range, kernel;
        RangeKind kind;
        auto key() const { return std::tie(thread, kind, name, range, kernel); }
    };
    std::vector<Entry> entries;
    std::vector<std::pair<uint32_t, NvtxKernRow>> rows; // thread rank, row
    RowBuilder group;
    std::string buffer;
    const auto& order = byText.order;
    for (size_t b = 0; b < order.size();) {
        const std::string_view text = texts.text(order[b], buffer);
        entries.clear();
        for (const size_t first = b; b < order.size() && (b == first || byText.same[b]); ++b) {
            const uint32_t h = order[b], range = held.ranges[h].value;
            for (uint32_t p = held.begin[h]; p < held.begin[h + 1]; ++p) {
                const uint32_t kernel = held.kernels[p];
                const uint32_t thread = t.apiCalls.thread[k.launch[kernel].value].value;
                entries.push_back({threads.rankOf[thread], k.name[kernel].value, range, kernel, t.ranges.kind[range]});
            }
        }
        std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.key() < y.key(); });
        rows.clear();
        for (size_t e = 0; e < entries.size();) {
            const Entry& first = entries[e];
            NvtxKernRow row;
            setThread(t, row, threads.byRank[first.thread]);
            row.range = text;
            row.style = rangeStyleName(first.kind);
            row.kernel = StringId(first.name);
            uint32_t lastRange = UINT32_MAX;
            for (; e < entries.size() && entries[e].thread == first.thread && entries[e].kind == first.kind && entries[e].name == first.name;
                 ++e) {
                if (entries[e].range != lastRange) ++row.rangeInstances; // sorted by range within the group
                lastRange = entries[e].range;
                group.add(t, entries[e].kernel);
            }
            group.finish(row);
            rows.emplace_back(first.thread, std::move(row));
        }
        std::stable_sort(rows.begin(), rows.end(), [&](const auto& x, const auto& y) {
            return x.first != y.first ? x.first < y.first : byTotalThenName(t, x.second, y.second);
        });
        for (auto& row : rows) keep(std::move(row.second));
    }
}

// Rows made on a helper thread while the calling thread hands them to `emit`, in order: making
// them and writing them cost about the same, and a 1M-kernel trace gives millions. At most a
// few batches wait at a time.
void emitInBatches(const std::function<void(const NvtxKernRow&)>& emit,
                   const std::function<void(const std::function<void(NvtxKernRow&&)>&)>& make) {
    struct Batch {
        std::vector<NvtxKernRow> rows;
        std::string texts; // the rows' range texts, one after another
    };
    constexpr size_t kRows = 4096, kWaiting = 4;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Batch> ready;
    bool made = false, stopped = false;
    std::exception_ptr failure;
    struct Stopped {}; // the caller stopped taking rows: making more is wasted
    auto hand = [&](Batch&& batch) {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return ready.size() < kWaiting || stopped; });
        if (stopped) throw Stopped{};
        ready.push_back(std::move(batch));
        changed.notify_all();
    };
    std::jthread maker([&] {
        try {
            Batch batch;
            make([&](NvtxKernRow&& row) {
                batch.texts += row.range;
                batch.rows.push_back(std::move(row));
                if (batch.rows.size() == kRows) hand(std::exchange(batch, Batch{}));
            });
            hand(std::move(batch));
        } catch (const Stopped&) {
        } catch (...) {
            failure = std::current_exception();
        }
        std::lock_guard lock(mutex);
        made = true;
        changed.notify_all();
    });
    struct StopMaker { // if emit throws, the maker must stop rather than wait for room forever
        std::mutex& mutex;
        std::condition_variable& changed;
        bool& stopped;
        ~StopMaker() {
            std::lock_guard lock(mutex);
            stopped = true;
            changed.notify_all();
        }
    } stopMaker{mutex, changed, stopped};
    for (;;) {
        Batch batch;
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return !ready.empty() || made; });
            if (ready.empty()) break;
            batch = std::move(ready.front());
            ready.pop_front();
            changed.notify_all();
        }
        // Texts were appended as the batch grew, and a short one lives inside the string: point
        // the rows at them only now that the batch stays put.
        size_t offset = 0;
        for (auto& row : batch.rows) {
            const size_t size = row.range.size();
            row.range = std::string_view(batch.texts).substr(offset, size);
            offset += size;
        }
        for (const auto& row : batch.rows) emit(row);
    }
    if (failure) std::rethrow_exception(failure);
}

} // namespace

void nvtxKernelSummary(const Trace& t, const std::function<void(const NvtxKernRow&)>& emit) {
    const auto& k = t.kernels;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const ThreadOrder threads(t);

    // The kernels under each range of their launch stacks, as a CSR over the ranges holding any
    // (sorted (range, kernel) pairs first). Rows are made one range text at a time from it and
    // written as they are made, never held: op_id makes nearly every PyTorch marker its own
    // group, millions of them.
    HeldRanges held;
    {
        std::vector<uint64_t> pairs;
        std::vector<uint32_t> outside;
        for (uint32_t i = 0; i < k.size(); ++i) {
            const auto stack = rangesContaining(t, k.launch[i]);
            if (stack.empty()) outside.push_back(i);
            for (RangeId j : stack) pairs.push_back(uint64_t(j.value) << 32 | i);
        }
        emitKernelsOutsideRanges(t, outside, threads, emit);
        columns::release(outside);
        parallelSort(pairs.begin(), pairs.end(), cores, std::less<>());
        held.kernels.reserve(pairs.size());
        for (size_t p = 0; p < pairs.size(); ++p) {
            const auto range = static_cast<uint32_t>(pairs[p] >> 32);
            if (held.ranges.empty() || held.ranges.back().value != range) {
                held.ranges.emplace_back(range);
                held.begin.push_back(static_cast<uint32_t>(p));
            }
            held.kernels.push_back(static_cast<uint32_t>(pairs[p]));
        }
        held.begin.push_back(static_cast<uint32_t>(pairs.size()));
    }

    // The texts of those ranges, read in one pass and ordered by their bytes: ranges of equal
    // text form one group, as in nsys.
    const RawTexts texts(t, held.ranges, cores);
    TextOrder byText;
    byText.order.resize(held.ranges.size());
    std::iota(byText.order.begin(), byText.order.end(), 0u);
    byText.same = sortByText(byText.order, [&](uint32_t i) {
        thread_local std::string buffer; // a view is used before the next call on its thread
        return texts.text(i, buffer);
    }, cores);

    emitInBatches(emit, [&](const std::function<void(NvtxKernRow&&)>& keep) { makeRows(t, held, texts, byText, threads, keep); });
}

} // namespace ls
