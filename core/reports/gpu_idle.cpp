#include "core/reports/gpu_idle.h"

#include "core/model/parallel.h"
#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <thread>
#include <tuple>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace ls {
namespace {

struct GpuOp {
    TimeNs start, end;
    ApiCallId launch;
    StringId name; // kernels only
    uint8_t kind;  // 0 kernel, 1 memcpy, 2 memset
};

// Asks for huge pages under a large block about to be written once: a million gaps (90 MB)
// touched 4 KiB at a time took a page fault each, a third of a second in a virtual machine.
// Advice only: where the kernel gives none, nothing changes.
template <typename T> void preferHugePages(const std::vector<T>& v) {
#ifdef __linux__
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const auto from = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
    const auto to = (reinterpret_cast<uintptr_t>(v.data() + v.capacity())) & ~(kHuge - 1);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#else
    (void)v;
#endif
}

bool isSynchronizing(std::string_view call) {
    if (call.find("Synchronize") != std::string_view::npos) return true;
    // Blocking copies (cudaMemcpy, cuMemcpyDtoH …); the Async forms return at once.
    return call.find("emcpy") != std::string_view::npos &&
           call.find("Async") == std::string_view::npos;
}

bool isScalarRead(std::string_view op) {
    return op == "aten::_local_scalar_dense" || op == "aten::item";
}

// The API call of `thread` that is running at `at`, if any.
ApiCallId callAt(const Trace& t, ThreadId thread, TimeNs at) {
    const auto [first, last] = t.threadApiCalls.of(thread);
    if (!first) return {};
    const ApiCallId* it = std::upper_bound(
        first, last, at, [&](TimeNs v, ApiCallId c) { return v < t.apiCalls.start[c.value]; });
    // Runtime calls wrap driver calls: look back a few calls for one still running.
    for (int back = 0; it != first && back < 4; ++back) {
        --it;
        if (t.apiCalls.end[it->value] >= at) return *it;
    }
    return {};
}

// The innermost push/pop range of `thread` around `at`, if any.
RangeId rangeAt(const Trace& t, ThreadId thread, TimeNs at) {
    if (!thread.valid() || thread.value + 1 >= t.threadRangeBegin.size()) return {};
    const uint32_t begin = t.threadRangeBegin[thread.value],
                   end = t.threadRangeBegin[thread.value + 1];
    const auto s = t.ranges.start.begin();
    uint32_t i = static_cast<uint32_t>(std::upper_bound(s + begin, s + end, at) - s);
    for (int back = 0; i > begin && back < 64; ++back) {
        --i;
        if (t.ranges.kind[i] != RangeKind::PushPop) continue;
        for (RangeId r(i); r.valid(); r = t.ranges.parent[r.value])
            if (t.ranges.end[r.value] >= at) return r;
        return {};
    }
    return {};
}

void classify(const Trace& t, GpuGap& gap, const GpuOp& next) {
    gap.next = next.kind == 0   ? t.str(next.name)
               : next.kind == 1 ? std::string_view("memcpy")
                                : std::string_view("memset");
    if (!next.launch.valid()) return;
    gap.launch = next.launch;
    const ThreadId thread = t.apiCalls.thread[next.launch.value];
    if (thread.valid() && thread.value < t.threads.size()) gap.tid = t.threads[thread.value].tid;
    if (t.apiCalls.start[next.launch.value] < gap.start) {
        gap.cause = IdleCause::Launch;
        gap.detail = t.str(t.apiCalls.name[next.launch.value]);
        return;
    }
    if (const ApiCallId call = callAt(t, thread, gap.start);
        call.valid() && isSynchronizing(t.str(t.apiCalls.name[call.value]))) {
        gap.cause = IdleCause::Synchronization;
        gap.detail = t.str(t.apiCalls.name[call.value]);
        return;
    }
    for (RangeId r = rangeAt(t, thread, gap.start); r.valid(); r = t.ranges.parent[r.value]) {
        const std::string_view name = t.str(t.ranges.name[r.value]);
        if (isScalarRead(name)) {
            gap.cause = IdleCause::Synchronization;
            gap.detail = name;
            return;
        }
        if (!isFrameworkRange(name, (t.ranges.flags[r.value] & kPytorchMarker) != 0)) {
            gap.cause = IdleCause::HostRange;
            gap.detail = name;
            return;
        }
        if (gap.op.empty()) gap.op = name;
    }
    if (!gap.op.empty()) {
        gap.cause = IdleCause::HostOps;
        gap.detail = gap.op;
    }
}

} // namespace

std::string_view idleCauseName(IdleCause c) {
    switch (c) {
    case IdleCause::Synchronization:
        return "synchronization";
    case IdleCause::Launch:
        return "launch";
    case IdleCause::HostRange:
        return "host range";
    case IdleCause::HostOps:
        return "host ops";
    case IdleCause::NothingTraced:
        return "nothing traced";
    }
    return "nothing traced";
}

std::string_view idleCauseHtaName(IdleCause c) {
    switch (c) {
    case IdleCause::Launch:
        return "kernel wait";
    case IdleCause::NothingTraced:
        return "other";
    default:
        return "host wait";
    }
}

GpuIdle gpuIdle(const Trace& t) {
    // A trace names a device or a few: a list by device id, each stream's slot in it, not a map
    // looked up once per op.
    std::vector<std::pair<uint32_t, std::vector<GpuOp>>> byDevice;
    for (const Stream& st : t.streams)
        if (std::none_of(byDevice.begin(), byDevice.end(),
                         [&](const auto& d) { return d.first == st.device; }))
            byDevice.push_back({st.device, {}});
    std::sort(byDevice.begin(), byDevice.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<uint32_t> slotOfStream(t.streams.size());
    for (size_t s = 0; s < t.streams.size(); ++s)
        for (uint32_t d = 0; d < byDevice.size(); ++d)
            if (byDevice[d].first == t.streams[s].device) slotOfStream[s] = d;
    { // each device's list sized first: grown an op at a time, a million ops are copied again and
      // again
        std::vector<size_t> ops(byDevice.size(), 0);
        for (const GpuOpColumns* c : {static_cast<const GpuOpColumns*>(&t.kernels),
                                      static_cast<const GpuOpColumns*>(&t.memcpys),
                                      static_cast<const GpuOpColumns*>(&t.memsets)})
            for (size_t i = 0; i < c->size(); ++i) ++ops[slotOfStream[c->streamIndex[i].value]];
        for (size_t d = 0; d < byDevice.size(); ++d) {
            byDevice[d].second.reserve(ops[d]);
            preferHugePages(byDevice[d].second);
        }
    }
    // Kernels, copies and sets are each sorted by start: per device, three sorted runs, merged
    // rather than sorted (a million-kernel trace sorted its ops in a tenth of a second).
    auto byStart = [](const GpuOp& a, const GpuOp& b) {
        return std::tie(a.start, a.end) < std::tie(b.start, b.end);
    };
    std::vector<std::vector<size_t>> runEnds(byDevice.size());
    auto addRun = [&] {
        for (size_t d = 0; d < byDevice.size(); ++d)
            runEnds[d].push_back(byDevice[d].second.size());
    };
    for (size_t i = 0; i < t.kernels.size(); ++i)
        byDevice[slotOfStream[t.kernels.streamIndex[i].value]].second.push_back(
            {t.kernels.start[i], t.kernels.end[i], t.kernels.launch[i], t.kernels.name[i], 0});
    addRun();
    for (size_t i = 0; i < t.memcpys.size(); ++i)
        byDevice[slotOfStream[t.memcpys.streamIndex[i].value]].second.push_back(
            {t.memcpys.start[i], t.memcpys.end[i], t.memcpys.launch[i], StringId(), 1});
    addRun();
    for (size_t i = 0; i < t.memsets.size(); ++i)
        byDevice[slotOfStream[t.memsets.streamIndex[i].value]].second.push_back(
            {t.memsets.start[i], t.memsets.end[i], t.memsets.launch[i], StringId(), 2});
    addRun();
    for (size_t d = 0; d < byDevice.size(); ++d) {
        auto& ops = byDevice[d].second;
        size_t from = 0;
        for (const size_t to : runEnds[d]) {
            // Equal starts on two streams may come in either order: such a run is sorted.
            if (!std::is_sorted(ops.begin() + from, ops.begin() + to, byStart))
                std::sort(ops.begin() + from, ops.begin() + to, byStart);
            if (from > 0)
                std::inplace_merge(ops.begin(), ops.begin() + from, ops.begin() + to, byStart);
            from = to;
        }
    }
    GpuIdle out;
    std::vector<const GpuOp*> nextOp; // per gap: the op that ended it
    { // at most one gap per op: reserved (untouched pages cost nothing), a million gaps grown one
      // at a time were copied again and again, a second of a million-kernel trace
        size_t ops = 0;
        for (const auto& [device, list] : byDevice) ops += list.size();
        out.gaps.reserve(ops);
        nextOp.reserve(ops);
        preferHugePages(out.gaps);
        preferHugePages(nextOp);
    }
    for (auto& [device, ops] : byDevice) {
        if (ops.empty()) continue; // a device with streams but no work
        DeviceBusy d{device, ops.front().start, ops.front().end, 0};
        TimeNs coveredTo = ops.front().start;
        for (const GpuOp& op : ops) {
            if (op.start > coveredTo) { // a gap before this op
                out.gaps.push_back(
                    {device, coveredTo, op.start, IdleCause::NothingTraced, {}, {}, {}, 0, {}});
                nextOp.push_back(&op);
            }
            d.busy += std::max<TimeNs>(0, op.end - std::max(op.start, coveredTo));
            coveredTo = std::max(coveredTo, op.end);
        }
        d.last = coveredTo;
        out.devices.push_back(d);
    }
    // Each gap's cause on its own: a million of them on a million-kernel trace, on every core.
    parallelFor(out.gaps.size(), std::max(1u, std::thread::hardware_concurrency()),
                [&](size_t from, size_t to, unsigned) {
                    for (size_t g = from; g < to; ++g) classify(t, out.gaps[g], *nextOp[g]);
                });
    return out;
}

std::vector<IdleRow> idleSummary(const GpuIdle& idle) {
    std::map<std::tuple<uint32_t, IdleCause, std::string_view>, IdleRow> groups;
    std::map<uint32_t, TimeNs> deviceIdle;
    for (const GpuGap& g : idle.gaps) {
        IdleRow& r = groups[{g.device, g.cause, g.detail}];
        if (!r.gaps) {
            r.device = g.device;
            r.cause = g.cause;
            r.detail = g.detail;
        }
        ++r.gaps;
        r.idle += g.duration();
        deviceIdle[g.device] += g.duration();
    }
    std::vector<IdleRow> rows;
    for (auto& [key, r] : groups) {
        const TimeNs all = deviceIdle[r.device];
        r.percent = all ? 100.0 * static_cast<double>(r.idle) / static_cast<double>(all) : 0;
        rows.push_back(std::move(r));
    }
    std::sort(rows.begin(), rows.end(), [](const IdleRow& a, const IdleRow& b) {
        if (a.device != b.device) return a.device < b.device;
        if (a.idle != b.idle) return a.idle > b.idle;
        return std::tie(a.cause, a.detail) < std::tie(b.cause, b.detail);
    });
    return rows;
}

} // namespace ls
