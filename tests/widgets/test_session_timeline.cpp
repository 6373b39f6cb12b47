// The main Timeline tab of a session of several ranks, offscreen: every rank's rows under a rank
// header on one clock (checked against each file's kernel starts in SQL, shifted by the session
// start times the exports record), the rank filter, collapse and reorder, a collective kernel
// linked to its peer with the skew SQL gives, and a click on another rank's kernel showing that
// rank.
#include "widget_test_support.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/timeline/timeline_layout.h"
#include "widgets/window/main_window.h"

#include <QComboBox>
#include <QFileInfo>
#include <QImage>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <sqlite3.h>

namespace {

using namespace ls::gui::test;
using ls::KernelId;

const QString kShared = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/");
const QString kDdp0 = kShared + QStringLiteral("ddp_bf16_h200x2_rank0.sqlite");
const QString kDdp1 = kShared + QStringLiteral("ddp_bf16_h200x2_rank1.sqlite");
const QString kOurs = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/ranks/");
const QString kFsdp0 = kOurs + QStringLiteral("fsdp_nsys_bf16_h100x2_rank0.sqlite");
const QString kFsdp1 = kOurs + QStringLiteral("fsdp_nsys_bf16_h100x2_rank1.sqlite");

int64_t epochOf(const QString& path) {
    return sqlColumn(path, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").at(0);
}

// The kernel of `trace` that starts at `start` (trace time).
KernelId kernelStartingAt(const ls::Trace& t, int64_t start) {
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        if (t.kernels.start[k] == start) return KernelId(k);
    return KernelId();
}

TEST(SessionTimeline, RanksShareOneClockUnderTheirHeaders) {
    if (!QFileInfo::exists(kDdp0) || !QFileInfo::exists(kDdp1)) GTEST_SKIP() << "DDP traces absent";
    const auto w = openSessionInWindow({kDdp1, kDdp0});
    ASSERT_TRUE(w);
    auto* view = w->findChild<ls::gui::TimelineArea*>()->view();
    ASSERT_NE(view->session(), nullptr);
    ASSERT_EQ(view->rankSections(), 2u);
    EXPECT_EQ(view->shownRankSections(), (std::vector<uint32_t>{0, 1}));
    // On the Timeline tab (the Findings tab may be shown first after a load).
    auto* area = w->findChild<ls::gui::TimelineArea*>();
    for (QWidget* p = area->parentWidget(); p; p = p->parentWidget())
        if (auto* tabs = qobject_cast<QTabWidget*>(p)) {
            tabs->setCurrentWidget(area);
            break;
        }
    EXPECT_TRUE(area->rankFilter()->isVisibleTo(w.get()));
    // Rank 0 is shown (view slot 0); rank 1 is slot 1, on rank 0's clock.
    ASSERT_EQ(QString::fromStdString(w->trace()->path), kDdp0);
    const auto* other = view->session()->traces[view->slotTrace(1)].get();
    ASSERT_EQ(QString::fromStdString(other->trace->path), kDdp1);
    const int64_t shift = epochOf(kDdp1) - epochOf(kDdp0);
    // Every kernel of each file has a lane; the first kernels of both ranks sit where SQL says.
    EXPECT_EQ(static_cast<int64_t>(w->trace()->kernels.size()),
              sqlColumn(kDdp0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").at(0));
    EXPECT_EQ(static_cast<int64_t>(other->trace->kernels.size()),
              sqlColumn(kDdp1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").at(0));
    const int64_t first0 =
        sqlColumn(kDdp0, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").at(0);
    const int64_t first1 =
        sqlColumn(kDdp1, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").at(0);
    const KernelId k0 = kernelStartingAt(*w->trace(), first0),
                   k1 = kernelStartingAt(*other->trace, first1);
    ASSERT_TRUE(k0.valid() && k1.valid());
    view->setWindow(static_cast<double>(std::min(first0, first1 + shift)) - 1e5,
                    static_cast<double>(std::max(first0, first1 + shift)) + 1e6);
    const auto p0 = view->kernelPoint(k0, 0), p1 = view->kernelPoint(k1, 1);
    ASSERT_TRUE(p0 && p1);
    const auto w0 = view->window();
    auto xOf = [&](int64_t ns, const ls::Trace& t, KernelId k) {
        const double mid =
            static_cast<double>(ns) +
            static_cast<double>(t.kernels.end[k.value] - t.kernels.start[k.value]) / 2;
        return w0.toX(mid) * w0.widthPx /
                   std::max(1, view->viewport()->width() - ls::gui::timeline::kHeaderWidth) +
               ls::gui::timeline::kHeaderWidth;
    };
    EXPECT_NEAR(p0->x(), xOf(first0, *w->trace(), k0), 0.5);
    EXPECT_NEAR(p1->x(), xOf(first1 + shift, *other->trace, k1), 0.5);
    EXPECT_GT(p1->y(), p0->y()) << "rank 1's rows below rank 0's";

    // Filter, collapse, reorder.
    EXPECT_TRUE(view->setRankFilter(QStringLiteral("1")));
    EXPECT_EQ(view->shownRankSections(), (std::vector<uint32_t>{1}));
    EXPECT_FALSE(view->kernelPoint(k0, 0)) << "rank 0 filtered out";
    EXPECT_FALSE(view->setRankFilter(QStringLiteral("one")));
    EXPECT_EQ(view->shownRankSections().size(), 2u) << "an unreadable filter shows every rank";
    view->setRankFilter(QString());
    view->setRankCollapsed(1, true);
    EXPECT_FALSE(view->kernelPoint(k1, 1));
    EXPECT_TRUE(view->kernelPoint(k0, 0));
    view->setRankCollapsed(1, false);
    view->moveRank(1, 0);
    EXPECT_EQ(view->rankOrder().front(), 1u);
    EXPECT_LT(view->kernelPoint(k1, 1)->y(), view->kernelPoint(k0, 0)->y());
    QImage image(view->viewport()->size(), QImage::Format_RGB32);
    view->setRankCollapsed(0, true); // a collapsed rank paints its kernels as one strip
    view->viewport()->render(&image);
}

TEST(SessionTimeline, ACollectiveKernelIsLinkedToItsPeerWithTheSkewFromSql) {
    if (!QFileInfo::exists(kDdp0) || !QFileInfo::exists(kDdp1)) GTEST_SKIP() << "DDP traces absent";
    const auto w = openSessionInWindow({kDdp0, kDdp1});
    ASSERT_TRUE(w);
    auto* view = w->findChild<ls::gui::TimelineArea*>()->view();
    const char* allReduces = "SELECT k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                             "s.id = k.demangledName "
                             "WHERE s.value LIKE 'ncclDevKernel_AllReduce%' ORDER BY k.start";
    const auto s0 = sqlColumn(kDdp0, allReduces), s1 = sqlColumn(kDdp1, allReduces);
    ASSERT_EQ(s0.size(), s1.size());
    ASSERT_GT(s0.size(), 3u);
    const int64_t shift = epochOf(kDdp1) - epochOf(kDdp0);
    for (size_t i : {size_t{0}, size_t{2}}) {
        const KernelId k = kernelStartingAt(*w->trace(), s0[i]);
        ASSERT_TRUE(k.valid());
        view->selectKernel(k, true);
        const ls::MatchedCollective* c = view->selectedCollective();
        ASSERT_NE(c, nullptr) << "all-reduce " << i;
        ASSERT_EQ(c->members.size(), 2u);
        EXPECT_EQ(c->skew(), std::abs(s1[i] + shift - s0[i])) << "all-reduce " << i;
        EXPECT_EQ(c->lastRank, s1[i] + shift > s0[i] ? 1 : 0);
        QImage image(view->viewport()->size(), QImage::Format_RGB32);
        view->viewport()->render(&image); // the link and its label paint
    }
    // A compute kernel is in no collective.
    view->selectKernel(KernelId(0), false);
    if (!w->trace()->str(w->trace()->kernels.name[0]).starts_with("nccl")) {
        EXPECT_EQ(view->selectedCollective(), nullptr);
    }

    // Clicking rank 1's all-reduce shows rank 1 in the table, keeps the moment on screen and
    // links back to rank 0's kernel.
    const auto* other = view->session()->traces[view->slotTrace(1)].get();
    const KernelId k1 = kernelStartingAt(*other->trace, s1[1]);
    ASSERT_TRUE(k1.valid());
    view->selectSlotKernel(1, k1, true);
    const double visibleAt = view->window().startNs;
    const auto point = view->kernelPoint(k1, 1);
    ASSERT_TRUE(point);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, point->toPoint());
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_EQ(QString::fromStdString(w->trace()->path), kDdp1);
    EXPECT_EQ(w->rankBox()->currentData().toInt(), 1);
    EXPECT_EQ(view->selectedKernel(), k1);
    EXPECT_NEAR(view->window().startNs, visibleAt - static_cast<double>(shift), 1.0)
        << "same moment, now on rank 1's clock";
    ASSERT_NE(view->selectedCollective(), nullptr);
    EXPECT_EQ(view->selectedCollective()->members.size(), 2u);
    EXPECT_EQ(w->kernelModel()->kernelAt(w->kernelView()->table()->currentIndex().row()), k1);
}

TEST(SessionTimeline, FsdpNsysRanksLinkAllGathersAndReduceScatters) {
    if (!QFileInfo::exists(kFsdp0) || !QFileInfo::exists(kFsdp1))
        GTEST_SKIP() << "FSDP traces absent";
    const auto w = openSessionInWindow({kFsdp0, kFsdp1});
    ASSERT_TRUE(w);
    auto* view = w->findChild<ls::gui::TimelineArea*>()->view();
    ASSERT_EQ(view->rankSections(), 2u);
    int linked = 0;
    const ls::Trace& t = *w->trace();
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const auto name = t.str(t.kernels.name[k]);
        if (!name.starts_with("ncclDevKernel_AllGather") &&
            !name.starts_with("ncclDevKernel_ReduceScatter"))
            continue;
        view->selectKernel(KernelId(k), false);
        const ls::MatchedCollective* c = view->selectedCollective();
        linked += c && c->members.size() == 2;
    }
    EXPECT_EQ(linked, 24 + 12);
}

} // namespace
