#include "core/findings/idle_findings.h"

#include "core/findings/finding_text.h"
#include "core/reports/launch_bound.h"

#include <algorithm>
#include <map>
#include <string>

namespace ls {
namespace {

enum class IdleRule { Queued, Pageable, Sync, Host, Launch };

// A synchronization that blocked the host this long found work queued on the GPU: the host
// was ahead, and after it returns the GPU waits until the host is ahead again.
constexpr TimeNs kDrainingSync = 100'000;
// A gap that begins this soon after a call returns still began inside it (the GPU finishes, the
// call notices).
constexpr TimeNs kCallSlack = 20'000;

bool isSynchronizing(std::string_view call) {
    if (call.find("Synchronize") != std::string_view::npos) return true;
    return call.find("emcpy") != std::string_view::npos &&
           call.find("Async") == std::string_view::npos;
}

bool isPageable(const Trace& t, size_t copy) {
    const CopyKind k = t.memcpys.kind[copy];
    if (k == CopyKind::HtoD) return t.memcpys.srcKind[copy] == 0;
    if (k == CopyKind::DtoH) return t.memcpys.dstKind[copy] == 0;
    return false;
}

bool inProcess(const FindingScope& s, ThreadId thread) {
    if (!s.process.valid()) return true;
    const Trace& t = *s.trace;
    return thread.valid() && thread.value < t.threads.size() &&
           t.threads[thread.value].process == s.process;
}

// Calls by start; the one (among the last few starting before `at`) still running at `at`.
ApiCallId callCovering(const Trace& t, const std::vector<ApiCallId>& calls, TimeNs at) {
    auto it = std::upper_bound(calls.begin(), calls.end(), at, [&](TimeNs v, ApiCallId c) {
        return v < t.apiCalls.start[c.value];
    });
    for (int back = 0; it != calls.begin() && back < 8; ++back) {
        --it;
        if (t.apiCalls.end[it->value] + kCallSlack >= at) return *it;
    }
    return {};
}

struct RuleTotal {
    TimeNs idle = 0;
    uint64_t gaps = 0;
    std::vector<KernelId> kernels; // ending the gaps, longest gaps first after sorting
    std::vector<std::pair<TimeNs, KernelId>> byLength;
    std::map<std::string_view, TimeNs> details;
    TimeNs firstStart = 0, firstEnd = 0; // the longest gap
    TimeNs longest = 0;
    void add(const GpuGap& g, TimeNs length, KernelId next) {
        idle += length;
        ++gaps;
        if (next.valid()) byLength.push_back({length, next});
        if (!g.detail.empty()) details[g.detail] += length;
        if (length > longest) {
            longest = length;
            firstStart = g.start;
            firstEnd = g.end;
        }
    }
    void finishEvidence() {
        std::sort(byLength.begin(), byLength.end(),
                  [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t i = 0; i < byLength.size() && kernels.size() < kMaxEvidence; ++i)
            kernels.push_back(byLength[i].second);
    }
    std::string topDetail() const {
        std::string_view best;
        TimeNs most = -1;
        for (const auto& [d, v] : details)
            if (v > most) most = v, best = d;
        return std::string(best);
    }
};

KernelId kernelOf(const Trace& t, ApiCallId launch, TimeNs start) {
    if (!launch.valid()) return {};
    const auto [first, last] = t.apiKernels.of(launch);
    for (auto* k = first; k && k != last; ++k)
        if (t.kernels.start[k->value] == start) return *k;
    return first != last && first ? *first : KernelId();
}

// The cost below which a rule says nothing: a percent of an iteration.
constexpr double kMinPercent = 1.0;

} // namespace

std::vector<Finding> idleFindings(const FindingScope& scope, const GpuIdle& idle,
                                  const IterationWindows& windows) {
    std::vector<Finding> out;
    const Trace& t = *scope.trace;
    if (windows.windows.empty() || windows.periodNs <= 0) return out;
    const TimeNs spanStart = windows.windows.front().start, spanEnd = windows.windows.back().end;
    const double n = static_cast<double>(windows.count());

    std::vector<ApiCallId> syncCalls, pageableCalls;
    std::vector<char> pageableLaunch(t.apiCalls.size(), 0);
    TimeNs pageableGpu = 0;
    uint64_t pageableCopies = 0;
    double pageableBytes = 0;
    for (size_t i = 0; i < t.memcpys.size(); ++i) {
        if (!isPageable(t, i) || t.streamOf(t.memcpys, i).device != scope.device) continue;
        if (const ApiCallId l = t.memcpys.launch[i]; l.valid()) {
            if (!inProcess(scope, t.apiCalls.thread[l.value])) continue;
            pageableLaunch[l.value] = 1;
        }
        const TimeNs s = std::max(spanStart, t.memcpys.start[i]),
                     e = std::min(spanEnd, t.memcpys.end[i]);
        if (e > s) {
            pageableGpu += e - s;
            ++pageableCopies;
            pageableBytes += static_cast<double>(t.memcpys.bytes[i]);
        }
    }
    std::vector<int8_t> syncName(t.strings.size(), -1); // per call name, once: 2 M calls, few names
    for (uint32_t c = 0; c < t.apiCalls.size(); ++c) {
        if (pageableLaunch[c]) {
            if (inProcess(scope, t.apiCalls.thread[c])) pageableCalls.push_back(ApiCallId(c));
            continue;
        }
        const StringId name = t.apiCalls.name[c];
        if (!name.valid() || name.value >= syncName.size()) continue;
        int8_t& sync = syncName[name.value];
        if (sync < 0) sync = isSynchronizing(t.str(name)) ? 1 : 0;
        if (sync && inProcess(scope, t.apiCalls.thread[c])) syncCalls.push_back(ApiCallId(c));
    }
    // A synchronization right after a pageable copy on its thread is the copy's own wait.
    auto followsPageable = [&](ApiCallId sync) {
        const ThreadId th = t.apiCalls.thread[sync.value];
        const auto [first, last] = t.threadApiCalls.of(th);
        if (!first) return false;
        const ApiCallId* it = std::lower_bound(first, last, sync, [&](ApiCallId a, ApiCallId b) {
            return t.apiCalls.start[a.value] < t.apiCalls.start[b.value];
        });
        for (int back = 0; it != first && back < 4; ++back) {
            --it;
            if (pageableLaunch[it->value]) return true;
        }
        return false;
    };

    // A user range the host was in when the GPU ran dry is a host-side stall (a data loader)
    // unless the work the GPU waited for was launched inside it: then it is the model's
    // structure (layer0, optimizer), launching slower than the GPU runs.
    auto launchedInside = [&](KernelId next, std::string_view range) {
        if (!next.valid() || next.value >= t.kernelLinks.range.size()) return false;
        for (RangeId r = t.kernelLinks.range[next.value]; r.valid(); r = t.ranges.parent[r.value])
            if (t.str(t.ranges.name[r.value]) == range) return true;
        return false;
    };

    RuleTotal pageable, sync, launch, tiny;
    std::map<std::string_view, RuleTotal> host;
    // A synchronization that blocked the host for B had B of work queued: the host was B ahead
    // of the GPU, and after it the GPU waits for the host until the host is ahead again. The
    // starved gaps of the next iteration period after it are its doing, up to B in all (the
    // lead it destroyed): a launch-bound host that syncs loses little by it.
    TimeNs drainUntil = 0, drainBudget = 0;
    for (const GpuGap& g : idle.gaps) {
        if (g.device != scope.device) continue;
        const TimeNs s = std::max(g.start, spanStart), e = std::min(g.end, spanEnd);
        if (e <= s) continue;
        if (g.launch.valid() && !inProcess(scope, t.apiCalls.thread[g.launch.value])) continue;
        const bool starved = g.launch.valid() ? t.apiCalls.end[g.launch.value] > g.start
                                              : g.cause != IdleCause::Launch;
        IdleRule rule = IdleRule::Queued;
        if (starved) {
            const ApiCallId syncCall = callCovering(t, syncCalls, g.start);
            const bool pageableNext = g.launch.valid() && pageableLaunch[g.launch.value];
            if (pageableNext || callCovering(t, pageableCalls, g.start).valid() ||
                (syncCall.valid() && followsPageable(syncCall))) {
                rule = IdleRule::Pageable;
            } else if (syncCall.valid() || g.cause == IdleCause::Synchronization) {
                rule = IdleRule::Sync;
                const TimeNs blocked = syncCall.valid() ? t.apiCalls.end[syncCall.value] -
                                                              t.apiCalls.start[syncCall.value]
                                                        : 0;
                if (blocked >= kDrainingSync) {
                    drainUntil = g.start + static_cast<TimeNs>(windows.periodNs);
                    drainBudget = blocked;
                }
            } else if (g.start < drainUntil && drainBudget > 0) {
                rule = IdleRule::Sync;
                drainBudget -= e - s;
            } else if (g.cause == IdleCause::HostRange &&
                       !launchedInside(kernelOf(t, g.launch, g.end), g.detail)) {
                rule = IdleRule::Host;
            } else {
                rule = IdleRule::Launch;
            }
        }
        const KernelId next = kernelOf(t, g.launch, g.end);
        switch (rule) {
        case IdleRule::Queued:
            // The GPU's own overhead between queued kernels, paid once per kernel: a kernel
            // shorter than its launch call (tiny_kernels) pays it for little work.
            if (next.valid() && isLaunchBound(t, next)) tiny.add(g, e - s, next);
            break;
        case IdleRule::Pageable:
            pageable.add(g, e - s, next);
            break;
        case IdleRule::Sync:
            sync.add(g, e - s, next);
            break;
        case IdleRule::Host:
            host[g.detail].add(g, e - s, next);
            break;
        case IdleRule::Launch:
            launch.add(g, e - s, next);
            break;
        }
    }

    const double period = windows.periodNs;
    auto base = [&](std::string rule, const RuleTotal& r, double costNs) {
        Finding f;
        f.rule = std::move(rule);
        f.costMsPerIteration = costNs / 1e6;
        f.evidence.trace = scope.traceIndex;
        f.evidence.ranks = scope.ranks;
        f.evidence.windowStart = r.firstStart;
        f.evidence.windowEnd = r.firstEnd;
        f.figures = {{"idle_ns", static_cast<double>(r.idle)},
                     {"gaps", static_cast<double>(r.gaps)},
                     {"iterations", n}};
        return f;
    };
    auto worth = [&](double costNs) { return costNs >= kMinPercent / 100 * period; };

    const double pageableCost = (static_cast<double>(pageableGpu + pageable.idle)) / n;
    if (pageableCopies && worth(pageableCost)) {
        pageable.finishEvidence();
        Finding f = base("pageable_copy", pageable, pageableCost);
        f.statement = scope.prefix + std::to_string(pageableCopies) +
                      " copies from or to pageable host memory (" +
                      std::to_string(static_cast<long long>(pageableBytes / 1048576.0 + 0.5)) +
                      " MiB) take " + findingMs(static_cast<double>(pageableGpu)) +
                      " of GPU time and leave the GPU idle " +
                      findingMs(static_cast<double>(pageable.idle)) + " while the host stages them";
        f.bound = "the copies' GPU time plus the idle they cause, as if overlapped with compute";
        f.fix = "Pin the host buffers (pin_memory=True in the DataLoader, tensor.pin_memory()) and "
                "copy with non_blocking=True so the copy overlaps compute.";
        f.figures.push_back({"copy_gpu_ns", static_cast<double>(pageableGpu)});
        f.figures.push_back({"copies", static_cast<double>(pageableCopies)});
        f.evidence.kernels = pageable.kernels;
        f.evidence.text = std::to_string(pageableCopies) + " pageable copies";
        out.push_back(std::move(f));
    }
    if (sync.gaps && worth(static_cast<double>(sync.idle) / n)) {
        sync.finishEvidence();
        Finding f = base("idle_sync", sync, static_cast<double>(sync.idle) / n);
        const std::string call = sync.topDetail();
        f.statement = scope.prefix + "the GPU waits for the host after synchronizations" +
                      (call.empty() ? std::string() : " (" + call + ")") + ": " +
                      findingMs(static_cast<double>(sync.idle)) + " idle in " +
                      std::to_string(sync.gaps) + " gaps over " + std::to_string(windows.count()) +
                      " iteration periods";
        f.bound = "GPU idle while the host waits and then refills the drained queue";
        f.fix = "Remove per-step torch.cuda.synchronize(), .item(), .cpu() and printing of "
                "tensors; accumulate metrics on the GPU and read them every N steps.";
        f.evidence.kernels = sync.kernels;
        f.evidence.text = "kernels that ended the gaps" + (call.empty() ? "" : "; " + call);
        out.push_back(std::move(f));
    }
    for (auto& [name, r] : host) {
        if (!worth(static_cast<double>(r.idle) / n)) continue;
        r.finishEvidence();
        Finding f = base("idle_host", r, static_cast<double>(r.idle) / n);
        f.statement = scope.prefix + "the GPU waits for the host range \"" + std::string(name) +
                      "\": " + findingMs(static_cast<double>(r.idle)) + " idle in " +
                      std::to_string(r.gaps) + " gaps over " + std::to_string(windows.count()) +
                      " iteration periods";
        f.bound = "GPU idle inside and between iterations while the host runs that range";
        f.fix = "Overlap it with GPU work: more DataLoader workers, prefetching, pinned memory; "
                "move logging and checkpointing off the training loop.";
        f.evidence.kernels = r.kernels;
        for (uint32_t i = 0; i < t.ranges.size() && f.evidence.ranges.size() < kMaxEvidence; ++i)
            if (t.str(t.ranges.name[i]) == name && t.ranges.end[i] > spanStart &&
                t.ranges.start[i] < spanEnd)
                f.evidence.ranges.push_back(RangeId(i));
        f.evidence.text = "ranges \"" + std::string(name) + "\" and the kernels the GPU waited for";
        f.figures.push_back({"ranges", static_cast<double>(f.evidence.ranges.size())});
        out.push_back(std::move(f));
    }
    if (launch.gaps && worth(static_cast<double>(launch.idle) / n)) {
        launch.finishEvidence();
        Finding f = base("launch_bound", launch, static_cast<double>(launch.idle) / n);
        const double busy = static_cast<double>(windows.summary.median.busy);
        f.statement = scope.prefix + "launch-bound: the GPU waits for the host to launch work, " +
                      findingMs(static_cast<double>(launch.idle)) + " idle in " +
                      std::to_string(launch.gaps) + " gaps over " +
                      std::to_string(windows.count()) + " iteration periods; the GPU is busy " +
                      findingMs(busy) + " of a " + findingMs(period) + " iteration";
        f.bound = "GPU idle while the host was still launching the next work";
        f.fix = "Give the GPU more work per launch (larger batch), fuse small ops "
                "(torch.compile), or capture the step in a CUDA graph.";
        f.figures.push_back({"median_busy_ns", busy});
        f.evidence.kernels = launch.kernels;
        f.evidence.text = "kernels that ended the longest gaps";
        out.push_back(std::move(f));
    }
    if (tiny.gaps && worth(static_cast<double>(tiny.idle) / n)) {
        tiny.finishEvidence();
        Finding f = base("tiny_kernels", tiny, static_cast<double>(tiny.idle) / n);
        TimeNs run = 0, launching = 0;
        for (const auto& [length, k] : tiny.byLength) {
            run += t.kernels.duration(k.value);
            const ApiCallId call = t.kernels.launch[k.value];
            launching += t.apiCalls.end[call.value] - t.apiCalls.start[call.value];
        }
        f.statement = scope.prefix + std::to_string(tiny.gaps) +
                      " kernels run shorter than their launch call (" +
                      findingMs(static_cast<double>(run)) + " on the GPU against " +
                      findingMs(static_cast<double>(launching)) + " launching) and the GPU idles " +
                      findingMs(static_cast<double>(tiny.idle)) +
                      " between them and the work queued before them over " +
                      std::to_string(windows.count()) + " iteration periods";
        f.bound = "the GPU's idle between queued kernels before them, which fewer, larger "
                  "kernels do not pay; the idle of a GPU waiting for launches is launch_bound's";
        f.fix = "Fuse the small ops (torch.compile, fused optimizers), or capture the step in a "
                "CUDA graph so the GPU runs them back to back.";
        f.figures.push_back({"kernel_time_ns", static_cast<double>(run)});
        f.figures.push_back({"launch_time_ns", static_cast<double>(launching)});
        f.evidence.kernels = tiny.kernels;
        f.evidence.text = "kernels shorter than their launch call, after the longest gaps";
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace ls
