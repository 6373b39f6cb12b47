#include "widgets/session/job_tracker.h"

#include "core/model/platform.h"

#include <QMetaObject>
#include <exception>

namespace ls::gui {
namespace {

QString firstLine(const char* what) {
    const QString text = QString::fromUtf8(what).trimmed();
    const qsizetype end = text.indexOf(QLatin1Char('\n'));
    return end < 0 ? text : text.left(end).trimmed();
}

} // namespace

void JobContext::progress(const QString& text, qint64 done, qint64 total) const {
    JobTracker* tracker = tracker_;
    const JobId id = id_;
    QMetaObject::invokeMethod(
        tracker,
        [tracker, id, text, done, total] { tracker->reportProgress(id, text, done, total); },
        Qt::QueuedConnection);
}

void JobContext::post(std::function<void()> f) const {
    JobTracker* tracker = tracker_;
    const JobId id = id_;
    QMetaObject::invokeMethod(
        tracker,
        [tracker, id, f = std::move(f)] {
            if (tracker->current(id)) f();
        },
        Qt::QueuedConnection);
}

void JobContext::postAlways(std::function<void()> f) const {
    QMetaObject::invokeMethod(tracker_, std::move(f), Qt::QueuedConnection);
}

JobTracker::JobTracker(QObject* parent) : QObject(parent) {}

JobTracker::~JobTracker() {
    // Results still queued are dropped with this object's events; no signal now: whoever listens
    // is going too.
    for (auto& job : jobs_) *job->cancel = true;
    for (auto& job : jobs_) job->thread.join();
}

JobTracker* JobTracker::nearest(QObject* object) {
    for (QObject* o = object; o; o = o->parent())
        if (auto* tracker = o->findChild<JobTracker*>(QString(), Qt::FindDirectChildrenOnly))
            return tracker;
    return new JobTracker(object);
}

JobTracker::Job* JobTracker::find(JobId id) {
    for (auto& job : jobs_)
        if (job->id == id) return job.get();
    return nullptr;
}

const JobTracker::Job* JobTracker::find(JobId id) const {
    for (const auto& job : jobs_)
        if (job->id == id) return job.get();
    return nullptr;
}

// A thread past its work has only its last statement left: joining it is immediate.
void JobTracker::joinReturned() {
    // A cancelled job stays until its delivery has said so (cancelled()): a submit between its
    // return and that delivery dropped the signal, and a cancelled load never ended for the window.
    std::erase_if(jobs_, [](const std::unique_ptr<Job>& job) {
        if (job->current || job->cancelled || !job->returned->load()) return false;
        job->thread.join();
        return true;
    });
}

JobId JobTracker::submit(const QString& kind, const QString& title, Work work,
                         Supersede supersede) {
    joinReturned();
    if (supersede == Supersede::Yes) {
        std::vector<JobId> older; // ids first: a slot of cancelled() may submit another job
        for (const auto& job : jobs_)
            if (job->current && job->kind == kind) older.push_back(job->id);
        for (JobId id : older) cancel(id);
    }
    auto job = std::make_unique<Job>();
    job->id = ++next_;
    job->kind = kind;
    job->title = title;
    job->cancel = std::make_shared<std::atomic<bool>>(false);
    job->returned = std::make_shared<std::atomic<bool>>(false);
    const JobContext context(this, job->id, job->cancel);
    job->thread = std::thread([this, context, work = std::move(work), returned = job->returned] {
        // A job's work, and the threads it starts, are throughput threads: the GUI thread gets
        // most of a core they share when it has work (platform.h).
        platform::setThreadRole(platform::ThreadRole::Throughput);
        Result result;
        QString error;
        try {
            result = work(context);
        } catch (const std::exception& e) {
            error = firstLine(e.what());
            if (error.isEmpty()) error = QStringLiteral("unknown error");
        } catch (...) {
            error = QStringLiteral("unknown error");
        }
        QMetaObject::invokeMethod(
            this,
            [this, id = context.id(), result = std::move(result), error] {
                deliver(id, result, error);
            },
            Qt::QueuedConnection);
        *returned = true;
    });
    const JobId id = job->id;
    jobs_.push_back(std::move(job));
    emit started(id, kind, title);
    emit changed();
    return id;
}

void JobTracker::deliver(JobId id, Result result, const QString& error) {
    Job* job = find(id);
    if (!job) return;
    if (!job->current) { // cancelled or superseded: its result is dropped
        const bool cancelledNow = job->cancelled;
        job->cancelled = false;
        joinReturned();
        if (!cancelledNow) return;
        emit cancelled(id);
        emit ended(id);
        return;
    }
    job->current = false;
    QString failure = error;
    if (failure.isEmpty() && result) try {
            result();
        } catch (const std::exception& e) {
            failure = firstLine(e.what());
        }
    if (failure.isEmpty())
        emit finished(id);
    else
        emit failed(id, failure);
    emit ended(id);
    emit changed();
    joinReturned();
}

void JobTracker::reportProgress(JobId id, const QString& text, qint64 done, qint64 total) {
    Job* job = find(id);
    if (!job || !job->current) return;
    job->text = text;
    job->done = done;
    job->total = total;
    emit progress(id, text, done, total);
    emit changed();
}

void JobTracker::cancel(JobId id) {
    Job* job = find(id);
    if (!job || !job->current) return;
    job->current = false;
    job->cancelled = true;
    *job->cancel = true;
    emit changed();
}

void JobTracker::cancelAll() {
    std::vector<JobId> ids;
    for (const auto& job : jobs_)
        if (job->current) ids.push_back(job->id);
    for (JobId id : ids) cancel(id);
}

bool JobTracker::busy(const QString& kind) const {
    for (const auto& job : jobs_)
        if (job->current && job->kind == kind) return true;
    return false;
}

bool JobTracker::current(JobId id) const {
    const Job* job = find(id);
    return job && job->current;
}

std::vector<JobTracker::Running> JobTracker::running() const {
    std::vector<Running> list;
    for (const auto& job : jobs_)
        if (job->current)
            list.push_back({job->id, job->kind, job->title, job->text, job->done, job->total});
    return list;
}

} // namespace ls::gui
