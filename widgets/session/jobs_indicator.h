#pragma once
// The status bar's list of background jobs: the title and progress of the jobs running on a
// JobTracker (the oldest first, "+N" for the others; all of them in the tooltip), hidden while
// none runs. A load's own progress bar and Cancel button stay beside it.
#include <QPointer>
#include <QWidget>

class QLabel;

namespace ls::gui {

class JobTracker;

class JobsIndicator : public QWidget {
    Q_OBJECT
  public:
    explicit JobsIndicator(JobTracker* tracker, QWidget* parent = nullptr);
    QString text() const; // what it shows

  private:
    void refresh();

    QPointer<JobTracker> tracker_;
    QLabel* label_;
};

} // namespace ls::gui
