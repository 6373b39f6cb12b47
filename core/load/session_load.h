#pragma once
// Loading several traces as one session (the ranks of one job): folders expanded into the
// traces they hold, files loaded in parallel, each into its own Trace, ranks numbered and
// clocks aligned. A file that fails is listed in Session::failed; the others still open.
#include "core/import/load_error.h"
#include "core/model/session.h"

#include <functional>
#include <string>
#include <vector>

namespace ls {

// Files and folders as the user named them -> the trace files, in that order; a folder gives
// the trace files directly in it (by extension: .sqlite, .sqlite3, .db, .sql, .nvvp, .json,
// .json.gz, .nsys-rep, .qdrep), in natural order (rank2 before rank10). A folder without any is
// a failure, so is a name that does not exist.
std::vector<std::string> expandSessionInputs(const std::vector<std::string>& inputs,
                                             std::vector<SessionFailure>& failed);

struct SessionLoadOptions {
    LoadOptions load;   // per file; threads is the total to share, cancel and progress shared
    unsigned files = 0; // files loaded at once; 0: as many as cores and memory allow
    // Called when a file has finished (from the worker that loaded it, one at a time).
    std::function<void(size_t done, size_t total, const std::string& file)> fileDone;
};

Session loadSession(const std::vector<std::string>& inputs, const SessionLoadOptions& options = {});

// How many files to load at once: bounded by the cores and by the memory their loads may take
// (estimated from the file sizes against `memoryBytes`, 0 when unknown).
unsigned parallelFileLoads(const std::vector<uint64_t>& fileSizes, unsigned cores,
                           uint64_t memoryBytes);

} // namespace ls
