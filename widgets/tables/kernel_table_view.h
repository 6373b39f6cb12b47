#pragma once
// The kernel table dock's contents: scope chip, filter bar (text, /regex/, `duration > 50us`,
// `tc = not used`), the table itself with a column chooser on its header, Ctrl+C as TSV and a
// context menu. Column layout and sort persist in QSettings.
#include "core/model/ids.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QMenu;
class QToolButton;

namespace ls::gui {

class KernelTableModel;

class KernelTableView : public QWidget {
    Q_OBJECT
  public:
    explicit KernelTableView(KernelTableModel* model, QWidget* parent = nullptr);

    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    // Sets the filter bar's text and applies it at once (chart clicks, context menu).
    void applyFilter(const QString& expression);
    // Selects and scrolls to the kernel if it is shown; returns false otherwise.
    bool selectKernel(KernelId k);
    KernelId currentKernel() const;
    void copySelection() const;
    void saveLayout() const;
    void restoreLayout();
    // The header's context menu for a right-click on `section` at `globalPos`: "What's this
    // column?" (its meaning and unit), then the column chooser.
    void fillHeaderMenu(QMenu* menu, int section, const QPoint& globalPos);

  signals: // kernels by the model's row id (KernelTableModel::tableOf/localOf)
    void currentKernelChanged(ls::KernelId k);
    void selectionChanged();
    void showInTimeline(ls::KernelId k);
    void showCounterpart(ls::KernelId k);
    void scopeToLayer(ls::KernelId k);
    void showInFwdBwd(ls::KernelId k);

  private:
    void applyFilterNow();
    void updateStatus();
    void showHeaderMenu(const QPoint& pos);
    void showRowMenu(const QPoint& pos);

    KernelTableModel* model_;
    QTableView* table_;
    QLineEdit* filter_;
    QLabel* scope_;
    QToolButton* clearScope_;
    QLabel* count_;
    QLabel* error_;
    QTimer* debounce_;
};

} // namespace ls::gui
