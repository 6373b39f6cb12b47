#pragma once
// Human units for display. Models keep raw numbers on their sort role; these only format.
#include <QString>

namespace ls::gui {

// "12.3 µs", "4.56 ms", "1.500 s": three significant digits, for durations in ns.
QString formatDuration(double ns);
// A ruler tick at `ns` when ticks are `stepNs` apart: in the unit of the tick's magnitude, with
// as many decimals as the step needs so neighbouring ticks never read alike ("12.15 ms" beside
// "12.20 ms" at 50 µs steps, where three significant digits would print "12.2 ms" twice).
QString formatTick(double ns, double stepNs);
// A time since the capture start in ms, to the nanosecond: "20.345898 ms".
QString formatOffset(long long ns);
// "3.22 GFLOP", "850 MFLOP"; empty for NaN (unknown stays blank, never zero).
QString formatFlops(double flops);
// "12.6 MB", "512 B" (decimal units, as GB/s is).
QString formatBytes(double bytes);
// A plain number with three significant digits or fixed decimals; empty for NaN.
QString formatNumber(double v, int decimals);
// "45.20 %".
QString formatPercent(double fraction);

} // namespace ls::gui
