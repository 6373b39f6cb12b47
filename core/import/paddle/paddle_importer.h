#pragma once
// The PaddlePaddle profiler importer: the Chrome-trace JSON paddle.profiler writes
// (export_chrome_tracing, plain or gzip), told by its "span_indx" member. Events go through the
// Kineto builder, so a Paddle trace is the same model as a PyTorch profiler trace
// (docs/inputs.md, docs/summary-tables.md).
#include "core/import/importer.h"

namespace ls {

bool acceptsPaddleJson(const ImportProbe& probe);
LoadResult readPaddleJson(const ImportProbe& probe, const LoadOptions& options);

} // namespace ls
