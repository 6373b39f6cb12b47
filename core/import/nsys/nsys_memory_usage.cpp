#include "core/import/nsys/nsys_memory_usage.h"

#include <algorithm>
#include <string>

namespace ls {

namespace {

constexpr const char* kTable = "CUDA_GPU_MEMORY_USAGE_EVENTS";

// ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, 3 array, 4 managed, 5 device static,
// 6 managed static, 7 unknown. Host memory is not GPU memory; unknown cannot be placed.
bool onGpu(int64_t memKind) { return memKind >= 2 && memKind <= 6; }

// ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 allocation, 1 deallocation.
constexpr int64_t kDeallocation = 1;

} // namespace

std::vector<NsysMemoryUsageRow> readMemoryUsage(const SqliteSource& db, LoadReport& report) {
    std::vector<NsysMemoryUsageRow> out;
    if (!db.hasTable(kTable)) return out;
    const bool hasCorrelation = db.hasColumn(kTable, "correlationId");
    std::vector<std::string_view> columns{"start", "globalPid", "deviceId",           "address",
                                          "bytes", "memKind",   "memoryOperationType"};
    if (hasCorrelation) columns.push_back("correlationId");
    uint64_t host = 0, nullStart = 0;
    for (TableRows rows(db, kTable, columns); rows.step();) {
        if (rows.isNull(0)) {
            ++nullStart;
            continue;
        }
        if (!onGpu(rows.int64(5))) {
            ++host;
            continue;
        }
        NsysMemoryUsageRow r;
        r.start = rows.int64(0);
        r.globalPid = rows.int64(1);
        r.device = static_cast<uint32_t>(rows.int64(2));
        r.address = static_cast<uint64_t>(rows.int64(3));
        const int64_t bytes = std::max<int64_t>(0, rows.int64(4));
        r.bytes = rows.int64(6) == kDeallocation ? -bytes : bytes;
        if (hasCorrelation && !rows.isNull(7)) r.correlation = static_cast<uint32_t>(rows.int64(7));
        out.push_back(r);
    }
    if (nullStart) report.add(Anomaly::NullTimestamp, nullStart, kTable);
    if (host)
        report.add(Anomaly::NotModelledEvent, host,
                   std::to_string(host) + " CUDA memory usage events on host or unknown memory");
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.start < b.start; });
    return out;
}

} // namespace ls
