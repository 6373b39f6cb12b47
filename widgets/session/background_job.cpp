#include "widgets/session/background_job.h"

#include "widgets/session/job_tracker.h"

namespace ls::gui {

BackgroundJob::BackgroundJob(QObject* parent, QString kind, QString title)
    : QObject(parent), kind_(std::move(kind)), title_(std::move(title)) {}

BackgroundJob::~BackgroundJob() {
    if (tracker_) tracker_->cancel(job_);
}

JobTracker* BackgroundJob::tracker() {
    if (tracker_) return tracker_;
    tracker_ = JobTracker::nearest(this);
    connect(tracker_, &JobTracker::finished, this, [this](quint64 id) {
        if (id == job_) emit finished();
    });
    connect(tracker_, &JobTracker::progress, this,
            [this](quint64 id, const QString& text, qint64 done, qint64 total) {
                if (id == job_) emit progress(text, done, total);
            });
    connect(tracker_, &JobTracker::failed, this, [this](quint64 id, const QString& what) {
        if (id == job_) emit failed(what);
    });
    return tracker_;
}

void BackgroundJob::run(std::function<Done()> work) {
    // At the window's own priority: the user waits for it (as for a load,
    // widgets/session/trace_loader.cpp).
    job_ = tracker()->submit(
        kind_, title_,
        [work = std::move(work)](const JobContext&) -> JobTracker::Result { return work(); });
}

void BackgroundJob::runWithContext(std::function<Done(const JobContext&)> work) {
    job_ = tracker()->submit(kind_, title_,
                             [work = std::move(work)](const JobContext& ctx) -> JobTracker::Result {
                                 return work(ctx);
                             });
}

void BackgroundJob::cancel() {
    if (tracker_) tracker_->cancel(job_);
}

bool BackgroundJob::busy() const { return tracker_ && tracker_->current(job_); }

} // namespace ls::gui
