// The Findings tab offscreen: on a planted-defect trace it lists core's findings costliest first
// (the data loader's wait on top), is the tab shown first after a load while the setting says
// so, and a click on a finding puts its evidence kernels in the kernel table and lights them on
// the timeline.
#include "core/findings/findings.h"
#include "core/load/session_load.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/findings/findings_page.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeWidget>
#include <gtest/gtest.h>

namespace {

using ls::gui::FindingsPage;

QString defect(const char* name) {
    return QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/defects/") + QLatin1String(name);
}

// Waits for the page's list (computed off the GUI thread) to be on screen.
bool waitForFindings(FindingsPage& page) {
    if (page.tree()->topLevelItemCount() > 0) return true;
    QSignalSpy shown(&page, &FindingsPage::findingsShown);
    return shown.wait(60000);
}

TEST(FindingsPage, ListsCoreFindingsFirstAndSelectsTheirEvidence) {
    const QString file = defect("defect_loader.sqlite");
    if (!QFileInfo::exists(file)) GTEST_SKIP() << "defect_loader.sqlite absent";
    FindingsPage::setShowFirst(true);
    auto w = ls::gui::test::openInWindow(file);
    ASSERT_TRUE(w);
    FindingsPage& page = *w->findingsPage();
    ASSERT_TRUE(waitForFindings(page));
    EXPECT_EQ(w->findChild<QTabWidget*>()->currentWidget(), &page);

    const ls::FindingList core = ls::findings(ls::loadSession({file.toStdString()}));
    ASSERT_FALSE(core.findings.empty());
    ASSERT_EQ(page.tree()->topLevelItemCount(), static_cast<int>(core.findings.size()));
    for (size_t i = 0; i < core.findings.size(); ++i) {
        const QTreeWidgetItem* item = page.tree()->topLevelItem(static_cast<int>(i));
        EXPECT_EQ(item->text(3).toStdString(), core.findings[i].statement);
        EXPECT_EQ(item->childCount(), 4); // rule, bound, evidence, fix
    }
    EXPECT_EQ(core.findings.front().rule, "idle_host");

    page.pick(0);
    const auto& evidence = core.findings.front().evidence.kernels;
    ASSERT_FALSE(evidence.empty());
    EXPECT_EQ(w->kernelModel()->rows().size(), evidence.size());
    EXPECT_TRUE(w->kernelModel()->scopeLabel().contains(QStringLiteral("idle_host")));
    EXPECT_GT(w->findChild<ls::gui::TimelineView*>()->highlightedCount(), 0u);
    EXPECT_TRUE(page.tree()->topLevelItem(0)->isExpanded());
}

// The kernel rules show as the others do: on the clean baseline's profiler trace, the fusion
// candidates and the occupancy-limited softmax, each selecting its kernels.
TEST(FindingsPage, KernelRulesSelectTheirKernels) {
    const QString file = defect("defect_none.kineto.json.gz");
    if (!QFileInfo::exists(file)) GTEST_SKIP() << "defect_none.kineto.json.gz absent";
    FindingsPage::setShowFirst(true);
    auto w = ls::gui::test::openInWindow(file);
    ASSERT_TRUE(w);
    FindingsPage& page = *w->findingsPage();
    ASSERT_TRUE(waitForFindings(page));
    const ls::FindingList core = ls::findings(ls::loadSession({file.toStdString()}));
    int seen = 0;
    for (size_t i = 0; i < core.findings.size(); ++i) {
        const ls::Finding& f = core.findings[i];
        if (f.rule != "fusion_candidates" && f.rule != "occupancy_limited") continue;
        ++seen;
        EXPECT_EQ(page.tree()->topLevelItem(static_cast<int>(i))->text(3).toStdString(),
                  f.statement);
        page.pick(static_cast<int>(i));
        ASSERT_FALSE(f.evidence.kernels.empty());
        EXPECT_EQ(w->kernelModel()->rows().size(), f.evidence.kernels.size()) << f.rule;
        EXPECT_TRUE(w->kernelModel()->scopeLabel().contains(QString::fromStdString(f.rule)));
    }
    EXPECT_EQ(seen, 2);
}

TEST(FindingsPage, OtherTabStaysWhenTheSettingIsOff) {
    const QString file = defect("defect_none.sqlite");
    if (!QFileInfo::exists(file)) GTEST_SKIP() << "defect_none.sqlite absent";
    FindingsPage::setShowFirst(false);
    auto w = ls::gui::test::openInWindow(file);
    ASSERT_TRUE(w);
    EXPECT_NE(w->findChild<QTabWidget*>()->currentWidget(), w->findingsPage());
    EXPECT_FALSE(w->findingsPage()->showFirstBox()->isChecked());
    FindingsPage::setShowFirst(true);
}

} // namespace
