// layerscope: the desktop viewer. Opens the file given on the command line, else the bundled
// sample trace (unless --no-sample, the start page's check box says not to, or it is not
// installed: then the start page); --compare B then compares B with it in the Compare tab.
#include "app/gui/serial_raster_fills.h"
#include "core/cache/trace_cache.h"
#include "core/load/memory_budget.h"
#include "core/model/platform.h"
#include "widgets/session/load_settings.h"
#include "widgets/start/start_page.h"
#include "widgets/window/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    // --version and --help answer without a display (package checks, ssh sessions).
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--version") || !std::strcmp(argv[i], "-v")) {
            std::printf("layerscope %s\n", LAYERSCOPE_VERSION);
            return 0;
        }
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::printf(
                "usage: layerscope [FILE... | DIR | JOB.lsjob] [--ncu CSV] [--compare FILE] "
                "[--memory-budget SIZE] [--no-sample]\n\nGPU trace viewer for "
                "deep-learning jobs. Opens FILE (an Nsight Systems\n"
                "SQLite export, an nvprof database or a PyTorch profiler JSON), or the "
                "bundled sample trace when\n"
                "none is given (--no-sample: the start page instead). Several FILEs, or a "
                "folder of them, open as one session: the ranks of one job.\n"
                "A job file (layerscope-cli job) opens every rank from its summaries.\n"
                "--memory-budget SIZE (1G, 800M): memory for the full models of a job's "
                "ranks; a job\nof more opens from summaries (default: a quarter of RAM, "
                "or the setting).\n"
                "--ncu imports Nsight Compute CSV metrics onto the (single) trace.\n"
                "--compare FILE opens FILE as run B and compares it with the trace (run A) "
                "in the Compare tab.\n");
            return 0;
        }
    }
    ls::platform::preferMappedLargeAllocations();
    ls::app::keepRasterFillsOnThePaintingThread();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Layerscope"));
    QApplication::setApplicationName(QStringLiteral("Layerscope"));
    QApplication::setApplicationVersion(QStringLiteral(LAYERSCOPE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/layerscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("GPU trace viewer for deep-learning jobs"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QStringLiteral("Traces to open: Nsight Systems SQLite exports, nvprof databases or PyTorch "
                       "profiler JSON; several files or a folder open as one session of ranks "
                       "(default: the sample trace)"),
        QStringLiteral("[FILE... | DIR]"));
    const QCommandLineOption ncu(
        QStringLiteral("ncu"),
        QStringLiteral("Nsight Compute CSV to import once the trace is open"),
        QStringLiteral("csv"));
    parser.addOption(ncu);
    const QCommandLineOption compare(
        QStringLiteral("compare"),
        QStringLiteral("A second trace (run B) to compare with the one opened (run A)"),
        QStringLiteral("file"));
    parser.addOption(compare);
    const QCommandLineOption noSample(
        QStringLiteral("no-sample"),
        QStringLiteral("Without FILE, show the start page instead of opening the sample trace"));
    parser.addOption(noSample);
    const QCommandLineOption budget(
        QStringLiteral("memory-budget"),
        QStringLiteral("Memory for the full models of a job's ranks (1G, 800M); a job of more "
                       "opens from its ranks' summaries"),
        QStringLiteral("size"));
    parser.addOption(budget);
    parser.process(app);
    if (parser.isSet(budget)) {
        const auto bytes = ls::parseByteSize(parser.value(budget).toStdString());
        if (!bytes) {
            std::fprintf(stderr, "error: --memory-budget %s: not a size (1G, 800M, 1.5GiB)\n",
                         qPrintable(parser.value(budget)));
            return 2;
        }
        ls::gui::setMemoryBudgetForThisRun(*bytes);
    }

    ls::gui::MainWindow window;
    window.show();
    if (parser.isSet(ncu)) {
        const QString csv = parser.value(ncu);
        QObject::connect(
            &window, &ls::gui::MainWindow::traceLoaded, &window,
            [&window, csv] {
                const QString error = window.importNcu(csv);
                if (!error.isEmpty())
                    std::fprintf(stderr, "error: %s: %s\n", qPrintable(csv), qPrintable(error));
            },
            Qt::SingleShotConnection);
    }
    if (parser.isSet(compare)) {
        const QString other = parser.value(compare);
        QObject::connect(
            &window, &ls::gui::MainWindow::traceLoaded, &window,
            [&window, other] { window.compareWith(other); }, Qt::SingleShotConnection);
    }
    const QStringList files = parser.positionalArguments();
    const QString sample = ls::gui::MainWindow::samplePath();
    if (!files.isEmpty())
        window.openFiles(files);
    else if (!parser.isSet(noSample) && ls::gui::StartPage::openSampleAtStart() &&
             QFileInfo::exists(sample))
        window.openFile(sample);
    else
        window.showStartPage();
    const int rc = QApplication::exec();
    ls::waitForCacheWrites(); // a model cache file being written when the window closed
    return rc;
}
