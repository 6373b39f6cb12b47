#include "core/import/importer.h"

#include "core/import/kineto/kineto_importer.h"
#include "core/import/nsys/nsys_importer.h"
#include "core/import/nsys_rep/nsys_rep_importer.h"
#include "core/import/nvprof/nvprof_importer.h"
#include "core/import/paddle/paddle_importer.h"
#include "core/import/sqlite/sqlite_source.h"

#include <new>
#include <optional>
#include <sqlite3.h>

namespace ls {

const std::vector<Importer>& importers() {
    // nvprof first: its databases are SQLite too, and are told apart by their tables. An Nsight
    // Systems report is never SQLite: it is told apart by its name and its first bytes.
    static const std::vector<Importer> table = {
        {"Nsight Systems report", acceptsNsysRep, readNsysRep},
        {"nvprof database", acceptsNvprof, readNvprof},
        {"Nsight Systems SQLite export", acceptsNsysExport, readNsysExport},
        // Paddle before Kineto: both are Chrome-trace JSON; Paddle's is told by its span_indx.
        {"PaddlePaddle profiler JSON", acceptsPaddleJson, readPaddleJson},
        {"PyTorch profiler (Kineto) JSON", acceptsKinetoJson, readKinetoJson},
    };
    return table;
}

LoadError loadErrorFrom(const SqliteError& e) {
    const int primary = e.code() & 0xFF;
    if (primary == SQLITE_NOTADB)
        return {LoadErrorKind::NotSqlite, "not an SQLite database (or an encrypted one)"};
    if (primary == SQLITE_CORRUPT)
        return {LoadErrorKind::Corrupt,
                std::string("truncated or corrupt database (") + e.what() + ")"};
    if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM)
        return {LoadErrorKind::Unreadable, std::string("cannot read the file (") + e.what() + ")"};
    return {LoadErrorKind::Corrupt, std::string("unexpected database error (") + e.what() + ")"};
}

LoadResult importTrace(const std::string& path, const LoadOptions& options) {
    FileHead head;
    if (auto e = readFileHead(path, head)) return {nullptr, std::move(e)};
    try {
        std::optional<SqliteSource> sqlite;
        if (head.isSqlite()) {
            if (auto e = checkSqliteHeader(head)) return {nullptr, std::move(e)};
            sqlite.emplace(path);
        }
        const ImportProbe probe{path, head, sqlite ? &*sqlite : nullptr};
        for (const Importer& importer : importers())
            if (importer.accepts(probe)) return importer.read(probe, options);
        if (head.isSqlite())
            return {nullptr, LoadError{LoadErrorKind::NoGpuTables,
                                       "no GPU activity tables (CUPTI_ACTIVITY_KIND_KERNEL, "
                                       "_MEMCPY, _MEMSET or _RUNTIME): "
                                       "not an Nsight Systems export, or CUDA was not traced"}};
        return {nullptr, LoadError{LoadErrorKind::NotSqlite,
                                   "not a trace: not an SQLite database (export Nsight Systems "
                                   "reports with `nsys export --type sqlite`) "
                                   "nor a PyTorch or PaddlePaddle profiler JSON"}};
    } catch (const SqliteError& e) {
        return {nullptr, loadErrorFrom(e)};
    } catch (const std::bad_alloc&) {
        return {nullptr, LoadError{LoadErrorKind::Unreadable, "out of memory"}};
    } catch (const std::exception& e) {
        return {nullptr, LoadError{LoadErrorKind::Corrupt,
                                   std::string("cannot load the trace (") + e.what() + ")"}};
    }
}

} // namespace ls
