#pragma once
// A loaded Trace written to one binary file and read back: the model cache's file format, in
// the container of core/cache/archive.h (magic, version and the trace file's identity, then the
// columns, then the payload's length and checksum): a file that is truncated, of another
// version, made from another file or damaged is rejected with a reason, never trusted.
#include "core/model/trace.h"

#include <memory>
#include <string>

namespace ls {

// Bump when the Trace layout or its meaning changes: older cache files are then ignored.
// 2: memory kinds, API results, thread priorities; 3: a checksum per column; 4: range threads and
// source rows packed; 5: big columns start on a page boundary, to be mapped on reopen; 6: NVTX
// names are a load part of their own; 7: big columns on 64 KiB boundaries (64 KiB-page hosts).
// 9: CUDA graph columns (Trace::kernelGraph, captureKernels) and their load-report entries.
// 10: PyTorch profiler copies take their memory kinds from their names (pageable copies);
// ProfileStep#N ranges are iterations. 11: GPU memory usage events (Trace::memory). 12: compact
// columns: API call and range times in 6 bytes from an origin (TimeColumn), a range's seq sparse
// and its parent as a distance back, a kernel's grid and block dictionary-coded. 13: API call and
// range ends as durations, their names and threads as 16-bit codes, op ids and results narrow.
// 14: the importers' ends are 4-byte codes (an emptied column of the tables changed its width).
// 15: ops' and kernel links' ranges, ops and layers, and the kernels' FLOP rules, narrow.
// 16: API calls' and ranges' starts in 4 bytes above a base per 64 rows.
// 17: those starts and all ends in 3 bytes; kernels' grid and block codes among the per-row
// columns.
// 18: range sizes share the name's codes; API correlation ids and kernels' shared memory narrow.
// 19: API calls' import thread, name and result are 16-bit columns (empty in a cache file).
constexpr uint32_t kTraceCacheVersion = 19;

// Writes trace to file (replaced). `identity` names the source file's state (core/cache/
// file_identity.h). Returns an error message, empty on success.
std::string writeTraceFile(const Trace& trace, const std::string& identity,
                           const std::string& file);

struct TraceFileRead {
    std::shared_ptr<Trace> trace; // null when rejected
    std::string reason;           // why it was rejected
};
// Reads a file writeTraceFile wrote for the same identity: only the columns `parts` stand on
// (core/model/load_parts.h), the rest skipped, as a load of those parts would leave them. Every
// column read is checked against its checksum, and the file's structure whole.
TraceFileRead readTraceFile(const std::string& file, const std::string& identity,
                            uint32_t parts = kLoadEverything);

} // namespace ls
