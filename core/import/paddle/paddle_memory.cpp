#include "core/import/paddle/paddle_memory.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ls {

PaddleMemoryKind paddleMemoryKind(std::string_view category) {
    std::string key;
    for (char c : category)
        if (c != '_') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key == "allocate") return PaddleMemoryKind::Allocate;
    if (key == "free") return PaddleMemoryKind::Free;
    if (key == "reservedallocate") return PaddleMemoryKind::ReservedAllocate;
    if (key == "reservedfree") return PaddleMemoryKind::ReservedFree;
    return PaddleMemoryKind::Other;
}

std::optional<uint32_t> paddleGpuOfPlace(std::string_view place) {
    // Place::DebugString: "Place(gpu:0)"; pinned host memory is "Place(gpu_pinned)".
    constexpr std::string_view kPrefix = "Place(gpu:";
    if (place.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
    const char* first = place.data() + kPrefix.size();
    const char* last = place.data() + place.size();
    uint32_t device = 0;
    const auto [end, ec] = std::from_chars(first, last, device);
    if (ec != std::errc() || end == first || end == last || *end != ')') return std::nullopt;
    return device;
}

void PaddleMemoryLog::add(const PaddleEvent& p, KinetoBuilder& builder) {
    const KinetoEvent& e = p.base;
    const PaddleMemoryKind kind = paddleMemoryKind(e.cat);
    ++counts_[static_cast<size_t>(kind)];
    if (!e.ts) return void(++withoutTime_);
    const auto device = paddleGpuOfPlace(p.memory.place);
    if (!device || kind == PaddleMemoryKind::Other) return void(++host_);
    // Paddle writes a release's increase_bytes negative; the sign is taken from the kind so that
    // a positive one cannot count as an allocation.
    const int64_t size =
        p.memory.increaseBytes < 0 ? -p.memory.increaseBytes : p.memory.increaseBytes;
    const bool release = kind == PaddleMemoryKind::Free || kind == PaddleMemoryKind::ReservedFree;
    const bool reserved =
        kind == PaddleMemoryKind::ReservedAllocate || kind == PaddleMemoryKind::ReservedFree;
    builder.memoryEvent({*e.ts, e.pid, e.tid, release ? -size : size,
                         reserved ? MemoryPool::Reserved : MemoryPool::Allocated,
                         p.memory.currentAllocated, p.memory.currentReserved, p.memory.addr,
                         *device});
}

std::string PaddleMemoryLog::reportLine() const {
    if (!notKept()) return {};
    std::string line = std::to_string(notKept()) + " [memory] events";
    if (host_)
        line += ", " + std::to_string(host_) + " not on a GPU (Place(cpu), Place(gpu_pinned))";
    if (withoutTime_) line += ", " + std::to_string(withoutTime_) + " without a usable ts";
    return line + ": only GPU memory is kept";
}

} // namespace ls
