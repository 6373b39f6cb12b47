#pragma once
// The PyTorch profiler (Kineto) importer: Chrome-trace JSON, plain or gzip, told by content.
#include "core/import/importer.h"

namespace ls {

bool acceptsKinetoJson(const ImportProbe& probe);
LoadResult readKinetoJson(const ImportProbe& probe, const LoadOptions& options);

} // namespace ls
