#pragma once
// Legacy nvprof databases (`nvprof -o x.sql`, schema versions 8 to 16) are rewritten, row by row,
// into a private SQLite file in the temporary directory shaped like an Nsight Systems export, so
// the one loader, correlation and every view serve both formats. The user's file is opened
// read-only and immutable as always; nothing is written beside it.
//
// Mapping: StringTable -> StringIds; CONCURRENT_KERNEL (or KERNEL) -> KERNEL with demangled
// names and the launching process taken from its API call; RUNTIME and DRIVER -> RUNTIME with
// names from the callback ids; MEMCPY (linked through runtimeCorrelationId) and MEMSET; MARKER
// start/end rows (flags 2/4, paired by id, pid and tid unpacked from objectId) -> NVTX_EVENTS;
// DEVICE -> TARGET_INFO_GPU.
#include "core/import/load_error.h"

#include <atomic>
#include <optional>
#include <set>
#include <string>

namespace ls {

bool looksLikeNvprof(const std::set<std::string>& tables);

struct NvprofConversion {
    int schemaVersion = 0;
    uint64_t kernels = 0, apiCalls = 0, markers = 0;
    uint64_t unpairedMarkerEnds = 0;
};

// Writes dest (which must not exist) from the nvprof database at source.
std::optional<LoadError> convertNvprof(const std::string& source, const std::string& dest,
                                       NvprofConversion& out, const std::atomic<bool>* cancel);

// The name CUPTI gives a runtime or driver callback id ("cudaLaunchKernel", "cuLaunchKernel"),
// or "runtime API #N" / "driver API #N" for ids not in the table.
std::string cuptiApiName(bool driver, int64_t cbid);

} // namespace ls
