#pragma once
// Where a loaded model's bytes are: each column of the big tables and each index, with its rows
// and its allocation, so that the memory per kernel can be read column by column (docs/
// performance.md) and a compaction measured against it. `layerscope-cli info FILE --memory`.
#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ls {

struct ModelBytesRow {
    std::string table;  // "kernels", "runtime calls", "NVTX ranges", … or "index"
    std::string column; // the field's name in core/model/trace.h
    uint64_t rows = 0;  // elements (an index: its ids)
    uint64_t bytes = 0; // capacity × element size
};

// Every column and index named below, then the string pool and "everything else" (lists, small
// tables, the load report: modelBytes less the rows above). The rows add up to modelBytes(t).
std::vector<ModelBytesRow> modelBytesBreakdown(const Trace& t);

} // namespace ls
