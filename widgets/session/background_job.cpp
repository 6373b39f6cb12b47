#include "widgets/session/background_job.h"

#include <QMetaObject>
#include <exception>

namespace ls::gui {

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {}

BackgroundJob::~BackgroundJob() {
    ++job_; // results still queued are dropped with this object's events
    for (auto& w : workers_) w.thread.join();
}

void BackgroundJob::run(std::function<Done()> work) {
    std::erase_if(workers_, [](Worker& w) {
        if (!w.done->load()) return false;
        w.thread.join(); // past its last statement
        return true;
    });
    const quint64 job = ++job_;
    busy_ = true;
    Worker w;
    w.thread = std::thread([this, job, work = std::move(work), done = w.done] {
        // At the window's own priority: the user waits for it (as for a load,
        // widgets/session/trace_loader.cpp).
        Done result;
        QString error;
        try {
            result = work();
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        } catch (...) {
            error = QStringLiteral("unknown error");
        }
        // Queued to this object: delivered on the GUI thread, dropped if it is destroyed first.
        QMetaObject::invokeMethod(
            this,
            [this, job, result = std::move(result), error] {
                if (job != job_) return; // superseded or cancelled
                busy_ = false;
                if (!error.isEmpty()) {
                    emit failed(error);
                    return;
                }
                if (result) result();
                emit finished();
            },
            Qt::QueuedConnection);
        *done = true;
    });
    workers_.push_back(std::move(w));
}

void BackgroundJob::cancel() {
    ++job_;
    busy_ = false;
}

} // namespace ls::gui
