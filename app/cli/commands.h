#pragma once
#include "app/cli/cli.h"
#include "app/cli/options.h"
#include "core/import/ncu/ncu_metrics.h"
#include "core/load/load.h"
#include "core/load/session_load.h"
#include "core/reports/table_writer.h"

#include <iosfwd>
#include <memory>
#include <optional>

namespace ls::cli {

struct Context {
    std::ostream& out;
    std::ostream& err;
};

int commandInfo(const Options& o, Context& c);
int commandKernels(const Options& o, Context& c);
int commandSummary(const Options& o, Context& c);
int commandOps(const Options& o, Context& c);
int commandDiff(const Options& o, Context& c);
int commandCache(const Options& o, Context& c);
int commandJob(const Options& o, Context& c);
int commandFindings(const Options& o, Context& c);

// The --format option (default csv); prints the usage error and returns nullopt when invalid.
std::optional<TableFormat> formatOption(const Options& o, Context& c);

// Loads the one FILE argument; prints the error line and returns nullptr on failure.
std::shared_ptr<const Trace> loadForCommand(const Options& o, Context& c, int& exitCode);

// Loads the one FILE and imports the --ncu CSV onto it; prints the error line and returns a null
// trace (exitCode set) when either fails.
struct TraceWithNcu {
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const NcuMetrics> ncu;
};
TraceWithNcu loadWithNcu(const Options& o, Context& c, int& exitCode);

// Loads every FILE (and the traces in every folder) as one session. Prints one error line per
// file that failed and sets exitCode to kUnreadable then; nullopt when none loaded.
// How the command loads: through the model cache in the user's cache folder unless --no-cache
// or LAYERSCOPE_NO_CACHE says not to.
LoadOptions cliLoadOptions(const Options& o);
// `parts`: what the command's output needs (LoadPart bits); the load skips the rest.
std::optional<Session> loadSessionForCommand(const Options& o, Context& c, int& exitCode,
                                             uint32_t parts = kLoadEverything);

// The ranks a session's trace holds, "0" or "0 1 2 3".
std::string rankText(const Session& s, uint32_t trace);

// The rank of GPU work of one trace of a session, by process and device, as a CSV cell.
class RankLookup {
  public:
    RankLookup(const Session& s, uint32_t trace) {
        for (const auto& r : s.ranks)
            if (r.trace == trace) ranks_.push_back({r.process, r.device, std::to_string(r.rank)});
    }
    const std::string& text(ProcessId process, uint32_t device) const {
        for (const auto& r : ranks_)
            if (r.process == process && r.device == device) return r.text;
        return none_;
    }
    // A process's ranks (one per GPU it used), "0" or "0 1".
    std::string textOfProcess(ProcessId process) const {
        std::string out;
        for (const auto& r : ranks_)
            if (r.process == process) out += (out.empty() ? "" : " ") + r.text;
        return out;
    }

  private:
    struct Entry {
        ProcessId process;
        uint32_t device;
        std::string text;
    };
    std::vector<Entry> ranks_;
    std::string none_;
};

} // namespace ls::cli
