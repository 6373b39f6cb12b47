#pragma once
// Nsight Systems reports (.nsys-rep, and .qdrep before 2021.4): exported on open with a locally
// installed nsys (nsys_locator.h) into Layerscope's cache folder (export_cache.h), never beside
// the report, then read by the Nsight Systems SQLite importer. A second open of an unchanged
// report reuses the export.
#include "core/import/importer.h"

namespace ls {

// Not SQLite, and starting with the report magic ("NVIDIA Tegra Profiler Report ") or named
// .nsys-rep/.qdrep (read refuses one without the magic, before any nsys runs).
bool acceptsNsysRep(const ImportProbe& probe);
LoadResult readNsysRep(const ImportProbe& probe, const LoadOptions& options);

} // namespace ls
