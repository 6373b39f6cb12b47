#pragma once
#include "core/import/nsys/trace_builder.h"

#include <set>
#include <string>

namespace ls {

class Database;

// Reads StringIds, ThreadNames, PROCESSES, TARGET_INFO_GPU and the export metadata, whichever
// of them the export has; OSRT_API's calls when `parts` (LoadPart bits) asks for OS runtime.
SmallTables readSmallTables(const Database& db, const std::set<std::string>& tables, uint32_t parts, LoadReport& report);

} // namespace ls
