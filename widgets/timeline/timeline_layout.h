#pragma once
// The timeline's fixed geometry, shared by its painting, row layout and input handling.

namespace ls::gui::timeline {

inline constexpr int kHeaderWidth = 230; // row labels
inline constexpr int kMinimapHeight = 26;
inline constexpr int kRulerHeight = 22;
inline constexpr int kTop = kMinimapHeight + kRulerHeight;
inline constexpr int kLaneHeight = 17;
inline constexpr int kMemoryLaneHeight = 3 * kLaneHeight; // a step chart needs the height
inline constexpr int kGroupHeight = 20;
inline constexpr int kRankHeight =
    24; // a rank section's header: its label and, collapsed, its busy strip

} // namespace ls::gui::timeline
