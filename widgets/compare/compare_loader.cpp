#include "widgets/compare/compare_loader.h"

#include "core/load/load.h"
#include "widgets/session/job_tracker.h"
#include "widgets/session/load_settings.h"

#include <QFileInfo>
#include <QPointer>
#include <QSettings>
#include <chrono>
#include <stdexcept>

namespace ls::gui {
namespace {

const auto kOpenKind = QStringLiteral("compare");
const auto kDiffKind = QStringLiteral("diff");

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

CompareLoader::CompareLoader(QObject* parent, JobTracker* tracker)
    : QObject(parent), tracker_(tracker) {}

// A cancelled load stops between chunks and phases; a diff is short. No signal now: the tab that
// listens is going too.
CompareLoader::~CompareLoader() {
    if (!tracker_) return;
    tracker_->cancel(loadJob_);
    tracker_->cancel(diffJob_);
}

JobTracker* CompareLoader::tracker() {
    if (tracker_) return tracker_;
    tracker_ = JobTracker::nearest(this);
    // What failed: the open (B's file), or a diff (B's file too, the tab shows the reason).
    connect(tracker_, &JobTracker::failed, this, [this](quint64 id, const QString& reason) {
        if (id == loadJob_ && loading_) {
            loading_ = false;
            emit failed(openPath_, reason);
        } else if (id == diffJob_ && diffing_) {
            diffing_ = false;
            emit failed(diffPath_, reason);
        }
    });
    return tracker_;
}

void CompareLoader::cancel() {
    tracker()->cancel(diffJob_);
    diffing_ = false;
    if (loading_) {
        tracker()->cancel(loadJob_);
        loading_ = false;
        emit cancelled();
    }
}

void CompareLoader::open(std::shared_ptr<const Trace> a,
                         std::shared_ptr<const TimelineData> timelineA, const QString& pathA,
                         const QString& pathB, const DiffOptions& options) {
    // The superseded load stops (its token is set) and its result is dropped; so are the diffs
    // of the pair open until now.
    tracker()->cancel(diffJob_);
    diffing_ = false;
    loading_ = false; // the superseded open tells nothing
    openPath_ = pathB;
    const LoadOptions fromSettings = loadOptionsFromSettings(); // nsys for reports, the model cache
    const QString nameB = QFileInfo(pathB).fileName();
    QPointer<CompareLoader> self(this);
    loadJob_ = tracker()->submit(
        kOpenKind, QStringLiteral("Comparing with %1").arg(nameB),
        [self, a = std::move(a), timelineA = std::move(timelineA), pathA, pathB, nameB, options,
         fromSettings](const JobContext& ctx) -> JobTracker::Result {
            const auto say = [ctx, self](const QString& message) {
                ctx.post([self, message] {
                    if (self) emit self->progress(message);
                });
            };
            LoadOptions load = fromSettings;
            load.cancel = ctx.cancelFlag();
            load.progress = [ctx, say, nameB](const LoadProgress& p) {
                const int percent =
                    p.rowsTotal ? static_cast<int>(100 * p.rowsRead / p.rowsTotal) : 0;
                const QString table =
                    QString::fromUtf8(p.table.data(), static_cast<qsizetype>(p.table.size()));
                ctx.progress(QStringLiteral("Reading %1").arg(table),
                             static_cast<qint64>(p.rowsRead), static_cast<qint64>(p.rowsTotal));
                say(QStringLiteral("Compare: reading %1 of %2 (%3 %)…")
                        .arg(table, nameB)
                        .arg(percent));
            };
            LoadResult loaded = loadTrace(pathB.toStdString(), load);
            if (ctx.cancelled()) return {}; // cancel() has told the tab already
            if (!loaded.ok())
                throw std::runtime_error(loaded.error ? loaded.error->reason
                                                      : std::string("could not be read"));
            ctx.progress(QStringLiteral("Aligning the runs"));
            say(QStringLiteral("Compare: aligning the runs with %1…").arg(nameB));
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
            return [self, result] {
                if (!self) return;
                self->loading_ = false;
                emit self->opened(result);
            };
        });
    loading_ = true;
}

void CompareLoader::diff(std::shared_ptr<const ComparePair> pair, const DiffOptions& options) {
    if (!pair) return;
    diffing_ = false; // the superseded diff tells nothing
    diffPath_ = pair->pathB;
    QPointer<CompareLoader> self(this);
    diffJob_ = tracker()->submit(
        kDiffKind, QStringLiteral("Comparing the runs"),
        [self, pair = std::move(pair), options](const JobContext&) -> JobTracker::Result {
            auto result = computeDiff(pair, options);
            return [self, result] {
                if (!self) return;
                self->diffing_ = false;
                emit self->diffed(result);
            };
        });
    diffing_ = true;
}

} // namespace ls::gui
