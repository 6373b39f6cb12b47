// A load's thread waits for the gate the window gives it (TraceLoader::holdNextStartUntil): until
// the gate is ready it reads nothing, then the load runs as usual, and the next start, given no
// gate, runs at once; a gate whose promise is gone lets the load go too. The window uses it to
// lay out and paint its loading page before the load's threads start: when openFile returns, the
// loading page has been painted already, before any turn of the event loop.
#include "tests/widgets/widget_test_support.h"
#include "widgets/session/trace_loader.h"
#include "widgets/window/loading_page.h"
#include "widgets/window/main_window.h"

#include <QEvent>
#include <QSignalSpy>
#include <QTest>
#include <future>
#include <gtest/gtest.h>

namespace {

using ls::gui::MainWindow;
using ls::gui::TraceLoader;

const QString kSample =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/resources/sample_gpt2_2layer_fp16_h200.sqlite");

// A loader (model cache off) whose next start waits for `gate`, and what it delivers.
struct GatedLoader {
    TraceLoader loader;
    QSignalSpy loaded{&loader, &TraceLoader::loaded};
    std::promise<void> gate;
    GatedLoader() {
        qputenv("LAYERSCOPE_NO_CACHE", "1");
        loader.holdNextStartUntil(gate.get_future().share());
    }
};

TEST(LoadStartGate, TheLoadReadsNothingUntilItsGateIsReady) {
    GatedLoader g;
    g.loader.start(kSample);
    QTest::qWait(300); // the sample loads in well under this once let go
    EXPECT_EQ(g.loaded.count(), 0);
    ASSERT_NE(g.loader.overview(), nullptr);
    EXPECT_EQ(g.loader.overview()->kernels(), 0u);
    g.gate.set_value();
    ASSERT_TRUE(g.loaded.wait(60000));
    EXPECT_GT(g.loader.overview()->kernels(), 0u);

    g.loader.start(kSample); // no gate given this time
    ASSERT_TRUE(g.loaded.wait(60000));
}

TEST(LoadStartGate, AGateWhosePromiseIsGoneLetsTheLoadGo) {
    GatedLoader g;
    g.gate = std::promise<void>(); // the promise the gate waits on is gone
    g.loader.start(kSample);
    ASSERT_TRUE(g.loaded.wait(60000));
}

TEST(LoadStartGate, TheWindowPaintsItsLoadingPageBeforeTheLoadStarts) {
    qputenv("LAYERSCOPE_NO_CACHE", "1");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    ls::gui::test::EventCounter paints(QEvent::Paint);
    w.loadingPage()->installEventFilter(&paints);
    QSignalSpy ready(&w, &MainWindow::windowReady);
    w.openFile(kSample);
    EXPECT_EQ(w.centralWidget(), w.loadingPage());
    EXPECT_GT(paints.count, 0) << "painted within openFile, before the load's threads start";
    ASSERT_TRUE(ready.wait(60000));
}

} // namespace
