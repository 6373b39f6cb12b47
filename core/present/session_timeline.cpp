#include "core/present/session_timeline.h"

#include "core/model/parallel.h"

#include <algorithm>
#include <filesystem>
#include <thread>

namespace ls {

int SessionTimeline::sectionOf(uint32_t index, const TimelineGroup& group) const {
    const std::shared_ptr<const Trace>& trace = traces[index]->trace;
    const bool gpu =
        group.gpu && group.stream.valid() && group.stream.value < trace->streams.size();
    const uint32_t device = gpu ? trace->streams[group.stream.value].device : 0;
    int first = -1, ofProcess = -1;
    for (size_t i = 0; i < sections.size(); ++i) {
        const TimelineRankSection& s = sections[i];
        if (s.trace != index) continue;
        if (first < 0) first = static_cast<int>(i);
        if (s.process != group.process) continue;
        if (ofProcess < 0) ofProcess = static_cast<int>(i);
        if (gpu && s.device == device) return static_cast<int>(i);
    }
    return ofProcess >= 0 ? ofProcess : first;
}

const MatchedCollective* SessionTimeline::collectiveOfKernel(uint32_t trace, KernelId k) const {
    if (trace >= collectiveOf.size() || !k.valid()) return nullptr;
    const auto it = collectiveOf[trace].find(k.value);
    return it == collectiveOf[trace].end() ? nullptr : &collectives[it->second];
}

std::shared_ptr<const SessionTimeline> buildSessionTimeline(const Session& session,
                                                            const CollectiveMatch& collectives) {
    auto s = std::make_shared<SessionTimeline>();
    const size_t n = session.traces.size();
    s->traces.resize(n);
    s->offset.resize(n);
    parallelFor(n, std::max(1u, std::thread::hardware_concurrency()),
                [&](size_t a, size_t b, unsigned) {
                    for (size_t i = a; i < b; ++i)
                        s->traces[i] = buildTimelineData(session.traces[i].trace);
                });
    for (size_t i = 0; i < n; ++i) s->offset[i] = session.traces[i].offsetNs;
    for (const SessionRank& r : session.ranks) {
        const Trace& t = *session.traces[r.trace].trace;
        std::string label = "Rank " + std::to_string(r.rank);
        if (!r.host.empty()) label += " · " + r.host;
        if (r.process.valid() && r.process.value < t.processes.size())
            label += " · pid " + std::to_string(t.processes[r.process.value].pid);
        label += " · GPU " + std::to_string(r.device);
        label += " · " + std::filesystem::path(session.traces[r.trace].file).filename().string();
        s->sections.push_back(
            TimelineRankSection{r.rank, std::move(label), r.trace, r.process, r.device});
    }
    s->collectives = collectives.collectives;
    s->collectiveOf.resize(n);
    for (uint32_t c = 0; c < s->collectives.size(); ++c)
        for (const CollectiveMember& m : s->collectives[c].members)
            if (m.rank < session.ranks.size())
                s->collectiveOf[session.ranks[m.rank].trace][m.kernel.value] = c;
    return s;
}

} // namespace ls
