// Help → Keyboard Shortcuts lists every shortcut the window really has: each QAction with a
// shortcut appears with its keys, and the timeline's own keys are there too.
#include "widgets/help/shortcuts_dialog.h"
#include "widgets/window/main_window.h"

#include <QAction>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <gtest/gtest.h>
#include <set>

namespace {

using ls::gui::MainWindow;
using ls::gui::ShortcutsDialog;

TEST(ShortcutsDialog, ListsEveryActionWithAShortcut) {
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w;
    w.show();
    QAction* open = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Keyboard Shortcuts")) open = a;
    ASSERT_TRUE(open);
    EXPECT_TRUE(open->shortcuts().contains(QKeySequence(Qt::Key_F1)));
    EXPECT_TRUE(open->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Slash)));
    open->trigger();
    auto* dialog = w.findChild<ShortcutsDialog*>();
    ASSERT_TRUE(dialog);
    EXPECT_TRUE(dialog->isVisible());

    std::set<std::pair<QString, QString>> listed; // (one key sequence, action)
    const QTableWidget* table = dialog->table();
    for (int r = 0; r < table->rowCount(); ++r)
        for (const QString& keys : table->item(r, 0)->text().split(QStringLiteral(", ")))
            listed.insert({keys, table->item(r, 1)->text()});
    int withShortcut = 0;
    for (const QAction* a : w.findChildren<QAction*>())
        for (const QKeySequence& k : a->shortcuts()) {
            if (k.isEmpty()) continue;
            ++withShortcut;
            QString text = a->text().remove(QLatin1Char('&'));
            if (text.endsWith(QStringLiteral("…"))) text.chop(1);
            EXPECT_TRUE(listed.count({k.toString(QKeySequence::NativeText), text}))
                << text.toStdString() << " " << k.toString().toStdString();
        }
    EXPECT_GE(withShortcut, 20);
    EXPECT_TRUE(listed.count({QStringLiteral("Ctrl+O"), QStringLiteral("Open")}));
    EXPECT_TRUE(listed.count({QStringLiteral("W / S"), QStringLiteral("Zoom in / out")}));
    EXPECT_TRUE(listed.count({QStringLiteral("F1"), QStringLiteral("Keyboard Shortcuts")}));
    // Every tab has its Ctrl+digit, the Findings and Summary tables tabs included.
    EXPECT_TRUE(listed.count({QStringLiteral("Ctrl+7"), QStringLiteral("Findings")}));
    EXPECT_TRUE(listed.count({QStringLiteral("Ctrl+8"), QStringLiteral("Summary Tables")}));
    auto* tabs = w.findChild<QTabWidget*>();
    ASSERT_TRUE(tabs);
    for (QAction* a : w.findChildren<QAction*>())
        for (int digit = 1; digit <= tabs->count(); ++digit)
            if (a->shortcuts().contains(
                    QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_0 + digit)))) {
                a->trigger();
                EXPECT_EQ(tabs->currentIndex(), digit - 1) << digit;
            }
    EXPECT_EQ(tabs->count(), 8);
}

} // namespace
