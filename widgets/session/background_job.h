#pragma once
// One kind of work the window does off the GUI thread after a load (preparing another rank's
// trace, every rank's table and tree), so that the window keeps painting meanwhile: a job of the
// window's JobTracker. Each run() supersedes the one before it: a superseded or cancelled run's
// result never reaches the GUI.
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>

namespace ls::gui {

class JobContext;
class JobTracker;

class BackgroundJob : public QObject {
    Q_OBJECT
  public:
    using Done = std::function<void()>; // what the work hands back, run on the GUI thread
    // Runs are jobs of `kind` with `title` on JobTracker::nearest(this) (the window's tracker).
    explicit BackgroundJob(QObject* parent = nullptr, QString kind = QStringLiteral("rank"),
                           QString title = QStringLiteral("Preparing the rank"));
    ~BackgroundJob() override; // cancels its run; the tracker joins it: it holds what it reads

    void run(std::function<Done()> work);
    // The same for work that reports progress or watches its cancel flag.
    void runWithContext(std::function<Done(const JobContext&)> work);
    void cancel();
    bool busy() const;

  signals:
    void finished(); // the latest run's result has been applied
    void progress(const QString& text, qint64 done, qint64 total); // of the latest run
    void failed(const QString& what);                              // the latest run threw

  private:
    JobTracker* tracker();

    QPointer<JobTracker> tracker_;
    QString kind_, title_;
    quint64 job_ = 0; // the run whose result is wanted
};

} // namespace ls::gui
