#pragma once
// A session opened from its ranks' summaries instead of their whole models: from a job file
// (where each trace is looked for next to it and where it was summarised), or from trace files
// too many for the memory budget (summarised here, one file's model at a time). The app shows
// every rank from the summaries and takes a rank's model from a ModelPool over `files`.
#include "core/job/job_file.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ls::job {

struct SummaryOpen {
    std::string error; // one line: nothing could be opened
    std::shared_ptr<SummarySession>
        summaries;                    // the app takes their per-rank rows (analyseSummaries)
    std::vector<std::string> files;   // per summaries->traces entry: its file here, or empty
    std::vector<std::string> missing; // per entry with no file: what to copy where (one line)
};

// A job file: the summaries, and each trace found at its path relative to the job file, at its
// absolute path, or by its name beside the job file (first that exists).
SummaryOpen openJobSummaries(const std::string& jobPath);

// Trace files summarised here (summariseFiles: a few loaded at a time, each released once
// summarised); a file that fails is one of the session's failures.
SummaryOpen summariseSession(
    const std::vector<std::string>& files, const SummariseOptions& options,
    const std::function<void(size_t done, size_t total, const std::string& file)>& fileDone = {});

// Whether whole models of these files would not fit the models' share of `budgetBytes` (half of
// it, ModelPool): a model takes at most about its file's size.
bool summariesNeeded(const std::vector<std::string>& files, uint64_t budgetBytes);

} // namespace ls::job
