#pragma once
// The nvprof converter's helpers that read untrusted bytes from the database: the objectId blobs
// of marker rows (kernel base names: core/import/common/kernel_base_name.h). Public so that the
// fuzz targets (fuzz/fuzz_nvprof_names.cpp) can call them without a database; the converter is
// their only other user.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ls {

// A marker's objectId of a thread: 4 bytes pid, 4 bytes tid (little-endian), padding; nullopt
// when shorter than 8 bytes. The result is an Nsight Systems globalTid.
std::optional<int64_t> nvprofGlobalTidOf(std::string_view blob);

// The Nsight Systems globalTid of an nvprof (processId, threadId) pair: 24 bits of each.
int64_t nvprofGlobalTid(int64_t processId, int64_t threadId);

} // namespace ls
