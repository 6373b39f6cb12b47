#include "core/import/nvprof/nvprof_convert.h"

#include "core/import/common/kernel_base_name.h"
#include "core/import/nvprof/nvprof_names.h"
#include "core/import/sqlite/sqlite_db.h"
#include "core/model/platform.h"

#include <cstring>
#include <initializer_list>
#include <sqlite3.h>
#include <unordered_map>
#include <vector>

namespace ls {
namespace {

// CUPTI callback ids of the calls that matter in a deep-learning trace (launches, copies, sets,
// synchronization, allocation); others are named by number.
const std::unordered_map<int64_t, const char*>& runtimeNames() {
    static const std::unordered_map<int64_t, const char*> names = {
        {1, "cudaDriverGetVersion"},
        {2, "cudaRuntimeGetVersion"},
        {3, "cudaGetDeviceCount"},
        {4, "cudaGetDeviceProperties"},
        {10, "cudaGetLastError"},
        {11, "cudaPeekAtLastError"},
        {13, "cudaLaunch"},
        {16, "cudaSetDevice"},
        {17, "cudaGetDevice"},
        {20, "cudaMalloc"},
        {22, "cudaFree"},
        {25, "cudaMallocHost"},
        {26, "cudaFreeHost"},
        {27, "cudaHostAlloc"},
        {31, "cudaMemcpy"},
        {32, "cudaMemcpy2D"},
        {39, "cudaMemcpyToSymbol"},
        {40, "cudaMemcpyFromSymbol"},
        {41, "cudaMemcpyAsync"},
        {44, "cudaMemcpy2DAsync"},
        {47, "cudaMemcpyToSymbolAsync"},
        {48, "cudaMemcpyFromSymbolAsync"},
        {49, "cudaMemset"},
        {50, "cudaMemset2D"},
        {51, "cudaMemsetAsync"},
        {52, "cudaMemset2DAsync"},
        {126, "cudaThreadSynchronize"},
        {129, "cudaStreamCreate"},
        {130, "cudaStreamDestroy"},
        {131, "cudaStreamSynchronize"},
        {132, "cudaStreamQuery"},
        {133, "cudaEventCreate"},
        {134, "cudaEventCreateWithFlags"},
        {135, "cudaEventRecord"},
        {136, "cudaEventQuery"},
        {137, "cudaEventSynchronize"},
        {138, "cudaEventDestroy"},
        {139, "cudaEventElapsedTime"},
        {144, "cudaMemcpy3D"},
        {145, "cudaMemcpy3DAsync"},
        {147, "cudaStreamWaitEvent"},
        {152, "cudaPointerGetAttributes"},
        {160, "cudaMemcpyPeer"},
        {161, "cudaMemcpyPeerAsync"},
        {164, "cudaDeviceReset"},
        {165, "cudaDeviceSynchronize"},
        {211, "cudaLaunchKernel"},
        {214, "cudaLaunchKernel_ptsz"},
        {215, "cudaMemcpy_ptds"},
        {225, "cudaMemcpyAsync_ptsz"},
        {233, "cudaMemset_ptds"},
        {235, "cudaMemsetAsync_ptsz"},
        {239, "cudaStreamSynchronize_ptsz"},
        {247, "cudaStreamWaitEvent_ptsz"},
        {251, "cudaFuncGetAttributes"},
        {269, "cudaLaunchCooperativeKernel"},
        {272, "cudaLaunchCooperativeKernelMultiDevice"},
        {284, "cudaLaunchHostFunc"},
        {310, "cudaGraphInstantiate"},
        {311, "cudaGraphLaunch"},
        {317, "cudaStreamIsCapturing"},
        {430, "cudaLaunchKernelExC"},
    };
    return names;
}

const std::unordered_map<int64_t, const char*>& driverNames() {
    static const std::unordered_map<int64_t, const char*> names = {
        {17, "cuCtxSynchronize"},
        {115, "cuLaunch"},
        {116, "cuLaunchGrid"},
        {117, "cuLaunchGridAsync"},
        {121, "cuEventSynchronize"},
        {126, "cuStreamSynchronize"},
        {216, "cuMemsetD8Async"},
        {220, "cuMemsetD32Async"},
        {249, "cuMemsetD8"},
        {251, "cuMemsetD32"},
        {276, "cuMemcpyHtoD"},
        {277, "cuMemcpyHtoDAsync"},
        {278, "cuMemcpyDtoH"},
        {279, "cuMemcpyDtoHAsync"},
        {280, "cuMemcpyDtoD"},
        {281, "cuMemcpyDtoDAsync"},
        {295, "cuStreamWaitEvent"},
        {304, "cuCtxGetCurrent"},
        {305, "cuMemcpy"},
        {306, "cuMemcpyAsync"},
        {307, "cuLaunchKernel"},
        {310, "cuPointerGetAttribute"},
        {318, "cuMemcpyPeer"},
        {319, "cuMemcpyPeerAsync"},
        {442, "cuLaunchKernel_ptsz"},
        {477, "cuLaunchCooperativeKernel"},
        {514, "cuGraphLaunch"},
        {652, "cuLaunchKernelEx"},
    };
    return names;
}

// A writable connection to the converted file: it lives in the temporary directory only.
class Writer {
  public:
    explicit Writer(const std::string& path) {
        configureSqliteOnce();
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                            nullptr) != SQLITE_OK)
            throw SqliteError(sqlite3_errcode(db_),
                              std::string("cannot create a converted copy: ") +
                                  sqlite3_errmsg(db_));
        exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN");
    }
    ~Writer() { sqlite3_close(db_); }
    void exec(const char* sql) {
        char* err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string message = err ? err : "?";
            sqlite3_free(err);
            throw SqliteError(SQLITE_ERROR, "converting: " + message);
        }
    }
    sqlite3* handle() const { return db_; }

  private:
    sqlite3* db_ = nullptr;
};

// One prepared INSERT; values bound by position, NULL for std::nullopt.
class Insert {
  public:
    Insert(sqlite3* db, const char* sql) {
        if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
            throw SqliteError(sqlite3_errcode(db), sqlite3_errmsg(db));
    }
    ~Insert() { sqlite3_finalize(st_); }
    Insert& set(int i, std::optional<int64_t> v) {
        if (v)
            sqlite3_bind_int64(st_, i, *v);
        else
            sqlite3_bind_null(st_, i);
        return *this;
    }
    Insert& text(int i, const std::string& v) {
        sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    void run() {
        if (sqlite3_step(st_) != SQLITE_DONE)
            throw SqliteError(SQLITE_ERROR, "converting: insert failed");
        sqlite3_reset(st_);
        sqlite3_clear_bindings(st_);
    }

  private:
    sqlite3_stmt* st_ = nullptr;
};

} // namespace

// Declared in nvprof_names.h: the fuzz targets call them on their own.
// objectId of a thread: 4 bytes pid, 4 bytes tid (little-endian), padding.
std::optional<int64_t> nvprofGlobalTidOf(std::string_view blob) {
    if (blob.size() < 8) return std::nullopt;
    uint32_t pid = 0, tid = 0;
    std::memcpy(&pid, blob.data(), 4);
    std::memcpy(&tid, blob.data() + 4, 4);
    return (static_cast<int64_t>(pid & 0xFFFFFF) << 24) | (tid & 0xFFFFFF);
}

int64_t nvprofGlobalTid(int64_t processId, int64_t threadId) {
    return ((processId & 0xFFFFFF) << 24) | (static_cast<uint32_t>(threadId) & 0xFFFFFF);
}

namespace {

const char* kSchema = R"(
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
CREATE TABLE TARGET_INFO_GPU(id INTEGER, name TEXT, smCount INTEGER, totalMemory INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER, registersPerThread INTEGER, gridX INTEGER,
  gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER, value INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER, text TEXT, textId INTEGER,
  endGlobalTid INTEGER, domainId INTEGER);
)";

class Converter {
  public:
    Converter(const Database& src, Writer& dst, NvprofConversion& out,
              const std::atomic<bool>* cancel)
        : src_(src), dst_(dst), out_(out), cancel_(cancel), tables_(src.tables()) {}

    void run() {
        dst_.exec(kSchema);
        version();
        strings();
        apiCalls(); // fills the process of each correlation id for the GPU rows
        check();
        kernels();
        check();
        copies();
        markers();
        devices();
        processNames();
        dst_.exec("COMMIT");
    }

  private:
    void check() const {
        if (cancel_ && cancel_->load()) throw std::runtime_error("cancelled");
    }
    bool has(const char* table) const { return tables_.count(table) > 0; }
    // SELECT of the named columns, NULL for those this schema version lacks.
    std::string select(const std::string& table, std::initializer_list<const char*> columns,
                       const char* tail = "") const {
        const auto present = src_.columns(table);
        std::string sql = "SELECT ";
        bool first = true;
        for (const char* c : columns) {
            if (!first) sql += ", ";
            first = false;
            sql += present.count(c) ? std::string("\"") + c + "\"" : std::string("NULL");
        }
        return sql + " FROM \"" + table + "\"" + tail;
    }
    std::optional<int64_t> opt(const Statement& st, int col) const {
        return st.isNull(col) ? std::nullopt : std::optional<int64_t>(st.int64(col));
    }

    void version() {
        if (has("Version")) {
            Statement st(src_.handle(), "SELECT version FROM Version");
            if (st.step()) out_.schemaVersion = static_cast<int>(st.int64(0));
        }
        Insert meta(dst_.handle(), "INSERT INTO META_DATA_EXPORT VALUES (?1, ?2)");
        meta.text(1, "EXPORT_PRODUCT_VERSION").text(2, "nvprof").run();
        meta.text(1, "EXPORT_SCHEMA_VERSION")
            .text(2, "nvprof " + std::to_string(out_.schemaVersion))
            .run();
    }

    void strings() {
        if (!has("StringTable")) return;
        Statement st(src_.handle(), "SELECT _id_, value FROM StringTable");
        Insert ins(dst_.handle(), "INSERT OR IGNORE INTO StringIds VALUES (?1, ?2)");
        while (st.step()) {
            const int64_t id = st.int64(0);
            strings_[id] = std::string(st.text(1));
            nextString_ = std::max(nextString_, id + 1);
            ins.set(1, id).text(2, strings_[id]).run();
        }
    }

    int64_t addString(const std::string& s) {
        auto [it, added] = added_.try_emplace(s, nextString_);
        if (added) {
            Insert(dst_.handle(), "INSERT INTO StringIds VALUES (?1, ?2)")
                .set(1, it->second)
                .text(2, s)
                .run();
            ++nextString_;
        }
        return it->second;
    }

    void apiCalls() {
        Insert ins(dst_.handle(),
                   "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, NULL, ?3, ?4, ?5)");
        for (const bool driver : {false, true}) {
            const char* table =
                driver ? "CUPTI_ACTIVITY_KIND_DRIVER" : "CUPTI_ACTIVITY_KIND_RUNTIME";
            if (!has(table)) continue;
            Statement st(src_.handle(), select(table, {"cbid", "start", "end", "processId",
                                                       "threadId", "correlationId"}));
            while (st.step()) {
                const int64_t pid = st.int64(3);
                const int64_t corr = st.int64(5);
                ins.set(1, opt(st, 1))
                    .set(2, opt(st, 2))
                    .set(3, nvprofGlobalTid(pid, st.int64(4)))
                    .set(4, corr)
                    .set(5, addString(cuptiApiName(driver, st.int64(0))))
                    .run();
                processOfCorrelation_.emplace(corr, (pid & 0xFFFFFF) << 24);
                ++out_.apiCalls;
            }
        }
    }

    std::optional<int64_t> processOf(int64_t correlation) const {
        const auto it = processOfCorrelation_.find(correlation);
        return it == processOfCorrelation_.end() ? std::nullopt
                                                 : std::optional<int64_t>(it->second);
    }

    void kernels() {
        const char* table = has("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")
                                ? "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"
                            : has("CUPTI_ACTIVITY_KIND_KERNEL") ? "CUPTI_ACTIVITY_KIND_KERNEL"
                                                                : nullptr;
        if (!table) return;
        Statement st(
            src_.handle(),
            select(table, {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                           "name", "registersPerThread", "gridX", "gridY", "gridZ", "blockX",
                           "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory"}));
        Insert ins(dst_.handle(), "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?1, ?2, ?3, ?4, "
                                  "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                                  "?15, ?16, ?17, ?18)");
        std::unordered_map<int64_t, std::pair<int64_t, int64_t>>
            names; // mangled id -> (demangled id, short id)
        while (st.step()) {
            const int64_t nameId = st.int64(6);
            auto it = names.find(nameId);
            if (it == names.end()) {
                const auto s = strings_.find(nameId);
                const std::string demangled =
                    platform::demangle(s == strings_.end() ? std::string() : s->second);
                it = names
                         .emplace(nameId, std::make_pair(addString(demangled),
                                                         addString(kernelBaseName(demangled))))
                         .first;
            }
            ins.set(1, opt(st, 0))
                .set(2, opt(st, 1))
                .set(3, opt(st, 2))
                .set(4, opt(st, 3))
                .set(5, opt(st, 4))
                .set(6, opt(st, 5))
                .set(7, processOf(st.int64(5)))
                .set(8, it->second.first)
                .set(9, it->second.second);
            for (int c = 7; c <= 15; ++c) ins.set(c + 3, opt(st, c));
            ins.run();
            ++out_.kernels;
        }
    }

    void copies() {
        if (has("CUPTI_ACTIVITY_KIND_MEMCPY")) {
            Statement st(src_.handle(),
                         select("CUPTI_ACTIVITY_KIND_MEMCPY",
                                {"start", "end", "deviceId", "contextId", "streamId",
                                 "correlationId", "bytes", "copyKind", "runtimeCorrelationId"}));
            Insert ins(dst_.handle(), "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?1, ?2, ?3, "
                                      "?4, ?5, ?6, ?7, ?8, ?9)");
            while (st.step()) {
                // The runtime call's id links an async copy to cudaMemcpyAsync; the driver's
                // otherwise.
                const int64_t corr = st.int64(8) ? st.int64(8) : st.int64(5);
                ins.set(1, opt(st, 0))
                    .set(2, opt(st, 1))
                    .set(3, opt(st, 2))
                    .set(4, opt(st, 3))
                    .set(5, opt(st, 4))
                    .set(6, corr)
                    .set(7, processOf(corr))
                    .set(8, opt(st, 6))
                    .set(9, opt(st, 7))
                    .run();
            }
        }
        if (has("CUPTI_ACTIVITY_KIND_MEMSET")) {
            Statement st(src_.handle(), select("CUPTI_ACTIVITY_KIND_MEMSET",
                                               {"start", "end", "deviceId", "contextId", "streamId",
                                                "correlationId", "bytes", "value"}));
            Insert ins(dst_.handle(), "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?1, ?2, ?3, "
                                      "?4, ?5, ?6, ?7, ?8, ?9)");
            while (st.step())
                ins.set(1, opt(st, 0))
                    .set(2, opt(st, 1))
                    .set(3, opt(st, 2))
                    .set(4, opt(st, 3))
                    .set(5, opt(st, 4))
                    .set(6, opt(st, 5))
                    .set(7, processOf(st.int64(5)))
                    .set(8, opt(st, 6))
                    .set(9, opt(st, 7))
                    .run();
        }
    }

    // Start rows (flag 2) open a range by id, end rows (flag 4) close it; instant marks (flag 1)
    // are marks. A range that ends on its own thread is a push/pop range, else start/end.
    void markers() {
        if (!has("CUPTI_ACTIVITY_KIND_MARKER")) return;
        Statement st(src_.handle(), select("CUPTI_ACTIVITY_KIND_MARKER",
                                           {"flags", "timestamp", "id", "objectKind", "objectId",
                                            "name", "domain"},
                                           " ORDER BY rowid"));
        Insert ins(dst_.handle(),
                   "INSERT INTO NVTX_EVENTS VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7)");
        struct Open {
            int64_t start, name, domain;
            std::optional<int64_t> tid;
        };
        std::unordered_map<int64_t, Open> open;
        while (st.step()) {
            const int64_t flags = st.int64(0), ts = st.int64(1), id = st.int64(2);
            const auto tid = st.int64(3) == 2 ? nvprofGlobalTidOf(st.blob(4)) : std::nullopt;
            if (flags & 2) {
                open[id] = Open{ts, st.int64(5), st.int64(6), tid};
            } else if (flags & 4) {
                const auto it = open.find(id);
                if (it == open.end()) {
                    ++out_.unpairedMarkerEnds;
                    continue;
                }
                const Open& o = it->second;
                const bool sameThread = o.tid && tid && *o.tid == *tid;
                ins.set(1, o.start)
                    .set(2, ts)
                    .set(3, sameThread ? 59 : 60)
                    .set(4, o.tid)
                    .set(5, o.name)
                    .set(6, tid)
                    .set(7, o.domain ? std::optional<int64_t>(o.domain) : std::nullopt)
                    .run();
                open.erase(it);
                ++out_.markers;
            } else if (flags & 1) {
                ins.set(1, ts)
                    .set(2, std::nullopt)
                    .set(3, 34)
                    .set(4, tid)
                    .set(5, st.int64(5))
                    .set(6, std::nullopt)
                    .set(7, std::nullopt)
                    .run();
                ++out_.markers;
            }
        }
        for (const auto& [id, o] : open) { // never ended: the loader counts them as unended
            ins.set(1, o.start)
                .set(2, std::nullopt)
                .set(3, 59)
                .set(4, o.tid)
                .set(5, o.name)
                .set(6, std::nullopt)
                .set(7, std::nullopt)
                .run();
            ++out_.markers;
        }
    }

    // CUPTI_ACTIVITY_KIND_NAME rows of object kind 1 name a process (objectId: its pid first).
    void processNames() {
        if (!has("CUPTI_ACTIVITY_KIND_NAME")) return;
        Statement st(src_.handle(),
                     select("CUPTI_ACTIVITY_KIND_NAME", {"objectKind", "objectId", "name"}));
        Insert ins(dst_.handle(), "INSERT INTO PROCESSES VALUES (?1, ?2, ?3)");
        while (st.step()) {
            const std::string_view blob = st.blob(1);
            if (st.int64(0) != 1 || blob.size() < 4) continue;
            uint32_t pid = 0;
            std::memcpy(&pid, blob.data(), 4);
            const auto name = strings_.find(st.int64(2));
            if (name == strings_.end()) continue;
            ins.set(1, static_cast<int64_t>(pid & 0xFFFFFF) << 24)
                .set(2, pid)
                .text(3, name->second)
                .run();
        }
    }

    void devices() {
        if (!has("CUPTI_ACTIVITY_KIND_DEVICE")) return;
        Statement st(src_.handle(), select("CUPTI_ACTIVITY_KIND_DEVICE",
                                           {"id", "name", "numMultiprocessors", "globalMemorySize",
                                            "computeCapabilityMajor", "computeCapabilityMinor"}));
        Insert ins(dst_.handle(), "INSERT INTO TARGET_INFO_GPU VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        while (st.step()) {
            const auto name = strings_.find(st.int64(1));
            ins.set(1, opt(st, 0))
                .text(2, name == strings_.end() ? std::string() : name->second)
                .set(3, opt(st, 2))
                .set(4, opt(st, 3))
                .set(5, opt(st, 4))
                .set(6, opt(st, 5))
                .run();
        }
    }

    const Database& src_;
    Writer& dst_;
    NvprofConversion& out_;
    const std::atomic<bool>* cancel_;
    std::set<std::string> tables_;
    std::unordered_map<int64_t, std::string> strings_;
    std::unordered_map<std::string, int64_t> added_;
    int64_t nextString_ = 1;
    std::unordered_map<int64_t, int64_t> processOfCorrelation_;
};

} // namespace

bool looksLikeNvprof(const std::set<std::string>& tables) {
    return tables.count("StringTable") && tables.count("Version") &&
           (tables.count("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") ||
            tables.count("CUPTI_ACTIVITY_KIND_RUNTIME") ||
            tables.count("CUPTI_ACTIVITY_KIND_DEVICE") ||
            tables.count("CUPTI_ACTIVITY_KIND_KERNEL"));
}

std::string cuptiApiName(bool driver, int64_t cbid) {
    const auto& names = driver ? driverNames() : runtimeNames();
    const auto it = names.find(cbid);
    if (it != names.end()) return it->second;
    return std::string(driver ? "driver API #" : "runtime API #") + std::to_string(cbid);
}

std::optional<LoadError> convertNvprof(const std::string& source, const std::string& dest,
                                       NvprofConversion& out, const std::atomic<bool>* cancel) {
    try {
        Database src(source);
        Writer dst(dest);
        Converter(src, dst, out, cancel).run();
        return std::nullopt;
    } catch (const SqliteError& e) {
        return LoadError{LoadErrorKind::Corrupt,
                         std::string("cannot read the nvprof database (") + e.what() + ")"};
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()) == "cancelled")
            return LoadError{LoadErrorKind::Cancelled, "cancelled"};
        return LoadError{LoadErrorKind::Corrupt,
                         std::string("cannot read the nvprof database (") + e.what() + ")"};
    }
}

} // namespace ls
