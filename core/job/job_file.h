#pragma once
// A whole job summarised: every rank file's summary in one file (.lsjob), so that the job-level
// reports (rank_sum, collective_sum, rank_iter_sum, kern_sum) and the Ranks tab work without the
// traces, on a laptop, for hundreds of ranks. A summary is made where the trace is (one process,
// or one per node under MPI) and is small; the job file gathers them (docs/job-file.md).
#include "core/job/trace_summary.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ls::job {

struct SummariseOptions {
    unsigned threads = 0; // for loading the file; 0: as many as cores
    bool useCache = true; // the model cache, as the CLI's --no-cache says
    std::string cacheDir; // empty: the default cache folder
    // Set: no further file is started and loads in progress stop (their summaries say so).
    const std::atomic<bool>* cancel = nullptr;
};

// Loads one trace file with only the parts the job reports need, summarises it and returns the
// summary's encoding (what an MPI process sends to rank 0). A file that cannot be read gives a
// summary that holds its error; this never throws for bad input.
std::string summariseTraceFile(const std::string& path, const SummariseOptions& options);

// Writes the job file at outPath from encoded summaries given in the order of the session's
// inputs (expandSessionInputs' order), numbering ranks, aligning clocks and matching
// collectives as a session of those files would. Written under a temporary name and renamed.
// Returns the error (one line), empty on success.
std::string writeJobFile(const std::string& outPath, const std::vector<std::string>& summaries);

// The format version this build writes and reads (docs/job-file.md).
inline constexpr uint32_t kJobFileVersion = 2; // 2: rank lanes in the summaries

// Loads each file with only the parts `report` reads (summaryLoadParts; all four reports' when
// empty), summarises it for that report and releases its Trace before taking another: at most a
// few files are in memory at once (as many as loadSession would load in parallel). The summaries
// come back in the order of `files`; a file that fails gives a summary holding its error.
// `fileDone` is called after each file, from the worker that summarised it, one call at a time.
std::vector<TraceSummary> summariseFiles(
    const std::vector<std::string>& files, const SummariseOptions& options,
    std::string_view report = {},
    const std::function<void(size_t done, size_t total, const std::string& file)>& fileDone = {});

// A job file read back: the summaries as the writer assembled them (ranks and clock offsets as
// it numbered and aligned them), each trace's path relative to the job file and absolute.
struct JobTrace {
    std::string relativePath, absolutePath;
};
struct JobFile {
    std::string error;           // one line naming the file; empty when read
    SummarySession summaries;    // summaries.session: stored ranks, offsets, alignment, failures
    std::vector<JobTrace> paths; // per summaries.traces entry
    std::string writtenBy;       // "layerscope-cli 0.x"
};
JobFile readJobFile(const std::string& path);
// The same over a job file's bytes; `name` leads the error.
JobFile readJobBytes(std::string_view bytes, const std::string& name);

// Whether the file starts with the job file's magic (any version).
bool isJobFile(const std::string& path);

} // namespace ls::job
