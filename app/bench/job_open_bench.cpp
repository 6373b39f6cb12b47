#include "app/bench/job_open_bench.h"

#include "app/bench/rank_timeline_bench.h"
#include "core/cache/trace_cache.h"
#include "core/model/platform.h"
#include "widgets/panes/rank_timeline.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/session/load_settings.h"
#include "widgets/window/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdlib>

namespace {

double mb(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// Runs the event loop until `signal` of the window comes (or a minute passes); seconds taken, or
// -1. The longest stall of the GUI thread meanwhile (a 1 ms timer) goes to `stallMs`.
template <typename Signal>
double waitFor(ls::gui::MainWindow& w, Signal signal, const std::function<void()>& start,
               double* stallMs = nullptr) {
    QEventLoop loop;
    QElapsedTimer clock, sinceTick;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        if (stallMs)
            *stallMs =
                std::max(*stallMs, static_cast<double>(sinceTick.nsecsElapsed()) / 1e6 - 1.0);
        sinceTick.restart();
    });
    bool came = false;
    const auto c = QObject::connect(&w, signal, &loop, [&] {
        came = true;
        loop.quit();
    });
    QTimer::singleShot(600000, &loop, &QEventLoop::quit);
    clock.start();
    sinceTick.start();
    tick.start();
    start();
    if (!came) loop.exec();
    QObject::disconnect(c);
    w.repaint(); // what the user waits for is drawn
    return came ? static_cast<double>(clock.nsecsElapsed()) / 1e9 : -1;
}

} // namespace

JobOpenFigures measureJobOpen(const std::string& jobPath, int clicks, uint64_t budgetBytes,
                              int argc, char** argv) {
    JobOpenFigures f;
    QTemporaryDir home;
    if (!home.isValid()) return f;
    const std::string root = home.path().toStdString();
    setenv("XDG_CONFIG_HOME", (root + "/config").c_str(), 1);
    setenv("XDG_CACHE_HOME", (root + "/cache").c_str(), 1); // the model cache on, ours
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (budgetBytes) ls::gui::setMemoryBudgetForThisRun(budgetBytes);
    f.budgetBytes = ls::gui::memoryBudget();

    ls::gui::MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QApplication::processEvents();
    const QString path = QString::fromStdString(jobPath);
    f.readyS = waitFor(
        window, &ls::gui::MainWindow::windowReady, [&] { window.openFile(path); }, &f.stallMsMax);
    if (f.readyS < 0 || !window.views() || !window.views()->ranks) return f;
    waitFor(window, &ls::gui::MainWindow::traceLoaded, [] {}); // the other tabs, if still due
    f.openPeakRssMb = mb(ls::platform::peakRssBytes());
    const auto& ranks = window.views()->ranks->session->ranks;
    f.ranks = static_cast<int>(ranks.size());

    ls::gui::RankTimeline* timeline = window.ranksPanel()->timeline();
    timeline->resize(1920, 1080);
    const RankTimelineFigures frames = measureRankTimelineFrames(*timeline);
    f.frameP95Ms = frames.frameP95Ms;
    f.frameMaxMs = frames.frameMaxMs;
    f.frames = frames.frames;

    // Ranks spread over the job, each clicked once, then each again in the same order.
    std::vector<int> chosen;
    for (int i = 1; i <= clicks && f.ranks > 1; ++i)
        chosen.push_back(
            ranks[static_cast<size_t>(i) * (ranks.size() - 1) / static_cast<size_t>(clicks)].rank);
    for (int pass = 0; pass < 2; ++pass)
        for (int rank : chosen) {
            const double s =
                waitFor(window, &ls::gui::MainWindow::rankShown, [&] { window.showRank(rank); });
            (pass ? f.againClickS : f.firstClickS).push_back(s);
            f.clickRssMaxMb = std::max(f.clickRssMaxMb, mb(ls::platform::currentRssBytes()));
        }
    f.peakRssMb = mb(ls::platform::peakRssBytes());
    ls::waitForCacheWrites(); // the models loaded by the clicks are being cached
    f.measured = true;
    return f;
}
