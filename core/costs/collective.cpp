#include "core/costs/collective.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ls {
namespace {

// Lower-case letters and digits only: "All_Reduce", "allreduce" and "AllReduce" read the same.
std::string folded(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// First match wins: "reducescatter" before "reduce", "allreduce" before "reduce".
struct Pattern {
    std::string_view token;
    Collective collective;
};
constexpr Pattern kPatterns[] = {
    {"allreduce", Collective::AllReduce}, {"reducescatter", Collective::ReduceScatter},
    {"allgather", Collective::AllGather}, {"alltoall", Collective::AllToAll},
    {"broadcast", Collective::Broadcast}, {"bcast", Collective::Broadcast},
    {"sendrecv", Collective::SendRecv},   {"send", Collective::SendRecv},
    {"recv", Collective::SendRecv},       {"reduce", Collective::Reduce},
};

Collective byToken(const std::string& f) {
    for (const auto& p : kPatterns)
        if (f.find(p.token) != std::string::npos) return p.collective;
    return Collective::None;
}

// Communication libraries whose kernels are collectives: NCCL (ncclDevKernel_*, ncclKernel_*,
// old ncclAllReduceTreeLLKernel_*), RCCL's names are the same, NVSHMEM (nvshmemi_*, *nvshmem*).
bool isCommunicationKernel(const std::string& f) {
    return f.find("nccl") != std::string::npos || f.find("nvshmem") != std::string::npos;
}

} // namespace

std::string_view collectiveName(Collective c) {
    switch (c) {
    case Collective::None:
        return "none";
    case Collective::AllReduce:
        return "all_reduce";
    case Collective::AllGather:
        return "all_gather";
    case Collective::ReduceScatter:
        return "reduce_scatter";
    case Collective::Broadcast:
        return "broadcast";
    case Collective::Reduce:
        return "reduce";
    case Collective::AllToAll:
        return "all_to_all";
    case Collective::SendRecv:
        return "send_recv";
    case Collective::Other:
        return "other";
    }
    return "none";
}

Collective collectiveOfKernel(std::string_view kernelName) {
    // The signature's argument list says nothing about the collective (ncclDevKernelArgsStorage).
    const std::string f = folded(kernelName.substr(0, kernelName.find('(')));
    if (!isCommunicationKernel(f)) return Collective::None;
    const Collective c = byToken(f);
    return c == Collective::None ? Collective::Other : c;
}

Collective collectiveOfOp(std::string_view opName) {
    // PyTorch's c10d ops and NCCL-annotated ops, and NCCL's own NVTX ranges (ncclAllReduce).
    static constexpr std::string_view kPrefixes[] = {
        "c10d::", "nccl:", "NCCL:", "nccl", "c10d_", "nvshmem"};
    const bool named = std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                                   [&](std::string_view p) { return opName.starts_with(p); });
    if (!named) return Collective::None;
    return byToken(folded(opName.substr(0, opName.find(','))));
}

} // namespace ls
