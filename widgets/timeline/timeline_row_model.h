#pragma once
// The timeline's rows, apart from drawing and input: the view's traces flattened into one numbering
// of groups and lanes, and which of them show where (rank sections in their order, collapsed or
// filtered out; groups in their order, collapsed, hidden, their NVTX levels). Plain C++ over
// core/present's timeline data: a test lays rows out without a widget.
//
// A view shows its traces in slots: slot 0 is the shown trace (its group and lane numbers are the
// flat ones), then the session's other traces in session order, each shifted onto the shown trace's
// clock.
#include "core/present/session_timeline.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ls::gui {

class TimelineRowModel {
  public:
    enum class RowKind : uint8_t { Rank, Group, Lane };
    struct Row {
        RowKind kind;
        uint32_t index; // section, group or lane (flat: every slot's, the shown slot's first)
        int y, height;  // from the top of the rows, in pixels
        bool header() const { return kind != RowKind::Lane; }
    };

    // One trace, no session (null: nothing).
    void setData(std::shared_ptr<const TimelineData> timeline);
    // Every trace of the session, `shown` in slot 0. With keepRanks (the same session, another
    // trace shown), the rank sections keep their order, collapsed and shown states; else up to
    // eight ranks open expanded and, beyond, only the shown trace's. Row state is reset.
    void setSession(std::shared_ptr<const SessionTimeline> session, uint32_t shown, bool keepRanks);

    const TimelineData* data() const { return slots_.empty() ? nullptr : slots_[0].get(); }
    const SessionTimeline* session() const { return session_.get(); }
    bool sectioned() const { return session_ && session_->sections.size() > 1; }

    // Slots.
    size_t slotCount() const { return slots_.size(); }
    const TimelineData& slotData(uint32_t slot) const { return *slots_[slot]; }
    // The session trace shown in a slot (0 without a session), and the slot of a session trace.
    uint32_t slotTrace(uint32_t slot) const {
        return slot < slotTrace_.size() ? slotTrace_[slot] : 0;
    }
    std::optional<uint32_t> slotOfTrace(uint32_t trace) const;
    // The collective a slot's kernel belongs to when it is one matched across ranks, else null.
    const MatchedCollective* collectiveOf(uint32_t slot, KernelId k) const {
        return session_ && k.valid() ? session_->collectiveOfKernel(slotTrace(slot), k) : nullptr;
    }
    double shift(uint32_t slot) const { return shift_[slot]; } // add to its times: view clock
    double spanStart() const { return spanStart_; }            // every slot, the view's clock
    double spanEnd() const { return spanEnd_; }

    // Flat groups and lanes.
    size_t laneCount() const { return laneSlot_.size(); }
    size_t groupCount() const { return groupSlot_.size(); }
    const TimelineLane& laneAt(uint32_t lane) const;
    const TimelineGroup& groupAt(uint32_t group) const;
    uint32_t laneSlot(uint32_t lane) const { return laneSlot_[lane]; }
    uint32_t laneBase(uint32_t slot) const { return laneBase_[slot]; }
    uint32_t groupOfLane(uint32_t lane) const {
        return groupBase_[laneSlot_[lane]] + laneAt(lane).group;
    }
    int groupSection(uint32_t group) const { return groupSection_[group]; } // -1: no rank
    std::pair<uint32_t, uint32_t> groupLanes(uint32_t group) const { return groupLanes_[group]; }
    // The flat lane of a slot's kernel; UINT32_MAX when it has none.
    uint32_t kernelLane(uint32_t slot, KernelId k) const;
    // A collapsed rank's strip: the section's GPU kernel lanes.
    const std::vector<uint32_t>& sectionKernelLanes(uint32_t section) const {
        return sectionKernelLanes_[section];
    }

    // Layout, redone by every change below.
    const std::vector<Row>& rows() const { return rows_; }
    int height() const { return rows_.empty() ? 0 : rows_.back().y + rows_.back().height; }
    // The row showing a lane; nullptr when the lane is hidden.
    const Row* laneRow(uint32_t lane) const;
    const Row* rankRow(uint32_t section) const;
    std::optional<Row> headerAt(int y) const; // y from the top of the rows
    const Row* rowAt(int y) const;            // any row; nullptr below the last

    // Groups.
    bool groupCollapsed(uint32_t group) const { return collapsed_[group]; }
    uint32_t nvtxLevels(uint32_t group) const { return nvtxLevels_[group]; }
    uint32_t nvtxDepth(uint32_t group) const; // its NVTX lanes
    bool anyGroupChanged() const;             // hidden, collapsed or with NVTX levels cut
    const std::vector<uint32_t>& groupOrder() const { return groupOrder_; }
    void setGroupCollapsed(uint32_t group, bool collapsed);
    void setGroupHidden(uint32_t group, bool hidden);
    void setNvtxLevels(uint32_t group, uint32_t levels);
    void moveGroup(uint32_t group, size_t position);
    void showAllGroups(); // none hidden or collapsed, every NVTX level

    // Rank sections (indexes into session()->sections); none without several ranks.
    size_t sectionCount() const { return sectionOrder_.size(); }
    bool sectionCollapsed(uint32_t section) const { return sectionCollapsed_[section]; }
    const std::vector<uint32_t>& sectionOrder() const { return sectionOrder_; }
    const std::vector<uint8_t>& sectionsShown() const { return sectionShown_; }
    void setSectionsShown(std::vector<uint8_t> shown); // one per section
    void setSectionShown(uint32_t section, bool shown);
    void setRankCollapsed(uint32_t section, bool collapsed);
    void setAllRanksCollapsed(bool collapsed);
    void expandOnlyRank(uint32_t section);
    void moveRank(uint32_t section, size_t position);
    void showAllRanksInOrder();
    // Sections with a header, top to bottom.
    std::vector<uint32_t> shownRankSections() const;

    // Moves a dragged rank or group header before the header of its kind above y.
    void dropHeader(const Row& dragged, int y);

  private:
    void setSlots(std::vector<std::shared_ptr<const TimelineData>> slots,
                  std::vector<uint32_t> slotTrace, std::vector<double> shift);
    void resetRowState();
    void layout();

    std::shared_ptr<const SessionTimeline> session_;
    std::vector<std::shared_ptr<const TimelineData>> slots_;
    std::vector<uint32_t> slotTrace_; // slot -> session trace
    std::vector<double> shift_;       // per slot
    std::vector<uint32_t> laneBase_,
        groupBase_; // per slot: its first flat lane / group
    std::vector<uint32_t> laneSlot_,
        groupSlot_;                 // per flat lane / group: its slot
    std::vector<int> groupSection_; // per flat group: its rank section, -1 none
    double spanStart_ = 0, spanEnd_ = 0;
    std::vector<uint32_t> sectionOrder_;
    std::vector<uint8_t> sectionCollapsed_, sectionShown_;
    std::vector<std::vector<uint32_t>> sectionKernelLanes_;
    std::vector<Row> rows_;
    std::vector<int> laneRow_;                              // per lane: index into rows_, -1 hidden
    std::vector<uint8_t> collapsed_;                        // per group
    std::vector<uint8_t> hidden_;                           // per group
    std::vector<uint32_t> nvtxLevels_;                      // per group: NVTX lanes shown
    std::vector<uint32_t> groupOrder_;                      // display order of groups
    std::vector<std::pair<uint32_t, uint32_t>> groupLanes_; // per group: [first, last) lane
};

} // namespace ls::gui
