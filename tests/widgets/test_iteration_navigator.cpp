// The iteration navigator above the timeline, offscreen: on a five-iteration trace its bars are the
// durations `layerscope-cli summary --report iter_sum` prints (a separate process), with the same
// outliers and median; Next, Previous, Slowest, a click on a bar and the shortcuts (from another
// tab) zoom the timeline to the iteration's span; the bundled sample shows its one iteration;
// a trace without iterations gets one line and nothing to click.
#include "core/reports/iteration_summary.h"
#include "widget_test_support.h"
#include "widgets/iterations/iteration_chart.h"
#include "widgets/iterations/iteration_navigator.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/window/main_window.h"

#include <QAction>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLabel>
#include <QTabWidget>
#include <QTest>
#include <algorithm>
#include <gtest/gtest.h>

namespace {

using namespace ls::gui::test;
using ls::gui::IterationNavigator;

const QString kFiveIterations =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/iterations/gpt2_fp16_5it_h100.sqlite");
const QString kNoIterations = QStringLiteral(
    LAYERSCOPE_SOURCE_DIR "/../shared/traces/third-party/cloverleaf_perlmutter.nsys.sqlite");

struct CliIteration {
    QString name;
    double start, end,
        duration; // what the navigator shows: the range and its GPU work; the GPU duration
    bool outlier;
};

// iter_sum's rows, and its median GPU duration in `median`.
std::vector<CliIteration> cliIterations(const QString& path, double& median) {
    const CliRun cli = runCli(
        {QStringLiteral("summary"), QStringLiteral("--report"), QStringLiteral("iter_sum"), path});
    EXPECT_EQ(cli.exitCode, 0) << cli.err.toStdString();
    std::vector<CliIteration> out;
    const auto csv = parseCsv(cli.out);
    if (csv.empty()) return out;
    EXPECT_EQ(csv[0].value(3), QStringLiteral("gpu_start_ns"));
    EXPECT_EQ(csv[0].value(5), QStringLiteral("gpu_duration_ns"));
    EXPECT_EQ(csv[0].value(14), QStringLiteral("outlier"));
    for (size_t i = 1; i < csv.size(); ++i) {
        if (csv[i].value(0) == QStringLiteral("median")) {
            median = csv[i].value(5).toDouble();
            continue;
        }
        const double start = std::min(csv[i][1].toDouble(), csv[i][3].toDouble()),
                     end = std::max(csv[i][2].toDouble(), csv[i][4].toDouble());
        out.push_back({csv[i][0], start, end, csv[i][5].toDouble(),
                       csv[i].value(14) == QStringLiteral("yes")});
    }
    return out;
}

// The timeline shows exactly the iteration's range and the GPU work it launched (to a nanosecond of
// rounding).
void expectWindow(const ls::gui::MainWindow& w, const CliIteration& it) {
    const ls::TimeWindow win = w.findChild<ls::gui::TimelineView*>()->window();
    EXPECT_NEAR(win.startNs, it.start, 1.0) << it.name.toStdString();
    EXPECT_NEAR(win.endNs(), it.end, 1.0) << it.name.toStdString();
}

void settle() {
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
}

TEST(IterationNavigator, FiveIterationsBarsNavigationAndClicks) {
    const auto w = openInWindow(kFiveIterations);
    ASSERT_TRUE(w);
    IterationNavigator* nav = w->iterationNavigator();
    ASSERT_NE(nav, nullptr);
    EXPECT_FALSE(nav->isHidden());
    double median = -1;
    const auto cli = cliIterations(kFiveIterations, median);
    ASSERT_EQ(cli.size(), 5u);

    // The bars: one per iteration, its duration, its outlier flag; the median line.
    auto* chart = nav->chart();
    ASSERT_EQ(chart->barCount(), 5);
    const ls::IterationSummary core = ls::iterationSummary(*w->trace());
    ASSERT_EQ(core.rows.size(), 5u);
    size_t slowest = 0;
    for (size_t i = 0; i < cli.size(); ++i) {
        EXPECT_NEAR(chart->barValueNs(static_cast<int>(i)), cli[i].duration, 0.5) << "bar " << i;
        EXPECT_NEAR(chart->barValueNs(static_cast<int>(i)),
                    static_cast<double>(core.rows[i].duration()), 0.5)
            << "bar " << i;
        EXPECT_EQ(chart->barIsOutlier(static_cast<int>(i)), cli[i].outlier) << "bar " << i;
        if (cli[i].duration > cli[slowest].duration) slowest = i;
    }
    EXPECT_NEAR(chart->medianLineNs(), median, 0.5);
    EXPECT_EQ(nav->ruleText().left(18), QStringLiteral("5 iteration ranges"));
    EXPECT_EQ(nav->current(), -1);

    // Next from none goes to the first, then through every iteration; it stops at the last.
    for (int i = 0; i < 5; ++i) {
        nav->next();
        ASSERT_EQ(nav->current(), i);
        expectWindow(*w, cli[static_cast<size_t>(i)]);
        EXPECT_TRUE(nav->positionText().startsWith(
            QStringLiteral("%1 · %2 of 5 · ").arg(cli[static_cast<size_t>(i)].name).arg(i + 1)))
            << nav->positionText().toStdString();
    }
    EXPECT_FALSE(nav->navigationActions()[1]->isEnabled())
        << "Next is disabled at the last iteration";
    nav->next();
    EXPECT_EQ(nav->current(), 4);
    for (int i = 3; i >= 0; --i) {
        nav->previous();
        ASSERT_EQ(nav->current(), i);
        expectWindow(*w, cli[static_cast<size_t>(i)]);
    }
    EXPECT_FALSE(nav->navigationActions()[0]->isEnabled())
        << "Previous is disabled at the first iteration";

    // Slowest: the longest of iter_sum's durations.
    nav->goTo(3);
    nav->slowest();
    EXPECT_EQ(nav->current(), static_cast<int>(slowest));
    expectWindow(*w, cli[slowest]);
    EXPECT_TRUE(nav->positionText().contains(QStringLiteral("slowest")))
        << nav->positionText().toStdString();

    // A click on a bar, where a person clicks, zooms the timeline to its iteration.
    settle();
    for (int bar : {3, 1}) {
        const QPoint p = chart->barCenter(bar);
        ASSERT_TRUE(chart->viewport()->rect().contains(p))
            << "bar " << bar << " at " << p.x() << "," << p.y();
        QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, p);
        EXPECT_EQ(nav->current(), bar);
        expectWindow(*w, cli[static_cast<size_t>(bar)]);
    }

    // Zoomed by hand onto iteration 5 (index 3): Next goes on from there.
    auto* view = w->findChild<ls::gui::TimelineView*>();
    view->setWindow(cli[3].start + 1e6, cli[3].end - 1e6);
    EXPECT_EQ(nav->current(), 3);
    nav->next();
    EXPECT_EQ(nav->current(), 4);

    // The shortcuts work from another tab and bring the timeline back.
    auto* tabs = qobject_cast<QTabWidget*>(w->centralWidget());
    ASSERT_NE(tabs, nullptr);
    tabs->setCurrentIndex(1);
    w->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(w.get()));
    QTest::keyClick(w.get(), Qt::Key_PageUp, Qt::AltModifier);
    EXPECT_EQ(nav->current(), 3);
    EXPECT_EQ(tabs->currentWidget(), w->findChild<ls::gui::TimelineArea*>());
    expectWindow(*w, cli[3]);
    QTest::keyClick(w.get(), Qt::Key_BracketLeft);
    EXPECT_EQ(nav->current(), 2);
    QTest::keyClick(w.get(), Qt::Key_BracketRight);
    EXPECT_EQ(nav->current(), 3);
}

TEST(IterationNavigator, SampleShowsItsOneIteration) {
    const auto w = openInWindow(samplePath());
    ASSERT_TRUE(w);
    IterationNavigator* nav = w->iterationNavigator();
    EXPECT_FALSE(nav->isHidden());
    double median = -1;
    const auto cli = cliIterations(samplePath(), median);
    ASSERT_EQ(cli.size(), 1u);
    ASSERT_EQ(nav->chart()->barCount(), 1);
    EXPECT_NEAR(nav->chart()->barValueNs(0), cli[0].duration, 0.5);
    EXPECT_FALSE(nav->navigationActions()[2]->isEnabled())
        << "Slowest means nothing with one iteration";
    nav->next();
    EXPECT_EQ(nav->current(), 0);
    expectWindow(*w, cli[0]);
    EXPECT_TRUE(nav->positionText().contains(QStringLiteral("1 of 1")))
        << nav->positionText().toStdString();
    EXPECT_FALSE(nav->navigationActions()[0]->isEnabled());
    EXPECT_FALSE(nav->navigationActions()[1]->isEnabled());
}

TEST(IterationNavigator, NoIterationsIsOneLineAndNothingToClick) {
    ls::gui::TimelineView view;
    IterationNavigator nav(&view);
    EXPECT_TRUE(nav.isHidden()) << "no trace: no strip";
    nav.setSummary(std::make_shared<const ls::IterationSummary>());
    nav.show();
    EXPECT_FALSE(nav.isHidden());
    EXPECT_TRUE(nav.chart()->isHidden());
    EXPECT_EQ(nav.chart()->barCount(), 0);
    for (QAction* a : nav.navigationActions())
        EXPECT_FALSE(a->isEnabled()) << a->text().toStdString();
    nav.next();
    nav.slowest();
    EXPECT_EQ(nav.current(), -1);
    bool saysSo = false;
    for (QLabel* l : nav.findChildren<QLabel*>())
        if (!l->isHidden() && l->text().startsWith(QStringLiteral("No iterations"))) saysSo = true;
    EXPECT_TRUE(saysSo);

    if (!QFileInfo::exists(kNoIterations)) GTEST_SKIP() << "cloverleaf trace absent";
    const auto w = openInWindow(kNoIterations);
    ASSERT_TRUE(w);
    EXPECT_TRUE(w->trace()->iterations.empty());
    EXPECT_EQ(w->iterationNavigator()->chart()->barCount(), 0);
    EXPECT_TRUE(w->iterationNavigator()->chart()->isHidden());
}

TEST(IterationNavigator, RuleSentences) {
    ls::IterationSummary s;
    s.rows.resize(5);
    s.rule = ls::IterationRule::OptimizerSteps;
    s.confidence = 0.96;
    EXPECT_EQ(IterationNavigator::ruleSentence(s),
              QStringLiteral(
                  "5 training steps detected from optimizer runs (op counts agree within 4 %)"));
    s.rule = ls::IterationRule::RepeatingOps;
    s.confidence = 1;
    EXPECT_EQ(IterationNavigator::ruleSentence(s),
              QStringLiteral(
                  "5 passes detected from a repeating op sequence (100 % of positions repeat)"));
    s.rule = ls::IterationRule::Ranges;
    EXPECT_EQ(IterationNavigator::ruleSentence(s), QStringLiteral("5 iteration ranges"));
    s.rows.resize(1);
    EXPECT_EQ(IterationNavigator::ruleSentence(s), QStringLiteral("1 iteration range"));
}

} // namespace
