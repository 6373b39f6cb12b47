#include "app/cli/commands.h"
#include "core/table_writer.h"

#include <ostream>

namespace ls::cli {
namespace {

std::string dim(const Dim3& d) { return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z); }

} // namespace

int commandKernels(const Options& o, Context& c) {
    const auto format = parseTableFormat(o.get("format", "csv"));
    if (!format) {
        c.err << "error: --format must be csv, tsv or table\n";
        return kUsage;
    }
    int rc = kOk;
    auto t = loadForCommand(o, c, rc);
    if (!t) return rc;
    const auto& k = t->kernels;
    TableWriter w(c.out, *format);
    w.header({"id", "start_ns", "end_ns", "duration_ns", "device", "context", "stream", "pid", "tid", "correlation_id",
              "api", "name", "short_name", "grid", "block", "registers", "static_smem", "dynamic_smem"});
    for (size_t i = 0; i < k.size(); ++i) {
        const ApiCallId call = k.launch[i];
        std::string tid, api;
        if (call.valid()) {
            tid = std::to_string(t->threads[t->apiCalls.thread[call.value].value].tid);
            api = std::string(t->str(t->apiCalls.name[call.value]));
        }
        w.row({std::to_string(i), std::to_string(k.start[i]), std::to_string(k.end[i]), std::to_string(k.duration(i)),
               std::to_string(k.device[i]), std::to_string(k.context[i]), std::to_string(k.stream[i]),
               std::to_string(t->processes[k.process[i].value].pid), tid, std::to_string(k.correlation[i]), api,
               std::string(t->str(k.name[i])), std::string(t->str(k.shortName[i])), dim(k.grid[i]), dim(k.block[i]),
               std::to_string(k.registers[i]), std::to_string(k.staticSmem[i]), std::to_string(k.dynamicSmem[i])});
    }
    w.finish();
    return kOk;
}

} // namespace ls::cli
