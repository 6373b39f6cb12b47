#include "app/cli/cli.h"

#include "app/cli/commands.h"
#include "core/cache/trace_cache.h"
#include "core/job/job_file.h"

#include <cstdlib>
#include <exception>
#include <functional>
#include <new>
#include <ostream>
#include <string_view>

namespace ls::cli {
namespace {

const char* kUsageText = R"(usage: layerscope-cli COMMAND FILE... [options]

Reads an Nsight Systems SQLite export (nsys export --type sqlite), an nvprof database or a PyTorch
profiler trace (Chrome-trace JSON, .json or .json.gz) and prints what it holds. Several FILEs, or a
folder, open as one session (the ranks of one job, one trace per rank): files load in parallel,
each process's work on each GPU is a rank, rows gain a rank column (and file with several files).

commands:
  info FILE [--ncu CSV]         format, versions, capture span, counts, devices, load report
                                (and how Nsight Compute kernels matched the trace's)
  kernels FILE [--layer NAME | --range TEXT] [--ncu CSV] [--format F]
                                one row per kernel with its launch call, NVTX stack, layer, op
                                and direction (F: csv, tsv or table; default csv); --ncu adds
                                Nsight Compute metrics
  ops FILE [--format F]         one row per op instance: forward ops and backward nodes, paired
  summary FILE --report R [--format F]
                                R: kern_sum, gpukernsum, api_sum, nvtx_kern_sum, nvtx_sum,
                                layer_sum, op_sum, tc_sum, ncu_match, rank_sum,
                                collective_sum, rank_iter_sum, iter_sum, idle_sum,
                                gaps, mem_time_sum, mem_size_sum, gpu_sum,
                                kern_exec_sum, launch_sum, osrt_sum, roofline,
                                nvtx_gpu_proj, gpu_trace, api_trace
                                (see `summary --help`)
  diff A B [--by LEVEL] [--per-sample] [--format F]
                                two runs compared by layer, op, kernel family, kernel,
                                direction or iteration, per iteration (see `diff --help`)
  findings FILE... [--compare B] [--format F]
                                what is wrong, costliest first: each finding's cost per
                                iteration, its evidence and fix (F: table, csv, tsv or json)

  job FILE|DIR... -o JOB.lsjob  every rank's summary in one job file, for the job reports
                                without the traces; under mpirun/srun spread over the
                                processes (see `job --help`)
  cache info|clear              the model cache: what it holds, or empty it

A trace loaded whole is kept in a model cache ($XDG_CACHE_HOME/layerscope/traces, never beside
the trace) so that opening it again reads the model instead of the export; --no-cache (every
command) or LAYERSCOPE_NO_CACHE=1 loads from the file alone and writes no cache.

Run `layerscope-cli COMMAND --help` for a command's options; --version prints the version.
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
        {"info",
         {"ncu"},
         {"memory"},
         R"(usage: layerscope-cli info FILE... [--ncu CSV] [--memory]

Prints the export's format, exporter and schema version, capture span,
counts per event kind, processes, threads, devices, streams and the load report.

--memory       also print where the loaded model's memory is: each column and index with
               its rows, bytes and bytes per kernel, the string pool and the rest

--ncu CSV      also read Nsight Compute `ncu --csv` output of the same program and print how
               its kernels matched the trace's: matched, unmatched and ambiguous counts, the
               process pairing and the first reasons (docs/ncu.md)
)",
         commandInfo},
        {"kernels",
         {"format", "layer", "range", "filter", "sort", "columns", "ncu"},
         {"desc", "pyprof"},
         R"(usage: layerscope-cli kernels FILE... [--layer NAME | --range TEXT] [--filter EXPR]
                              [--sort COLUMN [--desc]] [--ncu CSV] [--format csv|tsv|table]

One row per kernel, by start time, with columns
  id,start_ns,end_ns,duration_ns,device,context,stream,pid,tid,correlation_id,api,name,
  short_name,grid,block,registers,static_smem,dynamic_smem,nvtx_range,nvtx_path,layer,op,seq,
  op_id,direction,fwd_op_id,sizes,flops,bytes,dtype,intensity,tflops_s,gbytes_s,tc,tc_reason,
  flops_rule,dtype_source,rank,occupancy_pct,occupancy_limiter (and file, with several FILEs)
api: the launching call (joined by correlation id within the process); tid: its thread;
grid/block: x,y,z. nvtx_range: raw text of the innermost NVTX range around the launch call on
its thread; nvtx_path: normalized names of all enclosing ranges, outermost first, separated by
" > ". layer: nearest enclosing user range that is not a framework marker (backward kernels
take the layer of their paired forward op). op, op_id, sizes: innermost PyTorch op marker.
seq: of the op instance (forward op or backward node). direction: forward, backward, optimizer
or other. fwd_op_id: for backward kernels, op_id of the paired forward op.
flops, bytes: of the innermost op, on the kernels doing its math (split by duration when
several; auxiliary kernels of GEMM/attention ops get 0); empty when no formula applies.
dtype (dtype_source: where it came from), intensity (FLOP/byte), tflops_s, gbytes_s.
tc: used, not used (a GEMM/conv/attention math kernel without Tensor Cores) or n/a, with
tc_reason naming the rule; flops_rule names the formula (docs/flops.md).
occupancy_pct: theoretical occupancy, the warps of the launch one SM can hold as a percentage
of its maximum, from block size, registers, shared memory and the GPU's compute capability
(6.0 to 10.0; empty otherwise); occupancy_limiter: what caps it (registers, shared memory,
warps, blocks; ties joined by +). docs/occupancy.md

--layer NAME   only the kernels of layer NAME, forward and backward
--range TEXT   only the kernels under a range whose normalized name is TEXT
--filter EXPR  only the kernels matching EXPR, the GUI filter bar's language: terms joined by
               `and`, `&&` or `;`; a term is COLUMN OP VALUE (OP: = != < <= > >= ~ !~, ~ is a
               case-insensitive regex search, = and != compare whole cells ignoring case),
               /regex/ or free text (a substring of name, op or layer). Text values may be
               "quoted". Units: ns us ms s; k M G T (FLOP); B kB MB GB KiB MiB GiB. Aliases:
               duration, start, end (both from the capture start), kernel, correlation, range
               (its normalized name), path, shapes, tflops, gbytes.
               e.g. --filter "duration > 50us and tc = not used", --filter "op ~ ^aten::(mm|addmm)$"
--pyprof       PyProf's columns instead (idx, seq, altseq, tid, layer, trace, dir, sub, mod, op,
               kernel, params, sil, tc, device, stream, grid, block, flops, bytes; docs/pyprof.md);
               -c/--columns a,b,c picks and orders them as prof.py -c does
--sort COLUMN  order rows by COLUMN or alias (unknown cells last), ties in start order;
               --desc reverses
--ncu CSV      Nsight Compute `ncu --csv` output (details or --page raw) of the same program:
               its kernels are matched to the trace's by launch order and name, and the columns
               ncu:id, then one per metric named ncu:SECTION/METRIC [UNIT] (raw page:
               ncu:METRIC [UNIT]), then ncu:tc and ncu:tc_reason when the file has tensor-pipe
               instruction counts, are appended; empty for kernels ncu did not measure or that
               did not match (`info FILE --ncu CSV` says why). docs/ncu.md
)",
         commandKernels},
        {"ops",
         {"format"},
         {},
         R"(usage: layerscope-cli ops FILE... [--format csv|tsv|table]

One row per op instance: top-level PyTorch forward ops (nested ops belong to them) and backward
nodes (everything the autograd engine ran for the node), with columns
  op_id,name,seq,direction,layer,tid,start_ns,end_ns,kernels,gpu_time_ns,paired_op_id,sizes,rank
  (and file, with several FILEs); rank: of the GPU the op's first kernel ran on
A backward node with seq N pairs with the last top-level forward op of its process that showed
seq N. paired_op_id: for a backward node its forward op, for a forward op its backward node.
)",
         commandOps},
        {"summary",
         {"report", "format", "ncu", "by", "sort", "time-unit"},
         {},
         R"(usage: layerscope-cli summary FILE... --report REPORT [--ncu CSV] [--format csv|tsv|table]
                               [--sort KEY] [--time-unit s|ms|us|ns]

kern_sum       kernels grouped by name, as nsys stats cuda_gpu_kern_sum
gpukernsum     kernels grouped by grid, block and name, as nsys 2022.4 gpukernsum
mem_time_sum   memory operations ([CUDA memcpy HtoD|DtoH|DtoD|HtoH|PtoP], [CUDA memset]) by
               time, as nsys 2022.4 gpumemtimesum
mem_size_sum   the same by size in decimal MB, as gpumemsizesum
gpu_sum        kernels (by name) and memory operations in one table, as gpusum
kern_exec_sum  per launching pid, tid, device, API and kernel: total (call start to the later
               of call end and kernel end), API, queue (call end to kernel start, where
               positive: QCount of Count) and kernel time statistics, as kernexecsum (the
               launch-bound view)
osrt_sum       OS runtime calls (nsys profile -t osrt: poll, pthread_cond_wait, …) by name, as
               nsys 2022.4 osrtsum; empty when the trace has none
nvtx_gpu_proj  each NVTX range projected onto the GPU (first start to last end of the kernels,
               copies and sets launched inside it), with its level, parent and stack, as nsys
               2022.4 nvtxgpuproj (ranges ending on another thread left out, as nsys does)
gpu_trace      one row per kernel, memcpy and memset by start, as nsys 2022.4 gputrace
               (sizes in MB, throughput in MB/s, memory kinds, device, context, stream)
api_trace      one row per CUDA runtime or driver call by start, as nsys 2022.4 cudaapitrace
               (each call once, also where older exports hold two rows per call)
api_sum        CUDA runtime and driver calls by name, as nsys stats cuda_api_sum
               (each call once, also where older exports hold two rows per call)
nvtx_kern_sum  kernels under each NVTX range of their launch call's stack, as nsys
               nvtxkernsum: grouped by pid, tid, raw range text, style and kernel name; a
               kernel counts once per range instance. Differences from nsys 2022.4, on purpose:
               where an export holds two runtime rows per call nsys sums each kernel twice;
               start/end ranges that end on another thread count on their starting thread
               (nsys drops them); unended ranges end at the capture end.
nvtx_sum       NVTX ranges grouped by normalized name (op_id, seq, sizes stripped) and style
layer_sum      kernels, GPU time, FLOPs, achieved TFLOP/s and Tensor Core share of GPU time per
               layer and direction; rows add up to all kernel time. flops sums the kernels
               with a formula (empty when none has one); tflops_s is over those kernels' time
op_sum         the same per op instance name and direction
tc_sum         GPU time by Tensor Core state (used, not used, n/a), per device
ncu_match      with --ncu CSV: one row per Nsight Compute kernel with its match state
               (matched, unmatched, ambiguous), the trace kernel id and the reason
rank_sum       per rank: kernels, span (first GPU op start to last end), busy (union of all
               kernels, copies and sets), compute and comm (unions of compute and of
               NCCL/NVSHMEM kernels), overlap (comm while compute runs on the same GPU),
               exposed_comm (comm - overlap), idle (span - busy, as HTA's idle time); a kernel
               overlapping itself on two streams counts once
collective_sum one row per collective matched across ranks (one launch on a process driving
               several GPUs; else the k-th of its type on each process group a PyTorch profiler
               trace names, or on each rank's k-th communication stream): bytes (message size,
               where the trace has it), start skew across ranks, the last-arriving rank, the time
               the others waited for it (sum of last start - start), in session time
rank_iter_sum  per iteration range (iteration N, step N, ProfilerStep#N) and rank: its span
               and the GPU span of the work that rank launched inside it, in session time, the
               rank with the longest GPU span of each iteration marked slowest
iter_sum       per iteration: the iteration ranges (iteration N, step N, ProfilerStep#N), or
               where there are none the detected steps (each run of optimizer ops ends one; for
               inference, the repeating top-level op sequence; `info` says which rule and how
               alike the iterations are), measured on the GPU: its work is what any thread of
               the process launched inside its CPU span, wherever it ran. Columns: CPU span,
               GPU span (first start to last end of that work), kernels, gpu_busy (union of its
               kernels, copies and sets), forward, backward, optimizer and comm (unions of its
               kernels of each kind), idle (GPU span - busy), outlier (GPU duration beyond 1.5
               interquartile ranges of the quartiles), then a median row
idle_sum       GPU idle time per device (gaps between the union of its kernels, copies and
               sets) by cause, with what the host was doing when each gap began, told from
               the thread that launched the work ending it: synchronization (inside a
               synchronizing call or .item()), launch (the next launch call was already
               running: launch overhead), host range (inside a user range: its name), host ops
               (inside framework ops only: the innermost), nothing traced; hta_category maps
               them onto HTA's host wait / kernel wait / other. device_busy_ns + the device's
               idle_ns = device_span_ns
roofline       [--by family|op|layer|kernel] one roofline point per group and per dtype,
               Tensor Core state and GPU: GPU time, FLOPs and bytes of its kernels with both
               known, intensity, achieved FLOP/s, the GPU's compute peak for that dtype and the
               roof there (min of peak and intensity x bandwidth), percent of roof and the
               binding roof (memory or compute); peaks from NVIDIA datasheets (docs/roofline.md)
launch_sum     launch-bound kernels (shorter on the GPU than their launch call on the CPU: a
               hint to fuse or use CUDA graphs) per layer, direction and op, most first
gaps           the 100 largest gaps, longest first, with cause, detail, the innermost framework
               op the host was in, the launching thread and the kernel that ended the gap
overview, model, distribution, operator, kernel_table
               PaddlePaddle's summary tables for any trace (docs/summary-tables.md): time per
               event type; step, data loader, forward, backward, optimization and others (CPU
               and GPU Total / Avg / Max / Min / Ratio); communication, computation and their
               overlap; ops -> inner phases -> kernels; per kernel name. --sort cpu_total|
               cpu_avg|cpu_max|cpu_min|gpu_total|gpu_avg|gpu_max|gpu_min orders operator and
               kernel_table rows as Paddle's sorted_by; --format table prints them as Paddle's
               console does, in --time-unit s|ms|us|ns (default ms)
memory         GPU memory (PyTorch profile_memory, nsys --cuda-memory-usage, Paddle): per op
               (--by layer: per layer) allocations, frees, their bytes and the highest
               allocated total reached; --format table adds each device's peak allocated and
               reserved memory and what was held at the peak
memory_live    the allocations held at each device's allocated peak, with op and layer
With several FILEs (or a folder) the per-trace reports gain leading file and rank columns;
rank_sum, collective_sum and rank_iter_sum cover the whole session.
rank_sum, collective_sum, rank_iter_sum and kern_sum load each file with only their parts and
release it once summarised; they also read a job file (JOB.lsjob, written by `job`; told by its
magic) and print what they print over its traces (docs/job-file.md).
Times in nanoseconds.
)",
         commandSummary},
        {"diff",
         {"by", "format", "a-rank", "b-rank", "batch-a", "batch-b"},
         {"per-sample"},
         R"help(usage: layerscope-cli diff A B [--by direction|layer|op|family|kernel|iteration] [--per-sample]
                           [--a-rank N] [--b-rank N] [--batch-a N] [--batch-b N] [--format csv|tsv|table]

Compares two runs (fp16 against bf16, batch 4 against 8, before and after a fix) by meaning,
not by time: each side's kernels grouped at the level --by names (default layer) and the groups
matched by key. A and B: any trace layerscope reads, or one rank of a session (a folder or a
file holding several ranks) with --a-rank/--b-rank.
  direction  forward, backward, optimizer, other
  layer      per layer and direction, as `summary --report layer_sum` ("(none)" outside layers)
  op         the k-th op of one name in its layer, direction and iteration ("layer0 › aten::linear #2"),
             with both sides' input shapes (a_shapes, b_shapes)
  family     kernel names folded one level up: element types, tile sizes, template integers
             and lambda instances folded; GEMMs (cuBLAS, CUTLASS, nvjet), attention kernels and
             each NCCL collective are one family each (docs/compare.md)
  kernel     per exact kernel name and direction
  iteration  the k-th iteration of A against the k-th of B (not divided by iterations)
Columns: key,direction,a_count,b_count,a_gpu_time_ns,b_gpu_time_ns,delta_ns,ratio,a_flops,b_flops,
a_tflops_s,b_tflops_s,a_tc,b_tc. Times and FLOPs are per iteration when a trace names several
(iteration N, step N, ProfilerStep#N; kernels launched outside them are left out), a_tc/b_tc the
share of GPU time on Tensor Core kernels in %, ratio b/a. Rows by |delta|, largest first; rows
only in A or only in B have b_count or a_count 0; the (total) row comes last.
A one-line verdict (which side is slower per iteration and which kernels explain most of it)
heads --format table; with csv and tsv it goes to stderr.

--per-sample   divide times and FLOPs by the batch size as well: the most common leading
               dimension of the forward ops' input shapes, or --batch-a/--batch-b N
)help",
         commandDiff},
        {"findings",
         {"format", "compare"},
         {},
         R"(usage: layerscope-cli findings FILE... [--compare REFERENCE] [--format table|csv|tsv|json]

What is wrong with a trace, or with the ranks of a job given as several files, as a list of
findings ranked by the time each costs per iteration (rank 1: the costliest): GPU idle after
synchronizations, behind host ranges such as data loading or behind slow launches; copies from
pageable memory; GEMMs without Tensor Cores or far below their roofline; top kernels limited by
registers or shared memory; chains of element-wise kernels to fuse; kernels shorter than their
launch; slow iterations and what differs in them; exposed communication and the rank the others
wait for. The typical iteration is the median period between the GPU starts of
consecutive iterations. A rule says nothing below 1 % of an iteration. Rules, thresholds and
how each cost is estimated: docs/findings.md.
Columns: rank,rule,statement,cost_ms_per_iteration,bound,evidence,fix (default format table,
which first prints the iteration time). json adds each finding's figures: the report numbers
its statement prints.

--compare REFERENCE   a run of the same model that is as it should be (one trace): adds the
               layer, the op and the kernel family that explain most of FILE's extra GPU
               time per iteration over it (compare_layer, compare_op, compare_family; as
               `diff REFERENCE FILE --by layer|op|family`)
)",
         commandFindings},
        {"job",
         {"output", "threads"},
         {},
         R"(usage: layerscope-cli job FILE|DIR... -o JOB.lsjob [--threads N] [--no-cache]

Summarises every trace of a job (the files, and the traces in each folder, as a session takes
them) into one job file: per rank its rank_sum times, collectives and iterations, and its
file's per-kernel totals (docs/job-file.md). `summary JOB.lsjob --report rank_sum|
collective_sum|rank_iter_sum|kern_sum` then answers as over the traces themselves, without
them. A file that cannot be read becomes a rank holding its error (its error line, exit status
3, the job file still written). Progress goes to stderr; nothing is written but the -o file,
which must not be one of the inputs.

-o, --output F the job file to write (written under a temporary name, then renamed)
--threads N    threads for each file's load (default 0: as many as cores, shared among the
               MPI processes of one node)

Under mpirun or srun (one process per node) the processes share the files, largest first, each
summarising its share with its own threads; MPI rank 0 gathers the summaries and writes the
file. A process that fails ends the job with an error and no job file; see docs/cli.md.
)",
         commandJob},
        {"cache",
         {},
         {},
         R"(usage: layerscope-cli cache info|clear

info    the model cache's folder, its files (most recently used first: when, size, the trace
        each was made from) and the size cap (least recently used files go beyond it)
clear   removes every model cache file
)",
         commandCache},
    };
    return list;
}

} // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (args.empty()) {
        err << kUsageText;
        return kUsage;
    }
    if (args[0] == "--version" || args[0] == "-v") {
        out << "layerscope-cli " << LAYERSCOPE_VERSION << "\n";
        return kOk;
    }
    if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        out << kUsageText;
        return kOk;
    }
    for (const auto& cmd : commands()) {
        if (args[0] != cmd.name) continue;
        std::string error;
        std::vector<std::string> rest(args.begin() + 1, args.end());
        for (auto& a : rest) {
            if (a == "-c") a = "--columns"; // prof.py's spelling
            if (a == "-o" && args[0] == "job") a = "--output";
        }
        std::set<std::string> flags = cmd.flags;
        flags.insert("no-cache"); // every command that loads a trace
        const Options o = parseOptions(rest, cmd.values, flags, error);
        if (o.help) {
            out << cmd.help;
            return kOk;
        }
        if (!error.empty()) {
            err << "error: " << error << "\n" << cmd.help;
            return kUsage;
        }
        if (o.positional.empty()) {
            err << "error: " << cmd.name << " needs a FILE (or several, or a folder)\n" << cmd.help;
            return kUsage;
        }
        if (o.positional.size() > 1 && o.values.count("ncu")) { // diff checks its own two
            err << "error: --ncu takes one FILE\n" << cmd.help;
            return kUsage;
        }
        Context c{out, err};
        int rc = kUnreadable;
        try {
            rc = cmd.run(o, c);
        } catch (const std::bad_alloc&) {
            // one line, not std::terminate, whatever a report hits midway
            out.flush();
            err << "error: out of memory\n";
        } catch (const std::exception& e) {
            out.flush();
            err << "error: " << e.what() << "\n";
        }
        // A model cache file may still be being written: its output is out already.
        out.flush();
        waitForCacheWrites();
        return rc;
    }
    err << "error: unknown command '" << args[0] << "'\n" << kUsageText;
    return kUsage;
}

std::optional<TableFormat> formatOption(const Options& o, Context& c) {
    auto format = parseTableFormat(o.get("format", "csv"));
    if (!format) c.err << "error: --format must be csv, tsv or table\n";
    return format;
}

LoadOptions cliLoadOptions(const Options& o) {
    LoadOptions options;
    const char* off = std::getenv("LAYERSCOPE_NO_CACHE");
    if (!o.flags.count("no-cache") && !(off && *off && std::string_view(off) != "0"))
        options.cacheDir = defaultTraceCacheDir();
    return options;
}

namespace {

// A job file (told by its magic, whatever its name) holds summaries, not a trace: only the
// session reports read it.
bool refuseJobFile(const std::string& path, Context& c) {
    if (!job::isJobFile(path)) return false;
    c.err << "error: " << path << ": a Layerscope job file; only `summary --report "
          << job::kSummaryReports << "` reads it\n";
    return true;
}

} // namespace

std::shared_ptr<const Trace> loadForCommand(const Options& o, Context& c, int& exitCode) {
    const std::string& path = o.positional.front();
    if (refuseJobFile(path, c)) {
        exitCode = kUnreadable;
        return nullptr;
    }
    LoadResult r = loadTrace(path, cliLoadOptions(o));
    if (!r.ok()) {
        c.err << formatLoadError(path, *r.error) << "\n";
        exitCode = kUnreadable;
        return nullptr;
    }
    exitCode = kOk;
    return r.trace;
}

TraceWithNcu loadWithNcu(const Options& o, Context& c, int& exitCode) {
    auto t = loadForCommand(o, c, exitCode);
    if (!t) return {};
    const std::string csv = o.get("ncu", "");
    auto imported = importNcuCsv(t, csv);
    if (!imported.ok()) {
        c.err << formatNcuError(csv, imported.error) << "\n";
        exitCode = kUnreadable;
        return {};
    }
    return {std::move(t), imported.metrics};
}

std::optional<Session> loadSessionForCommand(const Options& o, Context& c, int& exitCode,
                                             uint32_t parts) {
    for (const auto& input : o.positional)
        if (refuseJobFile(input, c)) {
            exitCode = kUnreadable;
            return std::nullopt;
        }
    SessionLoadOptions options;
    options.load = cliLoadOptions(o);
    options.load.parts = parts;
    Session s = loadSession(o.positional, options);
    exitCode = s.failed.empty() ? kOk : kUnreadable;
    for (const auto& f : s.failed) c.err << "error: " << f.file << ": " << f.reason << "\n";
    if (s.empty()) return std::nullopt;
    return s;
}

std::string rankText(const Session& s, uint32_t trace) {
    std::string text;
    for (const auto& r : s.ranks)
        if (r.trace == trace) text += (text.empty() ? "" : " ") + std::to_string(r.rank);
    return text;
}

} // namespace ls::cli
