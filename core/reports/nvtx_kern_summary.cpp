#include "core/reports/nvtx_kern_summary.h"

#include "core/import/common/raw_text.h"
#include "core/model/columns.h"
#include "core/model/in_order.h"
#include "core/model/parallel.h"
#include "core/model/text_sort.h"
#include "core/pytorch/correlation.h"

#include <algorithm>
#include <numeric>
#include <thread>
#include <tuple>
#include <utility>

namespace ls {

std::string_view rangeStyleName(RangeKind k) {
    return k == RangeKind::StartEnd ? "StartEnd" : "PushPop";
}

namespace {

// Threads ranked by (pid, tid): nsys orders a range's rows by them.
struct ThreadOrder {
    std::vector<uint32_t> byRank, rankOf;
    explicit ThreadOrder(const Trace& t) : byRank(t.threads.size()), rankOf(t.threads.size()) {
        std::iota(byRank.begin(), byRank.end(), 0u);
        auto key = [&](uint32_t i) {
            return std::make_pair(t.processes[t.threads[i].process.value].pid, t.threads[i].tid);
        };
        std::stable_sort(byRank.begin(), byRank.end(),
                         [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
        for (uint32_t i = 0; i < byRank.size(); ++i) rankOf[byRank[i]] = i;
    }
};

// The ranges holding kernels, by id, and the kernels under each: a CSR. What makeRows needs of
// each kernel is gathered next to it in one pass: read there, in text order, each kernel's
// launch thread, name and duration would be cache misses one after another.
struct HeldRanges {
    std::vector<RangeId> ranges;
    std::vector<uint32_t> begin, kernels;
    std::vector<uint32_t> threadRank, name; // per kernel entry
    std::vector<int64_t> duration;
};

// Positions into HeldRanges::ranges ordered by text; same[i] is 1 where text i equals i - 1's.
struct TextOrder {
    std::vector<uint32_t> order;
    std::vector<uint8_t> same;
};

// One group's durations and kernels become a row (a kernel under two ranges of one text counts
// once).
struct RowBuilder {
    std::vector<int64_t> durations;
    std::vector<uint32_t> kernels;
    void add(int64_t duration, uint32_t kernel) {
        durations.push_back(duration);
        kernels.push_back(kernel);
    }
    void finish(NvtxKernRow& row) {
        std::sort(kernels.begin(), kernels.end());
        row.kernelInstances =
            static_cast<uint64_t>(std::unique(kernels.begin(), kernels.end()) - kernels.begin());
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

template <typename T> std::vector<T> joined(std::vector<std::vector<T>>& parts) {
    std::vector<T> all;
    size_t n = 0;
    for (const auto& p : parts) n += p.size();
    all.reserve(n);
    for (auto& p : parts) {
        all.insert(all.end(), p.begin(), p.end());
        columns::release(p);
    }
    return all;
}

bool byTotalThenName(const Trace& t, const NvtxKernRow& a, const NvtxKernRow& b) {
    if (a.stats.total != b.stats.total) return a.stats.total > b.stats.total;
    return t.str(a.kernel) < t.str(b.kernel);
}

// Kernels outside every range: one "None" row per launching thread and kernel name, first.
void emitKernelsOutsideRanges(const Trace& t, std::vector<uint32_t>& outside,
                              const ThreadOrder& threads,
                              const std::function<void(const NvtxKernRow&)>& emit) {
    const auto& k = t.kernels;
    auto key = [&](uint32_t i) {
        const ApiCallId call = k.launch[i];
        // Kernels without a launch call (no pid, no tid) come before every thread.
        const uint32_t thread = call.valid() ? t.apiCalls.thread[call.value].value : UINT32_MAX;
        return std::make_tuple(thread == UINT32_MAX ? 0u : threads.rankOf[thread] + 1, thread,
                               k.name[i].value);
    };
    std::sort(outside.begin(), outside.end(),
              [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    std::vector<NvtxKernRow> rows;
    RowBuilder group;
    for (size_t g = 0; g < outside.size();) {
        const auto groupKey = key(outside[g]);
        NvtxKernRow row;
        row.noRange = true;
        if (std::get<1>(groupKey) != UINT32_MAX) setThread(t, row, std::get<1>(groupKey));
        row.kernel = StringId(std::get<2>(groupKey));
        for (; g < outside.size() && key(outside[g]) == groupKey; ++g)
            group.add(k.duration(outside[g]), outside[g]);
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
void makeRows(const Trace& t, const HeldRanges& held, const RawTexts& texts,
              const TextOrder& byText, const ThreadOrder& threads, size_t from, size_t to,
              const NvtxKernRowSink& keep) {
    struct Entry {
        uint32_t thread, name, range, kernel;
        RangeKind kind;
        int64_t duration;
        auto key() const { return std::tie(thread, kind, name, range, kernel); }
    };
    std::vector<Entry> entries;
    std::vector<std::pair<uint32_t, NvtxKernRow>> rows; // thread rank, row
    RowBuilder group;
    std::string buffer;
    const auto& order = byText.order;
    // Texts and their kernels are asked of memory ahead of their reading (text order is no order
    // in memory): where they are 16 texts ahead, the fields, bytes and kernels 8 ahead.
    constexpr size_t kAhead = 8;
    auto locate = [&](size_t at) {
        if (at >= to) return;
        texts.prefetchLocation(order[at]);
        __builtin_prefetch(&held.begin[order[at]]);
    };
    auto fetch = [&](size_t at) {
        if (at >= to) return;
        const uint32_t h = order[at], p = held.begin[h];
        texts.prefetchText(h);
        __builtin_prefetch(t.ranges.shape.rowAddress(held.ranges[h].value));
        __builtin_prefetch(&held.threadRank[p]);
        __builtin_prefetch(&held.name[p]);
        __builtin_prefetch(&held.kernels[p]);
        __builtin_prefetch(&held.duration[p]);
    };
    for (size_t b = from; b < from + 2 * kAhead; ++b) locate(b);
    for (size_t b = from; b < from + kAhead; ++b) fetch(b);
    for (size_t b = from; b < to;) {
        locate(b + 2 * kAhead);
        fetch(b + kAhead);
        const std::string_view text = texts.text(order[b], buffer);
        entries.clear();
        for (const size_t first = b; b < to && (b == first || byText.same[b]); ++b) {
            const uint32_t h = order[b], range = held.ranges[h].value;
            const RangeKind kind = t.ranges.kind[range];
            for (uint32_t p = held.begin[h]; p < held.begin[h + 1]; ++p)
                entries.push_back({held.threadRank[p], held.name[p], range, held.kernels[p], kind,
                                   held.duration[p]});
        }
        std::sort(entries.begin(), entries.end(),
                  [](const Entry& x, const Entry& y) { return x.key() < y.key(); });
        rows.clear();
        for (size_t e = 0; e < entries.size();) {
            const Entry& first = entries[e];
            NvtxKernRow row;
            setThread(t, row, threads.byRank[first.thread]);
            row.range = text;
            row.style = rangeStyleName(first.kind);
            row.kernel = StringId(first.name);
            uint32_t lastRange = UINT32_MAX;
            for (; e < entries.size() && entries[e].thread == first.thread &&
                   entries[e].kind == first.kind && entries[e].name == first.name;
                 ++e) {
                if (entries[e].range != lastRange)
                    ++row.rangeInstances; // sorted by range within the group
                lastRange = entries[e].range;
                group.add(entries[e].duration, entries[e].kernel);
            }
            group.finish(row);
            rows.emplace_back(first.thread, std::move(row));
        }
        std::stable_sort(rows.begin(), rows.end(), [&](const auto& x, const auto& y) {
            return x.first != y.first ? x.first < y.first : byTotalThenName(t, x.second, y.second);
        });
        for (const auto& row : rows) keep(row.second);
    }
}

// Positions where the parts of the text order start, and its end: a part ends where a text does.
std::vector<size_t> partBounds(const TextOrder& byText, size_t partTexts) {
    const size_t n = byText.order.size();
    partTexts = std::max<size_t>(partTexts, 1);
    std::vector<size_t> bounds{0};
    for (size_t b = partTexts; b < n; b += partTexts) {
        while (b < n && byText.same[b]) ++b; // equal texts stay in one part
        if (b < n && b > bounds.back()) bounds.push_back(b);
    }
    bounds.push_back(n);
    return bounds;
}

} // namespace

void nvtxKernelSummary(const Trace& t, const std::function<void(const NvtxKernRow&)>& emit) {
    nvtxKernelSummary(t, emit, kNvtxKernPartTexts);
}

// Rows made in parts on every core while the calling thread hands them to `emit`, in order:
// making them costs twice what writing them does, and a 1M-kernel trace gives millions. A few
// parts wait at a time.
void nvtxKernelSummary(const Trace& t, const std::function<void(const NvtxKernRow&)>& emit,
                       size_t partTexts) {
    struct Part {
        std::vector<NvtxKernRow> rows;
        std::string texts; // the rows' range texts, one after another
    };
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    nvtxKernelSummaryInParts(t, partTexts, [&](size_t count, const auto& make) {
        makeInOrder<Part>(
            count, cores, 2 * size_t(cores),
            [&](size_t p, Part& part) {
                part.rows.clear();
                part.texts.clear();
                make(p, [&](const NvtxKernRow& row) {
                    part.texts += row.range;
                    part.rows.push_back(row);
                });
            },
            [&](Part& part) {
                // Texts were appended as the part grew, and a short one lives inside the string:
                // point the rows at them only now that the part stays put.
                size_t offset = 0;
                for (auto& row : part.rows) {
                    const size_t size = row.range.size();
                    row.range = std::string_view(part.texts).substr(offset, size);
                    offset += size;
                }
                for (const auto& row : part.rows) emit(row);
            });
    });
}

void nvtxKernelSummaryInParts(const Trace& t, size_t partTexts, const NvtxKernParts& parts) {
    const auto& k = t.kernels;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const ThreadOrder threads(t);

    // The kernels under each range of their launch stacks, as a CSR over the ranges holding any
    // (sorted (range, kernel) pairs first). Rows are made one range text at a time from it and
    // written as they are made, never held: op_id makes nearly every PyTorch marker its own
    // group, millions of them.
    HeldRanges held;
    std::vector<uint32_t> outside; // kernels outside every range
    {
        // Each core walks the stacks of its share of the kernels; the shares are joined in order.
        std::vector<std::vector<uint64_t>> pairsOf(cores);
        std::vector<std::vector<uint32_t>> outsideOf(cores);
        parallelFor(k.size(), cores, [&](size_t from, size_t to, unsigned part) {
            for (size_t i = from; i < to; ++i) {
                const auto stack = rangesContaining(t, t.contextCall(i)); // graph: the capture
                if (stack.empty()) outsideOf[part].push_back(static_cast<uint32_t>(i));
                for (RangeId j : stack) pairsOf[part].push_back(uint64_t(j.value) << 32 | i);
            }
        });
        std::vector<uint64_t> pairs = joined(pairsOf);
        outside = joined(outsideOf);
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
        columns::release(pairs);
        const size_t n = held.kernels.size();
        held.threadRank.resize(n);
        held.name.resize(n);
        held.duration.resize(n);
        parallelFor(n, cores, [&](size_t from, size_t to, unsigned) {
            for (size_t p = from; p < to; ++p) {
                const uint32_t kernel = held.kernels[p];
                held.threadRank[p] =
                    threads.rankOf[t.apiCalls.thread[t.contextCall(kernel).value].value];
                held.name[p] = k.name[kernel].value;
                held.duration[p] = k.duration(kernel);
            }
        });
    }

    // The texts of those ranges, read in one pass and ordered by their bytes: ranges of equal
    // text form one group, as in nsys.
    const RawTexts texts(t, held.ranges, cores);

    TextOrder byText;
    byText.order.resize(held.ranges.size());
    std::iota(byText.order.begin(), byText.order.end(), 0u);
    // Keyed 16 bytes at a time from the texts' pieces: a marker's text is not rebuilt whole
    // each time the sort looks further into it.
    byText.same = sortBySlices(
        byText.order,
        [&](uint32_t i, size_t from, char* out) {
            size_t size = 0;
            const size_t got = texts.slice(i, from, out, kTextSortSlice, size);

            return std::pair(got, size);
        },
        cores);

    // Part 0 is the kernels outside every range, which come first.
    const std::vector<size_t> bounds = partBounds(byText, partTexts);
    parts(bounds.size(), [&](size_t p, const NvtxKernRowSink& row) {
        if (p == 0) return emitKernelsOutsideRanges(t, outside, threads, row);
        makeRows(t, held, texts, byText, threads, bounds[p - 1], bounds[p], row);
    });
}

} // namespace ls
