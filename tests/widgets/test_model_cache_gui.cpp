// The app's loads go through the model cache when its File → Model Cache setting is on (the
// default): the second open of a file reads the cached model; with the setting off nothing is
// written. Offscreen, with a temporary XDG_CACHE_HOME.
#include "core/cache/trace_cache.h"
#include "core/present/trace_views.h"
#include "widgets/session/load_settings.h"
#include "widgets/session/trace_loader.h"

#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <gtest/gtest.h>

namespace {

using ls::TraceViews;
using ls::gui::TraceLoader;

std::shared_ptr<const TraceViews> open(const QString& path) {
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    loader.start(path);
    if (!loaded.wait(60000)) return nullptr;
    ls::waitForCacheWrites();
    return loaded.takeFirst().at(0).value<std::shared_ptr<const TraceViews>>();
}

// The session once its other tabs are prepared too, after which the loader keeps its views.
std::shared_ptr<const TraceViews> openComplete(const QString& path, ls::KernelOrder order = {}) {
    TraceLoader loader;
    loader.setKernelOrder(order);
    QSignalSpy completed(&loader, &TraceLoader::completed);
    loader.start(path);
    if (!completed.wait(60000)) return nullptr;
    return completed.takeFirst().at(0).value<std::shared_ptr<const TraceViews>>();
}

bool fromCache(const TraceViews& s) {
    return !s.trace->loadPhases.empty() && s.trace->loadPhases.front().first == "read model cache";
}

class ModelCacheGui : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(home_.isValid());
        qputenv("XDG_CACHE_HOME", home_.path().toUtf8());
        qunsetenv("LAYERSCOPE_NO_CACHE");
        sample_ =
            QStringLiteral(LAYERSCOPE_SOURCE_DIR "/resources/sample_gpt2_2layer_fp16_h200.sqlite");
    }
    void TearDown() override {
        QSettings().remove(QStringLiteral("cache/enabled"));
        qputenv("LAYERSCOPE_NO_CACHE", "1");
        qunsetenv("XDG_CACHE_HOME");
    }
    size_t cacheFiles() const {
        return ls::traceCacheInfo(ls::defaultTraceCacheDir()).entries.size();
    }

    QTemporaryDir home_;
    QString sample_;
};

TEST_F(ModelCacheGui, SecondOpenReadsTheCachedModelWithTheSameTable) {
    QSettings().setValue(QStringLiteral("cache/enabled"), true);
    EXPECT_EQ(ls::gui::loadOptionsFromSettings().cacheDir, ls::defaultTraceCacheDir());
    const auto first = open(sample_);
    ASSERT_TRUE(first);
    EXPECT_FALSE(fromCache(*first));
    EXPECT_EQ(cacheFiles(), 1u);
    EXPECT_TRUE(std::filesystem::path(ls::defaultTraceCacheDir())
                    .string()
                    .rfind(home_.path().toStdString(), 0) == 0);
    const auto second = open(sample_);
    ASSERT_TRUE(second);
    EXPECT_TRUE(fromCache(*second));
    EXPECT_EQ(second->trace->kernels.size(), first->trace->kernels.size());
    EXPECT_EQ(second->layers->size(), first->layers->size());
}

// The tree, lanes, NVTX paths, sorted rows and iterations the window shows first are kept beside
// the model after the first open and taken on the second, equal to those built.
TEST_F(ModelCacheGui, ReopenTakesTheWindowsViewsFromTheViewCache) {
    QSettings().setValue(QStringLiteral("cache/enabled"), true);
    const auto first = openComplete(sample_); // the loader is gone: its view write has ended
    ASSERT_TRUE(first);
    ls::waitForCacheWrites();
    EXPECT_FALSE(first->viewsFromCache);
    const auto info = ls::traceCacheInfo(ls::defaultTraceCacheDir());
    ASSERT_EQ(info.entries.size(), 1u);
    ASSERT_EQ(info.entries[0].companions.size(), 1u);
    EXPECT_EQ(std::filesystem::path(info.entries[0].companions[0]).extension(), ".lsviews");

    const auto second = openComplete(sample_);
    ASSERT_TRUE(second);
    EXPECT_TRUE(fromCache(*second));
    EXPECT_TRUE(second->viewsFromCache);
    EXPECT_EQ(second->layers->parent, first->layers->parent);
    EXPECT_EQ(second->layers->orderedKernels, first->layers->orderedKernels);
    EXPECT_EQ(second->layers->gpuTimeNs, first->layers->gpuTimeNs);
    ASSERT_EQ(second->timeline->tracks.lanes.size(), first->timeline->tracks.lanes.size());
    for (size_t l = 0; l < first->timeline->tracks.lanes.size(); ++l)
        EXPECT_EQ(second->timeline->tracks.lanes[l].events,
                  first->timeline->tracks.lanes[l].events);
    EXPECT_EQ(second->timeline->kernelLane, first->timeline->kernelLane);
    EXPECT_EQ(second->kernels->paths()->ofKernel, first->kernels->paths()->ofKernel);
    for (uint32_t k = 0; k < first->trace->kernels.size(); ++k)
        EXPECT_EQ(second->kernels->nvtxPath(ls::KernelId(k)),
                  first->kernels->nvtxPath(ls::KernelId(k)));
    ASSERT_EQ(second->iterations->rows.size(), first->iterations->rows.size());
    for (size_t r = 0; r < first->iterations->rows.size(); ++r)
        EXPECT_EQ(second->iterations->rows[r].busy, first->iterations->rows[r].busy);
}

// The table's rows come sorted from the view cache in the order they were kept in; another order
// is sorted anew and kept in place of it.
TEST_F(ModelCacheGui, AnotherTableOrderIsSortedAndKeptInTheViewCache) {
    QSettings().setValue(QStringLiteral("cache/enabled"), true);
    const ls::KernelOrder byDuration{static_cast<int>(ls::KernelField::Duration), true};
    const ls::KernelOrder byGrid{static_cast<int>(ls::KernelField::Grid), false};
    ASSERT_TRUE(openComplete(sample_, byDuration));
    const auto again = openComplete(sample_, byDuration);
    ASSERT_TRUE(again && again->sortedKernels);
    EXPECT_TRUE(again->viewsFromCache);
    const auto other = openComplete(sample_, byGrid);
    ASSERT_TRUE(other && other->sortedKernels);
    EXPECT_FALSE(other->viewsFromCache) << "the cache's rows are in another order";
    EXPECT_EQ(other->kernelOrder.column, byGrid.column);
    std::vector<ls::KernelId> expected(other->trace->kernels.size());
    for (uint32_t k = 0; k < expected.size(); ++k) expected[k] = ls::KernelId(k);
    other->kernels->sort(expected, ls::KernelField::Grid, false);
    EXPECT_EQ(*other->sortedKernels, expected);
    const auto kept = openComplete(sample_, byGrid);
    ASSERT_TRUE(kept && kept->sortedKernels);
    EXPECT_TRUE(kept->viewsFromCache) << "the new order was not kept";
    EXPECT_EQ(*kept->sortedKernels, expected);
}

TEST_F(ModelCacheGui, TurnedOffInTheSettingsWritesNothing) {
    QSettings().setValue(QStringLiteral("cache/enabled"), false);
    EXPECT_TRUE(ls::gui::loadOptionsFromSettings().cacheDir.empty());
    const auto s = open(sample_);
    ASSERT_TRUE(s);
    EXPECT_FALSE(fromCache(*s));
    EXPECT_EQ(cacheFiles(), 0u);
}

} // namespace
