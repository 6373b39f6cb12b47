#include "core/load/session_load.h"

#include "core/load/load.h"
#include "core/model/natural_order.h"
#include "core/model/platform.h"
#include "core/model/rank_labels.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>

namespace ls {
namespace {

namespace fs = std::filesystem;

bool looksLikeTrace(const std::string& name) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static constexpr std::string_view kExtensions[] = {
        ".sqlite", ".sqlite3", ".db", ".sql", ".nvvp", ".json", ".json.gz", ".nsys-rep", ".qdrep"};
    return std::any_of(std::begin(kExtensions), std::end(kExtensions),
                       [&](std::string_view e) { return lower.ends_with(e); });
}

// A conservative bound on a load's peak against its file's size: the README's figures are
// 564 MB for a 1.34 GB SQLite export (0.42x) and 177 MB for a 1.07 GB JSON trace, which gzip
// shrinks about tenfold (~1.7x of the .json.gz); small files add a fixed overhead.
uint64_t estimatedLoadBytes(uint64_t fileSize) { return fileSize * 2 + (64u << 20); }

} // namespace

std::vector<std::string> expandSessionInputs(const std::vector<std::string>& inputs,
                                             std::vector<SessionFailure>& failed) {
    std::vector<std::string> files;
    for (const auto& input : inputs) {
        std::error_code ec;
        if (!fs::is_directory(input, ec)) {
            files.push_back(input); // loadTrace says why a missing or odd file cannot be read
            continue;
        }
        std::vector<std::string> found;
        for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
            std::error_code fe;
            if (it->is_regular_file(fe) && looksLikeTrace(it->path().filename().string()))
                found.push_back(it->path().string());
        }
        if (ec) {
            failed.push_back({input, "cannot list the folder (" + ec.message() + ")"});
            continue;
        }
        if (found.empty()) {
            failed.push_back(
                {input,
                 "the folder holds no trace files (.sqlite, .nvvp, .json, .json.gz, .nsys-rep …)"});
            continue;
        }
        std::sort(found.begin(), found.end(), naturalLess);
        files.insert(files.end(), found.begin(), found.end());
    }
    return files;
}

unsigned parallelFileLoads(const std::vector<uint64_t>& fileSizes, unsigned cores,
                           uint64_t memoryBytes) {
    unsigned n = std::max(1u, std::min<unsigned>(cores, static_cast<unsigned>(fileSizes.size())));
    if (memoryBytes == 0 || fileSizes.empty()) return n;
    // The n largest files loading at once must fit in half of the memory.
    std::vector<uint64_t> sizes = fileSizes;
    std::sort(sizes.rbegin(), sizes.rend());
    while (n > 1) {
        uint64_t peak = 0;
        for (unsigned i = 0; i < n; ++i) peak += estimatedLoadBytes(sizes[i]);
        if (peak <= memoryBytes / 2) break;
        --n;
    }
    return n;
}

Session loadSession(const std::vector<std::string>& inputs, const SessionLoadOptions& options) {
    Session session;
    const std::vector<std::string> files = expandSessionInputs(inputs, session.failed);
    std::vector<uint64_t> sizes;
    for (const auto& f : files) {
        std::error_code ec;
        const auto size = fs::file_size(f, ec);
        sizes.push_back(ec ? 0 : size);
    }
    const unsigned cores = options.load.threads ? options.load.threads
                                                : std::max(2u, std::thread::hardware_concurrency());
    const unsigned concurrent =
        options.files ? std::min<unsigned>(options.files,
                                           static_cast<unsigned>(std::max<size_t>(1, files.size())))
                      : parallelFileLoads(sizes, cores, platform::physicalMemoryBytes());
    LoadOptions perFile = options.load;
    perFile.threads = std::max(1u, cores / concurrent);

    std::vector<LoadResult> results(files.size());
    std::atomic<size_t> nextFile{0};
    size_t done = 0;
    std::mutex mutex; // progress callbacks and the done count
    if (perFile.progress) {
        auto inner = perFile.progress;
        perFile.progress = [inner, &mutex](const LoadProgress& p) {
            std::lock_guard lock(mutex);
            inner(p);
        };
    }
    // Largest first: a big file taken last would leave the other threads idle while it loads.
    std::vector<size_t> order(files.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
    auto worker = [&] {
        for (size_t k; (k = nextFile.fetch_add(1)) < files.size();) {
            const size_t i = order[k];
            results[i] = loadTrace(files[i], perFile);
            std::lock_guard lock(mutex);
            ++done;
            if (options.fileDone) options.fileDone(done, files.size(), files[i]);
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned w = 1; w < concurrent; ++w) pool.emplace_back(worker);
        worker();
    }
    for (size_t i = 0; i < files.size(); ++i) {
        if (results[i].ok())
            session.traces.push_back({files[i], std::move(results[i].trace), 0});
        else if (results[i].error->kind != LoadErrorKind::Cancelled)
            session.failed.push_back({files[i], results[i].error->reason});
    }
    labelRanks(session);
    alignClocks(session);
    return session;
}

} // namespace ls
