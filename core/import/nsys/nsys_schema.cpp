#include "core/import/nsys/nsys_schema.h"

namespace ls {

const std::vector<TableSpec>& nsysEventTables() {
    static const std::vector<TableSpec> specs = {
        {EventTable::Kernel,
         "CUPTI_ACTIVITY_KIND_KERNEL",
         {"start",
          "end",
          "deviceId",
          "contextId",
          "streamId",
          "correlationId",
          "globalPid",
          "demangledName",
          "shortName",
          "registersPerThread",
          "gridX",
          "gridY",
          "gridZ",
          "blockX",
          "blockY",
          "blockZ",
          "staticSharedMemory",
          "dynamicSharedMemory",
          "sharedMemoryExecuted",
          "rowid"},
         2,
         {"greenContextId", "mangledName", "launchType", "cacheConfig", "localMemoryPerThread",
          "localMemoryTotal", "gridId", "graphNodeId", "sharedMemoryLimitConfig"},
         {"sharedMemoryExecuted"}},
        {EventTable::Memcpy,
         "CUPTI_ACTIVITY_KIND_MEMCPY",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
          "bytes", "copyKind", "srcKind", "dstKind", "rowid"},
         2,
         {"greenContextId", "deprecatedSrcId", "srcDeviceId", "srcContextId", "dstDeviceId",
          "dstContextId", "migrationCause", "graphNodeId", "virtualAddress", "copyCount"},
         {"srcKind", "dstKind"}},
        {EventTable::Memset,
         "CUPTI_ACTIVITY_KIND_MEMSET",
         {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
          "bytes", "value", "memKind", "rowid"},
         2,
         {"greenContextId", "graphNodeId"},
         {"memKind"}},
        {EventTable::Runtime,
         "CUPTI_ACTIVITY_KIND_RUNTIME",
         {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue",
          "rowid"},
         2,
         {"callchainId"},
         {"returnValue"}},
        {EventTable::Nvtx,
         "NVTX_EVENTS",
         {"start", "end", "eventType", "globalTid", "text", "textId", "endGlobalTid", "domainId",
          "rowid"},
         3,
         {"rangeId", "category", "color", "uint64Value", "int64Value", "doubleValue", "uint32Value",
          "int32Value", "floatValue", "jsonTextId", "jsonText", "binaryData"},
         {}},
    };
    return specs;
}

std::string buildSelect(const TableSpec& spec, const std::set<std::string>& present, bool ranged) {
    std::string sql = "SELECT ";
    for (size_t i = 0; i < spec.columns.size(); ++i) {
        if (i) sql += ", ";
        const std::string col(spec.columns[i]);
        if (col == "rowid")
            sql += "rowid"; // every rowid table has it; pragma_table_info omits it
        else
            sql += present.count(col) ? "\"" + col + "\"" : "NULL";
    }
    sql += " FROM \"";
    sql += spec.table;
    sql += "\"";
    if (ranged) sql += " WHERE rowid BETWEEN ?1 AND ?2";
    return sql;
}

} // namespace ls
