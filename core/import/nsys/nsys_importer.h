#pragma once
// Nsight Systems SQLite exports (schema 2.x to 3.2x): any file with a GPU activity table.
#include "core/import/importer.h"

namespace ls {

bool acceptsNsysExport(const ImportProbe& probe);
LoadResult readNsysExport(const ImportProbe& probe, const LoadOptions& options);

} // namespace ls
