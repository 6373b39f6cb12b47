// The Ranks tab and the rank selector, offscreen: several files open as one session, the tab
// shows what `layerscope-cli summary --report rank_sum` prints for the same files (a separate
// process), the heat map holds each rank's iterations, and choosing a rank shows its kernels.
#include "core/load/session_load.h"
#include "core/reports/rank_summary.h"
#include "widget_test_support.h"
#include "widgets/panes/rank_heat_map.h"
#include "widgets/panes/rank_timeline.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/window/main_window.h"

#include <QBarSet>
#include <QChartView>
#include <QComboBox>
#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
#include <QStackedBarSeries>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <gtest/gtest.h>
#include <sqlite3.h>

namespace {

using namespace ls::gui::test;

const QString kShared = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/../shared/traces/");
const QString kRank0 = kShared + QStringLiteral("ddp_bf16_h200x2_rank0.sqlite");
const QString kRank1 = kShared + QStringLiteral("ddp_bf16_h200x2_rank1.sqlite");
const QString kEightGpus = kShared + QStringLiteral("third-party/nccl_8xv100.nvprof.nvvp");

int64_t sqlScalar(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    int64_t v = -1;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

// The per-rank bar chart costs the GUI thread a scene layout: it is not built while the tab is
// hidden (an open would stall on it) and is built, with a bar per rank, when the tab is shown.
TEST(RanksTab, TheChartIsBuiltWhenTheTabIsShown) {
    if (!QFileInfo::exists(kRank0) || !QFileInfo::exists(kRank1))
        GTEST_SKIP() << "DDP traces absent";
    const auto w = openSessionInWindow({kRank0, kRank1});
    ASSERT_TRUE(w);
    ls::gui::RanksPanel* panel = w->ranksPanel();
    ASSERT_FALSE(panel->isVisible());
    EXPECT_TRUE(panel->findChildren<QChartView*>().isEmpty()) << "built while hidden";
    QTabWidget* tabs = nullptr;
    for (QWidget* p = panel->parentWidget(); p && !tabs; p = p->parentWidget())
        tabs = qobject_cast<QTabWidget*>(p);
    ASSERT_TRUE(tabs);
    tabs->setCurrentWidget(panel);
    ASSERT_TRUE(panel->isVisible());
    const auto views = panel->findChildren<QChartView*>();
    ASSERT_EQ(views.size(), 1);
    const auto series = views.front()->chart()->series();
    ASSERT_EQ(series.size(), 1);
    const auto* bars = qobject_cast<QStackedBarSeries*>(series.front());
    ASSERT_TRUE(bars);
    ASSERT_EQ(bars->count(),
              5); // compute only, comm under compute, exposed comm, copies and sets only, idle
    for (const QBarSet* set : bars->barSets())
        EXPECT_EQ(set->count(), 2) << set->label().toStdString();
    // Each bar adds up to the rank's span (rank_sum's span_ns, in ms), copies and sets included.
    const ls::Session session = ls::loadSession({kRank0.toStdString(), kRank1.toStdString()});
    const auto rows = ls::rankTimeSummary(session);
    ASSERT_EQ(rows.size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
        double total = 0;
        for (const QBarSet* set : bars->barSets()) total += set->at(rank);
        EXPECT_NEAR(total, static_cast<double>(rows[static_cast<size_t>(rank)].span) / 1e6, 1e-6)
            << "rank " << rank;
        EXPECT_GT(bars->barSets()[3]->at(rank), 0.0) << "the DDP ranks copy while no kernel runs";
    }
}

TEST(RanksTab, TwoRankFilesShowTheCliRankSummaryAndSwitchRanks) {
    if (!QFileInfo::exists(kRank0) || !QFileInfo::exists(kRank1))
        GTEST_SKIP() << "DDP traces absent";
    const auto w = openSessionInWindow({kRank1, kRank0});
    ASSERT_TRUE(w);
    const CliRun cli = runCli({QStringLiteral("summary"), QStringLiteral("--report"),
                               QStringLiteral("rank_sum"), kRank0, kRank1});
    ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString();
    const auto csv = parseCsv(cli.out);
    ASSERT_EQ(csv.size(), 3u);
    const auto* model = w->ranksPanel()->rankTable()->model();
    ASSERT_EQ(model->rowCount(), 2);
    for (int r = 0; r < 2; ++r)
        for (int c : {0, 4, 5, 6, 7, 8, 9, 10,
                      11}) // rank, kernels and every time column, in ns behind the ms shown
            EXPECT_EQ(model->index(r, c).data(Qt::UserRole + 1).toLongLong(),
                      csv[static_cast<size_t>(r + 1)][c].toLongLong())
                << "row " << r << " column " << csv[0][c].toStdString();
    EXPECT_TRUE(w->ranksPanel()->verdict().contains(QStringLiteral("Rank 1 arrived last")))
        << w->ranksPanel()->verdict().toStdString();
    EXPECT_GT(w->ranksPanel()->collectiveTable()->model()->rowCount(), 10);

    // Rank 0 is shown first whatever order the files came in; the selector switches to rank 1
    // and offers both ranks at once in the table and tree.
    ASSERT_EQ(w->rankBox()->count(), 3);
    EXPECT_EQ(w->rankBox()->itemData(2).toInt(), ls::gui::MainWindow::kAllRanks);
    EXPECT_EQ(QString::fromStdString(w->trace()->path), kRank0);
    // Prepared off the GUI thread: the window shows rank 0 until rank 1 is ready.
    w->showRank(1);
    EXPECT_TRUE(w->rankPending());
    EXPECT_EQ(QString::fromStdString(w->trace()->path), kRank0);
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_EQ(QString::fromStdString(w->trace()->path), kRank1);
    EXPECT_EQ(w->rankBox()->currentIndex(), 1);
    EXPECT_EQ(w->kernelModel()->rowCount(),
              sqlScalar(kRank1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));

    // The heat map: two ranks by two iterations (step 3 and step 4); its top-left cell is rank 0.
    auto* map = w->ranksPanel()->heatMap();
    map->resize(400, 200);
    const auto cell = map->cellAt(QPoint(70, 30));
    EXPECT_EQ(cell.row, 0);
    EXPECT_EQ(cell.column, 0);
    EXPECT_EQ(map->rankOfRow(1), 1);
}

TEST(RanksTab, OneFileOfFourGpusFiltersTheTableToTheRanksDevice) {
    if (!QFileInfo::exists(kEightGpus)) GTEST_SKIP() << "nccl_8xv100 trace absent";
    const auto w = openSessionInWindow({kEightGpus});
    ASSERT_TRUE(w);
    EXPECT_EQ(w->ranksPanel()->rankTable()->model()->rowCount(), 4);
    ASSERT_EQ(w->rankBox()->count(), 5) << "four ranks and 'all ranks of' the file";
    w->showRank(2);
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_EQ(
        w->kernelModel()->rowCount(),
        sqlScalar(kEightGpus,
                  "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL WHERE deviceId = 2"));
    w->showRank(-1);
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_EQ(w->kernelModel()->rowCount(),
              sqlScalar(kEightGpus, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"));
}

} // namespace

namespace {

TEST(RanksTab, TimelineFiltersOrdersAndMarksACollective) {
    if (!QFileInfo::exists(kRank0) || !QFileInfo::exists(kRank1))
        GTEST_SKIP() << "DDP traces absent";
    const auto w = openSessionInWindow({kRank0, kRank1});
    ASSERT_TRUE(w);
    auto* timeline = w->ranksPanel()->timeline();
    ASSERT_EQ(timeline->shownRanks().size(), 2u);
    EXPECT_TRUE(timeline->setRankFilter(QStringLiteral("1")));
    ASSERT_EQ(timeline->shownRanks().size(), 1u);
    EXPECT_EQ(timeline->shownRanks()[0], 1);
    EXPECT_FALSE(timeline->setRankFilter(QStringLiteral("one")));
    EXPECT_EQ(timeline->shownRanks().size(), 2u) << "an unreadable filter shows every rank";
    EXPECT_TRUE(timeline->setRankFilter(QString()));
    // Rank 0 waits at the first all-reduce for rank 1: it has the most exposed communication.
    timeline->setOrder(ls::gui::RankTimeline::Order::ExposedComm);
    EXPECT_EQ(timeline->shownRanks()[0], 0);
    timeline->setOrder(ls::gui::RankTimeline::Order::Idle);
    timeline->setOrder(ls::gui::RankTimeline::Order::Rank);
    EXPECT_EQ(timeline->shownRanks()[0], 0);
    // Choosing a collective in the table brings it into view on the timeline.
    timeline->resize(1200, 300);
    timeline->zoomTo(0, 1000);
    auto* table = w->ranksPanel()->collectiveTable();
    table->setCurrentIndex(table->model()->index(3, 0));
    const auto& c = w->views()->ranks->collectives.collectives[3];
    EXPECT_LE(timeline->startNs(), static_cast<double>(c.firstStart));
    EXPECT_GE(timeline->startNs() + timeline->nsPerPixel() * (1200 - 70),
              static_cast<double>(c.end));
    QImage image(timeline->size(), QImage::Format_RGB32);
    timeline->render(&image); // paints with a collective marked, both lanes, without a crash
}

} // namespace
