#include "core/reports/report_parts.h"

#include "core/model/load_parts.h"

#include <utility>

namespace ls {

uint32_t reportLoadParts(std::string_view report) {
    static constexpr std::pair<std::string_view, uint32_t> kParts[] = {
        {"kern_sum", kLoadKernels},
        {"gpukernsum", kLoadKernels},
        {"api_sum", kLoadApiCalls},
        {"osrt_sum", kLoadOsRuntime},
        {"nvtx_sum", kLoadNvtxNames},
        {"nvtx_kern_sum", kLoadKernels | kLoadApiCalls |
                              kLoadNvtxNames}, // ranges around each launch: no correlation
        {"mem_time_sum", kLoadMemory},
        {"mem_size_sum", kLoadMemory},
        {"gpu_sum", kLoadKernels | kLoadMemory},
        {"kern_exec_sum", kLoadKernels | kLoadApiCalls},
        {"gpu_trace", kLoadKernels | kLoadMemory},
        {"api_trace", kLoadApiCalls},
        // Its own nesting, no correlation; the ranges' texts read raw from the file, no names.
        {"nvtx_gpu_proj", kLoadKernels | kLoadMemory | kLoadApiCalls | kLoadNvtx},
        // A gap's cause: the next operation's launch call, the call running at the gap, the ranges
        // around it (their names and nesting); no correlation.
        {"idle_sum", kLoadKernels | kLoadMemory | kLoadApiCalls | kLoadNvtxNames},
        {"gaps", kLoadKernels | kLoadMemory | kLoadApiCalls | kLoadNvtxNames},
        // Paddle's summary tables (core/reports/summary_tables): the kernel table reads kernels
        // only; the others need ops, phases and steps (the correlation and iterations), never
        // the costs.
        {"kernel_table", kLoadKernels},
        // GPU memory events, and the op instances around them.
        {"memory", kLoadMemory | kLoadCorrelation},
        {"memory_live", kLoadMemory | kLoadCorrelation},
        {"overview", kLoadKernels | kLoadMemory | kLoadCorrelation | kLoadIterations},
        {"model", kLoadKernels | kLoadMemory | kLoadCorrelation | kLoadIterations},
        {"distribution", kLoadKernels | kLoadCorrelation | kLoadIterations},
        {"operator", kLoadKernels | kLoadCorrelation | kLoadIterations},
    };
    for (const auto& [name, parts] : kParts)
        if (name == report) return parts;
    return kLoadEverything;
}

} // namespace ls
