// layerscope-cli job FILE|DIR... -o JOB.lsjob: every rank file of a job summarised into one job
// file (core/job/job_file.h). In one process, or under mpirun/srun spread over the MPI processes
// (one per node is the intended use): each takes its share of the files, largest first, the
// summaries are gathered to MPI rank 0 and it writes the file. Nothing but the -o file is written.
#include "app/cli/commands.h"
#include "app/cli/whole_line_stream.h"
#include "core/job/job_file.h"
#include "core/job/trace_summary.h"
#include "core/load/session_load.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#ifdef LAYERSCOPE_WITH_MPI
#include <climits>
#include <mpi.h>
#endif

namespace ls::cli {
namespace fs = std::filesystem;
namespace {

constexpr int kProceed = -1; // prepareJob's "nothing wrong, go on"

struct JobPlan {
    std::string output;
    job::SummariseOptions summarise;
    std::vector<std::string> files; // expandSessionInputs' order: the job's ranks in order
    std::vector<uint64_t> sizes;    // bytes of each file (0 when it cannot be examined)
    bool inputsFailed = false;      // some named input gave no file: exit status 3 at the end
};

// The number of processes the launcher started, told from its environment without initialising
// MPI (Open MPI, PMI/PMIx launchers such as MPICH's and Cray's, Slurm's srun); 1 when none.
int launchedWorldSize() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE",
                             "SLURM_STEP_NUM_TASKS"}) {
        const char* v = std::getenv(name);
        if (!v || !*v) continue;
        int n = 0;
        const auto [end, ec] = std::from_chars(v, v + std::strlen(v), n);
        if (ec == std::errc() && *end == '\0' && n > 0) return n;
    }
    return 1;
}

// This process's place among them, from the same environment (0 when none says).
int launchedRank() {
    for (const char* name :
         {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"}) {
        const char* v = std::getenv(name);
        if (!v || !*v) continue;
        int n = 0;
        const auto [end, ec] = std::from_chars(v, v + std::strlen(v), n);
        if (ec == std::errc() && *end == '\0') return n;
    }
    return 0;
}

bool sameFile(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec) && !ec) return true;
    const fs::path ca = fs::weakly_canonical(a, ec);
    if (ec) return false;
    const fs::path cb = fs::weakly_canonical(b, ec);
    return !ec && ca == cb;
}

// Checks the request and finds the inputs before any summary is made (they take minutes on big
// traces). Prints each problem as one `error:` line to err and returns the exit status, or
// kProceed with the plan filled.
int prepareJob(const Options& o, std::ostream& err, JobPlan& plan) {
    plan.output = o.get("output", "");
    if (plan.output.empty()) {
        err << "error: job needs -o JOB.lsjob, the job file to write\n";
        return kUsage;
    }
    const std::string threads = o.get("threads", "0");
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(threads.data(), threads.data() + threads.size(), n);
    if (ec != std::errc() || end != threads.data() + threads.size() || n > 4096) {
        err << "error: --threads needs a whole number of threads (0: as many as cores)\n";
        return kUsage;
    }
    plan.summarise.threads = n;
    plan.summarise.cacheDir = cliLoadOptions(o).cacheDir;
    plan.summarise.useCache = !plan.summarise.cacheDir.empty();

    std::vector<SessionFailure> failed;
    plan.files = expandSessionInputs(o.positional, failed);
    for (const auto& f : failed) err << "error: " << f.file << ": " << f.reason << "\n";
    plan.inputsFailed = !failed.empty();
    if (plan.files.empty()) return kUnreadable; // each input said why above

    const fs::path out(plan.output);
    std::error_code fe;
    if (fs::is_directory(out, fe)) {
        err << "error: " << plan.output
            << " is a folder: -o names the job file to write (e.g. -o job.lsjob)\n";
        return kUsage;
    }
    for (const auto& f : plan.files)
        if (sameFile(out, f)) {
            err << "error: -o " << plan.output
                << " is one of the traces to summarise: name another job file\n";
            return kUsage;
        }
    fs::path folder = fs::absolute(out, fe).parent_path();
    if (fe) folder = out.parent_path();
    if (!folder.empty() && !fs::is_directory(folder, fe)) {
        err << "error: " << plan.output << ": the folder " << folder.string()
            << " does not exist\n";
        return kUnreadable;
    }
    // Whether the job file can be written there, asked now rather than after the summaries: the
    // file itself is opened (and removed again when it was not there), nothing else is made.
    const bool existed = fs::exists(out, fe);
    errno = 0;
    {
        std::ofstream probe(out, std::ios::binary | std::ios::app);
        if (!probe) {
            err << "error: " << plan.output << ": cannot write the job file there ("
                << (errno ? std::strerror(errno) : "not writable") << ")\n";
            return kUnreadable;
        }
    }
    if (!existed) fs::remove(out, fe);

    plan.sizes.resize(plan.files.size());
    for (size_t i = 0; i < plan.files.size(); ++i) {
        const uintmax_t size = fs::file_size(plan.files[i], fe);
        plan.sizes[i] = fe ? 0 : static_cast<uint64_t>(size);
    }
    return kProceed;
}

// Writes the job file from the summaries in input order; prints the outcome.
int finishJob(const JobPlan& plan, const std::vector<std::string>& summaries, std::ostream& err,
              const std::string& by) {
    const std::string error = job::writeJobFile(plan.output, summaries);
    if (!error.empty()) {
        err << "error: " << plan.output << ": " << error << "\n";
        return kUnreadable;
    }
    // A file that could not be read is a rank holding its error in the job file; said here as a
    // session says it, with exit status 3.
    uint64_t bytes = 0;
    size_t unreadable = 0;
    for (size_t i = 0; i < summaries.size(); ++i) {
        bytes += summaries[i].size();
        job::TraceSummary decoded;
        const std::string bad = job::decodeSummary(summaries[i], decoded);
        const std::string& reason = bad.empty() ? decoded.error : bad;
        if (reason.empty()) continue;
        ++unreadable;
        err << "error: " << (reason.rfind(plan.files[i], 0) == 0 ? "" : plan.files[i] + ": ")
            << reason << "\n";
    }
    err << "job: wrote " << plan.output << ": " << summaries.size() << " trace file"
        << (summaries.size() == 1 ? "" : "s") << " summarised" << by << " (" << bytes / 1024
        << " KiB)";
    if (unreadable > 0)
        err << "; " << unreadable << " could not be read, their ranks hold the error";
    err << "\n";
    return plan.inputsFailed || unreadable > 0 ? kUnreadable : kOk;
}

int runLocalJob(const Options& o, Context& c) {
    JobPlan plan;
    if (const int rc = prepareJob(o, c.err, plan); rc != kProceed) return rc;
    const size_t n = plan.files.size();
    std::vector<std::string> summaries(n);
    for (size_t i = 0; i < n; ++i) {
        c.err << "job: [" << i + 1 << "/" << n << "] " << plan.files[i] << "\n" << std::flush;
        summaries[i] = job::summariseTraceFile(plan.files[i], plan.summarise);
    }
    return finishJob(plan, summaries, c.err, "");
}

} // namespace

#ifdef LAYERSCOPE_WITH_MPI
namespace {

// Which process summarises which file: the files largest first, each to the process with the
// fewest bytes so far (the lowest rank on ties). Every process computes the same plan from the
// same sizes; each share lists its files largest first.
std::vector<std::vector<size_t>> planJobShares(const std::vector<uint64_t>& sizes,
                                               size_t processes) {
    std::vector<size_t> order(sizes.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
    std::vector<std::vector<size_t>> shares(std::max<size_t>(processes, 1));
    std::vector<uint64_t> load(shares.size(), 0);
    for (size_t i : order) {
        const size_t p =
            static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        shares[p].push_back(i);
        load[p] += std::max<uint64_t>(sizes[i], 1);
    }
    return shares;
}

// Byte streams exchanged between the processes: little-endian u64s and length-prefixed bytes.
void putU64(std::string& s, uint64_t v) {
    for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void putBytes(std::string& s, std::string_view bytes) {
    putU64(s, bytes.size());
    s.append(bytes);
}
struct Reader {
    std::string_view s;
    size_t at = 0;
    bool ok = true;
    uint64_t u64() {
        if (s.size() - at < 8) {
            ok = false;
            return 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
        at += 8;
        return v;
    }
    std::string_view bytes() {
        const uint64_t n = u64();
        if (!ok || s.size() - at < n) {
            ok = false;
            return {};
        }
        const std::string_view v = s.substr(at, n);
        at += n;
        return v;
    }
};

// A process's result for one file: its summary, or (index kLocalError) why it stopped.
constexpr uint64_t kLocalError = UINT64_MAX;

// Rank 0's buffer to every process, in pieces that MPI's int counts can hold.
void broadcast(std::string& data) {
    uint64_t size = data.size();
    MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    data.resize(size);
    for (uint64_t at = 0; at < size;) {
        const int n = static_cast<int>(std::min<uint64_t>(size - at, INT_MAX / 2));
        MPI_Bcast(data.data() + at, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        at += static_cast<uint64_t>(n);
    }
}

// Every process's stream to rank 0 (returned there, one per process; empty elsewhere), in rounds
// of MPI_Gatherv whose total stays under 1 GiB, so that jobs of any size gather.
std::vector<std::string> gatherToRoot(const std::string& mine, int rank, int size) {
    uint64_t myLength = mine.size();
    std::vector<uint64_t> lengths(rank == 0 ? static_cast<size_t>(size) : 0);
    MPI_Gather(&myLength, 1, MPI_UINT64_T, lengths.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    uint64_t longest = myLength;
    MPI_Allreduce(&myLength, &longest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    const uint64_t chunk = std::max<uint64_t>(1, (uint64_t{1} << 30) / static_cast<uint64_t>(size));

    std::vector<std::string> streams(lengths.size());
    for (size_t p = 0; p < lengths.size(); ++p) streams[p].reserve(lengths[p]);
    std::vector<int> counts(lengths.size()), displs(lengths.size());
    std::string round;
    for (uint64_t at = 0; at < longest; at += chunk) {
        const int send = static_cast<int>(myLength > at ? std::min(chunk, myLength - at) : 0);
        if (rank == 0) {
            int total = 0;
            for (size_t p = 0; p < lengths.size(); ++p) {
                counts[p] =
                    static_cast<int>(lengths[p] > at ? std::min(chunk, lengths[p] - at) : 0);
                displs[p] = total;
                total += counts[p];
            }
            round.resize(static_cast<size_t>(total));
        }
        MPI_Gatherv(mine.data() + std::min<uint64_t>(at, myLength), send, MPI_BYTE, round.data(),
                    counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
        for (size_t p = 0; p < lengths.size(); ++p)
            streams[p].append(round, static_cast<size_t>(displs[p]),
                              static_cast<size_t>(counts[p]));
    }
    return streams;
}

int runMpiJob(const Options& o, Context& c, int rank, int size) {
    // Rank 0 checks the request and lists the files; every process gets the same list and sizes,
    // so every process computes the same plan.
    JobPlan plan;
    int status = kProceed;
    std::string listing;
    if (rank == 0) {
        status = prepareJob(o, c.err, plan);
        c.err.flush();
        if (status == kProceed) {
            putU64(listing, plan.inputsFailed ? 1 : 0);
            putU64(listing, plan.files.size());
            for (size_t i = 0; i < plan.files.size(); ++i) {
                putU64(listing, plan.sizes[i]);
                putBytes(listing, plan.files[i]);
            }
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != kProceed) return status; // rank 0 said why
    broadcast(listing);
    if (rank != 0) {
        plan.output = o.get("output", "");
        plan.summarise.threads = static_cast<unsigned>(std::stoul(o.get("threads", "0")));
        plan.summarise.cacheDir = cliLoadOptions(o).cacheDir;
        plan.summarise.useCache = !plan.summarise.cacheDir.empty();
        Reader r{listing};
        plan.inputsFailed = r.u64() != 0;
        const uint64_t n = r.u64();
        for (uint64_t i = 0; i < n && r.ok; ++i) {
            plan.sizes.push_back(r.u64());
            plan.files.emplace_back(r.bytes());
        }
    }

    // Several processes on one node (--ppn 4) share its cores rather than each taking them all.
    if (plan.summarise.threads == 0) {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int onNode = 1;
        MPI_Comm_size(node, &onNode);
        MPI_Comm_free(&node);
        if (onNode > 1)
            plan.summarise.threads =
                std::max(1u, std::thread::hardware_concurrency() / static_cast<unsigned>(onNode));
    }
    const auto shares = planJobShares(plan.sizes, static_cast<size_t>(size));
    const auto& mine = shares[static_cast<size_t>(rank)];
    const size_t n = plan.files.size();
    if (rank == 0)
        c.err << "job: " << n << " trace file" << (n == 1 ? "" : "s") << " over " << size
              << " MPI processes, largest first\n"
              << std::flush;
    // A process that fails (out of memory) says so and stops; rank 0 reports which files were
    // left and writes no job file. The other processes finish their shares: nobody waits forever.
    std::string stream;
    for (size_t k = 0; k < mine.size(); ++k) {
        const size_t i = mine[k];
        c.err << "job: process " << rank << " of " << size << ": [" << k + 1 << "/" << mine.size()
              << "] " << plan.files[i] << "\n"
              << std::flush;
        try {
            const std::string summary = job::summariseTraceFile(plan.files[i], plan.summarise);
            putU64(stream, i);
            putBytes(stream, summary);
        } catch (const std::exception& e) {
            putU64(stream, kLocalError);
            putBytes(stream, "process " + std::to_string(rank) + " failed on " + plan.files[i] +
                                 ": " + e.what());
            break;
        }
    }

    std::vector<std::string> streams = gatherToRoot(stream, rank, size);
    stream.clear();
    int rc = kOk;
    if (rank == 0) {
        std::vector<std::string> summaries(n);
        std::vector<bool> have(n, false);
        std::vector<std::string> errors;
        for (auto& s : streams) {
            Reader r{s};
            while (r.ok && r.at < s.size()) {
                const uint64_t i = r.u64();
                const std::string_view bytes = r.bytes();
                if (!r.ok) break;
                if (i == kLocalError) {
                    errors.emplace_back(bytes);
                } else if (i < n) {
                    summaries[i].assign(bytes);
                    have[i] = true;
                }
            }
            s = std::string();
        }
        size_t missing = 0;
        std::string names; // the first ten files not summarised
        for (size_t i = 0; i < n; ++i)
            if (!have[i] && missing++ < 10) names += (names.empty() ? "" : ", ") + plan.files[i];
        if (missing > 0) {
            for (const auto& e : errors) c.err << "error: " << e << "\n";
            c.err << "error: " << missing << " of " << n << " trace files not summarised (" << names
                  << (missing > 10 ? ", …" : "") << "); no job file written\n";
            rc = kUnreadable;
        } else {
            rc =
                finishJob(plan, summaries, c.err, " by " + std::to_string(size) + " MPI processes");
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

} // namespace
#endif

int commandJob(const Options& o, Context& local) {
    const int launched = launchedWorldSize();
    if (launched <= 1) return runLocalJob(o, local);
    // The processes share one stderr through the launcher: each message goes in whole lines.
    WholeLineStream lines(local.err);
    Context c{local.out, lines};
#ifdef LAYERSCOPE_WITH_MPI
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = kUsage;
    try {
        if (size > 1) {
            rc = runMpiJob(o, c, rank, size);
        } else if (launchedRank() == 0) {
            // The launcher started several processes but MPI joined none of them (srun without
            // an MPI plugin, a launcher of another MPI): each would write the same job file.
            c.err << "error: started as " << launched << " processes, but MPI sees one: start it "
                  << "with the mpirun/srun of the MPI it was built with (srun --mpi=pmix)\n";
        }
    } catch (const std::exception& e) {
        // Anything thrown outside a summary (while gathering, writing): the other processes may
        // be inside a collective call, so the whole job is ended rather than left waiting.
        c.err << "error: process " << rank << " of the MPI job: " << e.what()
              << "; ending the job\n"
              << std::flush;
        MPI_Abort(MPI_COMM_WORLD, kUnreadable);
    }
    c.err.flush();
    MPI_Finalize();
    return rc;
#else
    if (launchedRank() == 0)
        c.err << "error: started as " << launched
              << " processes by mpirun/srun, but this layerscope-cli was built without MPI: run "
                 "it once without the launcher, or build it with an MPI installed\n";
    return kUsage;
#endif
}

} // namespace ls::cli
