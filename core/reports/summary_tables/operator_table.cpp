// Operator Summary: one row per op name (over its top-level instances), below it one row per name
// of its inner phases (the ranges directly inside an instance: Paddle's infer_meta, compute,
// node_creation; PyTorch's nested aten ops), below each the kernels launched inside that phase,
// and after the phases the kernels the op launched outside any phase. Kernels launched outside
// every op are the last group, "(outside operators)", so the kernel rows add up to all kernels.
#include "core/reports/summary_tables/host_roles.h"
#include "core/reports/summary_tables/summary_sort.h"
#include "core/reports/summary_tables/summary_table.h"

#include <map>
#include <unordered_map>

namespace ls {
namespace {

struct KernelGroup {
    DurationSet gpu;
    std::vector<KernelId> ids;
};

struct Group { // an op or an inner phase, by name
    DurationSet cpu, gpu;
    std::vector<KernelId> ids;
    std::map<uint32_t, KernelGroup> kernels; // by kernel name id
    std::map<std::string, Group> inner;      // ops only
};

void addKernel(Group& g, const Trace& t, uint32_t k) {
    KernelGroup& kg = g.kernels[t.kernels.name[k].value];
    kg.gpu.add(t.kernels.duration(k));
    kg.ids.emplace_back(k);
}

double ratio(TimeNs v, TimeNs base) {
    return base > 0 ? 100.0 * static_cast<double>(v) / static_cast<double>(base) : 0.0;
}

SummaryTableRow rowOf(std::string name, const Group& g, uint8_t depth, SummaryRowKind kind,
                      TimeNs cpuBase, TimeNs gpuBase, bool hasCpu) {
    SummaryTableRow r;
    r.name = std::move(name);
    r.depth = depth;
    r.kind = kind;
    r.calls = hasCpu ? g.cpu.count : g.gpu.count;
    r.cpu.present = hasCpu;
    r.cpu.d = g.cpu;
    r.cpu.ratioPct = ratio(g.cpu.total, cpuBase);
    r.gpu.present = true;
    r.gpu.d = g.gpu;
    r.gpu.ratioPct = ratio(g.gpu.total, gpuBase);
    r.kernels = g.ids;
    return r;
}

} // namespace

SummaryTable operatorTable(const Trace& t, SummarySort sort) {
    const HostRoles h = hostRoles(t);
    SummaryTable table;
    table.title = "Operator Summary";
    table.totalTime = h.stepsCpuTime;
    table.note = "Ops are top-level op instances (an op inside another is one of its inner "
                 "phases); an op's GPU time is the summed duration of the kernels launched inside "
                 "it, "
                 "an inner phase's of those launched inside it. CPU ratio = CPU time / "
                 "ProfileStep time; GPU ratio = GPU time / all kernel time.";
    const auto& rs = t.ranges;
    const auto& k = t.kernels;
    const auto& links = t.kernelLinks;
    TimeNs allKernels = 0;
    for (size_t i = 0; i < k.size(); ++i) allKernels += k.duration(i);

    // Each kernel's op instance and the inner phase (a range directly inside the op's extent)
    // it was launched in.
    std::vector<std::vector<uint32_t>> kernelsOfOp(t.ops.size());
    std::unordered_map<uint32_t, TimeNs> innerGpu; // per inner range instance
    std::vector<RangeId> innerOf(k.size());
    Group outside;
    for (uint32_t i = 0; i < k.size(); ++i) {
        const OpId o = i < links.opInstance.size() ? links.opInstance[i] : OpId();
        if (!o.valid()) {
            outside.gpu.add(k.duration(i));
            outside.ids.emplace_back(i);
            addKernel(outside, t, i);
            continue;
        }
        const uint32_t top = h.topOp[o.value]; // a nested op instance is an inner phase
        kernelsOfOp[top].push_back(i);
        const RangeId extent = t.ops.extent[top];
        for (RangeId r = links.range[i]; r.valid() && r != extent; r = rs.parent[r.value])
            if (rs.parent[r.value] == extent) {
                innerOf[i] = r;
                innerGpu[r.value] += k.duration(i);
                break;
            }
    }

    std::map<std::string, Group> ops;
    for (uint32_t o = 0; o < t.ops.size(); ++o) {
        if (h.topOp[o] != o) continue;
        const RangeId extent = t.ops.extent[o];
        Group& g = ops[std::string(t.str(rs.name[t.ops.range[o].value]))];
        g.cpu.add(rs.end[extent.value] - rs.start[extent.value]);
        TimeNs gpu = 0;
        for (uint32_t i : kernelsOfOp[o]) {
            gpu += k.duration(i);
            g.ids.emplace_back(i);
            if (!innerOf[i].valid()) addKernel(g, t, i);
        }
        g.gpu.add(gpu);
        // The inner phases: ranges of the op's thread right below its extent (preorder: the
        // extent's descendants follow it while their depth is greater).
        const uint32_t th = t.rangeThread(extent).value;
        const uint8_t d = rs.depth[extent.value];
        for (uint32_t j = extent.value + 1; j < t.threadRangeBegin[th + 1] && rs.depth[j] > d;
             ++j) {
            if (rs.depth[j] != d + 1 || rs.kind[j] == RangeKind::Mark) continue;
            Group& in = g.inner[std::string(t.str(rs.name[j]))];
            in.cpu.add(rs.end[j] - rs.start[j]);
            const auto it = innerGpu.find(j);
            in.gpu.add(it == innerGpu.end() ? 0 : it->second);
        }
        for (uint32_t i : kernelsOfOp[o])
            if (innerOf[i].valid()) {
                Group& in = g.inner[std::string(t.str(rs.name[innerOf[i].value]))];
                in.ids.emplace_back(i);
                addKernel(in, t, i);
            }
    }

    // Rows: ops sorted by the key; inside an op its phases, then its own kernels, each sorted.
    std::vector<SummaryTableRow> opRows;
    std::vector<std::vector<SummaryTableRow>> children;
    auto kernelRows = [&](const Group& g, uint8_t depth) {
        std::vector<SummaryTableRow> rows;
        for (const auto& [name, kg] : g.kernels) {
            Group one;
            one.gpu = kg.gpu;
            one.ids = kg.ids;
            rows.push_back(rowOf(std::string(t.str(StringId(name))), one, depth,
                                 SummaryRowKind::Kernel, h.stepsCpuTime, allKernels, false));
        }
        std::vector<SummaryTableRow*> order;
        for (auto& r : rows) order.push_back(&r);
        sortSummaryRows(order, sort);
        std::vector<SummaryTableRow> sorted;
        for (auto* r : order) sorted.push_back(std::move(*r));
        return sorted;
    };
    for (const auto& [name, g] : ops) {
        opRows.push_back(rowOf(name, g, 0, SummaryRowKind::Op, h.stepsCpuTime, allKernels, true));
        std::vector<SummaryTableRow> inner;
        for (const auto& [innerName, in] : g.inner)
            inner.push_back(
                rowOf(innerName, in, 1, SummaryRowKind::Inner, h.stepsCpuTime, allKernels, true));
        std::vector<SummaryTableRow*> order;
        for (auto& r : inner) order.push_back(&r);
        sortSummaryRows(order, sort);
        std::vector<SummaryTableRow> rows;
        for (auto* r : order) {
            const Group& in = g.inner.at(r->name);
            rows.push_back(std::move(*r));
            for (auto& kr : kernelRows(in, 2)) rows.push_back(std::move(kr));
        }
        for (auto& kr : kernelRows(g, 1)) rows.push_back(std::move(kr));
        children.push_back(std::move(rows));
    }
    std::vector<size_t> order(opRows.size());
    {
        std::vector<SummaryTableRow*> ptrs;
        for (auto& r : opRows) ptrs.push_back(&r);
        sortSummaryRows(ptrs, sort);
        for (size_t i = 0; i < ptrs.size(); ++i)
            order[i] = static_cast<size_t>(ptrs[i] - opRows.data());
    }
    for (size_t i : order) {
        table.rows.push_back(std::move(opRows[i]));
        for (auto& c : children[i]) table.rows.push_back(std::move(c));
    }
    if (!outside.ids.empty()) {
        SummaryTableRow r = rowOf("(outside operators)", outside, 0, SummaryRowKind::Op,
                                  h.stepsCpuTime, allKernels, false);
        r.callsKnown = false;
        table.rows.push_back(std::move(r));
        for (auto& kr : kernelRows(outside, 1)) table.rows.push_back(std::move(kr));
    }
    return table;
}

SummaryTable kernelTable(const Trace& t, SummarySort sort) {
    SummaryTable table;
    table.title = "Kernel Summary";
    table.note = "Per kernel name: launches and GPU time; ratio = GPU time / all kernel time.";
    const auto& k = t.kernels;
    std::map<uint32_t, Group> byName;
    TimeNs all = 0;
    for (uint32_t i = 0; i < k.size(); ++i) {
        Group& g = byName[k.name[i].value];
        g.gpu.add(k.duration(i));
        g.ids.emplace_back(i);
        all += k.duration(i);
    }
    table.totalTime = all;
    std::vector<SummaryTableRow> rows;
    for (const auto& [name, g] : byName)
        rows.push_back(
            rowOf(std::string(t.str(StringId(name))), g, 0, SummaryRowKind::Kernel, 0, all, false));
    std::vector<SummaryTableRow*> order;
    for (auto& r : rows) order.push_back(&r);
    sortSummaryRows(order, sort);
    for (auto* r : order) table.rows.push_back(std::move(*r));
    return table;
}

} // namespace ls
