// The timeline's row model without a widget: the sample's groups and lanes laid out, collapsed,
// hidden, cut to fewer NVTX levels, reordered by a dropped header, and found again by y.
#include "core/load/load.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/timeline/timeline_row_model.h"

#include <gtest/gtest.h>

namespace {

using ls::gui::TimelineRowModel;
using RowKind = TimelineRowModel::RowKind;
namespace tl = ls::gui::timeline;

class TimelineRowModelTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        auto loaded = ls::loadTrace(ls::gui::test::samplePath().toStdString());
        ASSERT_TRUE(loaded.ok());
        data_ = ls::buildTimelineData(loaded.trace);
    }
    static void TearDownTestSuite() { data_.reset(); }
    void SetUp() override { model_.setData(data_); }
    // Every group's header and all its lanes, in group order.
    int fullHeight() const {
        const auto& tracks = data_->tracks;
        return static_cast<int>(tracks.groups.size()) * tl::kGroupHeight +
               static_cast<int>(tracks.lanes.size()) * tl::kLaneHeight;
    }
    static inline std::shared_ptr<const ls::TimelineData> data_;
    TimelineRowModel model_;
};

TEST_F(TimelineRowModelTest, OneTraceLaysEveryGroupAndLaneOut) {
    ASSERT_GE(model_.groupCount(), 2U);
    EXPECT_EQ(model_.slotCount(), 1U);
    EXPECT_FALSE(model_.sectioned());
    EXPECT_EQ(model_.sectionCount(), 0U);
    EXPECT_EQ(model_.height(), fullHeight());
    const auto& rows = model_.rows();
    EXPECT_EQ(rows.size(), model_.groupCount() + model_.laneCount());
    EXPECT_EQ(rows[0].kind, RowKind::Group);
    EXPECT_EQ(rows[0].y, 0);
    EXPECT_EQ(rows[1].kind, RowKind::Lane);
    EXPECT_EQ(rows[1].y, tl::kGroupHeight);
    EXPECT_EQ(rows[2].y, tl::kGroupHeight + tl::kLaneHeight);
    // Every lane has its row, and rowAt finds each row by any of its y.
    for (uint32_t l = 0; l < model_.laneCount(); ++l) {
        const TimelineRowModel::Row* row = model_.laneRow(l);
        ASSERT_NE(row, nullptr);
        EXPECT_EQ(model_.rowAt(row->y), row);
        EXPECT_EQ(model_.rowAt(row->y + row->height - 1), row);
    }
    EXPECT_EQ(model_.rowAt(model_.height()), nullptr);
    EXPECT_FALSE(model_.headerAt(rows[1].y)) << "a lane is no header";
    ASSERT_TRUE(model_.headerAt(5));
    EXPECT_EQ(model_.headerAt(5)->index, 0U);
}

TEST_F(TimelineRowModelTest, CollapsingHidingAndNvtxLevelsDropRows) {
    const auto [first, last] = model_.groupLanes(0);
    const int lanes0 = static_cast<int>(last - first);
    ASSERT_GT(lanes0, 1);
    model_.setGroupCollapsed(0, true);
    EXPECT_EQ(model_.height(), fullHeight() - lanes0 * tl::kLaneHeight);
    EXPECT_EQ(model_.laneRow(first), nullptr);
    EXPECT_TRUE(model_.anyGroupChanged());
    model_.setGroupCollapsed(0, false);
    model_.setGroupHidden(0, true);
    EXPECT_EQ(model_.height(), fullHeight() - lanes0 * tl::kLaneHeight - tl::kGroupHeight);
    EXPECT_NE(model_.rows()[0].index, 0U) << "group 0 is gone";
    model_.showAllGroups();
    EXPECT_EQ(model_.height(), fullHeight());
    EXPECT_FALSE(model_.anyGroupChanged());
    // The sample's main thread has NVTX ranges nested several deep: one level keeps NVTX 0.
    const uint32_t depth = model_.nvtxDepth(0);
    ASSERT_GT(depth, 1U);
    model_.setNvtxLevels(0, 1);
    EXPECT_EQ(model_.height(), fullHeight() - static_cast<int>(depth - 1) * tl::kLaneHeight);
}

TEST_F(TimelineRowModelTest, ADroppedHeaderMovesItsGroup) {
    const uint32_t groups = static_cast<uint32_t>(model_.groupCount());
    const TimelineRowModel::Row dragged = *model_.headerAt(0); // group 0, at the top
    model_.dropHeader(dragged, model_.height());               // dropped below everything
    EXPECT_EQ(model_.groupOrder().back(), 0U);
    EXPECT_EQ(model_.groupOrder().front(), 1U);
    EXPECT_EQ(model_.rows()[0].index, 1U);
    model_.moveGroup(0, 0);
    EXPECT_EQ(model_.groupOrder().front(), 0U);
    model_.moveGroup(groups + 5, 0); // no such group: nothing moves
    EXPECT_EQ(model_.groupOrder().size(), groups);
    EXPECT_EQ(model_.height(), fullHeight());
}

TEST_F(TimelineRowModelTest, KernelsFindTheirLanes) {
    const auto& kernels = data_->trace->kernels;
    ASSERT_GT(kernels.size(), 0U);
    const uint32_t lane = model_.kernelLane(0, ls::KernelId(0));
    ASSERT_NE(lane, UINT32_MAX);
    EXPECT_EQ(model_.laneAt(lane).kind, ls::TimelineEventKind::Kernel);
    EXPECT_EQ(model_.laneSlot(lane), 0U);
    EXPECT_EQ(model_.kernelLane(1, ls::KernelId(0)), UINT32_MAX) << "no slot 1";
    EXPECT_EQ(model_.kernelLane(0, ls::KernelId()), UINT32_MAX);
    model_.setData(nullptr);
    EXPECT_EQ(model_.data(), nullptr);
    EXPECT_TRUE(model_.rows().empty());
    EXPECT_EQ(model_.height(), 0);
}

} // namespace
