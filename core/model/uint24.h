#pragma once
// An unsigned 24-bit integer in three bytes (alignment 1, so a column of them is dense): the
// model's durations and time offsets, nearly all below 16.8 ms, in 3 bytes a row. It converts
// to and from uint32_t implicitly, so a column of them reads like one of uint32_t.
#include <cstdint>

namespace ls {

struct UInt24 {
    static constexpr uint32_t kMax = (uint32_t(1) << 24) - 1;
    uint8_t b[3] = {0, 0, 0};

    UInt24() = default;
    // NOLINTNEXTLINE(google-explicit-constructor): reads and writes like the uint32_t it holds
    constexpr UInt24(uint32_t v)
        : b{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16)} {}
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr operator uint32_t() const {
        return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16;
    }
};
static_assert(sizeof(UInt24) == 3 && alignof(UInt24) == 1);

} // namespace ls
