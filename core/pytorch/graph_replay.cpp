#include "core/pytorch/graph_replay.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>
#include <unordered_set>

namespace ls {
namespace {

std::string percent(double part, double whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f %%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buf;
}

// A stream capture: the kernel launch calls of its process made between cudaStreamBeginCapture
// and cudaStreamEndCapture that ran nothing (they became graph nodes), in call order. Launches
// of other threads count too: the autograd engine's thread launches the backward of a captured
// training step.
struct CaptureWindow {
    ProcessId process;
    TimeNs begin = 0, end = 0;
    std::vector<ApiCallId> launches;
};

std::vector<CaptureWindow> captureWindows(const Trace& t) {
    std::vector<CaptureWindow> out;
    const auto& a = t.apiCalls;
    auto processOf = [&](uint32_t c) { return t.threads[a.thread[c].value].process; };
    std::vector<TimeNs> open(t.threads.size(), INT64_MIN); // a capture's begin per thread
    for (uint32_t c = 0; c < a.size(); ++c) {
        const std::string_view name = t.str(a.name[c]);
        const uint32_t th = a.thread[c].value;
        if (name.find("BeginCapture") != std::string_view::npos) {
            open[th] = a.start[c];
        } else if (open[th] != INT64_MIN && name.find("EndCapture") != std::string_view::npos) {
            out.push_back({processOf(c), open[th], a.end[c], {}});
            open[th] = INT64_MIN;
        }
    }
    if (out.empty()) return out;
    std::vector<TimeNs> lastEnd(t.threads.size(),
                                INT64_MIN); // a driver launch inside a runtime one
    for (uint32_t c = 0; c < a.size(); ++c) {
        if (t.str(a.name[c]).find("LaunchKernel") == std::string_view::npos) continue;
        const auto [k0, k1] = t.apiKernels.of(ApiCallId(c));
        const uint32_t th = a.thread[c].value;
        if (k0 != k1 || a.start[c] < lastEnd[th]) continue; // ran at once, or nested
        for (auto& w : out)
            if (w.process == processOf(c) && a.start[c] >= w.begin && a.end[c] <= w.end) {
                w.launches.emplace_back(c);
                lastEnd[th] = a.end[c];
                break;
            }
    }
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.end < y.end; });
    return out;
}

// Without node ids (PyTorch profiler JSON), a graph launch whose kernels are as many as the kernel
// launches of the last capture before it takes them one for one: a graph captured from one
// stream replays its kernel nodes in capture order (the node-traced exports show it). Returns the
// kernels mapped.
uint64_t mapByCaptureOrder(Trace& t, const std::vector<uint8_t>& graphCall) {
    auto& g = t.kernelGraph;
    const auto windows = captureWindows(t);
    if (windows.empty()) return 0;
    uint64_t mapped = 0;
    for (uint32_t c = 0; c < graphCall.size(); ++c) {
        if (!graphCall[c]) continue;
        const auto [k0, k1] = t.apiKernels.of(ApiCallId(c));
        const auto n = static_cast<size_t>(k1 - k0);
        const bool unmapped = std::all_of(k0, k1, [&](KernelId k) {
            return g.how[k.value] == GraphAttribution::AroundLaunch &&
                   g.node[k.value] == kNoGraphNode;
        });
        if (!unmapped) continue;
        const TimeNs launchStart = t.apiCalls.start[c];
        const CaptureWindow* match = nullptr;
        for (const auto& w : windows)
            if (w.end <= launchStart) match = &w; // the last capture that ended before the launch
        if (!match || match->launches.size() != n) continue;
        for (size_t j = 0; j < n; ++j) {
            g.capture[k0[j].value] = match->launches[j];
            g.how[k0[j].value] = GraphAttribution::Capture;
        }
        mapped += n;
    }
    return mapped;
}

} // namespace

bool isGraphLaunchCall(std::string_view apiName) {
    return apiName.find("GraphLaunch") != std::string_view::npos;
}

void markGraphReplays(Trace& t) {
    auto& g = t.kernelGraph;
    const auto& k = t.kernels;
    const size_t n = k.size();
    // Graph launch calls that started GPU work.
    std::vector<uint8_t> graphCall(t.apiCalls.size(), 0);
    std::vector<uint8_t> nameIsLaunch(t.strings.size(), 2); // 2: not looked at yet
    uint64_t launches = 0;
    for (uint32_t c = 0; c < t.apiCalls.size(); ++c) {
        auto& known = nameIsLaunch[t.apiCalls.name[c].value];
        if (known == 2) known = isGraphLaunchCall(t.str(t.apiCalls.name[c])) ? 1 : 0;
        const auto [k0, k1] = t.apiKernels.of(ApiCallId(c));
        if (known && k0 != k1) {
            graphCall[c] = 1;
            ++launches;
        }
    }
    if (!launches && g.empty()) return;
    for (size_t i = 0; i < n; ++i) {
        const ApiCallId call = k.launch[i];
        if (!call.valid() || !graphCall[call.value]) continue;
        g.allocate(n);
        if (g.how[i] == GraphAttribution::None) g.how[i] = GraphAttribution::AroundLaunch;
    }
    if (g.empty()) return;
    const uint64_t byOrder = mapByCaptureOrder(t, graphCall);

    // Capture-time launch call -> the kernels its node ran, by kernel id.
    uint64_t captured = 0, around = 0, items = 0;
    std::unordered_set<uint64_t> nodes;
    std::unordered_set<uint32_t> graphs, captureCalls;
    auto& csr = t.captureKernels;
    csr.offsets.assign(t.apiCalls.size() + 1, 0);
    csr.ids.clear();
    for (size_t i = 0; i < n; ++i) {
        if (g.graph[i]) graphs.insert(g.graph[i]);
        if (g.node[i] != kNoGraphNode) nodes.insert(g.node[i]);
        switch (g.how[i]) {
        case GraphAttribution::Capture:
            ++captured;
            ++csr.offsets[g.capture[i].value + 1];
            captureCalls.insert(g.capture[i].value);
            break;
        case GraphAttribution::AroundLaunch:
            ++around;
            break;
        case GraphAttribution::LaunchItem:
            ++items;
            break;
        case GraphAttribution::None:
            break;
        }
    }
    for (size_t c = 1; c < csr.offsets.size(); ++c) csr.offsets[c] += csr.offsets[c - 1];
    csr.ids.resize(captured);
    {
        std::vector<uint32_t> fill(csr.offsets.begin(), csr.offsets.end() - 1);
        for (uint32_t i = 0; i < n; ++i)
            if (g.how[i] == GraphAttribution::Capture)
                csr.ids[fill[g.capture[i].value]++] = KernelId(i);
    }

    std::string detail = std::to_string(launches) + " launch calls";
    if (!graphs.empty()) detail += " of " + std::to_string(graphs.size()) + " graphs";
    detail += nodes.empty() ? std::string("; no node ids in the trace")
                            : "; " + std::to_string(nodes.size()) + " kernel nodes replayed";
    if (items) detail += "; " + std::to_string(items) + " whole-graph GPU items (no kernels)";
    t.report.add(Anomaly::CudaGraphLaunches, launches, detail);
    if (captured)
        t.report.add(Anomaly::GraphNodesMapped, captured,
                     std::to_string(captured) + " replayed kernels from " +
                         std::to_string(captureCalls.size()) + " capture-time launch calls");
    if (byOrder)
        t.report.add(Anomaly::GraphNodesMapped, 0,
                     std::to_string(byOrder) +
                         " of them without node ids, by capture order (the launch ran as many "
                         "kernels as its capture launched)");
    if (around) t.report.add(Anomaly::GraphKernelsAroundLaunch, around);
}

std::string graphLabel(const Trace& t, size_t k) {
    const auto& g = t.kernelGraph;
    if (g.empty() || k >= g.how.size() || g.how[k] == GraphAttribution::None) return {};
    std::string out;
    if (g.node[k] != kNoGraphNode) {
        // Node ids are graph << 32 | index in the exports seen: the index reads better.
        const uint64_t node = g.node[k];
        out = "graph " + std::to_string(g.graph[k]) + " node " +
              std::to_string(node >> 32 == g.graph[k] ? node & 0xFFFFFFFFu : node);
    } else if (g.graph[k]) {
        out = "graph " + std::to_string(g.graph[k]);
    } else {
        out = "graph launch";
    }
    if (g.how[k] == GraphAttribution::AroundLaunch) out += " (launch op)";
    if (g.how[k] == GraphAttribution::LaunchItem) out += " (whole launch)";
    return out;
}

void reportGraphAttribution(Trace& t) {
    const auto& g = t.kernelGraph;
    if (g.empty()) return;
    const auto& k = t.kernels;
    const auto& l = t.kernelLinks;
    uint64_t none = 0;
    double noneNs = 0, allNs = 0;
    for (size_t i = 0; i < k.size(); ++i) {
        if (g.how[i] == GraphAttribution::LaunchItem) continue; // a whole graph, not a kernel
        const auto d = static_cast<double>(k.duration(i));
        allNs += d;
        if (l.op[i].valid() || l.layer[i].valid() || l.range[i].valid()) continue;
        ++none;
        noneNs += d;
    }
    // Said even when none is left (the report lists only entries that count something).
    const std::string share = percent(noneNs, allNs) + " of kernel time";
    if (none)
        t.report.add(Anomaly::GraphKernelsUnattributed, none,
                     std::to_string(none) + " kernels, " + share);
    else
        t.report.add(Anomaly::CudaGraphLaunches, 0,
                     "kernels with no op, layer or range: 0, " + share);
}

} // namespace ls
