#include "app/bench/gui_open_bench.h"

#include "app/bench/bench_median.h"
#include "core/cache/trace_cache.h"
#include "core/load/load.h"
#include "core/model/platform.h"
#include "core/present/step_timing.h"
#include "widgets/timeline/load_overview_view.h"
#include "widgets/util/revealed_table_model.h"
#include "widgets/window/loading_page.h"
#include "widgets/window/main_window.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <vector>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace {

// In the timing mode (LAYERSCOPE_GUI_TIMING=1), every event the event loop hands out that takes
// 3 ms or more is named with its receiver: what fills a stall that no step accounts for.
class TimedApplication : public QApplication {
  public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override {
        static const bool report = std::getenv("LAYERSCOPE_GUI_TIMING") != nullptr;
        if (!report) return QApplication::notify(receiver, event);
        // Within an event, only the widgets' paints are named: which one makes a repaint long.
        if (depth_ > 0 && event->type() != QEvent::Paint)
            return QApplication::notify(receiver, event);
        ++depth_;
        QElapsedTimer clock;
        clock.start();
        const double cpuBefore = ls::platform::threadCpuMs();
        const int type = event->type();
        const char* name = receiver->metaObject()->className(); // the receiver may be gone after
        const QObject* owner = receiver->parent() && receiver->parent()->parent()
                                   ? receiver->parent()->parent()
                                   : receiver->parent();
        const char* ownerName = owner ? owner->metaObject()->className() : "";
        const bool handled = QApplication::notify(receiver, event);
        --depth_;
        if (depth_ == 0) { // the events' total between two ticks of the stall clock
            eventsMs += static_cast<double>(clock.nsecsElapsed()) / 1e6;
            eventsCpuMs += ls::platform::threadCpuMs() - cpuBefore;
            ++events;
        }
        // The thread's CPU beside the wall time: a stall that is mostly waiting (for a core, a
        // lock, a page) shows a small CPU time.
        if (const double ms = static_cast<double>(clock.nsecsElapsed()) / 1e6; ms >= 3)
            std::fprintf(stderr,
                         "%sgui event %-24s in %-24s %5d %6.1f ms, CPU %.1f ms (ends at %.3f s)\n",
                         depth_ > 0 ? "  " : "", name, ownerName, type, ms,
                         ls::platform::threadCpuMs() - cpuBefore, ls::StepTiming::sinceStart());
        return handled;
    }

    // What the events handed out since the last reset took: a stall made of many short events
    // names none of them.
    double eventsMs = 0, eventsCpuMs = 0;
    int events = 0;
    void resetEventTotals() { eventsMs = eventsCpuMs = 0, events = 0; }

  private:
    int depth_ = 0;
};

// The CPU time the host took from this machine's virtual CPUs, all of them together, in ms (-1
// where the system does not say): a stall that the host made shows it grow by about its length.
double hostStolenMs() {
#if defined(__linux__)
    std::FILE* stat = std::fopen("/proc/stat", "r");
    if (!stat) return -1;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
    const int fields = std::fscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
                                   &nice, &system, &idle, &iowait, &irq, &softirq, &steal);
    std::fclose(stat);
    return fields == 8
               ? static_cast<double>(steal) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK))
               : -1;
#else
    return -1;
#endif
}

struct OpenFigures {
    double firstFrameS = 0, readyS = 0, stallMsMax = 0;
    uint64_t firstFrameKernels = 0;
    bool ok = false;
};

// Opens `path` in the window and runs the event loop until the table, tree and timeline are shown
// and painted (ready) and the other tabs filled (the stalls count until then).
OpenFigures openOnce(ls::gui::MainWindow& window, const QString& path) {
    OpenFigures f;
    QEventLoop loop;
    QElapsedTimer clock, sinceTick;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    static const bool report = std::getenv("LAYERSCOPE_GUI_TIMING") != nullptr;
    // The host's stolen time, read every 10 ms or so (the system counts it in ticks of 10 ms).
    QElapsedTimer sinceSteal;
    sinceSteal.start();
    double stolenBefore = report ? hostStolenMs() : -1;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const double stall = static_cast<double>(sinceTick.nsecsElapsed()) / 1e6 - 1.0;
        auto* app = static_cast<TimedApplication*>(QCoreApplication::instance());
        const bool readSteal = report && (stall > 5 || sinceSteal.elapsed() >= 10);
        const double stolen = readSteal ? hostStolenMs() : stolenBefore;
        if (report && stall > 5)
            std::fprintf(stderr,
                         "stall %.1f ms ending at %.3f s: %d events, %.1f ms, CPU %.1f ms; the "
                         "host took %.0f ms of the virtual CPUs\n",
                         stall, ls::StepTiming::sinceStart(), app->events, app->eventsMs,
                         app->eventsCpuMs, stolen - stolenBefore);
        if (readSteal) {
            stolenBefore = stolen;
            sinceSteal.restart();
        }
        app->resetEventTotals();
        f.stallMsMax = std::max(f.stallMsMax, stall);
        sinceTick.restart();
    });
    QObject scope; // calls still pending when this open ends die with it
    const auto paintReady = [&] {
        if (f.readyS > 0) return;
        {
            const ls::StepTiming paint("window painted");
            window.repaint(); // the table, tree and timeline drawn: what the user waits for
        }
        f.readyS = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    };
    // Painted in an event of its own, as the window's paint events come after the show.
    const auto ready = QObject::connect(&window, &ls::gui::MainWindow::windowReady, &scope,
                                        [&] { QTimer::singleShot(1, &scope, paintReady); });
    // The first frame: the loading page drew the kernels read so far (painted, as the page's
    // overview paints itself when its snapshot changes).
    const auto framed =
        QObject::connect(&window, &ls::gui::MainWindow::loadingFirstFrame, &scope, [&] {
            if (f.firstFrameS > 0) return;
            f.firstFrameS = static_cast<double>(clock.nsecsElapsed()) / 1e9;
            f.firstFrameKernels = window.loadingPage()->overview()->snapshot().kernels;
            if (report)
                std::fprintf(stderr, "first frame at %.3f s: %llu kernels\n",
                             ls::StepTiming::sinceStart(),
                             static_cast<unsigned long long>(f.firstFrameKernels));
        });
    // The stalls count until the other tabs are filled too (a small trace's may come first).
    // And until the big tables have revealed all their rows (widgets/util/revealed_table_model.h):
    // those steps run on the GUI thread as well.
    bool filled = false;
    const auto allRevealed = [&] {
        for (const auto* m : window.findChildren<ls::gui::RevealedTableModel*>())
            if (!m->allRevealed()) return false;
        return true;
    };
    QObject::connect(&tick, &QTimer::timeout, [&] {
        if (filled && allRevealed()) loop.quit();
    });
    const auto loaded = QObject::connect(&window, &ls::gui::MainWindow::traceLoaded, &scope, [&] {
        paintReady();
        f.ok = true;
        filled = true;
    });
    QTimer::singleShot(600000, &loop, &QEventLoop::quit); // a load that never ends is not measured
    clock.start();
    sinceTick.start();
    tick.start();
    if (report) {
        // The system's monotonic clock too: the open found in a `perf record -k mono` trace.
        timespec mono{};
        clock_gettime(CLOCK_MONOTONIC, &mono);
        std::fprintf(stderr, "open at %.3f s (monotonic %lld.%06ld s)\n",
                     ls::StepTiming::sinceStart(), static_cast<long long>(mono.tv_sec),
                     mono.tv_nsec / 1000);
    }
    window.openFile(path);
    loop.exec();
    tick.stop();
    QObject::disconnect(ready);
    QObject::disconnect(framed);
    QObject::disconnect(loaded);
    return f;
}

} // namespace

GuiOpenFigures measureGuiOpen(const std::string& path, int runs, bool reopen, int argc,
                              char** argv) {
    GuiOpenFigures figures;
    QTemporaryDir home;
    if (!home.isValid()) return figures;
    // Settings and the model cache in a folder of our own; the cache off for the cold open.
    const std::string root = home.path().toStdString();
    setenv("XDG_CONFIG_HOME", (root + "/config").c_str(), 1);
    setenv("XDG_CACHE_HOME", (root + "/cache").c_str(), 1);
    setenv("LAYERSCOPE_NO_CACHE", "1", 1);
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    const QString file = QString::fromStdString(path);
    std::vector<double> ready, loads, ratios, firstFrames;
    for (int r = 0; r < std::max(1, runs); ++r) {
        {
            QElapsedTimer clock;
            clock.start();
            const ls::LoadResult cli = ls::loadTrace(path);
            loads.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e9);
            if (!cli.ok()) {
                std::fprintf(stderr, "%s\n", ls::formatLoadError(path, *cli.error).c_str());
                return figures;
            }
            if (std::getenv("LAYERSCOPE_GUI_TIMING")) {
                std::fprintf(stderr, "cli load: %.3f s:", loads.back());
                for (const auto& [phase, s] : cli.trace->loadPhases)
                    std::fprintf(stderr, " %s %.3f;", phase.c_str(), s);
                std::fprintf(stderr, "\n");
            }
        } // released before the open: one trace in memory at a time, as in the app
        ls::gui::MainWindow window;
        window.resize(1920, 1080);
        window.show();
        QApplication::processEvents();
        const OpenFigures cold = openOnce(window, file);
        if (!cold.ok) return figures;
        ready.push_back(cold.readyS);
        // No frame of a partial load (a load done before its first batch): the window's first
        // frame is the ready one.
        firstFrames.push_back(cold.firstFrameS > 0 ? cold.firstFrameS : cold.readyS);
        figures.firstFrameKernels = cold.firstFrameKernels;
        ratios.push_back(cold.readyS / loads.back());
        if (std::getenv("LAYERSCOPE_GUI_TIMING") && window.trace()) {
            std::fprintf(stderr,
                         "gui open: ready %.3f s, of which the window's load %.3f s:", cold.readyS,
                         window.trace()->loadSeconds);
            for (const auto& [phase, s] : window.trace()->loadPhases)
                std::fprintf(stderr, " %s %.3f;", phase.c_str(), s);
            std::fprintf(stderr, "\n");
        }
        figures.stallMsMax = std::max(figures.stallMsMax, cold.stallMsMax);
    }
    figures.readyS = benchMedian(std::move(ready));
    figures.firstFrameS = benchMedian(std::move(firstFrames));
    figures.loadS = benchMedian(std::move(loads));
    figures.readyRatio = benchMedian(std::move(ratios));
    if (!reopen) {
        figures.measured = true;
        return figures;
    }
    // A window with the cache on opens the file once (writing the cache in the background), then
    // a fresh window reopens it.
    unsetenv("LAYERSCOPE_NO_CACHE");
    {
        ls::gui::MainWindow window;
        window.resize(1920, 1080);
        window.show();
        QApplication::processEvents(); // shown before the open, as for the other opens
        const OpenFigures writing = openOnce(window, file);
        if (!writing.ok) return figures;
        figures.cacheOpenStallMsMax = writing.stallMsMax;
        ls::waitForCacheWrites(); // the background write the load started
    }
    std::vector<double> reopens; // each in a fresh window, median; the longest stall of them
    for (int r = 0; r < std::max(1, runs); ++r) {
        ls::gui::MainWindow window;
        window.resize(1920, 1080);
        window.show();
        QApplication::processEvents();
        const OpenFigures warm = openOnce(window, file);
        if (!warm.ok) return figures;
        reopens.push_back(warm.readyS);
        figures.reopenStallMsMax = std::max(figures.reopenStallMsMax, warm.stallMsMax);
        const auto& phases =
            window.trace() ? window.trace()->loadPhases : decltype(window.trace()->loadPhases){};
        figures.reopenFromCache = !phases.empty() && phases.front().first == "read model cache";
        if (std::getenv("LAYERSCOPE_GUI_TIMING"))
            std::fprintf(stderr, "gui reopen: ready %.3f s, of which the window's load %.3f s\n",
                         warm.readyS, window.trace()->loadSeconds);
    }
    figures.reopenReadyS = benchMedian(std::move(reopens));
    figures.measured = true;
    return figures;
}
