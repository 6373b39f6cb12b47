// The timeline's row controls: TimelineView's forwards to its row model (collapse, hide, NVTX
// levels, order, the rank filter), the header under the cursor, and the row headers' menus.
#include "widgets/session/rank_filter.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_view.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QScrollBar>
#include <algorithm>

namespace ls::gui {

using namespace timeline;

void TimelineView::setGroupCollapsed(uint32_t group, bool collapsed) {
    rows_.setGroupCollapsed(group, collapsed);
    rowsChanged();
}

void TimelineView::setGroupHidden(uint32_t group, bool hidden) {
    rows_.setGroupHidden(group, hidden);
    rowsChanged();
}

void TimelineView::setNvtxLevels(uint32_t group, uint32_t levels) {
    rows_.setNvtxLevels(group, levels);
    rowsChanged();
}

void TimelineView::moveGroup(uint32_t group, size_t position) {
    rows_.moveGroup(group, position);
    rowsChanged();
}

bool TimelineView::setRankFilter(const QString& text) {
    if (!rows_.sectioned()) return text.trimmed().isEmpty();
    std::vector<int> ranks;
    for (const auto& s : session()->sections) ranks.push_back(s.rank);
    std::vector<uint8_t> shown = rows_.sectionsShown();
    const bool ok = parseRankFilter(text, ranks, shown);
    rows_.setSectionsShown(std::move(shown));
    rowsChanged();
    return ok;
}

void TimelineView::setRankCollapsed(uint32_t section, bool collapsed) {
    rows_.setRankCollapsed(section, collapsed);
    rowsChanged();
}

void TimelineView::moveRank(uint32_t section, size_t position) {
    rows_.moveRank(section, position);
    rowsChanged();
}

std::optional<TimelineView::Row> TimelineView::headerAt(int viewportY) const {
    return rows_.headerAt(viewportY - kTop + verticalScrollBar()->value());
}

void TimelineView::showGroupMenu(uint32_t group, const QPoint& globalPos) {
    QMenu menu(this);
    const uint32_t depth = rows_.nvtxDepth(group);
    menu.addAction(rows_.groupCollapsed(group) ? QStringLiteral("Expand")
                                               : QStringLiteral("Collapse"),
                   this, [this, group] { setGroupCollapsed(group, !rows_.groupCollapsed(group)); });
    if (depth > 0) {
        QMenu* levels = menu.addMenu(QStringLiteral("NVTX levels shown"));
        for (uint32_t n = 1; n <= depth; ++n) {
            QAction* a = levels->addAction(
                n == depth ? QStringLiteral("All (%1)").arg(n) : QString::number(n), this,
                [this, group, n, depth] { setNvtxLevels(group, n == depth ? UINT32_MAX : n); });
            a->setCheckable(true);
            a->setChecked(std::min(rows_.nvtxLevels(group), depth) == n);
        }
    }
    menu.addAction(QStringLiteral("Hide this row"), this,
                   [this, group] { setGroupHidden(group, true); });
    menu.addSeparator();
    QAction* showAll = menu.addAction(QStringLiteral("Show all rows"), this, [this] {
        rows_.showAllGroups();
        rowsChanged();
    });
    showAll->setEnabled(rows_.anyGroupChanged());
    menu.exec(globalPos);
}

void TimelineView::showRankMenu(uint32_t section, const QPoint& globalPos) {
    QMenu menu(this);
    const int rank = session()->sections[section].rank;
    const auto change = [this](auto&& f) {
        return [this, f] {
            f();
            rowsChanged();
        };
    };
    menu.addAction(rows_.sectionCollapsed(section) ? QStringLiteral("Expand rank %1").arg(rank)
                                                   : QStringLiteral("Collapse rank %1").arg(rank),
                   this, change([this, section] {
                       rows_.setRankCollapsed(section, !rows_.sectionCollapsed(section));
                   }));
    menu.addAction(QStringLiteral("Expand only rank %1").arg(rank), this,
                   change([this, section] { rows_.expandOnlyRank(section); }));
    menu.addAction(QStringLiteral("Move to top"), this,
                   change([this, section] { rows_.moveRank(section, 0); }));
    menu.addAction(QStringLiteral("Hide rank %1").arg(rank), this,
                   change([this, section] { rows_.setSectionShown(section, false); }));
    menu.addSeparator();
    menu.addAction(QStringLiteral("Expand all ranks"), this,
                   change([this] { rows_.setAllRanksCollapsed(false); }));
    menu.addAction(QStringLiteral("Collapse all ranks"), this,
                   change([this] { rows_.setAllRanksCollapsed(true); }));
    menu.addAction(QStringLiteral("Show all ranks in rank order"), this,
                   change([this] { rows_.showAllRanksInOrder(); }));
    menu.exec(globalPos);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
    if (!data()) return;
    const QPoint pos = viewport()->mapFrom(this, e->pos());
    if (pos.y() < kTop) return;
    const auto header = headerAt(pos.y());
    if (!header) return;
    if (header->kind == RowKind::Rank)
        showRankMenu(header->index, e->globalPos());
    else
        showGroupMenu(header->index, e->globalPos());
}

} // namespace ls::gui
