#include "app/cli/commands.h"
#include "core/import/ncu/ncu_metrics.h"
#include "core/pytorch/correlation.h"
#include "core/reports/table_writer.h"
#include "core/views/kernel_filter.h"
#include "core/views/kernel_table.h"
#include "core/views/pyprof_columns.h"

#include <algorithm>
#include <ostream>

namespace ls::cli {
namespace {
std::string orEmpty(int64_t v) { return v < 0 ? std::string() : std::to_string(v); }
} // namespace

namespace {

int writePyprof(const Options& o, Context& c, const KernelTable& table,
                const std::vector<KernelId>& rows, TableFormat format) {
    std::vector<std::string_view> columns;
    if (o.values.count("columns")) {
        std::string list = o.get("columns", "");
        size_t from = 0;
        while (from <= list.size()) {
            const size_t comma = std::min(list.find(',', from), list.size());
            const std::string name = list.substr(from, comma - from);
            const auto& known = pyprofColumns();
            const auto it = std::find(known.begin(), known.end(), name);
            if (it == known.end()) {
                c.err << "error: -c: unknown PyProf column \"" << name << "\"\n";
                return kUsage;
            }
            columns.push_back(*it);
            from = comma + 1;
        }
    } else {
        columns = pyprofColumns();
    }
    const PyprofTable pyprof(table);
    TableWriter w(c.out, format);
    w.header(std::vector<std::string>(columns.begin(), columns.end()));
    for (KernelId k : rows) w.row(pyprof.row(k, columns));
    w.finish();
    return kOk;
}

// --ncu: ncu:id, one column per metric, and the measured Tensor Core verdict when the file
// has tensor-pipe counts; empty cells for kernels without an ncu measurement.
void appendNcuHeader(const NcuMetrics& ncu, std::vector<std::string>& header) {
    header.emplace_back("ncu:id");
    for (uint32_t m = 0; m < ncu.metricCount(); ++m) header.push_back(ncu.columnName(m));
    if (ncu.hasTensorCoreCounts()) header.insert(header.end(), {"ncu:tc", "ncu:tc_reason"});
}

void appendNcuCells(const NcuMetrics& ncu, KernelId k, std::vector<std::string>& row) {
    const auto i = ncu.ncuKernel(k);
    row.push_back(i ? std::to_string(ncu.csv().kernels[*i].id) : std::string());
    for (uint32_t m = 0; m < ncu.metricCount(); ++m) row.push_back(ncu.text(k, m));
    if (ncu.hasTensorCoreCounts()) {
        const auto tc = ncu.tensorCore(k);
        row.push_back(tc ? ncuTensorCoreText(tc->state) : std::string());
        row.push_back(tc ? tc->reason : std::string());
    }
}

} // namespace

int commandKernels(const Options& o, Context& c) {
    const auto format = formatOption(o, c);
    if (!format) return kUsage;
    if (o.values.count("layer") && o.values.count("range")) {
        c.err << "error: give --layer or --range, not both\n";
        return kUsage;
    }
    std::optional<KernelFilter> filter;
    if (o.values.count("filter")) {
        auto parsed = KernelFilter::parse(o.get("filter", ""));
        if (!parsed.filter) {
            c.err << "error: --filter: " << parsed.error << "\n";
            return kUsage;
        }
        filter = std::move(parsed.filter);
    }
    std::optional<KernelField> sortBy;
    if (o.values.count("sort")) {
        sortBy = KernelFilter::column(o.get("sort", "")); // column names and the filter's aliases
        if (!sortBy) {
            c.err << "error: --sort: unknown column \"" << o.get("sort", "") << "\"\n";
            return kUsage;
        }
    } else if (o.flags.count("desc")) {
        c.err << "error: --desc needs --sort COLUMN\n";
        return kUsage;
    }
    if (o.values.count("ncu") && o.flags.count("pyprof")) {
        c.err << "error: --ncu does not apply to --pyprof\n";
        return kUsage;
    }
    int rc = kOk;
    const auto session = loadSessionForCommand(o, c, rc);
    if (!session) return rc;
    const bool several = session->traces.size() > 1;
    TableWriter w(c.out, *format);
    std::vector<std::string> header;
    for (const auto& f : kernelFields()) header.emplace_back(f.name);
    for (uint32_t ti = 0; ti < session->traces.size(); ++ti) {
        const auto& t = session->traces[ti].trace;
        std::shared_ptr<const NcuMetrics> ncu;
        if (o.values.count("ncu")) {
            const std::string csv = o.get("ncu", "");
            auto imported = importNcuCsv(t, csv);
            if (!imported.ok()) {
                c.err << formatNcuError(csv, imported.error) << "\n";
                return kUnreadable;
            }
            ncu = imported.metrics;
            const auto& m = ncu->match();
            if (m.matched < m.state.size())
                c.err << "warning: " << csv << ": " << m.matched << " of " << m.state.size()
                      << " Nsight Compute kernels matched (`info FILE --ncu CSV` says why)\n";
        }

        std::vector<KernelId> selected;
        if (o.values.count("layer")) {
            const StringId layer = t->strings.find(o.get("layer", ""));
            if (layer.valid()) selected = kernelsOfLayer(*t, layer);
        } else if (o.values.count("range")) {
            selected = kernelsUnderRangesNamed(*t, o.get("range", ""));
        } else {
            selected.resize(t->kernels.size());
            for (uint32_t i = 0; i < t->kernels.size(); ++i) selected[i] = KernelId(i);
        }

        const KernelTable table(t, *session, ti);
        if (filter) selected = filter->apply(table, selected);
        if (sortBy) table.sort(selected, *sortBy, o.flags.count("desc") > 0);
        if (o.flags.count("pyprof")) {
            if (several) {
                c.err << "error: --pyprof takes one FILE\n";
                return kUsage;
            }
            return writePyprof(o, c, table, selected, *format);
        }
        if (ti == 0) {
            if (several) header.emplace_back("file");
            if (ncu) appendNcuHeader(*ncu, header);
            w.header(header);
        }
        for (KernelId id : selected) {
            std::vector<std::string> row;
            row.reserve(header.size());
            for (const auto& f : kernelFields()) row.push_back(table.text(id, f.field));
            if (several) row.push_back(session->traces[ti].file);
            if (ncu) appendNcuCells(*ncu, id, row);
            w.row(std::move(row));
        }
    }
    w.finish();
    return rc;
}

int commandOps(const Options& o, Context& c) {
    const auto format = formatOption(o, c);
    if (!format) return kUsage;
    int rc = kOk;
    const auto session = loadSessionForCommand(o, c, rc);
    if (!session) return rc;
    const bool several = session->traces.size() > 1;
    TableWriter w(c.out, *format);
    std::vector<std::string> header = {
        "op_id",  "name",    "seq",         "direction",    "layer", "tid", "start_ns",
        "end_ns", "kernels", "gpu_time_ns", "paired_op_id", "sizes", "rank"};
    if (several) header.emplace_back("file");
    w.header(header);
    for (uint32_t ti = 0; ti < session->traces.size(); ++ti) {
        const Trace& t = *session->traces[ti].trace;
        const auto& ops = t.ops;
        const auto& r = t.ranges;
        // Each kernel counts under its innermost op instance only, so the rows add up (as op_sum).
        std::vector<uint64_t> opKernels(ops.size()), opTime(ops.size());
        std::vector<uint32_t> opDevice(ops.size(),
                                       UINT32_MAX); // of its first kernel: the op's rank
        for (uint32_t k = 0; k < t.kernels.size(); ++k)
            if (const OpId op = t.kernelLinks.opInstance[k]; op.valid()) {
                if (!opKernels[op.value]) opDevice[op.value] = t.streamOf(t.kernels, k).device;
                ++opKernels[op.value];
                opTime[op.value] += static_cast<uint64_t>(t.kernels.duration(k));
            }
        const RankLookup ranks(*session, ti);
        for (uint32_t i = 0; i < ops.size(); ++i) {
            const uint32_t range = ops.range[i].value, extent = ops.extent[i].value;
            const OpId paired = ops.paired[i];
            const Thread& thread = t.threads[t.rangeThread(RangeId(extent)).value];
            std::vector<std::string> row = {
                orEmpty(r.opId[range]),
                std::string(t.str(r.name[range])),
                orEmpty(r.seq[range]),
                std::string(directionName(ops.direction[i])),
                ops.layer[i].valid() ? std::string(t.str(ops.layer[i])) : std::string(),
                std::to_string(thread.tid),
                std::to_string(r.start[extent]),
                std::to_string(r.end[extent]),
                std::to_string(opKernels[i]),
                std::to_string(opTime[i]),
                paired.valid() ? orEmpty(r.opId[ops.range[paired.value].value]) : std::string(),
                std::string(t.str(r.sizes[range])),
                opDevice[i] == UINT32_MAX ? ranks.textOfProcess(thread.process)
                                          : ranks.text(thread.process, opDevice[i])};
            if (several) row.push_back(session->traces[ti].file);
            w.row(std::move(row));
        }
    }
    w.finish();
    return rc;
}

} // namespace ls::cli
