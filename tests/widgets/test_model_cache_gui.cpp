// The app's loads go through the model cache when its File → Model Cache setting is on (the
// default): the second open of a file reads the cached model; with the setting off nothing is
// written. Offscreen, with a temporary XDG_CACHE_HOME.
#include "core/cache/trace_cache.h"
#include "widgets/load_settings.h"
#include "widgets/trace_loader.h"
#include "widgets/trace_session.h"

#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <filesystem>

namespace {

using ls::gui::TraceLoader;
using ls::gui::TraceSession;

std::shared_ptr<const TraceSession> open(const QString& path) {
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    loader.start(path);
    if (!loaded.wait(60000)) return nullptr;
    ls::waitForCacheWrites();
    return loaded.takeFirst().at(0).value<std::shared_ptr<const TraceSession>>();
}

bool fromCache(const TraceSession& s) {
    return !s.trace->loadPhases.empty() && s.trace->loadPhases.front().first == "read model cache";
}

class ModelCacheGui : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(home_.isValid());
        qputenv("XDG_CACHE_HOME", home_.path().toUtf8());
        qunsetenv("LAYERSCOPE_NO_CACHE");
        sample_ = QStringLiteral(LAYERSCOPE_SOURCE_DIR "/resources/sample_gpt2_2layer_fp16_h200.sqlite");
    }
    void TearDown() override {
        QSettings().remove(QStringLiteral("cache/enabled"));
        qputenv("LAYERSCOPE_NO_CACHE", "1");
        qunsetenv("XDG_CACHE_HOME");
    }
    size_t cacheFiles() const { return ls::traceCacheInfo(ls::defaultTraceCacheDir()).entries.size(); }

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
    EXPECT_TRUE(std::filesystem::path(ls::defaultTraceCacheDir()).string().rfind(home_.path().toStdString(), 0) == 0);
    const auto second = open(sample_);
    ASSERT_TRUE(second);
    EXPECT_TRUE(fromCache(*second));
    EXPECT_EQ(second->trace->kernels.size(), first->trace->kernels.size());
    EXPECT_EQ(second->layers->size(), first->layers->size());
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
