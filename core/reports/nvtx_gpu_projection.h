#pragma once
// NVTX ranges projected onto the GPU, as nsys stats 2022.4 nvtxgpuproj computes them: a GPU
// operation (kernel, memcpy, memset) belongs to every range of its launch call's thread that
// starts at or before the call and ends at or after it; the projection spans the first such
// operation's start to the last one's end. Ranges without GPU operations are left out.
//
// Its semantics, which differ from the rest of Layerscope's NVTX handling:
//  - only push/pop and start/end ranges that end on the thread they started on count;
//  - an unended range ends at the last start or end of any NVTX range (nsys 2024's
//    nvtx_gpu_proj_trace; 2022.4 also counts marks and domain creations);
//  - a domain's name may come from its text or its textId (as in nsys 2024; 2022.4 reads the
//    text column only and prints the bare range name otherwise);
//  - a range's parent is the shortest other range of its thread that contains it (any style),
//    with or without GPU operations; identical ranges are each other's parent, a cycle that
//    gives them and what they hold no level, parent id or stack (None);
//  - NumGPUOps counts launch calls (correlation ids): a graph launch of 20 kernels counts once;
//  - rows come in NVTX_EVENTS rowid order: 2022.4's ORDER BY names its columns as strings, so
//    SQLite keeps the GROUP BY order (still so in nsys 2024's nvtx_gpu_proj_trace).
#include "core/model/trace.h"
#include "core/reports/table_writer.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

struct NvtxProjectionRow {
    RangeId range;
    TimeNs projectedStart = 0, projectedEnd = 0;
    TimeNs start = 0, end = 0; // the range's own (end: see the unended rule above)
    uint32_t pid = 0, tid = 0;
    uint64_t gpuOps = 0;
    std::optional<uint32_t> level;    // 0 for a range with no parent; none inside a cycle
    uint32_t children = 0;            // child ranges that have GPU operations themselves
    uint32_t rangeId = 0;             // the export's NVTX_EVENTS rowid
    std::optional<uint32_t> parentId; // rowid of the parent, where it has a level
    std::string_view stack; // ":2:3:4", rowids from the outermost range; empty without a level
};

namespace nvtx_projection_detail {
class Projector;
}

// The projection, computed once; its rows are made one at a time (a 1M-kernel trace has
// millions), by rowid.
class NvtxGpuProjection {
  public:
    explicit NvtxGpuProjection(const Trace& t);
    ~NvtxGpuProjection();
    const std::vector<RangeId>& ranges() const; // the ranges with GPU operations, by rowid
    // The row of ranges()[i]; its stack is written into `stack`, which it views.
    NvtxProjectionRow row(size_t i, std::string& stack) const;

  private:
    std::unique_ptr<nvtx_projection_detail::Projector> p_;
};

// The nvtxgpuproj table: names are the ranges' raw texts, "Domain:"-prefixed.
// Its rows are made in chunks of `chunkRows` on every core (0: sized by the cores; tests split
// small traces with small chunks).
void writeNvtxGpuProjection(TableWriter& w, const Trace& t, size_t chunkRows = 0);

} // namespace ls
