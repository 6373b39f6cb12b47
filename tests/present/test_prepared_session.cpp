// The presentation layer (core/present) built and checked with no Qt in the test: what the loader
// thread hands the window for the bundled sample (DESIGN: prepared data is plain data a test can
// build without Qt). The widget tests check how the window shows it.
#include "core/present/kernel_labels.h"
#include "core/present/trace_views.h"
#include "core/reports/roofline.h"
#include "tests/support/sample_fixture.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace {

using ls::KernelField;
using ls::KernelId;

class PreparedSession : public ls::test::SampleTraceSuite {};

TEST_F(PreparedSession, HoldsEveryTabsRowsInTheirOrder) {
    const auto s = ls::prepareTraceViews(
        trace_, ls::KernelOrder{static_cast<int>(KernelField::Duration), true});
    const ls::Trace& t = *trace_;
    ASSERT_TRUE(s->complete);
    ASSERT_TRUE(s->kernels && s->layers && s->timeline && s->fwdBwd && s->roofline &&
                s->kernelSummary && s->charts && s->iterations);

    // The table's rows, sorted on the loader thread: every kernel once, longest first.
    ASSERT_EQ(s->sortedKernels->size(), t.kernels.size());
    for (size_t i = 1; i < s->sortedKernels->size(); ++i)
        EXPECT_GE(s->kernels->number((*s->sortedKernels)[i - 1], KernelField::Duration),
                  s->kernels->number((*s->sortedKernels)[i], KernelField::Duration));

    // Every kernel sits on a timeline lane.
    for (uint32_t lane : s->timeline->kernelLane) EXPECT_LT(lane, s->timeline->tracks.lanes.size());

    // Forward/Backward: each side's rows once, costliest first.
    for (const auto* side : {&s->fwdBwd->forwardByTime, &s->fwdBwd->backwardByTime}) {
        const auto& rows =
            side == &s->fwdBwd->forwardByTime ? s->pairs->forward : s->pairs->backward;
        ASSERT_EQ(side->size(), rows.size());
        EXPECT_EQ(std::set<uint32_t>(side->begin(), side->end()).size(), rows.size());
        for (size_t i = 1; i < side->size(); ++i)
            EXPECT_GE(rows[(*side)[i - 1]].gpuTimeNs, rows[(*side)[i]].gpuTimeNs);
    }

    // Summary charts: the top kernels are the summary's first rows, with their GPU time.
    ASSERT_EQ(s->charts->topKernels.size(), std::min(s->kernelSummary->size(), ls::kChartBars));
    for (size_t i = 0; i < s->charts->topKernels.size(); ++i) {
        EXPECT_EQ(s->charts->topKernels[i].gpuTimeNs, (*s->kernelSummary)[i].stats.total);
        EXPECT_TRUE(s->charts->topKernels[i].label.starts_with(std::to_string(i + 1) + ". "));
    }

    // Roofline: one row per core point at every level, each with a filter.
    for (size_t l = 0; l < ls::kRooflineLevels; ++l) {
        const auto level = static_cast<ls::RooflineLevel>(l);
        EXPECT_EQ(s->roofline->rows(level).size(),
                  ls::roofline(t, ls::rooflineGroupOf(t, level)).size())
            << ls::rooflineLevelTitle(level);
        for (const auto& row : s->roofline->rows(level)) EXPECT_FALSE(row.filter.empty());
    }
}

TEST_F(PreparedSession, KernelLabelsTellSharedShortNamesApart) {
    const ls::Trace& t = *trace_;
    const ls::KernelLabels labels(t);
    std::set<std::string> fulls, labelled;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        if (t.str(t.kernels.shortName[k]) != "Kernel2") continue;
        fulls.insert(std::string(t.str(t.kernels.name[k])));
        labelled.insert(labels.of(k));
    }
    ASSERT_GE(fulls.size(), 2u); // three different CUTLASS GEMMs share the short name
    EXPECT_EQ(labelled.size(), fulls.size());
    EXPECT_TRUE(
        labels.of(static_cast<uint32_t>(t.kernels.size())).empty()); // out of range: no label
}

} // namespace
