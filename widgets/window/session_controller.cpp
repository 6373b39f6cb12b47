#include "widgets/window/session_controller.h"

#include "core/cache/trace_cache.h"
#include "core/load/model_pool.h"
#include "core/prepared/view_file.h"
#include "core/present/step_timing.h"
#include "widgets/page/trace_page.h"
#include "widgets/session/background_job.h"
#include "widgets/session/job_tracker.h"
#include "widgets/session/load_settings.h"
#include "widgets/session/trace_loader.h"

#include <QFileInfo>
#include <QTimer>
#include <QWidget>
#include <chrono>

namespace ls::gui {
namespace {
// Between stages: a real timer, not 0 ms, whose posted calls Qt runs back to back before any
// input or paint event.
constexpr int kStepGapMs = 1;

// A rank's views kept with its model in the session's ModelPool, so that going back to a rank
// shows it at once (the views are a small part of the model's bytes, and go when it goes). Kept
// without their `ranks`, which own the pool (no cycle); the session's analysis is put back when
// they are shown.
struct KeptRank {
    std::shared_ptr<const TraceViews> visible, complete;
};

std::shared_ptr<const TraceViews> withRanks(const TraceViews& views,
                                            std::shared_ptr<const RankAnalysis> ranks) {
    auto copy = std::make_shared<TraceViews>(views); // shares every view, copies pointers
    copy->ranks = std::move(ranks);
    return copy;
}

bool sameOrder(const KernelOrder& a, const KernelOrder& b) {
    return a.column == b.column && (a.column < 0 || a.descending == b.descending);
}
} // namespace

SessionController::SessionController(QWidget* paintGate, QObject* parent)
    : QObject(parent), loader_(new TraceLoader(this)), rankJob_(new BackgroundJob(this)),
      paintGate_(paintGate) {
    connect(loader_, &TraceLoader::loaded, this,
            [this](std::shared_ptr<const TraceViews> loaded) { show(std::move(loaded), true); });
    connect(loader_, &TraceLoader::completed, this, &SessionController::complete);
    connect(loader_, &TraceLoader::partlyFailed, this, &SessionController::setNotOpened);
    connect(rankJob_, &BackgroundJob::failed, this, &SessionController::rankWorkFailed);
    connect(rankJob_, &BackgroundJob::progress, this, &SessionController::rankProgress);
}

void SessionController::open(const QStringList& paths, KernelOrder order) {
    ++rankRequest_;
    keptPending_ = false;
    rankJob_->cancel(); // a rank of the session being replaced
    loader_->setKernelOrder(order);
    loader_->start(paths);
}

void SessionController::cancelLoad() { loader_->cancel(); }

void SessionController::prepareTrace(uint32_t trace, KernelOrder order,
                                     std::function<void(std::shared_ptr<const TraceViews>)> ready) {
    const auto ranks = ranks_;
    const uint64_t request = ++rankRequest_; // a kept rank's views posted before are superseded
    keptPending_ = false;
    if (ranks && ranks->fromSummaries()) {
        const ModelPool::HeldModel held = ranks->models->held(trace);
        if (const auto* kept = static_cast<const KeptRank*>(held.attached.get());
            kept && sameOrder(kept->visible->kernelOrder, order)) {
            rankJob_->cancel(); // a rank asked for before
            auto visible = withRanks(*kept->visible, ranks);
            auto complete = withRanks(*kept->complete, ranks);
            // Shown in the next turn, as a prepared rank is: the caller's state is set first.
            keptPending_ = true;
            QTimer::singleShot(0, this, [this, request, ranks, visible, complete, ready] {
                if (request != rankRequest_ || ranks_ != ranks) return;
                keptPending_ = false;
                ready(visible);
                this->complete(complete);
            });
            return;
        }
        rankJob_->runWithContext([this, ranks, trace, order, ready = std::move(ready)](
                                     const JobContext& ctx) -> BackgroundJob::Done {
            LoadOptions options = loadOptionsFromSettings();
            options.cancel = ctx.cancelFlag();
            const QString file =
                QFileInfo(QString::fromStdString(ranks->models->fileOf(trace))).fileName();
            // A few updates a second at most (a load reports per chunk).
            options.progress = [ctx, file,
                                last = std::make_shared<std::chrono::steady_clock::time_point>()](
                                   const LoadProgress& p) {
                const auto now = std::chrono::steady_clock::now();
                if (p.rowsRead < p.rowsTotal && now - *last < std::chrono::milliseconds(60)) return;
                *last = now;
                ctx.progress(QStringLiteral("Loading %1: %2")
                                 .arg(file)
                                 .arg(QString::fromUtf8(p.table.data(),
                                                        static_cast<qsizetype>(p.table.size()))),
                             static_cast<qint64>(p.rowsRead), static_cast<qint64>(p.rowsTotal));
            };
            ctx.progress(QStringLiteral("Loading %1").arg(file));
            // The file's state before the load names its views in the view cache, as for a file
            // opened alone (TraceLoader): a rank seen before and reopened from the model cache
            // gets its table, tree and timeline from there instead of building them again.
            const std::string path = ranks->models->fileOf(trace);
            const std::string identity =
                options.cacheDir.empty() || closeLoadParts(options.parts) != kLoadEverything
                    ? std::string()
                    : traceFileIdentity(path);
            ModelPool::Model model;
            {
                const StepTiming step("prepare: the rank's model");
                model = ranks->models->acquire(trace, options);
            }
            if (!model.trace) {
                if (ctx.cancelled()) return {};
                return [this, ranks, why = QString::fromStdString(model.error)] {
                    if (ranks_ == ranks) emit rankUnavailable(why);
                };
            }
            // The table, tree and timeline first; the other tabs' rows follow (complete()).
            ctx.progress(QStringLiteral("Preparing %1").arg(file));
            const bool viewCacheable =
                !identity.empty() && !model.trace->ownedFiles && model.trace->sourcePath.empty();
            std::unique_ptr<CachedViews> cached;
            if (viewCacheable) {
                const StepTiming step("prepare: the rank's views from the view cache");
                cached = lookupViewCache(options.cacheDir, identity, *model.trace).views;
            }
            auto visible = prepareVisibleViews(ranks, trace, order, model.trace, std::move(cached));
            ctx.post([this, visible, ready] {
                if (!views_ || views_->ranks != visible->ranks) return;
                ready(visible);
            });
            auto complete = completeViews(visible);
            ranks->models->attach(trace, model.trace.get(),
                                  std::make_shared<const KeptRank>(
                                      KeptRank{withRanks(*visible, {}), withRanks(*complete, {})}));
            ctx.post([this, complete] { this->complete(complete); });
            // Kept for the next visit after the model has left the pool; only when the file is as
            // it was before the load. No views kept is only a slower visit.
            if (viewCacheable && !visible->viewsFromCache && traceFileIdentity(path) == identity)
                try {
                    (void)storeViewCache(options.cacheDir, identity, *model.trace,
                                         viewsOf(*visible), options.cacheCapBytes);
                } catch (const std::exception&) {
                }
            return {};
        });
        return;
    }
    rankJob_->run([this, ranks, trace, order, ready = std::move(ready)]() -> BackgroundJob::Done {
        auto prepared = prepareTraceViews(ranks, trace, order);
        return [this, prepared = std::move(prepared), ready] {
            if (!views_ || views_->ranks != prepared->ranks)
                return; // another file was opened meanwhile
            ready(prepared);
        };
    });
}

void SessionController::prepareAllRanks(
    std::function<void(std::shared_ptr<const AllRanksView>)> ready) {
    ++rankRequest_;
    keptPending_ = false;
    if (allRanks_) {
        rankJob_->cancel(); // a rank switch asked for before
        return ready(allRanks_);
    }
    const auto analysis = ranks_;
    rankJob_->run([this, analysis, ready = std::move(ready)]() -> BackgroundJob::Done {
        auto built = ls::prepareAllRanks(*analysis);
        return [this, analysis, built = std::move(built), ready] {
            if (ranks_ != analysis) return; // another session opened meanwhile
            allRanks_ = built;
            ready(allRanks_);
        };
    });
}

void SessionController::cancelRankWork() {
    rankJob_->cancel();
    ++rankRequest_;
    keptPending_ = false;
}

bool SessionController::rankWorkPending() const { return rankJob_->busy() || keptPending_; }

void SessionController::addPage(TracePage* page) { pages_.push_back(page); }

void SessionController::show(std::shared_ptr<const TraceViews> views, bool deferPanes) {
    // A new session's allShown still to come (its pages pending when another rank of it came, as
    // a session of summaries' first rank does) comes after this one's pages instead.
    const bool allShownOwed = allShownDue_ || allShownQueued_;
    allShownQueued_ = false;
    steps_.clear(); // a previous trace's pages still pending: this one's replace them
    reportPending_ = false;
    completeWaiting_.reset();
    notOpened_.clear(); // a load's list comes after its views (TraceLoader::partlyFailed)
    views_ = std::move(views);
    const bool newSession = views_->ranks != ranks_;
    const bool owesAllShown = newSession || allShownOwed;
    if (newSession) allRanks_.reset();
    ranks_ = views_->ranks;
    emit visibleDue(newSession);
    const bool wasComplete = views_->complete;
    if (!deferPanes) {
        if (paintGate_) paintGate_->setUpdatesEnabled(true); // a deferred paint pending: now
        allShownDue_ = owesAllShown;
        return showReport(newSession, wasComplete, false);
    }
    // The table's and tree's paint come first (a posted paint comes before a timer), then the
    // held-back paint with the report. The views are set, so a click meanwhile reaches them.
    if (paintGate_) paintGate_->setUpdatesEnabled(false);
    allShownDue_ = owesAllShown; // set now: the pages may be queued before that turn
    reportPending_ = true;
    QTimer::singleShot(kStepGapMs, this, [this, shown = views_, newSession, wasComplete] {
        if (paintGate_) paintGate_->setUpdatesEnabled(true); // whatever is shown now
        if (!views_ || views_->trace != shown->trace || views_->ranks != shown->ranks)
            return; // another one shown since
        reportPending_ = false;
        showReport(newSession, wasComplete, true);
        if (auto waiting = std::move(completeWaiting_)) complete(std::move(waiting));
    });
}

void SessionController::showReport(bool newSession, bool wasComplete, bool deferPanes) {
    emit reportDue(newSession);
    flushNotOpened();
    if (newSession) emit firstShown();
    if (wasComplete) queuePageSteps(deferPanes);
}

void SessionController::setNotOpened(const QStringList& lines) {
    notOpened_ = lines;
    if (!reportPending_) flushNotOpened(); // else with the report, which comes later
}

void SessionController::flushNotOpened() {
    if (notOpened_.isEmpty()) return;
    const QStringList lines = std::move(notOpened_);
    notOpened_.clear();
    emit notOpenedDue(lines);
}

void SessionController::complete(std::shared_ptr<const TraceViews> complete) {
    if (!views_ || views_->complete || complete->trace != views_->trace ||
        complete->ranks != views_->ranks)
        return;
    if (reportPending_) {
        completeWaiting_ = std::move(complete);
        return;
    }
    views_ = std::move(complete);
    queuePageSteps(true);
}

void SessionController::queuePageSteps(bool defer) {
    for (TracePage* page : pages_)
        for (auto& step : page->showSteps(views_)) steps_.push_back(std::move(step));
    if (allShownDue_) {
        steps_.push_back([this] {
            allShownQueued_ = false;
            emit allShown();
        });
        allShownQueued_ = true;
    }
    allShownDue_ = false;
    if (defer)
        QTimer::singleShot(kStepGapMs, this, &SessionController::runStep);
    else
        while (!steps_.empty()) runStep();
}

void SessionController::runStep() {
    if (steps_.empty()) return;
    const auto step = std::move(steps_.front());
    steps_.erase(steps_.begin());
    step();
    if (!steps_.empty()) QTimer::singleShot(kStepGapMs, this, &SessionController::runStep);
}

} // namespace ls::gui
