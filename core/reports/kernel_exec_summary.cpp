#include "core/reports/kernel_exec_summary.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ls {

std::vector<KernelExecRow> kernelExecSummary(const Trace& t) {
    struct Samples {
        std::vector<int64_t> total, call, queue, kernel;
    };
    using Key = std::tuple<uint32_t, uint32_t, uint32_t, std::string,
                           uint32_t>; // pid, tid, device, api, kernel name id
    std::map<Key, Samples> groups;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        const ApiCallId call = t.kernels.launch[k];
        if (!call.valid()) continue; // no launch call: nsys's join drops it too
        const ThreadId th = t.apiCalls.thread[call.value];
        const ProcessId proc = t.streamOf(t.kernels, k).process;
        const uint32_t pid =
            proc.valid() && proc.value < t.processes.size() ? t.processes[proc.value].pid : 0;
        const uint32_t tid =
            th.valid() && th.value < t.threads.size() ? t.threads[th.value].tid : 0;
        const TimeNs callStart = t.apiCalls.start[call.value], callEnd = t.apiCalls.end[call.value];
        auto& s = groups[{pid, tid, t.streamOf(t.kernels, k).device,
                          std::string(stripApiVersion(t.str(t.apiCalls.name[call.value]))),
                          t.kernels.name[k].value}];
        s.total.push_back(std::max(callEnd, t.kernels.end[k]) - callStart);
        s.call.push_back(callEnd - callStart);
        if (t.kernels.start[k] - callEnd >= 0) s.queue.push_back(t.kernels.start[k] - callEnd);
        s.kernel.push_back(t.kernels.duration(k));
    }
    std::vector<KernelExecRow> rows;
    rows.reserve(groups.size());
    for (auto& [key, s] : groups) {
        KernelExecRow r;
        std::tie(r.pid, r.tid, r.device, r.api, std::ignore) = key;
        r.kernel = StringId(std::get<4>(key));
        r.queued = s.queue.size();
        r.total = durationStats(s.total);
        r.call = durationStats(s.call);
        r.queue = durationStats(s.queue);
        r.kernelTime = durationStats(s.kernel);
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const KernelExecRow& a, const KernelExecRow& b) {
        return a.total.avg > b.total.avg;
    });
    return rows;
}

} // namespace ls
