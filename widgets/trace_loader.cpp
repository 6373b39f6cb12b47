#include "widgets/trace_loader.h"

#include <QMetaObject>
#include <QPointer>

namespace ls::gui {

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::shared_ptr<const ls::gui::TraceSession>>("std::shared_ptr<const ls::gui::TraceSession>");
}

TraceLoader::~TraceLoader() {
    cancel(); // a cancelled load stops between chunks and phases, so this join is short
    if (worker_.thread.joinable()) worker_.thread.join();
    for (auto& w : retired_) w.thread.join();
}

// A long session opens many files: threads of superseded loads that have returned are joined
// (at once: they are past their last statement) instead of piling up until the window closes.
void TraceLoader::joinFinishedRetired() {
    std::erase_if(retired_, [](Worker& w) {
        if (!w.done->load()) return false;
        w.thread.join();
        return true;
    });
}

void TraceLoader::cancel() {
    if (cancel_) *cancel_ = true;
}

void TraceLoader::start(const QString& path) {
    // The superseded load is cancelled and left to finish on its own: joining it here would
    // freeze the window; its result is dropped by the job id.
    cancel();
    if (worker_.thread.joinable()) retired_.push_back(std::move(worker_));
    joinFinishedRetired();
    worker_ = Worker();
    const quint64 job = ++job_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    busy_ = true;
    QPointer<TraceLoader> self(this);
    auto flag = cancel_;
    worker_.thread = std::thread([this, self, job, flag, path, finished = worker_.done] {
        LoadOptions options;
        options.cancel = flag.get();
        options.progress = [this, self, job](const LoadProgress& p) {
            const QString table = QString::fromUtf8(p.table.data(), static_cast<qsizetype>(p.table.size()));
            const auto done = static_cast<qint64>(p.rowsRead), total = static_cast<qint64>(p.rowsTotal);
            const bool inBytes = p.inBytes;
            QMetaObject::invokeMethod(this, [self, job, done, total, table, inBytes] {
                if (self && self->job_ == job) emit self->progress(done, total, table, inBytes);
            }, Qt::QueuedConnection);
        };
        LoadResult result = loadTrace(path.toStdString(), options);
        std::shared_ptr<const TraceSession> session;
        if (result.ok() && !*flag) session = prepareSession(result.trace);
        QMetaObject::invokeMethod(this, [self, job, path, result = std::move(result), session] {
            if (!self || self->job_ != job) return;
            self->busy_ = false;
            if (session) emit self->loaded(session);
            else if (result.ok() || result.error->kind == LoadErrorKind::Cancelled) emit self->cancelled();
            else emit self->failed(path, QString::fromStdString(result.error->reason));
        }, Qt::QueuedConnection);
        *finished = true;
    });
}

} // namespace ls::gui
