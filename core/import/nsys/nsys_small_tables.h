#pragma once
#include "core/import/nsys/trace_builder.h"

#include <cstdint>

namespace ls {

class SqliteSource;

// Reads StringIds, ThreadNames, PROCESSES, TARGET_INFO_GPU and the export metadata, whichever
// of them the export has; OSRT_API's calls when `parts` (LoadPart bits) asks for OS runtime.
SmallTables readSmallTables(const SqliteSource& db, uint32_t parts, LoadReport& report);

} // namespace ls
