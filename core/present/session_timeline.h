#pragma once
// The main timeline of a session of several ranks: each trace's rows (built once per trace, on
// the loader thread) on the session's common clock, grouped under one header per rank, and the
// collectives matched across ranks so that a selected NCCL kernel is linked to its peers.
#include "core/model/session.h"
#include "core/present/timeline_data.h"
#include "core/reports/collectives.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ls {

// One rank's header: the GPU work of one process on one device of one trace (Session::ranks).
struct TimelineRankSection {
    int rank = 0;
    std::string label;  // "Rank 1 · vm · pid 5123 · GPU 1 · ddp_rank1.sqlite"
    uint32_t trace = 0; // index into SessionTimeline::traces
    ProcessId process;
    uint32_t device = 0;
};

struct TimelineCollectiveMember {
    uint32_t section = 0; // index into SessionTimeline::sections
    KernelId kernel;
};

struct SessionTimeline {
    std::vector<std::shared_ptr<const TimelineData>> traces; // one per Session::traces entry
    std::vector<TimeNs> offset;                 // per trace: add to its times for session time
    std::vector<TimelineRankSection> sections;  // one per Session::ranks entry, by rank
    std::vector<MatchedCollective> collectives; // matchCollectives' result
    // Per trace: kernel -> index into collectives.
    std::vector<std::unordered_map<uint32_t, uint32_t>> collectiveOf;

    // The section holding a trace's group: its process and (GPU rows) device; CPU rows of a
    // process that drives several GPUs go to its first rank. -1 when none matches.
    int sectionOf(uint32_t trace, const TimelineGroup& group) const;
    // The matched collective a trace's kernel belongs to, or nullptr.
    const MatchedCollective* collectiveOfKernel(uint32_t trace, KernelId k) const;
};

// Runs on the loader thread: the traces in parallel (they are independent), then the sections.
std::shared_ptr<const SessionTimeline> buildSessionTimeline(const Session& session,
                                                            const CollectiveMatch& collectives);

} // namespace ls
