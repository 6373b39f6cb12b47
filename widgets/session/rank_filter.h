#pragma once
// A rank filter as typed: "0-7, 12, 40-" (ranges, single ranks, open ends; empty: every rank).
#include <QString>
#include <cstdint>
#include <vector>

namespace ls::gui {

// shown[i] tells whether ranks[i] passes `text`. Returns false when a piece is unreadable; then
// every rank is shown.
bool parseRankFilter(const QString& text, const std::vector<int>& ranks,
                     std::vector<uint8_t>& shown);

} // namespace ls::gui
