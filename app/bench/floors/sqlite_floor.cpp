#include "app/bench/floors/sqlite_floor.h"

#include "core/import/nsys/nsys_schema.h"
#include "core/import/sqlite/sqlite_db.h"

namespace ls {

FloorResult scanFloor(const std::string& path) {
    FloorResult r;
    Database db(path);
    const auto tables = db.tables();
    for (const auto& spec : nsysEventTables()) {
        const std::string name(spec.table);
        if (!tables.count(name)) continue;
        Statement st(db.handle(), buildSelect(spec, db.columns(name), false));
        const int n = st.columnCount();
        while (st.step()) {
            ++r.rows;
            for (int c = 0; c < n; ++c) {
                if (st.isNull(c)) continue;
                if (spec.columns[static_cast<size_t>(c)] == "text")
                    r.checksum += st.text(c).size();
                else
                    r.checksum += static_cast<uint64_t>(st.int64(c));
            }
        }
    }
    return r;
}

} // namespace ls
