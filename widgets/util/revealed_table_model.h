#pragma once
// A table model whose rows reach its views in steps. A view keeps an entry per row (its vertical
// header's sections, hidden or not), and making millions of them at once is one long stall of the
// GUI thread: 165 ms for 5M rows on a VM where each fresh page costs a fault. So a reset shows at
// most kRevealStep more rows than the views already had, and each later turn of the event loop
// appends the next step, until every row is shown. Growing a header at its end costs only the
// new sections, so no step is long and the first rows are usable at once.
#include <QAbstractTableModel>
#include <QTimer>

namespace ls::gui {

class RevealedTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    static constexpr int kRevealStep = 1 << 16;

    int rowCount(const QModelIndex& parent = {}) const final;
    // Every row now: an export or a copy of the whole table, a selection in the rows to come.
    void revealAll();
    // The rows up to row (included) now.
    void revealThrough(int row);
    bool allRevealed() const { return revealed_ == total_; }
    // Fewer rows a step, for tests of the stepping on small traces.
    void setRevealStep(int rows) { step_ = std::max(1, rows); }

  protected:
    explicit RevealedTableModel(QObject* parent = nullptr);
    // Between beginResetModel and endResetModel: the model now has `total` rows. The views get
    // as many as they had, or one step, whichever is more; the rest follow on later turns.
    void resetRowCount(int total);

  private:
    void revealUpTo(int count);

    int total_ = 0, revealed_ = 0, step_ = kRevealStep;
    QTimer next_;
};

// The model behind a view, if it reveals its rows in steps (through no proxy).
RevealedTableModel* revealedModel(const QAbstractItemModel* model);

} // namespace ls::gui
