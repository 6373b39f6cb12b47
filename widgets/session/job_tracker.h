#pragma once
// Every job the window runs off the GUI thread, on one tracker (hotspot's src/jobtracker.h is the
// model): a load, a comparison, a rank's preparation, an Nsight Compute import, a model cache
// write. A job has an id, a kind and a title; its work runs on a std::thread of its own with a
// JobContext (a cancel token, progress, posts to the GUI thread); what it returns runs on the GUI
// thread if the job is still current: not cancelled and not superseded by a newer job of its kind.
// The tracker joins threads that have ended; its destructor cancels every job and joins them all,
// so a job may hold what it reads until then.
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace ls::gui {

using JobId = quint64;
class JobTracker;

// What a job's work sees on its thread. Copies share the job.
class JobContext {
  public:
    JobId id() const { return id_; }
    bool cancelled() const { return cancel_->load(std::memory_order_relaxed); }
    // For LoadOptions::cancel and the like: set once the job is cancelled or superseded.
    const std::atomic<bool>* cancelFlag() const { return cancel_.get(); }
    // From any thread: JobTracker::progress on the GUI thread, in the order reported, dropped
    // once the job is no longer current. done and total 0: no count (a busy indicator).
    void progress(const QString& text, qint64 done = 0, qint64 total = 0) const;
    // Runs f on the GUI thread if the job is still current when it gets there (a result handed
    // over in stages).
    void post(std::function<void()> f) const;
    // Runs f on the GUI thread whatever became of the job (dropped only with the tracker).
    void postAlways(std::function<void()> f) const;
    // To be used on the GUI thread only (in what post and postAlways run): to start another job.
    JobTracker* tracker() const { return tracker_; }

  private:
    friend class JobTracker;
    JobContext(JobTracker* tracker, JobId id, std::shared_ptr<std::atomic<bool>> cancel)
        : tracker_(tracker), id_(id), cancel_(std::move(cancel)) {}
    JobTracker* tracker_; // outlives the job: its destructor joins the job's thread
    JobId id_;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

class JobTracker : public QObject {
    Q_OBJECT
  public:
    // What the work hands back, run on the GUI thread if the job is still current; may be empty.
    using Result = std::function<void()>;
    using Work = std::function<Result(const JobContext&)>;
    // A new job of a kind cancels the current one of that kind, unless it is submitted with
    // Supersede::No (model cache writes: each one is waited for).
    enum class Supersede { Yes, No };

    struct Running {
        JobId id = 0;
        QString kind, title;
        QString text; // the last progress report's
        qint64 done = 0, total = 0;
    };

    explicit JobTracker(QObject* parent = nullptr);
    ~JobTracker() override; // cancels every job and joins every thread

    // The tracker of the nearest of `object` and its ancestors that has one as a direct child (the
    // window's); without one, a new tracker owned by `object`.
    static JobTracker* nearest(QObject* object);

    // GUI thread only, as is everything below.
    JobId submit(const QString& kind, const QString& title, Work work,
                 Supersede supersede = Supersede::Yes);
    // The job's token is set and its results dropped; it leaves running() now, and cancelled(id)
    // follows once its work has returned (the work stops when it next looks at the token).
    void cancel(JobId id);
    void cancelAll();
    bool busy(const QString& kind) const;
    bool current(JobId id) const;
    std::vector<Running> running() const; // current jobs, oldest first
    // Threads not yet joined (current, cancelled or superseded jobs still running, or ended).
    size_t threads() const { return jobs_.size(); }

  signals:
    // Ids are JobIds (quint64 spelled out for queued connections and QSignalSpy).
    void started(quint64 id, const QString& kind, const QString& title);
    void progress(quint64 id, const QString& text, qint64 done, qint64 total);
    void finished(quint64 id);                    // its result has run
    void failed(quint64 id, const QString& text); // it threw: the first line of what()
    // By cancel() or a newer job of its kind: sent once the work has returned.
    void cancelled(quint64 id);
    void ended(quint64 id); // after each of the three above
    void changed();         // running() is not what it was

  private:
    friend class JobContext;
    struct Job {
        JobId id = 0;
        QString kind, title;
        std::shared_ptr<std::atomic<bool>> cancel;
        std::shared_ptr<std::atomic<bool>> returned; // set as the thread leaves the work
        std::thread thread;
        bool current = true;    // neither cancelled, superseded nor ended
        bool cancelled = false; // cancelled() is due when the work returns
        QString text;
        qint64 done = 0, total = 0;
    };
    Job* find(JobId id);
    const Job* find(JobId id) const;
    void deliver(JobId id, Result result, const QString& error);
    void reportProgress(JobId id, const QString& text, qint64 done, qint64 total);
    void joinReturned();

    std::vector<std::unique_ptr<Job>> jobs_; // oldest first
    JobId next_ = 0;
};

} // namespace ls::gui
