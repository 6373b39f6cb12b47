// A load's thread waits for the gate the window gives it (TraceLoader::holdNextStartUntil): until
// the gate is ready it reads nothing, then the load runs as usual, and the next start, given no
// gate, runs at once; a gate whose promise is gone lets the load go too. The window uses it to
// lay out and paint its loading page before the load's threads start: when openFile returns, the
// loading page has been painted already, before any turn of the event loop.
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

TEST(LoadStartGate, TheLoadReadsNothingUntilItsGateIsReady) {
    qputenv("LAYERSCOPE_NO_CACHE", "1");
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    std::promise<void> gate;
    loader.holdNextStartUntil(gate.get_future().share());
    loader.start(kSample);
    QTest::qWait(300); // the sample loads in well under this once let go
    EXPECT_EQ(loaded.count(), 0);
    ASSERT_NE(loader.overview(), nullptr);
    EXPECT_EQ(loader.overview()->kernels(), 0u);
    gate.set_value();
    ASSERT_TRUE(loaded.wait(60000));
    ASSERT_NE(loader.overview(), nullptr);
    EXPECT_GT(loader.overview()->kernels(), 0u);

    loader.start(kSample); // no gate given this time
    ASSERT_TRUE(loaded.wait(60000));
}

TEST(LoadStartGate, AGateWhosePromiseIsGoneLetsTheLoadGo) {
    qputenv("LAYERSCOPE_NO_CACHE", "1");
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    {
        std::promise<void> gate;
        loader.holdNextStartUntil(gate.get_future().share());
    }
    loader.start(kSample);
    ASSERT_TRUE(loaded.wait(60000));
}

// Counts the paints a widget receives.
class Paints : public QObject {
  public:
    int count = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) ++count;
        return false;
    }
};

TEST(LoadStartGate, TheWindowPaintsItsLoadingPageBeforeTheLoadStarts) {
    qputenv("LAYERSCOPE_NO_CACHE", "1");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    Paints paints;
    w.loadingPage()->installEventFilter(&paints);
    QSignalSpy ready(&w, &MainWindow::windowReady);
    w.openFile(kSample);
    EXPECT_EQ(w.centralWidget(), w.loadingPage());
    EXPECT_GT(paints.count, 0) << "painted within openFile, before the load's threads start";
    ASSERT_TRUE(ready.wait(60000));
}

} // namespace
