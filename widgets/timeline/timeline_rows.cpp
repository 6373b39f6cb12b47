// The timeline's rows: which lanes show where (group order, collapsed, hidden, NVTX levels) and
// the row headers' menu.
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_view.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QScrollBar>

#include <algorithm>

namespace ls::gui {

using namespace timeline;

void TimelineView::layoutRows() {
    rows_.clear();
    laneRow_.assign(data_ ? data_->tracks.lanes.size() : 0, -1);
    if (!data_) return updateScrollBar();
    int y = 0;
    for (uint32_t group : groupOrder_) {
        if (hidden_[group]) continue;
        rows_.push_back(Row{true, group, y, kGroupHeight});
        y += kGroupHeight;
        if (collapsed_[group]) continue;
        for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l) {
            const auto& lane = data_->tracks.lanes[l];
            if (lane.kind == TimelineEventKind::Range && lane.level >= nvtxLevels_[group]) continue;
            laneRow_[l] = static_cast<int>(rows_.size());
            rows_.push_back(Row{false, l, y, kLaneHeight});
            y += kLaneHeight;
        }
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
    auto it = std::find(groupOrder_.begin(), groupOrder_.end(), group);
    if (it == groupOrder_.end()) return;
    groupOrder_.erase(it);
    groupOrder_.insert(groupOrder_.begin() + static_cast<std::ptrdiff_t>(std::min(position, groupOrder_.size())), group);
    layoutRows();
}

std::optional<uint32_t> TimelineView::groupHeaderAt(int viewportY) const {
    const int y = viewportY - kTop + verticalScrollBar()->value();
    for (const Row& r : rows_)
        if (r.header && y >= r.y && y < r.y + r.height) return r.index;
    return std::nullopt;
}

void TimelineView::showGroupMenu(uint32_t group, const QPoint& globalPos) {
    QMenu menu(this);
    const auto& lanes = data_->tracks.lanes;
    uint32_t depth = 0;
    for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l)
        if (lanes[l].kind == TimelineEventKind::Range) depth = std::max(depth, lanes[l].level + 1);
    menu.addAction(collapsed_[group] ? QStringLiteral("Expand") : QStringLiteral("Collapse"), this,
                   [this, group] { setGroupCollapsed(group, !collapsed_[group]); });
    if (depth > 0) {
        QMenu* levels = menu.addMenu(QStringLiteral("NVTX levels shown"));
        for (uint32_t n = 1; n <= depth; ++n) {
            QAction* a = levels->addAction(n == depth ? QStringLiteral("All (%1)").arg(n) : QString::number(n), this,
                                           [this, group, n, depth] { setNvtxLevels(group, n == depth ? UINT32_MAX : n); });
            a->setCheckable(true);
            a->setChecked(std::min(nvtxLevels_[group], depth) == n);
        }
    }
    menu.addAction(QStringLiteral("Hide this row"), this, [this, group] { setGroupHidden(group, true); });
    menu.addSeparator();
    QAction* showAll = menu.addAction(QStringLiteral("Show all rows"), this, [this] {
        std::fill(hidden_.begin(), hidden_.end(), 0);
        std::fill(collapsed_.begin(), collapsed_.end(), 0);
        std::fill(nvtxLevels_.begin(), nvtxLevels_.end(), UINT32_MAX);
        layoutRows();
    });
    showAll->setEnabled(std::count(hidden_.begin(), hidden_.end(), 1) > 0 || std::count(collapsed_.begin(), collapsed_.end(), 1) > 0 ||
                        std::any_of(nvtxLevels_.begin(), nvtxLevels_.end(), [](uint32_t v) { return v != UINT32_MAX; }));
    menu.exec(globalPos);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
    if (!data_) return;
    const QPoint pos = viewport()->mapFrom(this, e->pos());
    if (const auto group = groupHeaderAt(pos.y()); group && pos.y() >= kTop) showGroupMenu(*group, e->globalPos());
}

} // namespace ls::gui
