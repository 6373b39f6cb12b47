#include "core/import/nsys/nsys_small_tables.h"

#include "core/import/sqlite_db.h"

#include <algorithm>
#include <string_view>

namespace ls {
namespace {

std::string col(const std::set<std::string>& present, const char* name, const char* fallback = "NULL") {
    return present.count(name) ? std::string("\"") + name + "\"" : fallback;
}

void readStrings(const Database& db, NsysStrings& out) {
    const auto rows = static_cast<uint64_t>(db.scalar("SELECT count(*) FROM StringIds").value_or(0));
    const auto maxId = db.scalar("SELECT max(id) FROM StringIds").value_or(0);
    // Exports number strings densely from 0; a crafted file must not make us allocate by its max id.
    const bool dense = maxId >= 0 && static_cast<uint64_t>(maxId) <= 4 * rows + 1024;
    if (dense) {
        out.text.resize(static_cast<size_t>(maxId) + 1);
        out.present.resize(static_cast<size_t>(maxId) + 1, 0);
    }
    Statement st(db.handle(), "SELECT id, value FROM StringIds");
    while (st.step()) {
        const int64_t id = st.int64(0);
        if (dense && id >= 0 && id <= maxId) {
            out.text[static_cast<size_t>(id)] = std::string(st.text(1));
            out.present[static_cast<size_t>(id)] = 1;
        } else {
            out.sparse[id] = std::string(st.text(1));
        }
    }
}

void readDevices(const Database& db, std::vector<Device>& out) {
    const auto c = db.columns("TARGET_INFO_GPU");
    if (!c.count("id")) return;
    Statement st(db.handle(), "SELECT id, " + col(c, "name") + ", " + col(c, "smCount") + ", " + col(c, "totalMemory") +
                                  ", " + col(c, "computeMajor") + ", " + col(c, "computeMinor") + " FROM TARGET_INFO_GPU");
    while (st.step()) {
        Device d;
        d.id = static_cast<uint32_t>(st.int64(0));
        d.name = std::string(st.text(1));
        d.smCount = static_cast<uint32_t>(st.int64(2));
        d.memoryBytes = static_cast<uint64_t>(st.int64(3));
        d.computeMajor = static_cast<int>(st.int64(4));
        d.computeMinor = static_cast<int>(st.int64(5));
        // Multi-VM exports repeat a GPU per vmId; keep the first.
        bool seen = false;
        for (const auto& e : out) seen |= e.id == d.id;
        if (!seen) out.push_back(std::move(d));
    }
}

// The environment variables that number the ranks of a job, and its size.
bool isRankVariable(std::string_view name) {
    static constexpr std::string_view kNames[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                                  "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
                                                  "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID", "SLURM_LOCALID",
                                                  "SLURM_NTASKS", "MV2_COMM_WORLD_RANK"};
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
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    for (const auto& [n, v] : info.environment)
        if (n == name) return; // the profiled process's own value came first
    info.environment.emplace_back(name, value);
}

// Host name, the UTC time of the export's time 0 and the rank variables of the environment:
// what a session of several exports needs to number ranks and align clocks.
void readRunContext(const Database& db, const std::set<std::string>& tables, ExportInfo& info) {
    if (tables.count("TARGET_INFO_SESSION_START_TIME") && db.columns("TARGET_INFO_SESSION_START_TIME").count("utcEpochNs")) {
        if (auto epoch = db.scalar("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1"); epoch && *epoch > 0) {
            info.epochNs = *epoch;
            info.epochKnown = true;
        }
    }
    if (tables.count("META_DATA_CAPTURE")) {
        Statement st(db.handle(), "SELECT name, value FROM META_DATA_CAPTURE");
        while (st.step()) {
            const std::string_view name = st.text(0);
            if (name.ends_with(":ENVIRONMENT_VARIABLE")) addVariable(st.text(1), info);
            else if (name == "DEVICE_DISPLAY_NAME" && info.host.empty()) info.host = std::string(st.text(1));
        }
    }
    if (tables.count("TARGET_INFO_SYSTEM_ENV")) {
        const auto c = db.columns("TARGET_INFO_SYSTEM_ENV");
        if (!c.count("name") || !c.count("value")) return;
        Statement st(db.handle(), "SELECT name, value FROM TARGET_INFO_SYSTEM_ENV WHERE name IN ('Hostname', 'DeviceEnvironment')");
        while (st.step()) {
            const std::string_view name = st.text(0), value = st.text(1);
            if (name == "Hostname") info.host = std::string(value); // the machine's own name wins over the display name
            else
                for (size_t b = 0; b <= value.size();) {
                    const size_t e = std::min(value.find(';', b), value.size());
                    addVariable(value.substr(b, e - b), info);
                    b = e + 1;
                }
        }
    }
}

} // namespace

SmallTables readSmallTables(const Database& db, const std::set<std::string>& tables, uint32_t parts, LoadReport& report) {
    SmallTables s;
    s.info.format = "Nsight Systems SQLite export";
    if (tables.count("StringIds")) readStrings(db, s.strings);
    else report.add(Anomaly::MissingTable, 1, "StringIds");

    if (tables.count("ThreadNames")) {
        // priority is what nsys stats cudaapitrace prints as T-Pri.
        Statement st(db.handle(), "SELECT nameId, globalTid, " + col(db.columns("ThreadNames"), "priority") + " FROM ThreadNames");
        while (st.step()) {
            auto& thread = s.threadNames[st.int64(1)];
            if (const std::string* n = s.strings.find(st.int64(0))) thread.name = *n;
            if (!st.isNull(2)) thread.priority = static_cast<int32_t>(std::clamp<int64_t>(st.int64(2), INT32_MIN + 1, INT32_MAX));
        }
    }
    if (tables.count("PROCESSES")) {
        Statement st(db.handle(), "SELECT globalPid, pid, name FROM PROCESSES");
        while (st.step()) s.processes[st.int64(0)] = {static_cast<uint32_t>(st.int64(1)), std::string(st.text(2))};
    }
    if (tables.count("TARGET_INFO_GPU")) readDevices(db, s.devices);

    // The metadata table was renamed in 2023 (EXPORT_META_DATA -> META_DATA_EXPORT).
    for (const char* meta : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        if (!tables.count(meta)) continue;
        Statement st(db.handle(), std::string("SELECT name, value FROM ") + meta);
        while (st.step()) {
            std::string name(st.text(0)), value(st.text(1));
            if (name == "EXPORT_PRODUCT_VERSION") s.info.productVersion = value;
            if (name == "EXPORT_SCHEMA_VERSION") s.info.schemaVersion = value;
            s.info.metadata.emplace_back(std::move(name), std::move(value));
        }
        break;
    }
    readRunContext(db, tables, s.info);
    if ((parts & kLoadOsRuntime) && tables.count("OSRT_API")) {
        // Class 27 holds the OS runtime calls; nsys stats osrtsum reads only those.
        Statement st(db.handle(), "SELECT start, end, globalTid, nameId FROM OSRT_API WHERE eventClass = 27 ORDER BY start");
        while (st.step())
            if (!st.isNull(0) && !st.isNull(1)) {
                const std::string* name = s.strings.find(st.int64(3));
                s.osRuntime.push_back({st.int64(0), st.int64(1), st.int64(2), name ? *name : std::string()});
            }
    }
    return s;
}

} // namespace ls
