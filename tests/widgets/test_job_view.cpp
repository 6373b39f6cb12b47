// A job opened from its ranks' summaries, offscreen, as a person would: a .lsjob written by
// `layerscope-cli job` (a separate process) opens with every rank in the Ranks tab equal to the
// CLI's rank_sum over the traces themselves; a rank's detail loads when clicked; a rank whose
// trace is not on this machine says which file to copy; and a folder of traces over the memory
// budget opens from summaries with no more models held than the budget allows.
#include "core/load/model_pool.h"
#include "widget_test_support.h"
#include "widgets/panes/rank_timeline.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/session/load_settings.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/window/main_window.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>

namespace {

using namespace ls::gui::test;

const QString kRanks = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/ranks/");
const QString kFsdp0 = kRanks + QStringLiteral("fsdp_nsys_bf16_h100x2_rank0.sqlite");
const QString kFsdp1 = kRanks + QStringLiteral("fsdp_nsys_bf16_h100x2_rank1.sqlite");

int64_t kernelCount(const QString& path) {
    return sqlColumn(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").at(0);
}

class JobView : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!QFileInfo::exists(kFsdp0) || !QFileInfo::exists(kFsdp1))
            GTEST_SKIP() << "FSDP traces absent";
        ASSERT_TRUE(dir_.isValid());
        traces_ = dir_.filePath(QStringLiteral("traces"));
        ASSERT_TRUE(QDir().mkpath(traces_));
        rank0_ = traces_ + QStringLiteral("/rank0.sqlite");
        rank1_ = traces_ + QStringLiteral("/rank1.sqlite");
        ASSERT_TRUE(QFile::copy(kFsdp0, rank0_));
        ASSERT_TRUE(QFile::copy(kFsdp1, rank1_));
        job_ = dir_.filePath(QStringLiteral("fsdp.lsjob"));
        const CliRun run = runCli({QStringLiteral("job"), traces_, QStringLiteral("-o"), job_,
                                   QStringLiteral("--no-cache")});
        ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
    }
    void TearDown() override {
        ls::gui::setMemoryBudgetForThisRun(0);
        qputenv("LAYERSCOPE_NO_CACHE", "1"); // as the suite runs (test_main_window.cpp)
        qunsetenv("XDG_CACHE_HOME");
    }
    // The model and view caches on, in this test's folder.
    void useCaches() {
        qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("cache")).toUtf8());
        qunsetenv("LAYERSCOPE_NO_CACHE");
    }

    // The rank_sum of `inputs` (the traces, or the job file when one is gone: its report equals
    // theirs, tests/job).
    void expectRankSumOf(ls::gui::MainWindow& w, const QStringList& inputs) {
        const CliRun cli =
            runCli(QStringList{QStringLiteral("summary"), QStringLiteral("--report"),
                               QStringLiteral("rank_sum"), QStringLiteral("--no-cache")} +
                   inputs);
        ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString();
        const auto csv = parseCsv(cli.out);
        ASSERT_EQ(csv.size(), 3u);
        const auto* model = w.ranksPanel()->rankTable()->model();
        ASSERT_EQ(model->rowCount(), 2);
        for (int r = 0; r < 2; ++r)
            for (int c : {0, 4, 5, 6, 7, 8, 9, 10, 11}) // rank, kernels, every time (ns)
                EXPECT_EQ(model->index(r, c).data(Qt::UserRole + 1).toLongLong(),
                          csv[static_cast<size_t>(r + 1)][c].toLongLong())
                    << "row " << r << " column " << csv[0][c].toStdString();
        EXPECT_EQ(w.ranksPanel()->timeline()->shownRanks().size(), 2u);
    }

    QTemporaryDir dir_;
    QString traces_, rank0_, rank1_, job_;
};

TEST_F(JobView, AJobFileOpensEveryRankAndLoadsARanksDetailWhenClicked) {
    // Every rank on screen first (windowReady), with no model yet; rank 0's model follows as a
    // rank switch, and the load's end (traceLoaded) comes once it is shown.
    QStandardPaths::setTestModeEnabled(true);
    auto w = std::make_unique<ls::gui::MainWindow>();
    w->resize(1400, 900);
    w->show();
    QSignalSpy ready(w.get(), &ls::gui::MainWindow::windowReady);
    QSignalSpy loaded(w.get(), &ls::gui::MainWindow::traceLoaded);
    w->openFile(job_);
    ASSERT_TRUE(ready.wait(60000));
    ASSERT_TRUE(w->views()->ranks->fromSummaries());
    EXPECT_TRUE(w->views()->modelPending);
    EXPECT_EQ(w->views()->trace->kernels.size(), 0u);
    EXPECT_EQ(w->ranksPanel()->rankTable()->model()->rowCount(), 2);
    ASSERT_TRUE(loaded.count() > 0 || loaded.wait(60000));
    EXPECT_TRUE(w->windowTitle().contains(QStringLiteral("fsdp.lsjob")));
    expectRankSumOf(*w, {rank0_, rank1_});
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_TRUE(w->statusText().contains(QStringLiteral("2 ranks from their summaries")))
        << w->statusText().toStdString();
    // Rank 0's model is shown first; every rank at once in the table needs every model: not
    // offered.
    EXPECT_EQ(QFileInfo(QString::fromStdString(w->trace()->path)).fileName(),
              QStringLiteral("rank0.sqlite"));
    EXPECT_EQ(w->kernelModel()->rowCount(), kernelCount(rank0_));
    ASSERT_EQ(w->rankBox()->count(), 2);
    // Held here, so that a table built again could not take its address.
    const std::shared_ptr<const ls::KernelTable> rank0Table = w->views()->kernels;
    // Clicking rank 1 (as the Ranks tab's double click does) loads its model, off the GUI thread.
    emit w->ranksPanel()->rankRequested(1);
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_EQ(QFileInfo(QString::fromStdString(w->trace()->path)).fileName(),
              QStringLiteral("rank1.sqlite"));
    EXPECT_EQ(w->kernelModel()->rowCount(), kernelCount(rank1_));
    EXPECT_EQ(w->rankBox()->currentData().toInt(), 1);
    // Back to rank 0: its views were kept with its model (both within the budget), so the same
    // table comes back, not one built again; every tab follows.
    w->showRank(0);
    ASSERT_TRUE(waitForRank(*w));
    EXPECT_EQ(w->views()->kernels, rank0Table);
    EXPECT_EQ(w->kernelModel()->rowCount(), kernelCount(rank0_));
    EXPECT_EQ(QFileInfo(QString::fromStdString(w->trace()->path)).fileName(),
              QStringLiteral("rank0.sqlite"));
    EXPECT_EQ(w->rankBox()->currentData().toInt(), 0);
    EXPECT_EQ(w->views()->ranks->models->heldTraces(), (std::vector<uint32_t>{0, 1}));
    for (int i = 0; i < 200 && !w->views()->complete; ++i) QTest::qWait(10);
    EXPECT_TRUE(w->views()->complete);
}

TEST_F(JobView, ARankWhoseTraceIsNotHereSaysWhichFileToCopy) {
    ASSERT_TRUE(QFile::remove(rank1_));
    const auto w = openInWindow(job_);
    ASSERT_TRUE(w);
    expectRankSumOf(*w, {job_}); // the Ranks tab needs no trace
    ASSERT_TRUE(waitForRank(*w));
    QSignalSpy unavailable(w.get(), &ls::gui::MainWindow::rankUnavailable);
    w->showRank(1);
    ASSERT_TRUE(unavailable.wait(30000));
    const QString why = unavailable.front().front().toString();
    EXPECT_TRUE(why.contains(QStringLiteral("rank1.sqlite is not on this machine: copy it to ") +
                             QDir::cleanPath(rank1_)))
        << why.toStdString();
    EXPECT_EQ(w->statusText(), why);
    EXPECT_EQ(QFileInfo(QString::fromStdString(w->trace()->path)).fileName(),
              QStringLiteral("rank0.sqlite"));
    EXPECT_EQ(w->rankBox()->currentData().toInt(), 0);
}

TEST_F(JobView, NoTraceHereStillShowsEveryRankAndNamesTheFile) {
    ASSERT_TRUE(QFile::remove(rank0_));
    ASSERT_TRUE(QFile::remove(rank1_));
    const auto w = openInWindow(job_);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->ranksPanel()->rankTable()->model()->rowCount(), 2);
    EXPECT_EQ(w->kernelModel()->rowCount(), 0);
    EXPECT_TRUE(w->statusText().contains(QStringLiteral("rank0.sqlite is not on this machine")))
        << w->statusText().toStdString();
}

TEST_F(JobView, AFolderOverTheBudgetOpensFromSummariesWithinIt) {
    // A budget below one model: summaries, and only the shown rank's model held.
    useCaches();
    ls::gui::setMemoryBudgetForThisRun(1 << 17); // a rank's model is about 0.2 MB
    const auto w = openSessionInWindow({traces_});
    ASSERT_TRUE(w);
    const auto ranks = w->views()->ranks;
    ASSERT_TRUE(ranks->fromSummaries());
    expectRankSumOf(*w, {rank0_, rank1_});
    ASSERT_TRUE(waitForRank(*w));
    std::weak_ptr<const ls::Trace> rank1Model;
    for (int rank : {1, 0, 1}) {
        w->showRank(rank);
        ASSERT_TRUE(waitForRank(*w));
        EXPECT_EQ(w->kernelModel()->rowCount(), kernelCount(rank ? rank1_ : rank0_));
        EXPECT_EQ(ranks->models->heldTraces(), std::vector<uint32_t>{static_cast<uint32_t>(rank)});
        // A model that left the pool is freed: the views kept with it (which hold it) went too.
        if (rank == 0) { // once the pages show rank 0 too
            for (int i = 0; i < 300 && !rank1Model.expired(); ++i) QTest::qWait(10);
            EXPECT_TRUE(rank1Model.expired());
        }
        if (rank == 1 && rank1Model.expired()) rank1Model = w->views()->trace;
    }
    // Rank 1's second visit: its model came back from the model cache and its table, tree and
    // timeline from the view cache its first visit wrote, not built again.
    EXPECT_TRUE(w->views()->viewsFromCache);
    EXPECT_EQ(w->kernelModel()->rowCount(), kernelCount(rank1_));
    // Under the budget the same folder opens whole, every rank's model in the session.
    ls::gui::setMemoryBudgetForThisRun(uint64_t(1) << 34);
    const auto whole = openSessionInWindow({traces_});
    ASSERT_TRUE(whole);
    EXPECT_FALSE(whole->views()->ranks->fromSummaries());
    EXPECT_EQ(whole->rankBox()->count(), 3); // and all ranks at once
}

} // namespace
