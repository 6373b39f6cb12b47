#include "widgets/session/rank_filter.h"

#include <QRegularExpression>
#include <algorithm>
#include <climits>

namespace ls::gui {

bool parseRankFilter(const QString& text, const std::vector<int>& ranks,
                     std::vector<uint8_t>& shown) {
    const bool all = text.trimmed().isEmpty();
    shown.assign(ranks.size(), all);
    if (all) return true;
    static const QRegularExpression piece(QStringLiteral("^\\s*(\\d+)?\\s*(-)?\\s*(\\d+)?\\s*$"));
    bool ok = true;
    for (const QString& part : text.split(QLatin1Char(','))) {
        const auto m = piece.match(part);
        if (!m.hasMatch() || (m.captured(1).isEmpty() && m.captured(3).isEmpty())) {
            ok = false;
            continue;
        }
        const int lo = m.captured(1).isEmpty() ? 0 : m.captured(1).toInt();
        const int hi = m.captured(3).isEmpty() ? (m.captured(2).isEmpty() ? lo : INT_MAX)
                                               : m.captured(3).toInt();
        for (size_t i = 0; i < ranks.size(); ++i)
            if (ranks[i] >= lo && ranks[i] <= hi) shown[i] = 1;
    }
    if (!ok) std::fill(shown.begin(), shown.end(), 1);
    return ok;
}

} // namespace ls::gui
