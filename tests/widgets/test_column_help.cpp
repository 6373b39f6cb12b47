// Discoverability: every kernel-table column says what it means and its unit (header tooltip,
// "What's this column?" in the column chooser), and every control on the window's tool strips
// has a tooltip.
#include "tests/widgets/widget_test_support.h"
#include "widgets/tables/column_help.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/window/main_window.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QTabBar>
#include <QTableView>
#include <gtest/gtest.h>

namespace {

TEST(ColumnHelp, EveryKernelColumnHasADescriptionWithItsUnit) {
    for (const ls::KernelFieldInfo& info : ls::kernelFields()) {
        const QString d = ls::gui::columnDescription(info.field);
        EXPECT_FALSE(d.isEmpty()) << info.name;
        EXPECT_TRUE(d.contains(QStringLiteral("Unit: "))) << info.name;
        EXPECT_TRUE(d.contains(
            QString::fromUtf8(info.name.data(), static_cast<qsizetype>(info.name.size()))))
            << info.name;
    }
}

TEST(ColumnHelp, HeaderTooltipsAndWhatsThisInTheColumnChooser) {
    auto w = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(w);
    const ls::gui::KernelTableModel* model = w->kernelModel();
    for (const ls::KernelFieldInfo& info : ls::kernelFields())
        EXPECT_EQ(model->headerData(static_cast<int>(info.field), Qt::Horizontal, Qt::ToolTipRole)
                      .toString(),
                  ls::gui::columnDescription(info.field))
            << info.name;
    QMenu menu;
    const int duration = static_cast<int>(ls::KernelField::Duration);
    w->kernelView()->fillHeaderMenu(&menu, duration, QPoint(10, 10));
    auto* what = menu.findChild<QAction*>(QStringLiteral("whatsThisColumn"));
    ASSERT_TRUE(what);
    EXPECT_EQ(what->text(), QStringLiteral("What's this column? (Duration)"));
    EXPECT_EQ(what->toolTip(), ls::gui::columnDescription(ls::KernelField::Duration));
    what->trigger(); // shows the description beside the header; must not block or crash
    int choosers = 0;
    for (QAction* a : menu.actions()) choosers += a->isCheckable();
    EXPECT_EQ(choosers, model->columnCount());
}

// Every button, combo box and text field of the window's own bars (the timeline's, the kernel
// filter bar, the iteration strip, the panes' selectors, the status bar) has a tooltip. Qt's
// own parts (tab scroll arrows, dock title buttons, the menu bar's overflow button, a line edit's
// clear button, a spin box's editor, a table's corner button, dialog button boxes) are not ours
// to describe.
TEST(Tooltips, EveryToolbarControlHasOne) {
    auto w = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(w);
    QStringList missing;
    QList<QWidget*> controls;
    for (auto* b : w->findChildren<QAbstractButton*>()) controls << b;
    for (auto* c : w->findChildren<QComboBox*>()) controls << c;
    for (auto* e : w->findChildren<QLineEdit*>()) controls << e;
    for (QWidget* c : controls) {
        QWidget* p = c->parentWidget();
        if (qobject_cast<QTabBar*>(p) || qobject_cast<QDockWidget*>(p) ||
            qobject_cast<QLineEdit*>(p) || qobject_cast<QComboBox*>(p) ||
            qobject_cast<QDialogButtonBox*>(p) || qobject_cast<QAbstractScrollArea*>(p) ||
            qobject_cast<QMenuBar*>(p) || qobject_cast<QAbstractSpinBox*>(p))
            continue;
        if (c->toolTip().isEmpty())
            missing << QStringLiteral("%1 '%2' in %3")
                           .arg(QString::fromLatin1(c->metaObject()->className()),
                                qobject_cast<QAbstractButton*>(c)
                                    ? qobject_cast<QAbstractButton*>(c)->text()
                                : qobject_cast<QComboBox*>(c)
                                    ? qobject_cast<QComboBox*>(c)->itemText(0)
                                    : c->objectName(),
                                QString::fromLatin1(p ? p->metaObject()->className() : "?"));
    }
    EXPECT_TRUE(missing.isEmpty()) << missing.join(QStringLiteral("\n")).toStdString();
}

} // namespace
