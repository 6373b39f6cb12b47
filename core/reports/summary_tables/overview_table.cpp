// Overview Summary: per event type, its calls and its time with overlaps merged (a type's ranges
// on several threads, or its GPU work on several streams, count once), as a share of the steps'
// CPU time. CPU event types first, then the GPU ones.
#include "core/reports/summary_tables/host_roles.h"
#include "core/reports/summary_tables/summary_table.h"

namespace ls {
namespace {

SummaryTableRow typeRow(std::string name, uint64_t calls, TimeNs time, TimeNs base, bool gpu) {
    SummaryTableRow row;
    row.name = std::move(name);
    row.kind = SummaryRowKind::EventType;
    row.depth = 1;
    row.calls = calls;
    TimeCell& c = gpu ? row.gpu : row.cpu;
    c.present = true;
    c.totalOnly = true;
    c.d.total = time;
    c.ratioPct = base > 0 ? 100.0 * static_cast<double>(time) / static_cast<double>(base) : 0.0;
    return row;
}

} // namespace

SummaryTable overviewTable(const Trace& t) {
    const HostRoles h = hostRoles(t);
    SummaryTable table;
    table.title = "Overview Summary";
    table.totalTime = h.stepsCpuTime;
    table.note = "Each event type's time with overlaps merged (events of one type on several "
                 "threads, or on several streams, count once); ratio = time / ProfileStep time. "
                 "Model phases (Dataloader, Forward, Backward, Optimization) sum their outermost "
                 "ranges, as Paddle takes them from its model view.";
    const auto& rs = t.ranges;
    auto rangeUnion = [&](auto&& keep, uint64_t& calls) {
        std::vector<Interval> v;
        for (uint32_t r = 0; r < rs.size(); ++r)
            if (keep(r)) {
                v.push_back({rs.start[r], rs.end[r]});
                ++calls;
            }
        return lengthOf(unionOf(std::move(v)));
    };
    const TimeNs base = h.stepsCpuTime;
    std::vector<SummaryTableRow> cpu;
    {
        SummaryTableRow step =
            typeRow("ProfileStep", h.wholeTraceStep ? 0 : h.steps.size(), base, base, false);
        step.kind = SummaryRowKind::Total;
        step.depth = 0;
        table.rows.push_back(std::move(step));
    }
    {
        std::vector<Interval> v;
        for (size_t i = 0; i < t.apiCalls.size(); ++i)
            v.push_back({t.apiCalls.start[i], t.apiCalls.end[i]});
        cpu.push_back(typeRow("CudaRuntime", t.apiCalls.size(), lengthOf(unionOf(std::move(v))),
                              base, false));
    }
    {
        std::vector<Interval> v; // top-level instances: nested ones are OperatorInner
        for (uint32_t o = 0; o < t.ops.size(); ++o)
            if (h.topOp[o] == o)
                v.push_back({rs.start[t.ops.extent[o].value], rs.end[t.ops.extent[o].value]});
        const uint64_t n = v.size();
        cpu.push_back(typeRow("Operator", n, lengthOf(unionOf(std::move(v))), base, false));
    }
    uint64_t calls = 0;
    TimeNs time = rangeUnion([&](uint32_t r) { return h.inner[r] != 0; }, calls);
    if (calls) cpu.push_back(typeRow("OperatorInner", calls, time, base, false));
    calls = 0;
    time = rangeUnion([&](uint32_t r) { return h.userDefined[r] != 0; }, calls);
    if (calls) cpu.push_back(typeRow("UserDefined", calls, time, base, false));
    for (ModelPhase p : {ModelPhase::Dataloader, ModelPhase::Forward, ModelPhase::Backward,
                         ModelPhase::Optimization}) {
        uint64_t n = 0;
        TimeNs sum = 0;
        for (const auto& r : h.phases)
            if (r.phase == p) {
                ++n;
                sum += rs.end[r.range.value] - rs.start[r.range.value];
            }
        if (n) cpu.push_back(typeRow(std::string(modelPhaseName(p)), n, sum, base, false));
    }
    {
        std::vector<Interval> v;
        for (size_t o = 0; o < t.ops.size(); ++o)
            if (h.commOp[o])
                v.push_back({rs.start[t.ops.extent[o].value], rs.end[t.ops.extent[o].value]});
        const uint64_t n = v.size();
        if (n)
            cpu.push_back(
                typeRow("Communication", n, lengthOf(unionOf(std::move(v))), base, false));
    }
    // Paddle lists the CPU types by time, longest first.
    std::stable_sort(cpu.begin(), cpu.end(),
                     [](const auto& a, const auto& b) { return a.cpu.d.total > b.cpu.d.total; });
    for (auto& r : cpu) table.rows.push_back(std::move(r));

    SummaryTableRow gpuHeader;
    gpuHeader.name = "";
    gpuHeader.kind = SummaryRowKind::GpuSection;
    table.rows.push_back(std::move(gpuHeader));
    table.rows.push_back(
        typeRow("Kernel", t.kernels.size(), lengthOf(gpuUnion(t.kernels)), base, true));
    if (t.memcpys.size())
        table.rows.push_back(
            typeRow("Memcpy", t.memcpys.size(), lengthOf(gpuUnion(t.memcpys)), base, true));
    if (t.memsets.size())
        table.rows.push_back(
            typeRow("Memset", t.memsets.size(), lengthOf(gpuUnion(t.memsets)), base, true));
    std::vector<Interval> comm;
    for (size_t k = 0; k < t.kernels.size(); ++k)
        if (h.commKernel[k]) comm.push_back({t.kernels.start[k], t.kernels.end[k]});
    const uint64_t n = comm.size();
    if (n)
        table.rows.push_back(
            typeRow("Communication", n, lengthOf(unionOf(std::move(comm))), base, true));
    return table;
}

} // namespace ls
