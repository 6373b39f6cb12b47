#include "widgets/util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ls::gui {
namespace {

// Picks the largest decimal prefix that keeps the value at or above 1.
QString withPrefix(double v, const QString& unit) {
    static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    double a = std::fabs(v);
    while (a >= 1000 && p < 6) {
        a /= 1000;
        v /= 1000;
        ++p;
    }
    const int decimals = p == 0 ? 0 : a < 10 ? 2 : a < 100 ? 1 : 0;
    return QStringLiteral("%1 %2%3").arg(v, 0, 'f', decimals).arg(QLatin1String(prefixes[p]), unit);
}

} // namespace

QString formatDuration(double ns) {
    if (!std::isfinite(ns)) return {};
    const double a = std::fabs(ns);
    if (a < 1e3) return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
    if (a < 1e6) return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'g', 3);
    if (a < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'g', 3);
    return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 3);
}

QString formatTick(double ns, double stepNs) {
    if (!std::isfinite(ns) || !(stepNs > 0)) return {};
    const double a = std::fabs(ns);
    const auto [unit, name] = a < 1e3   ? std::pair(1.0, "ns")
                              : a < 1e6 ? std::pair(1e3, "µs")
                              : a < 1e9 ? std::pair(1e6, "ms")
                                        : std::pair(1e9, "s");
    // Decimals that resolve the step in this unit (steps are 1, 2 or 5 x 10^k ns).
    const int decimals =
        std::clamp(static_cast<int>(std::ceil(-std::log10(stepNs / unit) - 1e-9)), 0, 9);
    return QStringLiteral("%1 %2").arg(ns / unit, 0, 'f', decimals).arg(QString::fromUtf8(name));
}

QString formatOffset(long long ns) {
    const bool negative = ns < 0;
    const unsigned long long a =
        negative ? 0ULL - static_cast<unsigned long long>(ns) : static_cast<unsigned long long>(ns);
    return QStringLiteral("%1%2.%3 ms")
        .arg(negative ? QStringLiteral("-") : QString())
        .arg(a / 1000000ULL)
        .arg(a % 1000000ULL, 6, 10, QLatin1Char('0'));
}

QString formatFlops(double flops) {
    return std::isfinite(flops) ? withPrefix(flops, QStringLiteral("FLOP")) : QString();
}
QString formatBytes(double bytes) {
    return std::isfinite(bytes) ? withPrefix(bytes, QStringLiteral("B")) : QString();
}

QString formatNumber(double v, int decimals) {
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QString();
}

QString formatPercent(double fraction) {
    return std::isfinite(fraction) ? QStringLiteral("%1 %").arg(100.0 * fraction, 0, 'f', 2)
                                   : QString();
}

} // namespace ls::gui
