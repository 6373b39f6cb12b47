// loadTrace: probe the file, detect the format, read the small tables, then read the event
// tables in parallel rowid windows (one read-only connection per worker) and build the Trace.
#include "core/correlation.h"
#include "core/file_probe.h"
#include "core/kernel_metrics.h"
#include "core/load.h"
#include "core/nsys_chunk.h"
#include "core/nsys_small_tables.h"
#include "core/nvprof_convert.h"
#include "core/sqlite_db.h"
#include "core/trace_builder.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <thread>

namespace ls {
namespace {

constexpr int64_t kChunkRows = 1 << 18;

struct TableSpan {
    const TableSpec* spec;
    int64_t firstRowid, lastRowid;
    size_t rows;      // rows to presize for
    bool sequential;  // rowids too sparse to index by: one task, rows placed in read order
};

struct Plan {
    std::vector<ChunkTask> tasks;
    std::vector<TableSpan> spans;
    std::map<const TableSpec*, std::set<std::string>> columns;
    uint64_t rowsTotal = 0;
};

LoadError sqliteLoadError(const SqliteError& e) {
    const int primary = e.code() & 0xFF;
    if (primary == SQLITE_NOTADB) return {LoadErrorKind::NotSqlite, "not an SQLite database (or an encrypted one)"};
    if (primary == SQLITE_CORRUPT) return {LoadErrorKind::Corrupt, std::string("truncated or corrupt database (") + e.what() + ")"};
    if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM)
        return {LoadErrorKind::Unreadable, std::string("cannot read the file (") + e.what() + ")"};
    return {LoadErrorKind::Corrupt, std::string("unexpected database error (") + e.what() + ")"};
}

std::optional<LoadError> detectFormat(const std::set<std::string>& tables) {
    bool anyGpu = false;
    for (const auto& spec : nsysEventTables())
        if (spec.kind != EventTable::Nvtx && tables.count(std::string(spec.table))) anyGpu = true;
    if (!anyGpu)
        return LoadError{LoadErrorKind::NoGpuTables,
                         "no GPU activity tables (CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET or _RUNTIME): "
                         "not an Nsight Systems export, or CUDA was not traced"};
    return std::nullopt;
}

// No table row takes fewer bytes in the file than this; a rowid span beyond fileSize / this
// means sparse rowids (deleted rows or a crafted file), not that many rows.
constexpr uint64_t kMinBytesPerRow = 32;
// Rows are indexed by 32-bit ids, with one bit to spare in places.
constexpr uint64_t kMaxRows = (uint64_t(1) << 31) - 1;

Plan planChunks(const Database& db, const std::set<std::string>& tables, uint64_t fileSize, LoadReport& report) {
    Plan plan;
    for (const auto& spec : nsysEventTables()) {
        const std::string name(spec.table);
        if (!tables.count(name)) {
            report.add(Anomaly::MissingTable, 1, name);
            continue;
        }
        auto present = db.columns(name);
        bool usable = true;
        for (size_t i = 0; i < spec.columns.size(); ++i) {
            const std::string c(spec.columns[i]);
            if (c == "rowid" || present.count(c)) continue;
            report.add(Anomaly::MissingColumn, 1, name + "." + c);
            usable &= i >= spec.requiredColumns;
        }
        for (const auto& c : present) {
            const auto known = [&](const std::vector<std::string_view>& v) { return std::find(v.begin(), v.end(), c) != v.end(); };
            if (!known(spec.columns) && !known(spec.knownUnused)) report.add(Anomaly::ExtraColumns, 1, name + "." + c);
        }
        if (!usable) continue;
        const auto range = db.rowidRange(name);
        if (!range) continue;
        // Unsigned arithmetic: rowids may span the whole int64 range in a crafted file.
        const uint64_t span = static_cast<uint64_t>(range->second) - static_cast<uint64_t>(range->first);
        if (span >= std::max<uint64_t>(1 << 16, fileSize / kMinBytesPerRow)) {
            const auto rows = static_cast<uint64_t>(db.scalar("SELECT count(*) FROM \"" + name + "\"").value_or(0));
            if (rows > kMaxRows) {
                report.add(Anomaly::ValueOutOfRange, 1, name + ": more rows than a trace can hold");
                continue;
            }
            plan.tasks.push_back({&spec, range->first, range->second});
            plan.spans.push_back({&spec, range->first, range->second, static_cast<size_t>(rows), true});
            plan.rowsTotal += rows;
        } else {
            if (span + 1 > kMaxRows) {
                report.add(Anomaly::ValueOutOfRange, 1, name + ": more rows than a trace can hold");
                continue;
            }
            for (int64_t lo = range->first;; lo += kChunkRows) {
                const bool lastChunk = static_cast<uint64_t>(range->second - lo) < static_cast<uint64_t>(kChunkRows);
                plan.tasks.push_back({&spec, lo, lastChunk ? range->second : lo + kChunkRows - 1});
                if (lastChunk) break;
            }
            plan.spans.push_back({&spec, range->first, range->second, static_cast<size_t>(span + 1), false});
            plan.rowsTotal += span + 1;
        }
        plan.columns[&spec] = std::move(present);
    }
    return plan;
}

class ParallelReader {
public:
    ParallelReader(const std::string& path, const Plan& plan, const NsysStrings& strings, EventSink& sink,
                   const LoadOptions& options)
        : path_(path), plan_(plan), strings_(strings), sink_(sink), options_(options), chunks_(plan.tasks.size()) {}

    // Returns the chunks in task order, or the first error.
    std::optional<LoadError> run(unsigned threads) {
        {
            std::vector<std::jthread> pool; // joins even if starting a later thread throws
            for (unsigned i = 0; i < threads; ++i) pool.emplace_back([this] { work(); });
        }
        if (error_) return error_;
        if (cancelled()) return LoadError{LoadErrorKind::Cancelled, "cancelled"};
        return std::nullopt;
    }
    std::vector<Chunk>& chunks() { return chunks_; }

private:
    bool cancelled() const { return options_.cancel && options_.cancel->load(std::memory_order_relaxed); }

    void fail(LoadError e) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::move(e);
        stop_ = true;
    }

    void rowsRead(std::string_view table, uint64_t rows) {
        if (cancelled()) stop_ = true;
        std::lock_guard lock(mutex_); // also keeps the reported count from going backwards
        rowsRead_ += rows;
        if (options_.progress) options_.progress(LoadProgress{table, rowsRead_, plan_.rowsTotal});
    }

    void work() {
        try {
            Database db(path_);
            std::map<const TableSpec*, std::unique_ptr<Statement>> statements;
            while (!stop_) {
                const size_t i = next_.fetch_add(1);
                if (i >= plan_.tasks.size()) break;
                const ChunkTask& task = plan_.tasks[i];
                auto& st = statements[task.spec];
                if (!st) st = std::make_unique<Statement>(db.handle(), buildSelect(*task.spec, plan_.columns.at(task.spec), true));
                readChunk(*st, task, strings_, sink_, chunks_[i], stop_,
                          [&](uint64_t rows) { rowsRead(task.spec->table, rows); });
            }
        } catch (const SqliteError& e) {
            fail(sqliteLoadError(e));
        } catch (const std::bad_alloc&) {
            fail({LoadErrorKind::Unreadable, "out of memory while reading"});
        } catch (const std::exception& e) {
            fail({LoadErrorKind::Corrupt, std::string("cannot read the trace (") + e.what() + ")"});
        } catch (...) {
            fail({LoadErrorKind::Corrupt, "cannot read the trace (unexpected error)"});
        }
    }

    const std::string& path_;
    const Plan& plan_;
    const NsysStrings& strings_;
    EventSink& sink_;
    const LoadOptions& options_;
    std::vector<Chunk> chunks_;
    std::atomic<size_t> next_{0};
    std::atomic<bool> stop_{false};
    uint64_t rowsRead_ = 0; // guarded by mutex_
    std::mutex mutex_;
    std::optional<LoadError> error_;
};

} // namespace

std::string formatLoadError(const std::string& path, const LoadError& e) {
    return "error: " + path + ": " + e.reason;
}

namespace {

// A removable file in the temporary directory, deleted with the last trace that uses it.
struct TempFile {
    std::string path;
    ~TempFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

std::shared_ptr<TempFile> makeTempFile() {
    static std::atomic<unsigned> counter{0};
    auto f = std::make_shared<TempFile>();
    std::error_code ec;
    const auto dir = std::filesystem::temp_directory_path(ec);
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    f->path = (dir / ("layerscope-nvprof-" + std::to_string(stamp) + "-" + std::to_string(counter++) + ".sqlite")).string();
    return f;
}

// nvprof: convert to an Nsight Systems-shaped private copy, then load that like any export.
LoadResult loadNvprof(const std::string& path, const LoadOptions& options) {
    auto copy = makeTempFile();
    NvprofConversion conversion;
    if (auto e = convertNvprof(path, copy->path, conversion, options.cancel)) return {nullptr, std::move(e)};
    LoadResult r = loadTrace(copy->path, options);
    if (!r.ok()) {
        if (r.error->kind != LoadErrorKind::Cancelled) r.error->reason = "nvprof database: " + r.error->reason;
        return r;
    }
    auto trace = std::const_pointer_cast<Trace>(r.trace);
    trace->sourcePath = path;
    trace->ownedFiles = copy;
    trace->info.format = "nvprof database";
    trace->info.schemaVersion = std::to_string(conversion.schemaVersion);
    trace->report.add(Anomaly::ConvertedFromNvprof, 1, "schema version " + std::to_string(conversion.schemaVersion));
    if (conversion.unpairedMarkerEnds) trace->report.add(Anomaly::UnpairedMarkerEnd, conversion.unpairedMarkerEnds);
    if (trace->kernels.size() + trace->memcpys.size() + trace->memsets.size() + trace->apiCalls.size() == 0)
        trace->report.add(Anomaly::NoActivity, 1);
    return {std::move(trace), std::nullopt};
}

} // namespace

LoadResult loadTrace(const std::string& path, const LoadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    if (auto e = probeSqliteFile(path)) return {nullptr, std::move(e)};
    try {
        auto trace = std::make_shared<Trace>();
        trace->path = path;
        SmallTables small;
        Plan plan;
        {
            Database db(path);
            const auto tables = db.tables();
            if (looksLikeNvprof(tables)) return loadNvprof(path, options);
            if (auto e = detectFormat(tables)) return {nullptr, std::move(e)};
            small = readSmallTables(db, tables, trace->report);
            if (options.cancel && *options.cancel) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
            std::error_code ec;
            const auto fileSize = std::filesystem::file_size(path, ec);
            plan = planChunks(db, tables, ec ? 0 : static_cast<uint64_t>(fileSize), trace->report);
        }
        unsigned threads = options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency());
        threads = static_cast<unsigned>(std::clamp<size_t>(plan.tasks.size(), 1, std::min(threads, 16u)));
        EventSink sink(*trace);
        for (const auto& span : plan.spans) {
            sink.presize(span.spec->kind, span.firstRowid, span.rows, threads);
            sink.sequential[static_cast<size_t>(span.spec->kind)] = span.sequential;
        }
        const auto setup = std::chrono::steady_clock::now();
        trace->loadPhases.emplace_back("open + small tables", std::chrono::duration<double>(setup - t0).count());
        ParallelReader reader(path, plan, small.strings, sink, options);
        if (auto e = reader.run(threads)) return {nullptr, std::move(e)};
        trace->loadPhases.emplace_back("read event tables", std::chrono::duration<double>(std::chrono::steady_clock::now() - setup).count());
        auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
        if (cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
        buildTrace(sink, small, reader.chunks(), threads);
        if (cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
        const auto built = std::chrono::steady_clock::now();
        correlate(*trace, threads);
        const auto correlated = std::chrono::steady_clock::now();
        trace->loadPhases.emplace_back("correlate", std::chrono::duration<double>(correlated - built).count());
        computeKernelMetrics(*trace);
        trace->loadPhases.emplace_back("flops, bytes, tensor cores", std::chrono::duration<double>(std::chrono::steady_clock::now() - correlated).count());
        if (cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
        trace->loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return {std::move(trace), std::nullopt};
    } catch (const SqliteError& e) {
        return {nullptr, sqliteLoadError(e)};
    } catch (const std::bad_alloc&) {
        return {nullptr, LoadError{LoadErrorKind::Unreadable, "out of memory"}};
    } catch (const std::exception& e) {
        return {nullptr, LoadError{LoadErrorKind::Corrupt, std::string("cannot load the trace (") + e.what() + ")"}};
    }
}

} // namespace ls
