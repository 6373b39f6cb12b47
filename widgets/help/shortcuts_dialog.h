#pragma once
// Help → Keyboard Shortcuts: one table of every shortcut. The rows come from the QActions and
// QShortcuts the main window actually holds (walked when the dialog opens, so the table cannot
// drift from the code), plus the keys and mouse gestures widgets handle themselves (timeline).
#include <QDialog>
#include <vector>

class QMenu;
class QTableWidget;

namespace ls::gui {

struct ShortcutRow {
    QString keys;   // "Ctrl+O", several joined by ", "
    QString action; // what it does
    QString where;  // the menu, dock or tab where it works
};

// Every shortcut of `window`'s actions and QShortcuts (menu order), then the fixed timeline and
// drill-down keys.
std::vector<ShortcutRow> shortcutRows(const QWidget* window);

class ShortcutsDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ShortcutsDialog(QWidget* window);
    QTableWidget* table() const { return table_; }

  private:
    QTableWidget* table_;
};

// Adds Help → Keyboard Shortcuts (F1, Ctrl+/) to `help`; it opens the dialog for `window`.
QAction* addShortcutsAction(QMenu* help, QWidget* window);

} // namespace ls::gui
