#include "core/reports/nvtx_gpu_projection.h"

#include "core/import/common/raw_text.h"
#include "core/model/parallel.h"
#include "core/model/range_threads.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <thread>
#include <tuple>

namespace ls {
namespace nvtx_projection_detail {

constexpr uint32_t kNoRange = std::numeric_limits<uint32_t>::max();

class Projector {
  public:
    explicit Projector(const Trace& t)
        : t_(t), r_(t.ranges), sourceRow_(t.rangeSourceRows.expand()) {}
    void run();
    // The ranges with GPU operations, by rowid, and the row of the i-th.
    const std::vector<RangeId>& ranges() const { return withOps_; }
    NvtxProjectionRow row(size_t i, std::string& stack) const;

  private:
    bool counts(uint32_t i) const {
        return r_.kind[i] != RangeKind::Mark && !(r_.flags[i] & kEndsOnOtherThread);
    }
    TimeNs end(uint32_t i) const { return (r_.flags[i] & kUnended) ? lastNvtx_ : r_.end[i]; }
    void collectLaunches();
    std::vector<uint32_t> threadRanges(uint32_t thread) const;
    void findParents(const std::vector<uint32_t>& order);
    void project(uint32_t thread, const std::vector<uint32_t>& order);
    void findLevels(uint32_t from, uint32_t to);
    void countChildren(uint32_t from, uint32_t to);
    void stackOf(uint32_t i, std::string& out) const;

    const Trace& t_;
    const RangeColumns& r_;
    const std::vector<uint32_t> sourceRow_; // unpacked: the sorts below compare it row after row
    TimeNs lastNvtx_ = std::numeric_limits<TimeNs>::min();
    // Per API call: the span of the GPU operations it launched (first start > last end: none).
    std::vector<TimeNs> opStart_, opEnd_;
    // Per range (8M on a 1M-kernel trace, 260 MB): allocated unset and each thread's share set by
    // its own task (initRanges), so that fresh pages are faulted in on every core, not one.
    template <typename T> using PerRange = std::unique_ptr<T[]>;
    void initRanges(uint32_t from, uint32_t to);
    PerRange<uint32_t> parent_;
    PerRange<int32_t> level_;  // -1: in or under a parent cycle
    PerRange<uint32_t> ops_;   // launch calls: ids are 32-bit
    PerRange<uint8_t> onPath_; // findLevels' walk
    PerRange<TimeNs> projStart_, projEnd_;
    PerRange<uint32_t> children_;
    std::vector<RangeId> withOps_;
};

void Projector::collectLaunches() {
    opStart_.assign(t_.apiCalls.size(), std::numeric_limits<TimeNs>::max());
    opEnd_.assign(t_.apiCalls.size(), std::numeric_limits<TimeNs>::min());
    auto add = [&](const GpuOpColumns& g) {
        for (size_t i = 0; i < g.size(); ++i) {
            const ApiCallId c = g.launch[i];
            if (!c.valid() || c.value >= opStart_.size())
                continue; // no runtime row: nsys's join drops it too
            opStart_[c.value] = std::min(opStart_[c.value], g.start[i]);
            opEnd_[c.value] = std::max(opEnd_[c.value], g.end[i]);
        }
    };
    add(t_.kernels);
    add(t_.memcpys);
    add(t_.memsets);
}

// The thread's counted ranges by start, longer first, then rowid (the model's order already,
// mostly: then no sort is needed).
std::vector<uint32_t> Projector::threadRanges(uint32_t thread) const {
    std::vector<uint32_t> out;
    for (uint32_t i = t_.threadRangeBegin[thread]; i < t_.threadRangeBegin[thread + 1]; ++i)
        if (counts(i)) out.push_back(i);
    auto before = [&](uint32_t a, uint32_t b) {
        return std::make_tuple(r_.start[a], -end(a), sourceRow_[a]) <
               std::make_tuple(r_.start[b], -end(b), sourceRow_[b]);
    };
    if (!std::is_sorted(out.begin(), out.end(), before)) std::sort(out.begin(), out.end(), before);
    return out;
}

// The parent of each range: the shortest other range of the thread that contains it (nsys's
// minimum "tightness", which is the parent's duration less the child's). A sweep by start keeps
// the ranges still open, usually as few as the nesting is deep.
void Projector::findParents(const std::vector<uint32_t>& order) {
    std::vector<uint32_t> open;
    for (size_t n = 0; n < order.size(); ++n) {
        const uint32_t c = order[n];
        const TimeNs cs = r_.start[c], ce = end(c);
        std::erase_if(open, [&](uint32_t x) { return end(x) < cs; });
        uint32_t best = kNoRange;
        auto consider = [&](uint32_t x) {
            if (end(x) < ce) return;
            if (best == kNoRange) {
                best = x;
                return;
            }
            // Ties are SQLite's pick in nsys; ours: the later start, then the lower rowid.
            const auto key = [&](uint32_t y) {
                return std::make_tuple(end(y) - r_.start[y], -r_.start[y], sourceRow_[y]);
            };
            if (key(x) < key(best)) best = x;
        };
        for (uint32_t x : open) consider(x);
        // Identical ranges later in the order contain c as well.
        for (size_t m = n + 1; m < order.size() && r_.start[order[m]] == cs && end(order[m]) == ce;
             ++m)
            consider(order[m]);
        parent_[c] = best;
        open.push_back(c);
    }
}

// Every GPU operation's launch call lies in the ranges of its thread that contain the call.
void Projector::project(uint32_t thread, const std::vector<uint32_t>& order) {
    const auto [first, last] = t_.threadApiCalls.of(ThreadId(thread));
    std::vector<uint32_t> open;
    size_t next = 0;
    for (auto it = first; it != last; ++it) {
        const uint32_t c = it->value;
        if (opStart_[c] > opEnd_[c]) continue; // launched nothing
        const TimeNs cs = t_.apiCalls.start[c], ce = t_.apiCalls.end[c];
        while (next < order.size() && r_.start[order[next]] <= cs) open.push_back(order[next++]);
        std::erase_if(open, [&](uint32_t x) { return end(x) < cs; });
        for (uint32_t x : open) {
            if (end(x) < ce) continue;
            ++ops_[x];
            projStart_[x] = std::min(projStart_[x], opStart_[c]);
            projEnd_[x] = std::max(projEnd_[x], opEnd_[c]);
        }
    }
}

constexpr int32_t kUnknownLevel = -2, kCycle = -1;

// Levels of ranges [from, to) from the roots down; a parent chain that loops never reaches a
// root. A parent is a range of the same thread: threads' walks touch disjoint entries.
void Projector::findLevels(uint32_t from, uint32_t to) {
    std::vector<uint32_t> path;
    uint8_t* onPath = onPath_.get();
    for (uint32_t i = from; i < to; ++i) {
        if (!counts(i) || level_[i] != kUnknownLevel) continue;
        path.clear();
        bool reachable = true;
        int32_t above =
            -1; // the level of the range above the path's outermost one (-1: it is a root)
        for (uint32_t x = i;;) {
            if (level_[x] != kUnknownLevel || onPath[x]) { // known, or a loop
                reachable = !onPath[x] && level_[x] != kCycle;
                above = level_[x];
                break;
            }
            onPath[x] = 1;
            path.push_back(x);
            if (parent_[x] == kNoRange) break;
            x = parent_[x];
        }
        for (size_t k = path.size(); k-- > 0;) {
            onPath[path[k]] = 0;
            level_[path[k]] = reachable ? ++above : kCycle;
        }
    }
}

void Projector::initRanges(uint32_t from, uint32_t to) {
    std::fill(parent_.get() + from, parent_.get() + to, kNoRange);
    std::fill(ops_.get() + from, ops_.get() + to, 0u);
    std::fill(projStart_.get() + from, projStart_.get() + to, std::numeric_limits<TimeNs>::max());
    std::fill(projEnd_.get() + from, projEnd_.get() + to, std::numeric_limits<TimeNs>::min());
    std::fill(level_.get() + from, level_.get() + to, kUnknownLevel);
    std::fill(onPath_.get() + from, onPath_.get() + to, uint8_t(0));
    std::fill(children_.get() + from, children_.get() + to, 0u);
}

void Projector::countChildren(uint32_t from, uint32_t to) {
    for (uint32_t i = from; i < to; ++i)
        if (ops_[i] && parent_[i] != kNoRange) ++children_[parent_[i]];
}

// ":2:3:4": rowids from the outermost range down to i.
void Projector::stackOf(uint32_t i, std::string& out) const {
    out.clear();
    char digits[16];
    for (uint32_t x = i; x != kNoRange; x = parent_[x]) {
        const size_t n = static_cast<size_t>(
            std::to_chars(digits, digits + sizeof digits, sourceRow_[x]).ptr - digits);
        out.insert(0, digits, n);
        out.insert(out.begin(), ':');
    }
}

void Projector::run() {
    const size_t n = r_.size();
    for (size_t i = 0; i < n; ++i) {
        if (r_.kind[i] == RangeKind::Mark) continue; // as nsys 2024; 2022.4 also counts marks
        lastNvtx_ = std::max(lastNvtx_, r_.start[i]);
        if (!(r_.flags[i] & kUnended)) lastNvtx_ = std::max(lastNvtx_, r_.end[i]);
    }
    collectLaunches();
    parent_.reset(new uint32_t[n]);
    ops_.reset(new uint32_t[n]);
    projStart_.reset(new TimeNs[n]);
    projEnd_.reset(new TimeNs[n]);
    level_.reset(new int32_t[n]);
    onPath_.reset(new uint8_t[n]);
    children_.reset(new uint32_t[n]);
    // Threads are independent (each writes only its own ranges' entries): the busiest first, on
    // every core (a training trace's ranges are mostly on its main and autograd threads).
    const std::vector<uint32_t> threads = threadsWithRangesBusiestFirst(t_);
    const bool indexed = !threads.empty();
    if (!indexed) initRanges(0, static_cast<uint32_t>(n));
    std::vector<std::function<void()>> perThread;
    for (uint32_t th : threads)
        perThread.emplace_back([this, th] {
            initRanges(t_.threadRangeBegin[th], t_.threadRangeBegin[th + 1]);
            const auto order = threadRanges(th);
            if (!order.empty()) {
                findParents(order);
                project(th, order);
            }
            findLevels(t_.threadRangeBegin[th], t_.threadRangeBegin[th + 1]);
            countChildren(t_.threadRangeBegin[th], t_.threadRangeBegin[th + 1]);
        });
    runTasks(perThread, std::max(1u, std::thread::hardware_concurrency()));
    if (!indexed) { // no thread grouping: no parents, nothing projected, every range a root
        findLevels(0, static_cast<uint32_t>(n));
        countChildren(0, static_cast<uint32_t>(n));
    }
    onPath_.reset();
    // Rows by rowid: sorted as (rowid, range) integers, not by rowids looked up per comparison.
    std::vector<uint64_t> keys;
    for (uint32_t i = 0; i < n; ++i)
        if (ops_[i]) keys.push_back(uint64_t(sourceRow_[i]) << 32 | i);
    parallelSort(keys.begin(), keys.end(), std::max(1u, std::thread::hardware_concurrency()),
                 std::less<>());
    withOps_.reserve(keys.size());
    for (uint64_t k : keys) withOps_.emplace_back(static_cast<uint32_t>(k));
}

NvtxProjectionRow Projector::row(size_t k, std::string& stack) const {
    const uint32_t i = withOps_[k].value;
    NvtxProjectionRow row;
    row.range = RangeId(i);
    row.projectedStart = projStart_[i];
    row.projectedEnd = projEnd_[i];
    row.start = r_.start[i];
    row.end = end(i);
    const Thread& th = t_.threads[t_.rangeThread(RangeId(i)).value];
    row.pid = th.process.valid() && th.process.value < t_.processes.size()
                  ? t_.processes[th.process.value].pid
                  : 0;
    row.tid = th.tid;
    row.gpuOps = ops_[i];
    row.children = children_[i];
    row.rangeId = sourceRow_[i];
    stack.clear();
    if (level_[i] >= 0) {
        row.level = static_cast<uint32_t>(level_[i]);
        if (parent_[i] != kNoRange) row.parentId = sourceRow_[parent_[i]];
        stackOf(i, stack);
    }
    row.stack = stack;
    return row;
}

} // namespace nvtx_projection_detail

NvtxGpuProjection::NvtxGpuProjection(const Trace& t)
    : p_(std::make_unique<nvtx_projection_detail::Projector>(t)) {
    p_->run();
}
NvtxGpuProjection::~NvtxGpuProjection() = default;
const std::vector<RangeId>& NvtxGpuProjection::ranges() const { return p_->ranges(); }
NvtxProjectionRow NvtxGpuProjection::row(size_t i, std::string& stack) const {
    return p_->row(i, stack);
}

void writeNvtxGpuProjection(TableWriter& w, const Trace& t, size_t chunkRows) {
    w.header({"Name", "Projected Start (ns)", "Projected Duration (ns)", "Orig Start (ns)",
              "Orig Duration (ns)", "Style", "PID", "TID", "NumGPUOps", "Lvl", "NumChild",
              "RangeId", "ParentId", "RangeStack"});
    const NvtxGpuProjection projection(t);
    const auto& ranges = projection.ranges();
    // In chunks of rows on every core: each reads its rows' raw texts in one pass over their part
    // of the NVTX table (rows are by rowid) and writes each row as its text comes; a 1M-kernel
    // trace has millions.
    const unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    // 64K rows (about 16 MB of CSV) a chunk on two cores, fewer on more: 2 × threads + 2 chunks
    // are in memory at a time.
    if (!chunkRows) chunkRows = std::max<size_t>(8192, (size_t(1) << 17) / threads);
    w.rowsInChunks(
        ranges.size(), chunkRows, threads, [&](size_t from, size_t to, TableWriter& out) {
            std::string stack;
            const std::string_view none = "None";
            forEachRawText(t, std::span(ranges).subspan(from, to - from),
                           [&](size_t k, std::string_view text) {
                               const NvtxProjectionRow r = projection.row(from + k, stack);
                               const std::string numbers[] = {
                                   std::to_string(r.projectedStart),
                                   std::to_string(r.projectedEnd - r.projectedStart),
                                   std::to_string(r.start),
                                   std::to_string(r.end - r.start),
                                   std::to_string(r.pid),
                                   std::to_string(r.tid),
                                   std::to_string(r.gpuOps),
                                   r.level ? std::to_string(*r.level) : "",
                                   std::to_string(r.children),
                                   std::to_string(r.rangeId),
                                   r.parentId ? std::to_string(*r.parentId) : ""};
                               const std::string_view fields[] = {
                                   text,
                                   numbers[0],
                                   numbers[1],
                                   numbers[2],
                                   numbers[3],
                                   t.ranges.kind[r.range.value] == RangeKind::StartEnd ? "StartEnd"
                                                                                       : "PushPop",
                                   numbers[4],
                                   numbers[5],
                                   numbers[6],
                                   r.level ? std::string_view(numbers[7]) : none,
                                   numbers[8],
                                   numbers[9],
                                   r.parentId ? std::string_view(numbers[10]) : none,
                                   r.level ? r.stack : none};
                               out.row(fields);
                           });
        });
}

} // namespace ls
