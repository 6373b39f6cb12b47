// The window's settings writes after an open run on a thread of their own
// (widgets/window/settings_writer.h): the values reach the settings of the process, in the order
// written, and the file is written when the writer is done; the window's recent files still
// lead with the file just opened.
#include "tests/widgets/widget_test_support.h"
#include "widgets/window/main_window.h"
#include "widgets/window/settings_writer.h"

#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <gtest/gtest.h>

namespace {

TEST(SettingsWriter, WritesOffTheCallingThreadInOrder) {
    QStandardPaths::setTestModeEnabled(true); // keep QSettings away from the user's
    const QString key = QStringLiteral("settingsWriterTest/value");
    QSettings().remove(key);
    {
        ls::gui::SettingsWriter writer;
        writer.write({{key, 1}});
        writer.write({{key, QStringLiteral("second")}}); // waits for the first write
    }                                                    // waits for the second
    EXPECT_EQ(QSettings().value(key).toString(), QStringLiteral("second"));
    // What another process would read: the file itself.
    QFile file(QSettings().fileName());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << file.fileName().toStdString();
    const QByteArray text = file.readAll();
    EXPECT_TRUE(text.contains("[settingsWriterTest]\nvalue=second")) << text.toStdString();
    QSettings().remove(key);
}

TEST(SettingsWriter, TheWindowsRecentFilesLeadWithTheFileOpened) {
    QStandardPaths::setTestModeEnabled(true);
    const QString sample = QFileInfo(ls::gui::test::samplePath()).absoluteFilePath();
    QSettings().setValue(QStringLiteral("recentFiles"),
                         QStringList{QStringLiteral("/elsewhere/a.sqlite"), sample});
    {
        auto w = ls::gui::test::openInWindow(ls::gui::test::samplePath());
        ASSERT_TRUE(w);
    } // the window waits for its writes as it goes
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    ASSERT_EQ(recent.size(), 2);
    EXPECT_EQ(recent.front(), sample);
    EXPECT_EQ(recent.back(), QStringLiteral("/elsewhere/a.sqlite"));
}

} // namespace
