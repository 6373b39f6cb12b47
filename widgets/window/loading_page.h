#pragma once
// What the central area shows while a file loads: its name, a live progress in rows and bytes,
// the timeline's overview of the kernels read so far (LoadOverviewView) and Cancel. It stands in
// for the window's central widget (the tabs or the start page), as the start page does, and puts
// it back when the load ends, fails or is cancelled; the window keeps the docks disabled
// meanwhile. The tabs, table and tree need the whole model (sorted, correlated, priced): they
// come back when it arrives.
#include "core/present/load_overview.h"

#include <QElapsedTimer>
#include <QWidget>
#include <memory>

class QLabel;
class QMainWindow;
class QPushButton;
class QTimer;

namespace ls::gui {

class LoadOverviewView;
class StatusLine;

class LoadingPage : public QWidget {
    Q_OBJECT
  public:
    explicit LoadingPage(QMainWindow* window);

    // Stands in for the window's central widget. overview: the kernels read so far (null: the
    // format cannot say, only the progress shows); fileBytes: the file's size (0: several files).
    void begin(const QString& title, std::shared_ptr<const LoadOverview> overview,
               qint64 fileBytes);
    // rowsRead of rowsTotal rows (or bytes when inBytes) of the event tables.
    void setProgress(qint64 done, qint64 total, const QString& table, bool inBytes);
    // Puts the central widget back.
    void end();
    bool shown() const { return content_ != nullptr; }

    LoadOverviewView* overview() const { return overview_; }
    QString progressText() const;
    QPushButton* cancelButton() const { return cancel_; }

  signals:
    void cancelRequested();

  private:
    void tick(); // the elapsed time and the overview, a few times a second

    QMainWindow* window_;
    QWidget* content_ = nullptr; // the central widget while the page stands in for it
    QLabel* title_;
    StatusLine* progress_;
    StatusLine* kernels_;
    LoadOverviewView* overview_;
    QPushButton* cancel_;
    QTimer* timer_;
    QElapsedTimer clock_;
    qint64 fileBytes_ = 0, done_ = 0, total_ = 0;
    bool inBytes_ = false;
    QString table_;
};

} // namespace ls::gui
