#include "core/import/nsys/nsys_small_tables.h"

#include "core/import/sqlite_db.h"

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

} // namespace

SmallTables readSmallTables(const Database& db, const std::set<std::string>& tables, LoadReport& report) {
    SmallTables s;
    s.info.format = "Nsight Systems SQLite export";
    if (tables.count("StringIds")) readStrings(db, s.strings);
    else report.add(Anomaly::MissingTable, 1, "StringIds");

    if (tables.count("ThreadNames")) {
        Statement st(db.handle(), "SELECT nameId, globalTid FROM ThreadNames");
        while (st.step())
            if (const std::string* n = s.strings.find(st.int64(0))) s.threadNames[st.int64(1)] = *n;
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
    return s;
}

} // namespace ls
