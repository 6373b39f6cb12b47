// SettingsWriter: write() returns while the values are still being written, on a thread that is
// not the caller's; values given meanwhile are merged (the later value of a key wins) and written
// after; the destructor waits for what is pending. With the default write the values reach the
// application's QSettings. Then the window: an open puts the file first in Open Recent and the
// settings at once, and the settings file has it once the window is gone.
#include "tests/widgets/widget_test_support.h"
#include "widgets/session/settings_writer.h"
#include "widgets/window/main_window.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <future>
#include <gtest/gtest.h>
#include <thread>
#include <vector>

namespace {

using ls::gui::SettingsWriter;

TEST(SettingsWriter, WritesOffTheCallersThreadMergingWhatComesMeanwhile) {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::mutex mutex;
    std::vector<QVariantMap> written;
    std::vector<std::thread::id> threads;
    {
        SettingsWriter writer([&](const QVariantMap& values) {
            released.wait(); // a disk that is slow to sync
            std::lock_guard lock(mutex);
            written.push_back(values);
            threads.push_back(std::this_thread::get_id());
        });
        writer.write({{QStringLiteral("a"), 1}});
        // These join the first batch if the thread has not taken it yet, else wait, merged, for
        // the next one: either way the later value of b wins.
        writer.write({{QStringLiteral("b"), 2}, {QStringLiteral("c"), 3}});
        writer.write({{QStringLiteral("b"), 4}});
        release.set_value();
    } // the destructor waits for the rest
    ASSERT_GE(written.size(), 1u);
    QVariantMap last;
    for (const auto& values : written)
        for (auto it = values.begin(); it != values.end(); ++it) last.insert(it.key(), it.value());
    EXPECT_EQ(last.value(QStringLiteral("a")).toInt(), 1);
    EXPECT_EQ(last.value(QStringLiteral("b")).toInt(), 4);
    EXPECT_EQ(last.value(QStringLiteral("c")).toInt(), 3);
    for (auto id : threads) EXPECT_NE(id, std::this_thread::get_id());
}

TEST(SettingsWriter, TheDefaultWriteReachesTheApplicationsSettings) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("settingsWriterTest"));
    {
        SettingsWriter writer;
        writer.write({{QStringLiteral("settingsWriterTest"), QStringLiteral("first")}});
        writer.waitUntilWritten();
        EXPECT_EQ(QSettings().value(QStringLiteral("settingsWriterTest")).toString(),
                  QStringLiteral("first"));
        writer.write({{QStringLiteral("settingsWriterTest"), QStringLiteral("second")}});
    }
    EXPECT_EQ(QSettings().value(QStringLiteral("settingsWriterTest")).toString(),
              QStringLiteral("second"));
    QSettings().remove(QStringLiteral("settingsWriterTest"));
}

TEST(SettingsWriter, AnOpenPutsTheFileFirstInOpenRecentAndInTheSettings) {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().setValue(QStringLiteral("recentFiles"),
                         QStringList{QStringLiteral("/elsewhere/older.sqlite")});
    const QString sample = QFileInfo(ls::gui::test::samplePath()).absoluteFilePath();
    {
        const auto w = ls::gui::test::openInWindow(sample);
        ASSERT_TRUE(w);
        QMenu* recent = nullptr;
        for (QMenu* m : w->findChildren<QMenu*>())
            if (m->title() == QStringLiteral("Open &Recent")) recent = m;
        ASSERT_TRUE(recent);
        ASSERT_EQ(recent->actions().size(), 2);
        EXPECT_EQ(recent->actions().at(0)->text(), sample);
        EXPECT_EQ(recent->actions().at(1)->text(), QStringLiteral("/elsewhere/older.sqlite"));
    }
    EXPECT_EQ(QSettings().value(QStringLiteral("recentFiles")).toStringList(),
              (QStringList{sample, QStringLiteral("/elsewhere/older.sqlite")}));
    EXPECT_EQ(QSettings().value(QStringLiteral("lastDir")).toString(),
              QFileInfo(sample).absolutePath());
}

} // namespace
