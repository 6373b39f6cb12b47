// The Nsight Systems importer: read the small tables, then the event tables in parallel rowid
// windows (one read-only connection per worker), and build the Trace.
#include "core/import/nsys/nsys_importer.h"

#include "core/import/nsys/nsys_chunk.h"
#include "core/import/nsys/nsys_graphs.h"
#include "core/import/nsys/nsys_small_tables.h"
#include "core/import/nsys/trace_builder.h"
#include "core/import/sqlite/sqlite_db.h"
#include "core/import/sqlite/sqlite_pages.h"
#include "core/import/sqlite/sqlite_source.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

namespace ls {
namespace {

constexpr int64_t kChunkRows = 1 << 18;

struct TableSpan {
    const TableSpec* spec;
    int64_t firstRowid, lastRowid;
    size_t rows;     // rows to presize for
    bool sequential; // rowids too sparse to index by: one task, rows placed in read order
};

struct Plan {
    std::vector<ChunkTask> tasks;
    std::vector<TableSpan> spans;
    std::map<const TableSpec*, std::set<std::string>> columns;
    std::map<const TableSpec*, TableLayout> layouts; // tables read straight from the pages
    uint64_t rowsTotal = 0;
};

// No table row takes fewer bytes in the file than this; a rowid span beyond fileSize / this
// means sparse rowids (deleted rows or a crafted file), not that many rows.
constexpr uint64_t kMinBytesPerRow = 32;
// Rows are indexed by 32-bit ids, with one bit to spare in places.
constexpr uint64_t kMaxRows = (uint64_t(1) << 31) - 1;

uint32_t partOf(EventTable kind) {
    switch (kind) {
    case EventTable::Kernel:
        return kLoadKernels;
    case EventTable::Memcpy:
    case EventTable::Memset:
        return kLoadMemory;
    case EventTable::Runtime:
        return kLoadApiCalls;
    case EventTable::Nvtx:
        return kLoadNvtx;
    }
    return kLoadEverything;
}

Plan planChunks(const SqliteSource& db, uint64_t fileSize, uint32_t parts, LoadReport& report) {
    Plan plan;
    for (const auto& spec : nsysEventTables()) {
        if (!(parts & partOf(spec.kind))) continue; // not needed: not read, not reported
        const std::string name(spec.table);
        if (!db.hasTable(name)) {
            report.add(Anomaly::MissingTable, 1, name);
            continue;
        }
        auto present = db.columns(name);
        bool usable = true;
        const auto listed = [](const std::vector<std::string_view>& v, std::string_view c) {
            return std::find(v.begin(), v.end(), c) != v.end();
        };
        for (size_t i = 0; i < spec.columns.size(); ++i) {
            const std::string c(spec.columns[i]);
            if (c == "rowid" || present.count(c) || listed(spec.newerColumns, c)) continue;
            report.add(Anomaly::MissingColumn, 1, name + "." += c);
            usable &= i >= spec.requiredColumns;
        }
        for (const auto& c : present)
            if (!listed(spec.columns, c) && !listed(spec.knownUnused, c))
                report.add(Anomaly::ExtraColumns, 1, name + "." += c);
        if (!usable) continue;
        const auto range = db.rowidRange(name);
        if (!range) continue;
        // Unsigned arithmetic: rowids may span the whole int64 range in a crafted file.
        const uint64_t span =
            static_cast<uint64_t>(range->second) - static_cast<uint64_t>(range->first);
        if (span >= std::max<uint64_t>(1 << 16, fileSize / kMinBytesPerRow)) {
            const uint64_t rows = db.rowCount(name);
            if (rows > kMaxRows) {
                report.add(Anomaly::ValueOutOfRange, 1, name + ": more rows than a trace can hold");
                continue;
            }
            plan.tasks.push_back({&spec, range->first, range->second});
            plan.spans.push_back(
                {&spec, range->first, range->second, static_cast<size_t>(rows), true});
            plan.rowsTotal += rows;
        } else {
            if (span + 1 > kMaxRows) {
                report.add(Anomaly::ValueOutOfRange, 1, name + ": more rows than a trace can hold");
                continue;
            }
            for (int64_t lo = range->first;; lo += kChunkRows) {
                const bool lastChunk =
                    static_cast<uint64_t>(range->second - lo) < static_cast<uint64_t>(kChunkRows);
                plan.tasks.push_back({&spec, lo, lastChunk ? range->second : lo + kChunkRows - 1});
                if (lastChunk) break;
            }
            plan.spans.push_back(
                {&spec, range->first, range->second, static_cast<size_t>(span + 1), false});
            plan.rowsTotal += span + 1;
        }
        plan.columns[&spec] = std::move(present);
        if (auto layout = db.layout(name, spec.columns))
            plan.layouts.emplace(&spec, std::move(*layout));
    }
    return plan;
}

// How many kernels previewKernels reads: a few batches' worth, enough for the window's first frame.
constexpr int64_t kPreviewKernels = 16384;

// The file's first kernels, read before the columns are presized, and handed to kernelsRead:
// zero-filling the presized columns (hundreds of MB on a big file) takes seconds on a machine
// short of free huge pages, and the window's overview should not wait for it. Returns how many
// kernel positions it covered (ParallelReader skips them); 0 when it read nothing (no kernel
// table, no kernelsRead, or an SQL error: the preview is only a head start).
size_t previewKernels(const SqliteSource& db, const std::string& path, const Plan& plan,
                      const LoadOptions& options) {
    if (!options.kernelsRead) return 0;
    const auto span = std::find_if(plan.spans.begin(), plan.spans.end(), [](const TableSpan& t) {
        return t.spec->kind == EventTable::Kernel;
    });
    if (span == plan.spans.end()) return 0;
    try {
        std::optional<Database> own;
        const Database* shared = db.openedDatabase();
        if (!shared) shared = &own.emplace(path);
        // Positions are rowid - firstRowid, or the read order for sparse rowids.
        const std::string table(span->spec->table);
        const std::string rows =
            span->sequential ? " ORDER BY rowid LIMIT " + std::to_string(kPreviewKernels)
                             : " WHERE rowid BETWEEN " + std::to_string(span->firstRowid) +
                                   " AND " + std::to_string(span->firstRowid + kPreviewKernels - 1);
        Statement st(shared->handle(),
                     "SELECT start, end, deviceId, streamId FROM " + table + rows);
        std::vector<KernelSpan> batch;
        const auto id = [&](int col) {
            return static_cast<uint32_t>(std::clamp<int64_t>(st.int64(col), 0, UINT32_MAX));
        };
        while (st.step()) {
            if (st.isNull(0)) continue; // as the reader: no start, no kernel
            const TimeNs start = st.int64(0), end = st.isNull(1) ? start : st.int64(1);
            batch.push_back({start, std::max(start, end), id(2), id(3)});
        }
        if (!batch.empty()) options.kernelsRead(batch);
        return static_cast<size_t>(kPreviewKernels);
    } catch (const std::exception&) {
        return 0;
    }
}

class ParallelReader {
  public:
    // The first worker reads through `shared` when given (the caller's connection, idle while the
    // workers run); the others open their own. pages: the file mapped, for the tables whose layout
    // the plan has; null reads all through SQLite.
    ParallelReader(const std::string& path, const Plan& plan, const NsysStrings& strings,
                   EventSink& sink, const LoadOptions& options, const Database* shared,
                   std::shared_ptr<const SqlitePages> pages)
        : path_(path), plan_(plan), strings_(strings), sink_(sink), options_(options),
          shared_(shared), pages_(std::move(pages)), chunks_(plan.tasks.size()) {}

    // Returns the chunks in task order, or the first error.
    std::optional<LoadError> run(unsigned threads) {
        {
            std::vector<std::jthread> pool; // joins even if starting a later thread throws
            for (unsigned i = 1; i < threads; ++i) pool.emplace_back([this] { work(nullptr); });
            work(shared_); // on the calling thread: a session loads its small files one thread each
        }
        if (error_) return error_;
        if (cancelled()) return LoadError{LoadErrorKind::Cancelled, "cancelled"};
        return std::nullopt;
    }
    std::vector<Chunk>& chunks() { return chunks_; }
    // Kernel positions below `positions` were handed to kernelsRead already (previewKernels).
    void previewed(size_t positions) { previewed_ = positions; }

  private:
    bool cancelled() const {
        return options_.cancel && options_.cancel->load(std::memory_order_relaxed);
    }

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

    // Rows land at increasing positions from chunk.begin (rowid order), so once n rows of a chunk
    // are read every position below begin + n is final: read, or a gap no row will fill.
    void publishKernels(const Chunk& chunk, uint64_t from, uint64_t to) {
        const auto& valid = sink_.valid[static_cast<size_t>(EventTable::Kernel)];
        const KernelColumns& k = sink_.trace.kernels;
        std::vector<KernelSpan> batch;
        batch.reserve(static_cast<size_t>(to - from));
        for (size_t i = std::max<size_t>(chunk.begin + from, previewed_);
             i < chunk.begin + to && i < valid.size(); ++i)
            if (valid[i]) {
                const StreamKey& s = chunk.streams.values()[k.streamIndex[i].value];
                batch.push_back({k.start[i], k.end[i], s.device, s.stream});
            }
        if (!batch.empty()) options_.kernelsRead(batch);
    }

    void work(const Database* shared) {
        try {
            std::optional<Database> own; // opened when a table needs SQLite
            std::map<const TableSpec*, std::unique_ptr<Statement>> statements;
            std::map<const TableSpec*, std::unique_ptr<TableScan>> scans;
            while (!stop_) {
                const size_t i = next_.fetch_add(1);
                if (i >= plan_.tasks.size()) break;
                const ChunkTask& task = plan_.tasks[i];
                const bool kernels =
                    task.spec->kind == EventTable::Kernel && options_.kernelsRead != nullptr;
                uint64_t rowsInTask = 0, published = 0;
                const auto progress = [&](uint64_t rows) {
                    rowsRead(task.spec->table, rows);
                    if (!kernels) return;
                    rowsInTask += rows;
                    publishKernels(chunks_[i], published, rowsInTask);
                    published = rowsInTask;
                };
                if (const auto layout = plan_.layouts.find(task.spec);
                    pages_ && layout != plan_.layouts.end()) {
                    auto& scan = scans[task.spec];
                    if (!scan) scan = std::make_unique<TableScan>(pages_, layout->second);
                    readChunk(*scan, task, strings_, sink_, chunks_[i], stop_, progress);
                    continue;
                }
                if (!shared && !own) own.emplace(path_);
                const Database& db = shared ? *shared : *own;
                auto& st = statements[task.spec];
                if (!st)
                    st = std::make_unique<Statement>(
                        db.handle(), buildSelect(*task.spec, plan_.columns.at(task.spec), true));
                readChunk(*st, task, strings_, sink_, chunks_[i], stop_, progress);
            }
        } catch (const SqliteError& e) {
            fail(loadErrorFrom(e));
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
    const Database* shared_;
    std::shared_ptr<const SqlitePages> pages_;
    std::vector<Chunk> chunks_;
    std::atomic<size_t> next_{0};
    size_t previewed_ = 0;
    std::atomic<bool> stop_{false};
    uint64_t rowsRead_ = 0; // guarded by mutex_
    std::mutex mutex_;
    std::optional<LoadError> error_;
};

} // namespace

bool acceptsNsysExport(const ImportProbe& probe) {
    if (!probe.sqlite) return false;
    for (const auto& spec : nsysEventTables())
        if (spec.kind != EventTable::Nvtx && probe.sqlite->hasTable(spec.table)) return true;
    return false;
}

LoadResult readNsysExport(const ImportProbe& probe, const LoadOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string& path = probe.path;
    // What this throws (SQLite errors, out of memory) becomes a LoadError in importTrace.
    auto trace = std::make_shared<Trace>();
    trace->path = path;
    SmallTables small;
    Plan plan;
    const SqliteSource& db = *probe.sqlite;
    {
        const uint32_t parts = closeLoadParts(options.parts);
        small = readSmallTables(db, parts, trace->report);
        if (parts & kLoadKernels) small.graphLaunches = readNsysGraphLaunches(db, trace->report);
        if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
        plan = planChunks(db, probe.head.size, parts, trace->report);
    }
    const size_t previewed = previewKernels(db, path, plan, options);
    unsigned threads =
        options.threads ? options.threads : std::max(2u, std::thread::hardware_concurrency());
    threads =
        static_cast<unsigned>(std::clamp<size_t>(plan.tasks.size(), 1, std::min(threads, 16u)));
    EventSink sink(*trace);
    sink.nvtxNames = (closeLoadParts(options.parts) & kLoadNvtxNames) != 0;
    if (!sink.nvtxNames) trace->parts &= ~uint32_t(kLoadNvtxNames);
    for (const auto& span : plan.spans) {
        sink.sequential[static_cast<size_t>(span.spec->kind)] = span.sequential;
        sink.presize(span.spec->kind, span.firstRowid, span.rows, threads);
    }
    const auto setup = std::chrono::steady_clock::now();
    trace->loadPhases.emplace_back("open + small tables",
                                   std::chrono::duration<double>(setup - t0).count());
    // The event tables straight from the file's pages where it allows
    // (core/import/sqlite/sqlite_source.h).
    ParallelReader reader(path, plan, small.strings, sink, options, db.openedDatabase(),
                          db.pages());
    reader.previewed(previewed);
    if (auto e = reader.run(threads)) return {nullptr, std::move(e)};
    trace->loadPhases.emplace_back(
        "read event tables",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - setup).count());
    if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
    const auto graphLaunches = small.graphLaunches; // buildTrace may consume the small tables
    buildTrace(sink, small, reader.chunks(), threads);
    if (closeLoadParts(options.parts) & kLoadKernels) linkNsysGraphNodes(db, graphLaunches, *trace);
    if (options.cancelled()) return {nullptr, LoadError{LoadErrorKind::Cancelled, "cancelled"}};
    return {std::move(trace), std::nullopt};
}

} // namespace ls
