#pragma once
// Strongly typed 32-bit indexes into the trace's columns, so a kernel index can never be
// passed where an API-call index is expected.
#include <cstdint>
#include <functional>
#include <limits>

namespace ls {

template <typename Tag> struct Id {
    static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();
    uint32_t value = kInvalid;

    constexpr Id() = default;
    constexpr explicit Id(uint32_t v) : value(v) {}
    constexpr bool valid() const { return value != kInvalid; }
    constexpr explicit operator bool() const { return valid(); }
    constexpr auto operator<=>(const Id&) const =
        default; // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads defaulted <=>
};

using KernelId = Id<struct KernelTag>;
using MemcpyId = Id<struct MemcpyTag>;
using MemsetId = Id<struct MemsetTag>;
using ApiCallId = Id<struct ApiCallTag>;
using RangeId = Id<struct RangeTag>;
using StringId = Id<struct StringTag>;
using ThreadId = Id<struct ThreadTag>;
using ProcessId = Id<struct ProcessTag>;
using DeviceId = Id<struct DeviceTag>;
using StreamId = Id<struct StreamTag>;
using OpId = Id<struct OpTag>; // an op instance: a forward op or a backward node

} // namespace ls

template <typename Tag> struct std::hash<ls::Id<Tag>> {
    size_t operator()(ls::Id<Tag> id) const noexcept { return std::hash<uint32_t>{}(id.value); }
};
