// Model Summary: ProfileStep, Dataloader, Forward, Backward, Optimization and Others, with CPU and
// GPU Total / Avg / Max / Min / Ratio, as Paddle's model view prints them.
#include "core/pytorch/iterations.h"
#include "core/reports/summary_tables/host_roles.h"
#include "core/reports/summary_tables/summary_table.h"

#include <array>

namespace ls {

SummaryTable modelTable(const Trace& t) {
    const HostRoles h = hostRoles(t);
    SummaryTable table;
    table.title = "Model Summary";
    table.totalTime = h.stepsCpuTime;
    table.note = "GPU time is the summed duration of the GPU work launched inside each step "
                 "(kernels, copies, sets, by their launch call), as Paddle sums it: work on "
                 "several streams is added, not merged. A kernel's phase is its direction "
                 "(forward, backward, optimizer); work launched inside a data loader range is "
                 "Dataloader; the rest is Others. CPU time of a phase is its outermost ranges'.";

    // GPU time per step and phase.
    const size_t steps = h.steps.size();
    std::vector<TimeNs> stepGpu(steps, 0);
    std::vector<std::array<TimeNs, kModelPhases>> phaseGpu(steps);
    for (auto& a : phaseGpu) a.fill(0);
    auto add = [&](const auto& c, const std::vector<int>& step,
                   const std::vector<ModelPhase>& phase) {
        for (size_t i = 0; i < c.size(); ++i) {
            if (step[i] < 0) continue;
            const auto s = static_cast<size_t>(step[i]);
            stepGpu[s] += c.duration(i);
            phaseGpu[s][static_cast<size_t>(phase[i])] += c.duration(i);
        }
    };
    add(t.kernels, h.kernelStep, h.kernelPhase);
    add(t.memcpys, h.copyStep, h.copyPhase);
    add(t.memsets, h.setStep, h.setPhase);

    SummaryTableRow step;
    step.name = "ProfileStep";
    step.kind = SummaryRowKind::Total;
    step.calls = steps;
    step.cpu.present = step.gpu.present = true;
    for (size_t s = 0; s < steps; ++s) {
        step.cpu.d.add(h.steps[s].end - h.steps[s].start);
        step.gpu.d.add(stepGpu[s]);
    }
    const TimeNs gpuAll = step.gpu.d.total;
    auto cpuRatio = [&](TimeNs v) {
        return h.stepsCpuTime > 0
                   ? 100.0 * static_cast<double>(v) / static_cast<double>(h.stepsCpuTime)
                   : 0.0;
    };
    auto gpuRatio = [&](TimeNs v) {
        return gpuAll > 0 ? 100.0 * static_cast<double>(v) / static_cast<double>(gpuAll) : 0.0;
    };
    step.cpu.ratioPct = cpuRatio(step.cpu.d.total);
    step.gpu.ratioPct = gpuAll > 0 ? 100.0 : 0.0;
    table.rows.push_back(step);

    TimeNs cpuListed = 0, gpuListed = 0;
    for (ModelPhase p : {ModelPhase::Dataloader, ModelPhase::Forward, ModelPhase::Backward,
                         ModelPhase::Optimization}) {
        SummaryTableRow row;
        row.name = std::string(modelPhaseName(p));
        row.kind = SummaryRowKind::Phase;
        row.depth = 1;
        for (const auto& r : h.phases) {
            if (r.phase != p) continue;
            // Phase ranges of the steps only, as Paddle's phases lie inside its ProfileStep.
            const TimeNs start = t.ranges.start[r.range.value];
            if (!h.wholeTraceStep && iterationAt(h.steps, start) < 0) continue;
            row.cpu.d.add(t.ranges.end[r.range.value] - start);
        }
        row.calls = row.cpu.d.count;
        TimeNs gpu = 0;
        for (size_t s = 0; s < steps; ++s) gpu += phaseGpu[s][static_cast<size_t>(p)];
        if (row.calls == 0 && gpu == 0) continue; // Paddle prints only the phases it saw
        row.cpu.present = row.calls > 0;
        row.cpu.ratioPct = cpuRatio(row.cpu.d.total);
        // GPU statistics per step: a phase's work is launched asynchronously and runs on the
        // GPU clock, so it is counted per step rather than per (CPU) phase range.
        row.gpu.present = true;
        for (size_t s = 0; s < steps; ++s) row.gpu.d.add(phaseGpu[s][static_cast<size_t>(p)]);
        row.gpu.ratioPct = gpuRatio(row.gpu.d.total);
        cpuListed += row.cpu.d.total;
        gpuListed += row.gpu.d.total;
        table.rows.push_back(std::move(row));
    }
    SummaryTableRow others;
    others.name = "Others";
    others.kind = SummaryRowKind::Phase;
    others.depth = 1;
    others.callsKnown = false;
    others.cpu.present = others.gpu.present = true;
    others.cpu.totalOnly = others.gpu.totalOnly = true;
    others.cpu.d.total = step.cpu.d.total - cpuListed;
    others.gpu.d.total = gpuAll - gpuListed;
    others.cpu.ratioPct = cpuRatio(others.cpu.d.total);
    others.gpu.ratioPct = gpuRatio(others.gpu.d.total);
    table.rows.push_back(std::move(others));
    return table;
}

} // namespace ls
