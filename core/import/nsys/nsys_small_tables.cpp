#include "core/import/nsys/nsys_small_tables.h"

#include "core/import/sqlite/sqlite_source.h"

#include <algorithm>
#include <string_view>

namespace ls {
namespace {

void readStrings(const SqliteSource& db, NsysStrings& out) {
    std::vector<int64_t> ids;
    std::vector<std::string> texts;
    if (const auto range =
            db.rowidRange("StringIds")) { // rowids number the rows densely in exports
        const auto rows = static_cast<size_t>(std::min<uint64_t>(
            static_cast<uint64_t>(range->second) - static_cast<uint64_t>(range->first) + 1,
            1 << 20));
        ids.reserve(rows);
        texts.reserve(rows);
    }
    int64_t maxId = 0;
    for (TableRows rows(db, "StringIds", {"id", "value"}); rows.step();) {
        ids.push_back(rows.int64(0));
        texts.emplace_back(rows.text(1));
        maxId = std::max(maxId, ids.back());
    }
    // Exports number strings densely from 0; a crafted file must not make us allocate by its max
    // id.
    const bool dense = static_cast<uint64_t>(maxId) <= 4 * ids.size() + 1024;
    if (dense) {
        out.text.resize(static_cast<size_t>(maxId) + 1);
        out.present.resize(static_cast<size_t>(maxId) + 1, 0);
    }
    for (size_t i = 0; i < ids.size(); ++i) {
        const int64_t id = ids[i];
        if (dense && id >= 0) {
            out.text[static_cast<size_t>(id)] = std::move(texts[i]);
            out.present[static_cast<size_t>(id)] = 1;
        } else {
            out.sparse[id] = std::move(texts[i]);
        }
    }
}

void readDevices(const SqliteSource& db, std::vector<Device>& out) {
    if (!db.hasColumn("TARGET_INFO_GPU", "id")) return;
    TableRows rows(db, "TARGET_INFO_GPU",
                   {"id", "name", "smCount", "totalMemory", "computeMajor", "computeMinor"});
    while (rows.step()) {
        Device d;
        d.id = static_cast<uint32_t>(rows.int64(0));
        d.name = std::string(rows.text(1));
        d.smCount = static_cast<uint32_t>(rows.int64(2));
        d.memoryBytes = static_cast<uint64_t>(rows.int64(3));
        d.computeMajor = static_cast<int>(rows.int64(4));
        d.computeMinor = static_cast<int>(rows.int64(5));
        // Multi-VM exports repeat a GPU per vmId; keep the first.
        bool seen = false;
        for (const auto& e : out) seen |= e.id == d.id;
        if (!seen) out.push_back(std::move(d));
    }
}

// Sorts (key, value) rows by key, keeping the first row of each key with merge(kept, later)
// applied for the later rows of the same key, in file order.
template <typename T, typename Merge>
void sortAndMerge(std::vector<std::pair<int64_t, T>>& rows, Merge&& merge) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t out = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (out > 0 && rows[out - 1].first == rows[i].first)
            merge(rows[out - 1].second, rows[i].second);
        else if (out++ != i)
            rows[out - 1] = std::move(rows[i]);
    }
    rows.resize(out);
}

// The environment variables that number the ranks of a job, and its size.
bool isRankVariable(std::string_view name) {
    static constexpr std::string_view kNames[] = {"RANK",
                                                  "LOCAL_RANK",
                                                  "WORLD_SIZE",
                                                  "LOCAL_WORLD_SIZE",
                                                  "GROUP_RANK",
                                                  "OMPI_COMM_WORLD_RANK",
                                                  "OMPI_COMM_WORLD_LOCAL_RANK",
                                                  "OMPI_COMM_WORLD_SIZE",
                                                  "PMI_RANK",
                                                  "PMI_SIZE",
                                                  "PMIX_RANK",
                                                  "SLURM_PROCID",
                                                  "SLURM_LOCALID",
                                                  "SLURM_NTASKS",
                                                  "MV2_COMM_WORLD_RANK"};
    for (auto n : kNames)
        if (name == n) return true;
    return false;
}

// "NAME=value" or NAME="value" (META_DATA_CAPTURE quotes values).
void addVariable(std::string_view assignment, ExportInfo& info) {
    const size_t eq = assignment.find('=');
    if (eq == std::string_view::npos) return;
    const std::string_view name = assignment.substr(0, eq);
    std::string_view value = assignment.substr(eq + 1);
    if (!isRankVariable(name)) return;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
    for (const auto& [n, v] : info.environment)
        if (n == name) return; // the profiled process's own value came first
    info.environment.emplace_back(name, value);
}

// Host name, the UTC time of the export's time 0 and the rank variables of the environment:
// what a session of several exports needs to number ranks and align clocks.
void readRunContext(const SqliteSource& db, ExportInfo& info) {
    if (db.hasTable("TARGET_INFO_SESSION_START_TIME") &&
        db.hasColumn("TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
        TableRows rows(db, "TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"});
        if (rows.step() && !rows.isNull(0) && rows.int64(0) > 0) {
            info.epochNs = rows.int64(0);
            info.epochKnown = true;
        }
    }
    if (db.hasTable("META_DATA_CAPTURE")) {
        for (TableRows rows(db, "META_DATA_CAPTURE", {"name", "value"}); rows.step();) {
            const std::string_view name = rows.text(0);
            if (name.ends_with(":ENVIRONMENT_VARIABLE"))
                addVariable(rows.text(1), info);
            else if (name == "DEVICE_DISPLAY_NAME" && info.host.empty())
                info.host = std::string(rows.text(1));
        }
    }
    if (db.hasTable("TARGET_INFO_SYSTEM_ENV")) {
        if (!db.hasColumn("TARGET_INFO_SYSTEM_ENV", "name") ||
            !db.hasColumn("TARGET_INFO_SYSTEM_ENV", "value"))
            return;
        for (TableRows rows(db, "TARGET_INFO_SYSTEM_ENV", {"name", "value"}); rows.step();) {
            const std::string_view name = rows.text(0), value = rows.text(1);
            if (name == "Hostname")
                info.host = std::string(value); // the machine's own name wins over the display name
            else if (name == "DeviceEnvironment")
                for (size_t b = 0; b <= value.size();) {
                    const size_t e = std::min(value.find(';', b), value.size());
                    addVariable(value.substr(b, e - b), info);
                    b = e + 1;
                }
        }
    }
}

} // namespace

SmallTables readSmallTables(const SqliteSource& db, uint32_t parts, LoadReport& report) {
    SmallTables s;
    s.info.format = "Nsight Systems SQLite export";
    if (db.hasTable("StringIds"))
        readStrings(db, s.strings);
    else
        report.add(Anomaly::MissingTable, 1, "StringIds");

    if (db.hasTable("ThreadNames")) {
        // priority is what nsys stats cudaapitrace prints as T-Pri.
        for (TableRows rows(db, "ThreadNames", {"nameId", "globalTid", "priority"}); rows.step();) {
            SmallTables::ThreadName thread{rows.int64(0)};
            if (!rows.isNull(2))
                thread.priority = static_cast<int32_t>(
                    std::clamp<int64_t>(rows.int64(2), INT32_MIN + 1, INT32_MAX));
            s.threadNames.emplace_back(rows.int64(1), thread);
        }
        // A thread named twice takes the later name, and the later priority where one is given.
        sortAndMerge(s.threadNames,
                     [](SmallTables::ThreadName& kept, const SmallTables::ThreadName& later) {
                         kept.nameId = later.nameId;
                         if (later.priority != kNoThreadPriority) kept.priority = later.priority;
                     });
    }
    if (db.hasTable("PROCESSES")) {
        for (TableRows rows(db, "PROCESSES", {"globalPid", "pid", "name"}); rows.step();)
            s.processes.push_back(
                {rows.int64(0), {static_cast<uint32_t>(rows.int64(1)), std::string(rows.text(2))}});
        sortAndMerge(s.processes, [](SmallTables::Process& kept, SmallTables::Process& later) {
            kept = std::move(later);
        });
    }
    if (db.hasTable("TARGET_INFO_GPU")) readDevices(db, s.devices);

    // The metadata table was renamed in 2023 (EXPORT_META_DATA -> META_DATA_EXPORT).
    for (const char* meta : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        if (!db.hasTable(meta)) continue;
        for (TableRows rows(db, meta, {"name", "value"}); rows.step();) {
            std::string name(rows.text(0)), value(rows.text(1));
            if (name == "EXPORT_PRODUCT_VERSION") s.info.productVersion = value;
            if (name == "EXPORT_SCHEMA_VERSION") s.info.schemaVersion = value;
            s.info.metadata.emplace_back(std::move(name), std::move(value));
        }
        break;
    }
    readRunContext(db, s.info);
    if (parts & kLoadMemory) s.memoryUsage = readMemoryUsage(db, report);
    if ((parts & kLoadOsRuntime) && db.hasTable("OSRT_API")) {
        // Class 27 holds the OS runtime calls; nsys stats osrtsum reads only those.
        for (TableRows rows(db, "OSRT_API", {"start", "end", "globalTid", "nameId", "eventClass"});
             rows.step();)
            if (!rows.isNull(0) && !rows.isNull(1) && !rows.isNull(4) && rows.int64(4) == 27) {
                const std::string* name = s.strings.find(rows.int64(3));
                s.osRuntime.push_back(
                    {rows.int64(0), rows.int64(1), rows.int64(2), name ? *name : std::string()});
            }
        std::stable_sort(s.osRuntime.begin(), s.osRuntime.end(),
                         [](const auto& a, const auto& b) { return a.start < b.start; });
    }
    return s;
}

} // namespace ls
