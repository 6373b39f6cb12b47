// The timeline's rows: which lanes show where (rank sections, group order, collapsed, hidden,
// NVTX levels), dragging headers to reorder, and the row headers' menus.
#include "widgets/session/rank_filter.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_view.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QScrollBar>
#include <algorithm>

namespace ls::gui {

using namespace timeline;

namespace {

// Moves `item` of a display order to `position` (clamped); false when it is not in the order.
bool moveInOrder(std::vector<uint32_t>& order, uint32_t item, size_t position) {
    auto it = std::find(order.begin(), order.end(), item);
    if (it == order.end()) return false;
    order.erase(it);
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(std::min(position, order.size())),
                 item);
    return true;
}

} // namespace

void TimelineView::layoutRows() {
    rows_.clear();
    laneRow_.assign(lanePart_.size(), -1);
    if (!data_) return updateScrollBar();
    int y = 0;
    auto addGroups = [&](int section) {
        for (uint32_t group : groupOrder_) {
            if (hidden_[group] || (section != -2 && groupSection_[group] != section)) continue;
            rows_.push_back(Row{RowKind::Group, group, y, kGroupHeight});
            y += kGroupHeight;
            if (collapsed_[group]) continue;
            for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l) {
                const auto& lane = laneAt(l);
                if (lane.kind == TimelineEventKind::Range && lane.level >= nvtxLevels_[group])
                    continue;
                laneRow_[l] = static_cast<int>(rows_.size());
                rows_.push_back(Row{RowKind::Lane, l, y, kLaneHeight});
                y += kLaneHeight;
            }
        }
    };
    if (!sectioned()) {
        addGroups(-2); // every group, no rank headers
    } else {
        for (uint32_t s : sectionOrder_) {
            if (!sectionShown_[s]) continue;
            rows_.push_back(Row{RowKind::Rank, s, y, kRankHeight});
            y += kRankHeight;
            if (!sectionCollapsed_[s]) addGroups(static_cast<int>(s));
        }
        addGroups(-1); // rows of no rank (a thread of a trace without GPU work)
    }
    updateScrollBar();
    viewport()->update();
}

void TimelineView::setGroupCollapsed(uint32_t group, bool collapsed) {
    if (group >= collapsed_.size()) return;
    collapsed_[group] = collapsed;
    layoutRows();
}

void TimelineView::setGroupHidden(uint32_t group, bool hidden) {
    if (group >= hidden_.size()) return;
    hidden_[group] = hidden;
    layoutRows();
}

void TimelineView::setNvtxLevels(uint32_t group, uint32_t levels) {
    if (group >= nvtxLevels_.size()) return;
    nvtxLevels_[group] = levels;
    layoutRows();
}

void TimelineView::moveGroup(uint32_t group, size_t position) {
    if (moveInOrder(groupOrder_, group, position)) layoutRows();
}

bool TimelineView::setRankFilter(const QString& text) {
    if (!sectioned()) return text.trimmed().isEmpty();
    std::vector<int> ranks;
    for (const auto& s : session_->sections) ranks.push_back(s.rank);
    const bool ok = parseRankFilter(text, ranks, sectionShown_);
    layoutRows();
    return ok;
}

void TimelineView::setRankCollapsed(uint32_t section, bool collapsed) {
    if (section >= sectionCollapsed_.size()) return;
    sectionCollapsed_[section] = collapsed;
    layoutRows();
}

void TimelineView::moveRank(uint32_t section, size_t position) {
    if (moveInOrder(sectionOrder_, section, position)) layoutRows();
}

std::vector<uint32_t> TimelineView::shownRankSections() const {
    std::vector<uint32_t> out;
    for (const Row& r : rows_)
        if (r.kind == RowKind::Rank) out.push_back(r.index);
    return out;
}

std::optional<TimelineView::Row> TimelineView::headerAt(int viewportY) const {
    const int y = viewportY - kTop + verticalScrollBar()->value();
    for (const Row& r : rows_)
        if (r.header() && y >= r.y && y < r.y + r.height) return r;
    return std::nullopt;
}

// Drops a dragged rank or group header before the header of its kind under the cursor.
void TimelineView::dropHeader(const Row& dragged, int viewportY) {
    const int y = viewportY - kTop + verticalScrollBar()->value();
    const auto& order = dragged.kind == RowKind::Rank ? sectionOrder_ : groupOrder_;
    size_t position = 0;
    for (uint32_t index : order) {
        if (index == dragged.index) continue;
        int top = -1;
        for (const Row& r : rows_)
            if (r.kind == dragged.kind && r.index == index) top = r.y;
        if (top >= 0 && top + dragged.height / 2 < y) ++position;
    }
    if (dragged.kind == RowKind::Rank)
        moveRank(dragged.index, position);
    else
        moveGroup(dragged.index, position);
}

void TimelineView::showGroupMenu(uint32_t group, const QPoint& globalPos) {
    QMenu menu(this);
    uint32_t depth = 0;
    for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l)
        if (laneAt(l).kind == TimelineEventKind::Range)
            depth = std::max(depth, laneAt(l).level + 1);
    menu.addAction(collapsed_[group] ? QStringLiteral("Expand") : QStringLiteral("Collapse"), this,
                   [this, group] { setGroupCollapsed(group, !collapsed_[group]); });
    if (depth > 0) {
        QMenu* levels = menu.addMenu(QStringLiteral("NVTX levels shown"));
        for (uint32_t n = 1; n <= depth; ++n) {
            QAction* a = levels->addAction(
                n == depth ? QStringLiteral("All (%1)").arg(n) : QString::number(n), this,
                [this, group, n, depth] { setNvtxLevels(group, n == depth ? UINT32_MAX : n); });
            a->setCheckable(true);
            a->setChecked(std::min(nvtxLevels_[group], depth) == n);
        }
    }
    menu.addAction(QStringLiteral("Hide this row"), this,
                   [this, group] { setGroupHidden(group, true); });
    menu.addSeparator();
    QAction* showAll = menu.addAction(QStringLiteral("Show all rows"), this, [this] {
        std::fill(hidden_.begin(), hidden_.end(), 0);
        std::fill(collapsed_.begin(), collapsed_.end(), 0);
        std::fill(nvtxLevels_.begin(), nvtxLevels_.end(), UINT32_MAX);
        layoutRows();
    });
    showAll->setEnabled(std::count(hidden_.begin(), hidden_.end(), 1) > 0 ||
                        std::count(collapsed_.begin(), collapsed_.end(), 1) > 0 ||
                        std::any_of(nvtxLevels_.begin(), nvtxLevels_.end(),
                                    [](uint32_t v) { return v != UINT32_MAX; }));
    menu.exec(globalPos);
}

void TimelineView::showRankMenu(uint32_t section, const QPoint& globalPos) {
    QMenu menu(this);
    const int rank = session_->sections[section].rank;
    menu.addAction(sectionCollapsed_[section] ? QStringLiteral("Expand rank %1").arg(rank)
                                              : QStringLiteral("Collapse rank %1").arg(rank),
                   this,
                   [this, section] { setRankCollapsed(section, !sectionCollapsed_[section]); });
    menu.addAction(QStringLiteral("Expand only rank %1").arg(rank), this, [this, section] {
        for (uint32_t s = 0; s < sectionCollapsed_.size(); ++s) sectionCollapsed_[s] = s != section;
        layoutRows();
    });
    menu.addAction(QStringLiteral("Move to top"), this, [this, section] { moveRank(section, 0); });
    menu.addAction(QStringLiteral("Hide rank %1").arg(rank), this, [this, section] {
        sectionShown_[section] = 0;
        layoutRows();
    });
    menu.addSeparator();
    menu.addAction(QStringLiteral("Expand all ranks"), this, [this] {
        std::fill(sectionCollapsed_.begin(), sectionCollapsed_.end(), 0);
        layoutRows();
    });
    menu.addAction(QStringLiteral("Collapse all ranks"), this, [this] {
        std::fill(sectionCollapsed_.begin(), sectionCollapsed_.end(), 1);
        layoutRows();
    });
    menu.addAction(QStringLiteral("Show all ranks in rank order"), this, [this] {
        std::fill(sectionShown_.begin(), sectionShown_.end(), 1);
        for (uint32_t s = 0; s < sectionOrder_.size(); ++s) sectionOrder_[s] = s;
        layoutRows();
    });
    menu.exec(globalPos);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
    if (!data_) return;
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
