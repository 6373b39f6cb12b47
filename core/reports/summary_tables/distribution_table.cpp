// Distribution Summary: communication (the CPU time of communication ops merged with the GPU time
// of communication kernels, as Paddle merges them), computation (every other kernel) and their
// overlap, each a union, against the steps' CPU time.
#include "core/reports/summary_tables/host_roles.h"
#include "core/reports/summary_tables/summary_table.h"

namespace ls {

SummaryTable distributionTable(const Trace& t) {
    const HostRoles h = hostRoles(t);
    SummaryTable table;
    table.title = "Distribution Summary";
    table.totalTime = h.stepsCpuTime;
    table.note = "Communication: the union of communication ops' CPU ranges and communication "
                 "kernels (NCCL …); Computation: the union of all other kernels; Overlap: their "
                 "intersection; ratio = time / ProfileStep time.";
    const auto& rs = t.ranges;
    std::vector<Interval> comm, compute;
    for (size_t o = 0; o < t.ops.size(); ++o)
        if (h.commOp[o])
            comm.push_back({rs.start[t.ops.extent[o].value], rs.end[t.ops.extent[o].value]});
    for (size_t k = 0; k < t.kernels.size(); ++k)
        (h.commKernel[k] ? comm : compute).push_back({t.kernels.start[k], t.kernels.end[k]});
    const auto commUnion = unionOf(std::move(comm));
    const auto computeUnion = unionOf(std::move(compute));
    const TimeNs base = h.stepsCpuTime;
    auto row = [&](std::string name, TimeNs time, uint8_t depth) {
        SummaryTableRow r;
        r.name = std::move(name);
        r.depth = depth;
        r.kind = depth ? SummaryRowKind::EventType : SummaryRowKind::Total;
        r.callsKnown = false;
        r.cpu.present = true;
        r.cpu.totalOnly = true;
        r.cpu.d.total = time;
        r.cpu.ratioPct =
            base > 0 ? 100.0 * static_cast<double>(time) / static_cast<double>(base) : 0.0;
        table.rows.push_back(std::move(r));
    };
    row("ProfileStep", base, 0);
    row("Communication", lengthOf(commUnion), 1);
    row("Computation", lengthOf(computeUnion), 1);
    row("Overlap", intersectionLength(commUnion, computeUnion), 1);
    return table;
}

} // namespace ls
