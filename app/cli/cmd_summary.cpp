#include "app/cli/commands.h"
#include "core/summary.h"
#include "core/table_writer.h"

#include <ostream>

namespace ls::cli {

int commandSummary(const Options& o, Context& c) {
    const auto format = parseTableFormat(o.get("format", "csv"));
    const std::string report = o.get("report", "");
    if (!format) {
        c.err << "error: --format must be csv, tsv or table\n";
        return kUsage;
    }
    if (report != "kern_sum" && report != "gpukernsum" && report != "api_sum") {
        c.err << "error: --report must be kern_sum, gpukernsum or api_sum\n";
        return kUsage;
    }
    int rc = kOk;
    auto t = loadForCommand(o, c, rc);
    if (!t) return rc;

    const bool api = report == "api_sum";
    const bool byDims = report == "gpukernsum";
    const auto rows = api ? apiSummary(*t)
                          : kernelSummary(*t, byDims ? KernelGrouping::NameGridBlock : KernelGrouping::Name, KernelNaming::Demangled);
    TableWriter w(c.out, *format);
    std::vector<std::string> header = {"Time (%)", "Total Time (ns)", api ? "Num Calls" : "Instances", "Avg (ns)",
                                       "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"};
    if (byDims) header.insert(header.end(), {"GridXYZ", "BlockXYZ"});
    header.push_back("Name");
    w.header(header);
    for (const auto& r : rows) {
        const auto& s = r.stats;
        std::vector<std::string> f = {formatOneDecimal(r.percent), std::to_string(s.total), std::to_string(s.count),
                                      formatOneDecimal(s.avg), formatOneDecimal(s.median), std::to_string(s.min),
                                      std::to_string(s.max), formatOneDecimal(s.stddev)};
        if (byDims) f.insert(f.end(), {r.grid, r.block});
        f.push_back(r.name);
        w.row(std::move(f));
    }
    w.finish();
    return kOk;
}

} // namespace ls::cli
