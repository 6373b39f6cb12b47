#include "widgets/timeline/timeline_row_model.h"

#include "widgets/timeline/timeline_layout.h"

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

void TimelineRowModel::setData(std::shared_ptr<const TimelineData> timeline) {
    session_.reset();
    std::vector<std::shared_ptr<const TimelineData>> slots;
    if (timeline) slots.push_back(std::move(timeline));
    const size_t n = slots.size();
    setSlots(std::move(slots), std::vector<uint32_t>(n, 0), std::vector<double>(n, 0.0));
    resetRowState();
    layout();
}

void TimelineRowModel::setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown,
                                  bool keepRanks) {
    if (!session || shown >= session->traces.size()) return setData(nullptr);
    const std::vector<uint32_t> oldOrder = sectionOrder_;
    const std::vector<uint8_t> oldCollapsed = sectionCollapsed_, oldShown = sectionShown_;
    session_ = std::move(session);
    // Slot 0 is the shown trace, then the others in session order; each shifted onto the shown
    // trace's clock.
    std::vector<std::shared_ptr<const TimelineData>> slots{session_->traces[shown]};
    std::vector<uint32_t> slotTrace{shown};
    for (uint32_t t = 0; t < session_->traces.size(); ++t)
        if (t != shown) {
            slots.push_back(session_->traces[t]);
            slotTrace.push_back(t);
        }
    std::vector<double> shift;
    for (uint32_t t : slotTrace)
        shift.push_back(static_cast<double>(session_->offset[t] - session_->offset[shown]));
    setSlots(std::move(slots), std::move(slotTrace), std::move(shift));
    resetRowState();
    if (keepRanks && oldOrder.size() == sectionOrder_.size()) {
        sectionOrder_ = oldOrder;
        sectionCollapsed_ = oldCollapsed;
        sectionShown_ = oldShown;
    } else { // up to eight ranks open expanded; beyond, only the shown trace's
        for (uint32_t s = 0; s < sectionCollapsed_.size(); ++s)
            sectionCollapsed_[s] =
                session_->sections.size() > 8 && session_->sections[s].trace != shown;
    }
    layout();
}

void TimelineRowModel::setSlots(std::vector<std::shared_ptr<const TimelineData>> slots,
                                std::vector<uint32_t> slotTrace, std::vector<double> shift) {
    slots_ = std::move(slots);
    slotTrace_ = std::move(slotTrace);
    shift_ = std::move(shift);
    laneBase_.clear();
    groupBase_.clear();
    laneSlot_.clear();
    groupSlot_.clear();
    groupSection_.clear();
    spanStart_ = spanEnd_ = 0;
    for (uint32_t s = 0; s < slots_.size(); ++s) {
        const TimelineTracks& tracks = slots_[s]->tracks;
        laneBase_.push_back(static_cast<uint32_t>(laneSlot_.size()));
        groupBase_.push_back(static_cast<uint32_t>(groupSlot_.size()));
        laneSlot_.insert(laneSlot_.end(), tracks.lanes.size(), s);
        groupSlot_.insert(groupSlot_.end(), tracks.groups.size(), s);
        for (const TimelineGroup& g : tracks.groups)
            groupSection_.push_back(session_ ? session_->sectionOf(slotTrace_[s], g) : -1);
        const double from = static_cast<double>(tracks.start) + shift_[s],
                     to = static_cast<double>(tracks.end) + shift_[s];
        spanStart_ = s == 0 ? from : std::min(spanStart_, from);
        spanEnd_ = s == 0 ? to : std::max(spanEnd_, to);
    }
}

void TimelineRowModel::resetRowState() {
    const size_t groups = groupSlot_.size();
    collapsed_.assign(groups, 0);
    hidden_.assign(groups, 0);
    nvtxLevels_.assign(groups, UINT32_MAX);
    groupOrder_.resize(groups);
    for (uint32_t g = 0; g < groups; ++g) groupOrder_[g] = g;
    groupLanes_.assign(groups, {0, 0});
    for (uint32_t l = 0; l < laneSlot_.size(); ++l) {
        auto& range = groupLanes_[groupOfLane(l)];
        if (range.first == range.second) range.first = l;
        range.second = l + 1;
    }
    const size_t sections = sectioned() ? session_->sections.size() : 0;
    sectionOrder_.resize(sections);
    for (uint32_t s = 0; s < sections; ++s) sectionOrder_[s] = s;
    sectionCollapsed_.assign(sections, 0);
    sectionShown_.assign(sections, 1);
    sectionKernelLanes_.assign(sections, {});
    for (uint32_t l = 0; l < laneSlot_.size(); ++l) {
        const uint32_t g = groupOfLane(l);
        if (sections && groupSection_[g] >= 0 && laneAt(l).kind == TimelineEventKind::Kernel)
            sectionKernelLanes_[static_cast<size_t>(groupSection_[g])].push_back(l);
    }
}

std::optional<uint32_t> TimelineRowModel::slotOfTrace(uint32_t trace) const {
    const auto it = std::find(slotTrace_.begin(), slotTrace_.end(), trace);
    if (it == slotTrace_.end() || it - slotTrace_.begin() >= static_cast<ptrdiff_t>(slots_.size()))
        return std::nullopt;
    return static_cast<uint32_t>(it - slotTrace_.begin());
}

const TimelineLane& TimelineRowModel::laneAt(uint32_t lane) const {
    const uint32_t s = laneSlot_[lane];
    return slots_[s]->tracks.lanes[lane - laneBase_[s]];
}

const TimelineGroup& TimelineRowModel::groupAt(uint32_t group) const {
    const uint32_t s = groupSlot_[group];
    return slots_[s]->tracks.groups[group - groupBase_[s]];
}

uint32_t TimelineRowModel::kernelLane(uint32_t slot, KernelId k) const {
    if (slot >= slots_.size() || !k.valid() || k.value >= slots_[slot]->kernelLane.size())
        return UINT32_MAX;
    const uint32_t l = slots_[slot]->kernelLane[k.value];
    return l == UINT32_MAX ? l : laneBase_[slot] + l;
}

void TimelineRowModel::layout() {
    rows_.clear();
    laneRow_.assign(laneSlot_.size(), -1);
    if (slots_.empty()) return;
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
                const int height =
                    lane.kind == TimelineEventKind::Memory ? kMemoryLaneHeight : kLaneHeight;
                rows_.push_back(Row{RowKind::Lane, l, y, height});
                y += height;
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
}

const TimelineRowModel::Row* TimelineRowModel::laneRow(uint32_t lane) const {
    if (lane >= laneRow_.size() || laneRow_[lane] < 0) return nullptr;
    return &rows_[static_cast<size_t>(laneRow_[lane])];
}

const TimelineRowModel::Row* TimelineRowModel::rankRow(uint32_t section) const {
    for (const Row& r : rows_)
        if (r.kind == RowKind::Rank && r.index == section) return &r;
    return nullptr;
}

std::optional<TimelineRowModel::Row> TimelineRowModel::headerAt(int y) const {
    for (const Row& r : rows_)
        if (r.header() && y >= r.y && y < r.y + r.height) return r;
    return std::nullopt;
}

const TimelineRowModel::Row* TimelineRowModel::rowAt(int y) const {
    const auto row = std::partition_point(rows_.begin(), rows_.end(),
                                          [&](const Row& r) { return r.y + r.height <= y; });
    return row == rows_.end() || y < row->y ? nullptr : &*row;
}

uint32_t TimelineRowModel::nvtxDepth(uint32_t group) const {
    uint32_t depth = 0;
    for (uint32_t l = groupLanes_[group].first; l < groupLanes_[group].second; ++l)
        if (laneAt(l).kind == TimelineEventKind::Range)
            depth = std::max(depth, laneAt(l).level + 1);
    return depth;
}

bool TimelineRowModel::anyGroupChanged() const {
    return std::count(hidden_.begin(), hidden_.end(), 1) > 0 ||
           std::count(collapsed_.begin(), collapsed_.end(), 1) > 0 ||
           std::any_of(nvtxLevels_.begin(), nvtxLevels_.end(),
                       [](uint32_t v) { return v != UINT32_MAX; });
}

void TimelineRowModel::setGroupCollapsed(uint32_t group, bool collapsed) {
    if (group >= collapsed_.size()) return;
    collapsed_[group] = collapsed;
    layout();
}

void TimelineRowModel::setGroupHidden(uint32_t group, bool hidden) {
    if (group >= hidden_.size()) return;
    hidden_[group] = hidden;
    layout();
}

void TimelineRowModel::setNvtxLevels(uint32_t group, uint32_t levels) {
    if (group >= nvtxLevels_.size()) return;
    nvtxLevels_[group] = levels;
    layout();
}

void TimelineRowModel::moveGroup(uint32_t group, size_t position) {
    if (moveInOrder(groupOrder_, group, position)) layout();
}

void TimelineRowModel::showAllGroups() {
    std::fill(hidden_.begin(), hidden_.end(), 0);
    std::fill(collapsed_.begin(), collapsed_.end(), 0);
    std::fill(nvtxLevels_.begin(), nvtxLevels_.end(), UINT32_MAX);
    layout();
}

void TimelineRowModel::setSectionsShown(std::vector<uint8_t> shown) {
    if (shown.size() != sectionShown_.size()) return;
    sectionShown_ = std::move(shown);
    layout();
}

void TimelineRowModel::setSectionShown(uint32_t section, bool shown) {
    if (section >= sectionShown_.size()) return;
    sectionShown_[section] = shown;
    layout();
}

void TimelineRowModel::setRankCollapsed(uint32_t section, bool collapsed) {
    if (section >= sectionCollapsed_.size()) return;
    sectionCollapsed_[section] = collapsed;
    layout();
}

void TimelineRowModel::setAllRanksCollapsed(bool collapsed) {
    std::fill(sectionCollapsed_.begin(), sectionCollapsed_.end(), collapsed ? 1 : 0);
    layout();
}

void TimelineRowModel::expandOnlyRank(uint32_t section) {
    for (uint32_t s = 0; s < sectionCollapsed_.size(); ++s) sectionCollapsed_[s] = s != section;
    layout();
}

void TimelineRowModel::moveRank(uint32_t section, size_t position) {
    if (moveInOrder(sectionOrder_, section, position)) layout();
}

void TimelineRowModel::showAllRanksInOrder() {
    std::fill(sectionShown_.begin(), sectionShown_.end(), 1);
    for (uint32_t s = 0; s < sectionOrder_.size(); ++s) sectionOrder_[s] = s;
    layout();
}

std::vector<uint32_t> TimelineRowModel::shownRankSections() const {
    std::vector<uint32_t> out;
    for (const Row& r : rows_)
        if (r.kind == RowKind::Rank) out.push_back(r.index);
    return out;
}

void TimelineRowModel::dropHeader(const Row& dragged, int y) {
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

} // namespace ls::gui
