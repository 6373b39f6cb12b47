#pragma once
#include "core/import/nsys/trace_builder.h"

#include <set>
#include <string>

namespace ls {

class Database;

// Reads StringIds, ThreadNames, PROCESSES, TARGET_INFO_GPU and the export metadata, whichever
// of them the export has.
SmallTables readSmallTables(const Database& db, const std::set<std::string>& tables, LoadReport& report);

} // namespace ls
