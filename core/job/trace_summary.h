#pragma once
// What the job-level reports (rank_sum, collective_sum, rank_iter_sum, kern_sum) need of one trace
// file, small enough to keep for thousands of ranks: per rank of the file its rank_sum times, its
// communication kernels and its iterations; the file's kern_sum rows; what numbers its ranks and
// aligns its clock. The reports over summaries run the same code as over loaded traces
// (core/reports/rank_summary.h, collectives.h): a summary keeps that code's per-rank inputs.
#include "core/model/file_identity.h"
#include "core/model/session.h"
#include "core/reports/collectives.h"
#include "core/reports/rank_summary.h"
#include "core/reports/summary.h"

#include <string>
#include <string_view>
#include <vector>

namespace ls::job {

// One rank of the file: a process's GPU work on one device.
struct RankUnit {
    uint32_t process = ProcessId::kInvalid; // ProcessId in the trace
    uint32_t pid = 0, device = 0;
    bool hasKernels = false; // a kernel ran there (kern_sum's loads read kernels alone)
    RankTimes times;
    std::vector<CollectiveKernel> collectives; // trace time
    std::vector<RankIterationRow> iterations;  // trace time, rank 0
    // Its compute and communication unions, at most kLaneIntervals each (coarsened: gaps too
    // short to draw closed), trace time: what the Ranks tab's lanes and heat map draw.
    RankBusy lanes;
    bool operator==(const RankUnit&) const = default;
};

struct TraceSummary {
    std::string file;      // as the user named it (the reports print it)
    FileIdentity identity; // at summary time; identityKnown false when it could not be read
    bool identityKnown = false;
    std::string error;  // non-empty: the file could not be loaded (one line); nothing else is set
    uint32_t parts = 0; // the parts its load read (core/model/load_parts.h)
    // What numbers its ranks and aligns its clock (core/model/rank_labels.h).
    std::string host;
    int64_t epochNs = 0;
    bool epochKnown = false;
    std::vector<std::pair<std::string, std::string>> environment, metadata;
    std::vector<RankUnit> units;     // by process, then device
    std::vector<SummaryRow> kernSum; // kern_sum's rows (by name)
    bool operator==(const TraceSummary&) const;
};

// Intervals a rank's lane keeps in a summary: a lane a few thousand pixels wide zoomed to an
// iteration of a several-iteration capture still draws every gap it can show.
inline constexpr size_t kLaneIntervals = 4096;

// The parts a summary for these reports needs (all four when report is empty).
uint32_t summaryLoadParts(std::string_view report = {});
// The reports a summary answers.
bool isSummaryReport(std::string_view report);
inline constexpr const char* kSummaryReports = "rank_sum, collective_sum, rank_iter_sum, kern_sum";

// The summary of t; with a report named, only what that report reads is filled (a streaming
// session report's summaries are never written to a job file); the lanes only without one.
TraceSummary summariseTrace(const Trace& t, const std::string& file, std::string_view report = {});

std::string encodeSummary(const TraceSummary& s);
// Returns the error (one line), empty on success. Bounds-checked: never reads past `bytes`.
std::string decodeSummary(std::string_view bytes, TraceSummary& out);

// Summaries put together as a session would put their traces: failed files listed, ranks
// numbered, clocks aligned. `session` holds stand-in traces with only what numbering reads.
struct SummarySession {
    std::vector<TraceSummary> traces; // those that loaded, in the order given
    Session session;                  // session.traces[i] stands for traces[i]
};
// kernelUnitsOnly: number only the ranks with kernels, as a session loaded for kern_sum does.
SummarySession assembleSummaries(std::vector<TraceSummary> summaries, bool kernelUnitsOnly = false);
// Renumbers an assembled session's ranks for kern_sum (see above).
Session kernelRankSession(const SummarySession& s);

// The reports, equal to rankTimeSummary, matchCollectives and rankIterations over the session of
// the traces themselves.
std::vector<RankTimeRow> rankTimeSummary(const SummarySession& s);
CollectiveMatch matchCollectives(const SummarySession& s);
std::vector<RankIterationRow> rankIterations(const SummarySession& s);
// Per rank (session.ranks order), its lanes in session time.
std::vector<RankBusy> rankLanes(const SummarySession& s);
// The same two, moving each rank's communication kernels and lanes out of the summaries rather
// than copying them (the app keeps only what it shows: a job's are most of its memory).
CollectiveMatch takeCollectives(SummarySession& s);
std::vector<RankBusy> takeLanes(SummarySession& s);

} // namespace ls::job
