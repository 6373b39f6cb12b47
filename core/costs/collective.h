#pragma once
// Which kernels are collective communication (NCCL, NVSHMEM) and which collective they run,
// told from the kernel name, or from the op or range that launched a generic one
// (c10d::allreduce_, nccl:all_reduce, NCCL's own ncclAllReduce range). The patterns are data,
// in collective.cpp.
#include <cstdint>
#include <string_view>

namespace ls {

enum class Collective : uint8_t {
    None, // not communication: compute (or a copy)
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    SendRecv,
    Other, // a communication kernel whose collective the name does not say (ncclDevKernel_Generic)
};
inline constexpr int kCollectiveCount = static_cast<int>(Collective::Other) + 1;

std::string_view collectiveName(Collective c); // "all_reduce", "all_gather", … "none"

// The collective a kernel runs, from its (demangled or mangled) name: None for compute kernels.
Collective collectiveOfKernel(std::string_view kernelName);

// The collective an op or range names (c10d::allreduce_, nccl:_all_gather_base,
// ncclReduceScatter, record_param_comms is not one): None when it names none.
Collective collectiveOfOp(std::string_view opName);

} // namespace ls
