#pragma once
// Loading a trace file into the in-memory model: the one entry point for every front end. Picks
// the importer (core/import/importer.h), then correlates the trace and prices its kernels.
#include "core/import/load_error.h"

#include <string>

namespace ls {

LoadResult loadTrace(const std::string& path, const LoadOptions& options = {});

} // namespace ls
