#include "app/cli/cli.h"

#include "app/cli/commands.h"

#include <functional>
#include <ostream>

namespace ls::cli {
namespace {

const char* kUsageText = R"(usage: layerscope-cli COMMAND FILE [options]

Reads an Nsight Systems SQLite export (nsys export --type sqlite) and prints what it holds.

commands:
  info FILE                     format, versions, capture span, counts, devices, load report
  kernels FILE [--format F]     one row per kernel (F: csv, tsv or table; default csv)
  summary FILE --report R [--format F]
                                R: kern_sum (cuda_gpu_kern_sum), gpukernsum (2022.4: by grid,
                                block and name), api_sum (cuda_api_sum)

Run `layerscope-cli COMMAND --help` for a command's options.
exit status: 0 success, 2 usage error, 3 the input cannot be read
)";

struct Command {
    const char* name;
    std::set<std::string> values, flags;
    const char* help;
    std::function<int(const Options&, Context&)> run;
};

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"info", {}, {}, "usage: layerscope-cli info FILE\n\nPrints the export's format, exporter and schema version, capture span,\ncounts per event kind, processes, threads, devices, streams and the load report.\n", commandInfo},
        {"kernels", {"format"}, {}, "usage: layerscope-cli kernels FILE [--format csv|tsv|table]\n\nOne row per kernel, by start time, with columns\nid,start_ns,end_ns,duration_ns,device,context,stream,pid,tid,correlation_id,api,name,\nshort_name,grid,block,registers,static_smem,dynamic_smem\n(api: the launching call; tid: its thread; grid/block as x,y,z).\n", commandKernels},
        {"summary", {"report", "format"}, {}, "usage: layerscope-cli summary FILE --report kern_sum|gpukernsum|api_sum [--format csv|table]\n\nkern_sum    kernels grouped by name, as nsys stats cuda_gpu_kern_sum\ngpukernsum  kernels grouped by grid, block and name, as nsys 2022.4 gpukernsum\napi_sum     CUDA runtime and driver calls by name, as nsys stats cuda_api_sum\n            (each call once, also where older exports hold two rows per call)\nTimes in nanoseconds; sorted by total time.\n", commandSummary},
    };
    return list;
}

} // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (args.empty()) {
        err << kUsageText;
        return kUsage;
    }
    if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        out << kUsageText;
        return kOk;
    }
    for (const auto& cmd : commands()) {
        if (args[0] != cmd.name) continue;
        std::string error;
        const Options o = parseOptions({args.begin() + 1, args.end()}, cmd.values, cmd.flags, error);
        if (o.help) {
            out << cmd.help;
            return kOk;
        }
        if (!error.empty()) {
            err << "error: " << error << "\n" << cmd.help;
            return kUsage;
        }
        if (o.positional.size() != 1) {
            err << "error: " << cmd.name << " takes exactly one FILE\n" << cmd.help;
            return kUsage;
        }
        Context c{out, err};
        return cmd.run(o, c);
    }
    err << "error: unknown command '" << args[0] << "'\n" << kUsageText;
    return kUsage;
}

std::shared_ptr<const Trace> loadForCommand(const Options& o, Context& c, int& exitCode) {
    const std::string& path = o.positional.front();
    LoadResult r = loadTrace(path);
    if (!r.ok()) {
        c.err << formatLoadError(path, *r.error) << "\n";
        exitCode = kUnreadable;
        return nullptr;
    }
    exitCode = kOk;
    return r.trace;
}

} // namespace ls::cli
