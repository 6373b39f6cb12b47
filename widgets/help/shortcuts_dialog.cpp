#include "widgets/help/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QShortcut>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <set>

namespace ls::gui {
namespace {

QString plain(QString text) {
    text.remove(QLatin1Char('&'));
    if (text.endsWith(QStringLiteral("…"))) text.chop(1);
    return text;
}

QString keysText(const QList<QKeySequence>& keys) {
    QStringList parts;
    for (const QKeySequence& k : keys)
        if (!k.isEmpty()) parts << k.toString(QKeySequence::NativeText);
    return parts.join(QStringLiteral(", "));
}

// The dock or tab a widget lives in, as the user names it.
QString placeOf(const QObject* o) {
    for (; o; o = o->parent()) {
        if (const auto* dock = qobject_cast<const QDockWidget*>(o))
            return plain(dock->windowTitle()) + QStringLiteral(" dock");
        const auto* w = qobject_cast<const QWidget*>(o);
        // A page not added to its tabs yet (Compare): named by its window title.
        if (w && qobject_cast<const QTabWidget*>(w->parentWidget()) && !w->windowTitle().isEmpty())
            return w->windowTitle() + QStringLiteral(" tab");
        const auto* stack = w ? qobject_cast<const QStackedWidget*>(w->parentWidget()) : nullptr;
        if (const auto* tabs =
                stack ? qobject_cast<const QTabWidget*>(stack->parentWidget()) : nullptr) {
            const int i = tabs->indexOf(const_cast<QWidget*>(w));
            if (i >= 0) return tabs->tabText(i) + QStringLiteral(" tab");
        }
    }
    return QStringLiteral("Main window");
}

// The menu path of an action ("File", "View"), else where its widget is.
QString whereOf(const QAction* a) {
    for (const QObject* o : a->associatedObjects())
        if (const auto* menu = qobject_cast<const QMenu*>(o)) {
            QString path = plain(menu->title());
            for (const auto* up = qobject_cast<const QMenu*>(menu->parent()); up;
                 up = qobject_cast<const QMenu*>(up->parent()))
                path = plain(up->title()) + QStringLiteral(" → ") + path;
            if (!path.isEmpty()) return path + QStringLiteral(" menu");
        }
    return placeOf(a->parent());
}

} // namespace

std::vector<ShortcutRow> shortcutRows(const QWidget* window) {
    std::vector<ShortcutRow> rows;
    std::set<const QAction*> seen;
    for (const QAction* a : window->findChildren<QAction*>()) {
        const QString keys = keysText(a->shortcuts());
        if (keys.isEmpty() || !seen.insert(a).second) continue;
        QString what = plain(a->text());
        if (what.isEmpty()) what = plain(a->toolTip());
        rows.push_back({keys, what, whereOf(a)});
    }
    for (const QShortcut* s : window->findChildren<QShortcut*>()) {
        const QString keys = keysText(s->keys());
        if (keys.isEmpty()) continue;
        rows.push_back({keys, s->whatsThis().isEmpty() ? s->objectName() : s->whatsThis(),
                        placeOf(s->parent())});
    }
    // Handled in the widgets' key and mouse events: no action to walk (README, Timeline).
    const QString timeline = QStringLiteral("Timeline tab");
    const std::pair<const char*, const char*> fixed[] = {
        {"Ctrl+Wheel", "Zoom at the cursor"},
        {"Wheel", "Scroll rows"},
        {"Drag", "Pan"},
        {"Shift+Drag", "Measure a time range"},
        {"W / S", "Zoom in / out"},
        {"A / D", "Pan left / right"},
        {"F", "Zoom to the selection"},
        {"0", "Fit the whole capture"},
        {"Alt+Left / Alt+Right",
         "Back / forward through the zoom history (also the mouse's back and forward buttons)"},
        {"Esc", "Clear the measured range"},
        {"Click", "Select a kernel; a range lists its kernels; a folded bar zooms into it"},
        {"Click a row or rank header",
         "Collapse or expand it (a collapsed rank is one strip of its kernels)"},
        {"Drag a row or rank header", "Reorder the rows or the ranks"},
        {"Click another rank's kernel", "Show that rank in the table and tree; an NCCL kernel is "
                                        "linked to its collective on every rank"}};
    for (const auto& [keys, what] : fixed)
        rows.push_back({QString::fromUtf8(keys), QString::fromUtf8(what), timeline});
    rows.push_back({QStringLiteral("Enter, Double-click"),
                    QStringLiteral("Drill down into the selected row"),
                    QStringLiteral("Compare tab")});
    return rows;
}

ShortcutsDialog::ShortcutsDialog(QWidget* window)
    : QDialog(window), table_(new QTableWidget(this)) {
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(QStringLiteral("Keyboard Shortcuts"));
    const auto rows = shortcutRows(window);
    table_->setColumnCount(3);
    table_->setHorizontalHeaderLabels(
        {QStringLiteral("Keys"), QStringLiteral("Action"), QStringLiteral("Where")});
    table_->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const auto& row = rows[static_cast<size_t>(r)];
        int c = 0;
        for (const QString& text : {row.keys, row.action, row.where}) {
            auto* item = new QTableWidgetItem(text);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            table_->setItem(r, c++, item);
        }
    }
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSortingEnabled(true);
    table_->sortByColumn(2, Qt::AscendingOrder);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(
        new QLabel(QStringLiteral("Every shortcut of this window; click a header to sort."), this));
    layout->addWidget(table_, 1);
    layout->addWidget(buttons);
    resize(960, 760);
}

QAction* addShortcutsAction(QMenu* help, QWidget* window) {
    QAction* a = help->addAction(QStringLiteral("&Keyboard Shortcuts"), window, [window] {
        auto* dialog = new ShortcutsDialog(window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show(); // not modal: it can stay open beside the window
    });
    a->setShortcuts({QKeySequence(Qt::Key_F1), QKeySequence(Qt::CTRL | Qt::Key_Slash)});
    a->setToolTip(QStringLiteral("Every keyboard shortcut of the window, in one table"));
    return a;
}

} // namespace ls::gui
