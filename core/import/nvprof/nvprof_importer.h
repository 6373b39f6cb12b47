#pragma once
// Legacy nvprof databases: converted into a private Nsight-Systems-shaped copy in the temporary
// directory (nvprof_convert.h), which the Nsight Systems importer then reads.
#include "core/import/importer.h"

namespace ls {

bool acceptsNvprof(const ImportProbe& probe);
LoadResult readNvprof(const ImportProbe& probe, const LoadOptions& options);

} // namespace ls
