#include "widgets/compare/compare_loader.h"

#include "core/load/load.h"
#include "widgets/session/load_settings.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QSettings>
#include <chrono>
#include <exception>

namespace ls::gui {
namespace {

std::shared_ptr<const CompareResult> computeDiff(std::shared_ptr<const ComparePair> pair,
                                                 const DiffOptions& options) {
    auto r = std::make_shared<CompareResult>();
    const auto t0 = std::chrono::steady_clock::now();
    r->diff = diffRuns(pair->a, pair->b, options);
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r->options = options;
    r->pair = std::move(pair);
    return r;
}

} // namespace

CompareLoader::CompareLoader(QObject* parent) : QObject(parent) {}

CompareLoader::~CompareLoader() {
    // A cancelled load stops between chunks and phases; a diff is short. No signal now: the tab
    // that listens is going too.
    if (cancel_) *cancel_ = true;
    ++loadJob_;
    ++diffJob_;
    for (auto& w : workers_) w.thread.join();
}

void CompareLoader::launch(std::function<void()> work) {
    std::erase_if(workers_, [](Worker& w) {
        if (!w.done->load()) return false;
        w.thread.join(); // past its last statement
        return true;
    });
    Worker w;
    w.thread = std::thread([work = std::move(work), done = w.done] {
        // At the window's own priority: the user waits for the comparison, and a lower one would
        // yield to every other process too (widgets/session/trace_loader.cpp says what that cost).
        work();
        *done = true;
    });
    workers_.push_back(std::move(w));
}

void CompareLoader::cancel() {
    if (cancel_) *cancel_ = true;
    ++diffJob_;
    if (loading_) {
        ++loadJob_;
        loading_ = false;
        emit cancelled();
    }
    diffing_ = false;
}

void CompareLoader::open(std::shared_ptr<const Trace> a,
                         std::shared_ptr<const TimelineData> timelineA, const QString& pathA,
                         const QString& pathB, const DiffOptions& options) {
    if (cancel_) *cancel_ = true; // the superseded load stops; its result is dropped by the job id
    const quint64 job = ++loadJob_;
    ++diffJob_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    loading_ = true;
    diffing_ = false;
    const LoadOptions fromSettings = loadOptionsFromSettings(); // nsys for reports, the model cache
    const QString nameB = QFileInfo(pathB).fileName();
    launch([this, job, flag = cancel_, a = std::move(a), timelineA = std::move(timelineA), pathA,
            pathB, nameB, options, fromSettings] {
        const auto post = [this, job](std::function<void(CompareLoader&)> f) {
            QMetaObject::invokeMethod(
                this,
                [this, job, f = std::move(f)] {
                    if (loadJob_ == job) f(*this);
                },
                Qt::QueuedConnection);
        };
        const auto fail = [post, pathB](const QString& reason) {
            post([pathB, reason](CompareLoader& self) {
                self.loading_ = false;
                emit self.failed(pathB, reason);
            });
        };
        try {
            LoadOptions load = fromSettings;
            load.cancel = flag.get();
            load.progress = [post, nameB](const LoadProgress& p) {
                const int percent =
                    p.rowsTotal ? static_cast<int>(100 * p.rowsRead / p.rowsTotal) : 0;
                const QString table =
                    QString::fromUtf8(p.table.data(), static_cast<qsizetype>(p.table.size()));
                post([nameB, table, percent](CompareLoader& self) {
                    emit self.progress(QStringLiteral("Compare: reading %1 of %2 (%3 %)…")
                                           .arg(table, nameB)
                                           .arg(percent));
                });
            };
            LoadResult loaded = loadTrace(pathB.toStdString(), load);
            if (*flag) return; // cancel() has told the tab already
            if (!loaded.ok())
                return fail(QString::fromStdString(
                    loaded.error ? loaded.error->reason : std::string("could not be read")));
            post([nameB](CompareLoader& self) {
                emit self.progress(
                    QStringLiteral("Compare: aligning the runs with %1…").arg(nameB));
            });
            auto pair = std::make_shared<ComparePair>();
            pair->a.trace = a;
            pair->a.label = "A: " + QFileInfo(pathA).fileName().toStdString();
            pair->b.trace = loaded.trace;
            pair->b.label = "B: " + nameB.toStdString();
            pair->timelineA = timelineA ? timelineA : buildTimelineData(a);
            pair->timelineB = buildTimelineData(loaded.trace);
            pair->iterationsA = findIterations(*a);
            pair->iterationsB = findIterations(*loaded.trace);
            pair->pathA = pathA;
            pair->pathB = pathB;
            auto result = computeDiff(std::move(pair), options);
            post([result](CompareLoader& self) {
                self.loading_ = false;
                emit self.opened(result);
            });
        } catch (const std::exception& e) {
            fail(QString::fromUtf8(e.what()));
        }
    });
}

void CompareLoader::diff(std::shared_ptr<const ComparePair> pair, const DiffOptions& options) {
    if (!pair) return;
    const quint64 job = ++diffJob_;
    diffing_ = true;
    launch([this, job, pair = std::move(pair), options] {
        std::shared_ptr<const CompareResult> result;
        QString error;
        try {
            result = computeDiff(pair, options);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, job, result, error, path = pair->pathB] {
                if (diffJob_ != job) return;
                diffing_ = false;
                if (result)
                    emit diffed(result);
                else
                    emit failed(path, error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace ls::gui
