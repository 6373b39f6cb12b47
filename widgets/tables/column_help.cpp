#include "widgets/tables/column_help.h"

#include <array>

namespace ls::gui {
namespace {

using F = KernelField;

struct Help {
    F field;
    const char* what; // meaning beyond core's one-line help
    const char* unit; // on screen, and in CSV when it differs
};

// One entry per column of kernelFields(), in its order (a test walks them all).
constexpr std::array<Help, kKernelFieldCount> kHelp = {{
    {F::Id, "The kernel's row in the loaded trace, numbered by GPU start time.",
     "Integer; no unit."},
    {F::Start, "When the kernel started on the GPU.",
     "Shown as time after the capture start; CSV: ns on the trace clock."},
    {F::End, "When the kernel finished on the GPU.",
     "Shown as time after the capture start; CSV: ns on the trace clock."},
    {F::Duration, "GPU time of the kernel: end minus start.", "Shown in ns, µs, ms or s; CSV: ns."},
    {F::Device, "The CUDA device (GPU) that ran the kernel.", "Device index."},
    {F::Context, "The CUDA context the kernel ran in.", "Context id."},
    {F::Stream, "The CUDA stream the kernel was enqueued on; kernels of one stream run in order.",
     "Stream id."},
    {F::Pid, "The process that launched the kernel.", "Process id."},
    {F::Tid, "The CPU thread that made the launch call.", "Thread id."},
    {F::Correlation,
     "CUPTI's id joining the kernel to its launch call (and the call to its NVTX ranges).",
     "Integer id."},
    {F::Api,
     "The CUDA runtime or driver call that enqueued the kernel (cudaLaunchKernel, "
     "cuLaunchKernelEx, cudaGraphLaunch…).",
     "Text."},
    {F::Name, "The full, demangled kernel name with its template arguments.", "Text."},
    {F::ShortName,
     "The base name without namespaces and template arguments (several kernels may share one, e.g. "
     "Kernel2).",
     "Text."},
    {F::Grid, "Number of thread blocks launched, per dimension.",
     "Blocks as x,y,z; sorts by x×y×z."},
    {F::Block, "Threads per block, per dimension.", "Threads as x,y,z; sorts by x×y×z."},
    {F::Registers, "Registers each thread uses; many registers lower occupancy.",
     "Registers per thread."},
    {F::StaticSmem, "Shared memory declared in the kernel's code, per block.",
     "Shown in B, kB, MB; CSV: bytes."},
    {F::DynamicSmem, "Shared memory requested at launch, per block.",
     "Shown in B, kB, MB; CSV: bytes."},
    {F::NvtxRange,
     "The innermost NVTX range around the launch call, as recorded (PyTorch markers include op_id, "
     "seq and shapes).",
     "Text."},
    {F::NvtxPath, "All NVTX ranges around the launch call, outermost first, joined by /.", "Text."},
    {F::Layer,
     "The model layer (an NVTX range such as layer0); backward kernels take their forward op's "
     "layer; empty outside layers.",
     "Text."},
    {F::Op,
     "The innermost PyTorch op (aten::…, or an autograd node for backward kernels) around the "
     "launch.",
     "Text."},
    {F::Seq,
     "PyTorch's autograd sequence number: joins a forward op to the backward node it caused.",
     "Integer."},
    {F::TorchOpId, "PyTorch's op_id of the op (emit_nvtx markers).", "Integer."},
    {F::Dir, "Training phase of the kernel: forward, backward, optimizer or other.", "Text."},
    {F::FwdOpId, "For a backward kernel, the op_id of the forward op whose gradient it computes.",
     "Integer."},
    {F::Sizes, "Input shapes of the op, recorded with emit_nvtx(record_shapes=True).",
     "Text, e.g. [[8, 1024], [1024, 4096]]."},
    {F::Flops,
     "Floating-point operations the op's math needs (a fused multiply-add counts 2), from the "
     "shapes.",
     "Shown with k, M, G, T; CSV: a count."},
    {F::Bytes, "The least bytes the op must read and write (each input and output once).",
     "Shown in B, kB, MB, GB; CSV: bytes."},
    {F::DataType, "Data type of the math (f16, bf16, f32, tf32, …).", "Text."},
    {F::Intensity, "Arithmetic intensity: FLOPs divided by bytes; high means compute-bound.",
     "FLOP per byte."},
    {F::TflopsS, "Achieved FLOP rate: FLOPs divided by the kernel's duration.",
     "TFLOP/s (10¹² FLOP per second)."},
    {F::GbytesS, "Achieved byte rate: bytes divided by the kernel's duration.",
     "GB/s (10⁹ bytes per second)."},
    {F::Tc,
     "Whether the kernel ran on Tensor Cores: used, not used (the op was eligible but did not), or "
     "n/a.",
     "Text."},
    {F::TcReason,
     "The rule that decided the Tensor Core state (kernel name pattern, dtype, shapes).", "Text."},
    {F::FlopsRule, "The formula that gave FLOPs and bytes for the op (e.g. 2·M·N·K for a GEMM).",
     "Text."},
    {F::DataTypeSource, "Where the dtype came from: the kernel name or the op marker.", "Text."},
    {F::Rank, "The rank of the job whose GPU ran the kernel.", "Integer."},
    {F::OccupancyPct,
     "Warps of this launch one SM can hold at once, as a share of its maximum (from block size, "
     "registers and shared memory).",
     "Percent, 0 to 100."},
    {F::OccupancyLimiter, "The resource that caps the theoretical occupancy.",
     "Text: registers, shared memory, warps or blocks."},
    {F::Graph,
     "The CUDA graph and node that replayed the kernel. A replayed kernel takes the op, layer and "
     "shapes of the launch call that created its node during stream capture; \"(launch op)\" "
     "marks kernels whose capture is not in the trace (attributed to the op around the graph "
     "launch), \"(whole launch)\" a graph launch traced as one GPU item.",
     "Text: graph N node M."},
}};

} // namespace

QString columnDescription(KernelField f) {
    const auto i = static_cast<size_t>(f);
    if (i >= kHelp.size() || kHelp[i].field != f)
        return {}; // a column added to core without help here: the test says so
    const KernelFieldInfo& info = kernelFieldInfo(f);
    return QStringLiteral("%1\nUnit: %2\nCSV column: %3")
        .arg(QString::fromUtf8(kHelp[i].what), QString::fromUtf8(kHelp[i].unit),
             QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size())));
}

} // namespace ls::gui
