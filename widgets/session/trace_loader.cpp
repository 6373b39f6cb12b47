#include "widgets/session/trace_loader.h"

#include "core/cache/trace_cache.h"
#include "core/job/job_session.h"
#include "core/load/session_load.h"
#include "core/model/platform.h"
#include "core/present/step_timing.h"
#include "core/present/summary_views.h"
#include "core/views/timeline_tracks.h"
#include "widgets/session/job_tracker.h"
#include "widgets/session/load_settings.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QSettings>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <utility>

namespace ls::gui {

namespace {
constexpr int64_t kProgressGapMs = 60;
const auto kLoadKind = QStringLiteral("load");
const auto kCacheKind = QStringLiteral("model-cache");

bool fromModelCache(const Trace& t) {
    return !t.loadPhases.empty() && t.loadPhases.front().first == "read model cache";
}

// Whether loadTrace started a model cache write for one of the session's files, loaded in full
// with a cache folder (core/load/loader.cpp: a file that is not a converted copy, not read from
// the cache). When a file changed during its load no write starts and the job ends at once.
bool cacheWriteStarted(const Session& s) {
    return std::any_of(s.traces.begin(), s.traces.end(), [](const SessionTrace& t) {
        return t.trace && !fromModelCache(*t.trace) && !t.trace->ownedFiles &&
               t.trace->sourcePath.empty();
    });
}

// The model cache's background writes as a job: the window can say so, and its tracker waits for
// them when it closes (core/cache/trace_cache.h has no cancel: a write takes a few seconds).
void trackCacheWrites(JobTracker& tracker) {
    tracker.submit(
        kCacheKind, QStringLiteral("Saving model cache…"),
        [](const JobContext&) -> JobTracker::Result {
            waitForCacheWrites();
            return {};
        },
        JobTracker::Supersede::No);
}

// Views of the one trace a load is correlating and pricing, each built on a thread of its own once
// the columns it reads are final: the timeline lanes after the import, the kernel table's NVTX
// paths and time order after the correlation.
struct EarlyBuilds {
    const Trace* trace = nullptr;
    std::future<TimelineTracks> tracks;
    std::future<std::pair<KernelPaths, std::optional<SortedKernels>>> table;

    EarlyViews take(const Trace* loaded) {
        EarlyViews views;
        if (!trace || loaded != trace) return views;
        if (tracks.valid()) try {
                views.tracks = tracks.get();
            } catch (const std::exception&) { // built again after the load
            }
        if (table.valid()) try {
                auto [paths, sorted] = table.get();
                views.paths = std::move(paths);
                views.sorted = std::move(sorted);
            } catch (const std::exception&) { // as above
            }
        return views;
    }
};
} // namespace

TraceLoader::TraceLoader(QObject* parent, JobTracker* tracker) : QObject(parent) {
    qRegisterMetaType<std::shared_ptr<const ls::TraceViews>>(
        "std::shared_ptr<const ls::TraceViews>");
    if (tracker) useTracker(tracker);
}

// A cancelled load stops between chunks and phases: the tracker's join (when it goes, with this
// loader or the window) is short.
TraceLoader::~TraceLoader() {
    if (tracker_) tracker_->cancel(job_);
}

JobTracker* TraceLoader::tracker() {
    if (!tracker_) useTracker(JobTracker::nearest(this));
    return tracker_;
}

// A cancelled load says so once its thread has stopped, unless another start() came since.
void TraceLoader::useTracker(JobTracker* tracker) {
    tracker_ = tracker;
    connect(tracker, &JobTracker::cancelled, this, [this](quint64 id) {
        if (id != cancelling_ || id != job_) return;
        cancelling_ = 0;
        busy_ = false;
        emit cancelled();
    });
}

// Once the table, tree and timeline are shown the load has ended for the user: Cancel no longer
// applies to it (the other tabs' rows still come).
void TraceLoader::cancel() {
    if (!busy_ || cancelling_ == job_) return;
    cancelling_ = job_;
    tracker()->cancel(job_);
}

// The summary path of start(): a job file read, or trace files summarised a few at a time, then
// the first shown rank's model (through the session's ModelPool) and its views, in the stages of a
// load (loaded, then completed).
JobTracker::Result TraceLoader::openFromSummaries(const JobContext& ctx, QPointer<TraceLoader> self,
                                                  const std::vector<std::string>& files,
                                                  const std::vector<SessionFailure>& missing,
                                                  const LoadOptions& options, KernelOrder order) {
    job::SummaryOpen open;
    if (files.size() == 1 && job::isJobFile(files.front())) {
        ctx.progress(QStringLiteral("Reading the job file"));
        const StepTiming step("prepare: read the job file");
        open = job::openJobSummaries(files.front());
    } else {
        job::SummariseOptions summarise;
        summarise.useCache = !options.cacheDir.empty();
        summarise.cacheDir = options.cacheDir;
        summarise.cancel = options.cancel;
        open = job::summariseSession(
            files, summarise, [ctx, self](size_t done, size_t total, const std::string&) {
                ctx.progress(QStringLiteral("Summarised %1 of %2 files").arg(done).arg(total),
                             static_cast<qint64>(done), static_cast<qint64>(total));
                ctx.post([self, done, total] {
                    if (self)
                        emit self->filesProgress(static_cast<int>(done), static_cast<int>(total));
                });
            });
    }
    QStringList failures;
    for (const auto& f : missing) failures << QString::fromStdString(f.file + ": " + f.reason);
    if (open.summaries)
        for (const auto& f : open.summaries->session.failed)
            failures << QString::fromStdString(f.file + ": " + f.reason);
    // Every rank on screen first; the shown rank's model follows as a rank switch (with its own
    // progress), so the Ranks tab does not wait for a load.
    SummaryViews prepared;
    if (!ctx.cancelled())
        prepared = prepareSummaryViews(open, memoryBudget(), options, order, false);
    const auto views = prepared.views;
    const QString path = QString::fromStdString(files.front()),
                  reason = QString::fromStdString(prepared.error);
    ctx.post([self, views, path, reason, failures] {
        if (!self) return;
        self->busy_ = false;
        if (views) {
            emit self->loaded(views);
            if (!failures.isEmpty()) emit self->partlyFailed(failures);
        } else if (reason.isEmpty()) {
            emit self->cancelled();
        } else {
            emit self->failed(path, reason);
        }
    });
    platform::lowerThreadPriority();
    if (views && !ctx.cancelled()) {
        ctx.progress(QStringLiteral("Preparing the other tabs"));
        auto complete = completeViews(views);
        ctx.post([self, complete] {
            if (self) emit self->completed(complete);
        });
    }
    return {};
}

void TraceLoader::start(const QStringList& paths) {
    // The superseded load is cancelled by the tracker and left to finish on its own: joining it
    // here would freeze the window; its results are dropped.
    busy_ = false;
    QPointer<TraceLoader> self(this);
    // The nsys for .nsys-rep reports and the model cache, from the settings
    // (widgets/session/load_settings.h).
    LoadOptions fromSettings = loadOptionsFromSettings();
    // One file's kernels as they are read, for the window to draw while the rest loads.
    const bool single = paths.size() == 1 && !QFileInfo(paths.front()).isDir();
    overview_ = single ? std::make_shared<LoadOverview>() : nullptr;
    if (overview_)
        fromSettings.kernelsRead = [overview = overview_,
                                    hook = kernelsHook_](std::span<const KernelSpan> kernels) {
            overview->add(kernels);
            if (hook) hook(overview->kernels());
        };
    const QString title =
        paths.size() == 1 ? QStringLiteral("Opening %1").arg(QFileInfo(paths.front()).fileName())
                          : QStringLiteral("Opening %1 files").arg(paths.size());
    job_ = tracker()->submit(
        kLoadKind, title,
        [self, paths, fromSettings, order = order_,
         gate = std::exchange(startGate_, {})](const JobContext& ctx) -> JobTracker::Result {
            if (gate.valid()) gate.wait();
            // The load and what the window shows first run as a job's throughput threads, under
            // the GUI thread (platform::setThreadRole); the other tabs' rows and the caches'
            // writes, which nobody waits for, go lower still (below). The model cache's write
            // waits until this thread is done preparing what the window shows (the promise is
            // set, or destroyed, when the job ends).
            std::promise<void> prepared;
            LoadOptions options = fromSettings;
            options.cacheWriteAfter = prepared.get_future().share();
            options.cancel = ctx.cancelFlag();
            // At most ~16 updates a second reach the window: each repaints the status bar on the
            // GUI thread, on the cores the load's threads are using (a million-kernel file reports
            // a few hundred chunks). Calls never overlap (LoadOptions::progress), so the time of
            // the last one needs no lock.
            options.progress = [ctx, self,
                                lastMs = std::make_shared<int64_t>(-1)](const LoadProgress& p) {
                const int64_t nowMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count();
                if (p.rowsRead < p.rowsTotal && *lastMs >= 0 && nowMs - *lastMs < kProgressGapMs)
                    return; // the last report always goes
                *lastMs = nowMs;
                const QString table =
                    QString::fromUtf8(p.table.data(), static_cast<qsizetype>(p.table.size()));
                const auto done = static_cast<qint64>(p.rowsRead),
                           total = static_cast<qint64>(p.rowsTotal);
                const bool inBytes = p.inBytes;
                ctx.progress(QStringLiteral("Reading %1").arg(table), done, total);
                ctx.post([self, done, total, table, inBytes] {
                    if (self) emit self->progress(done, total, table, inBytes);
                });
            };
            std::vector<std::string> files;
            for (const QString& p : paths) files.push_back(p.toStdString());
            // One file's views (tree, lanes, paths, iterations) come from the view cache when it
            // has them for the file's state before the load, as the model cache's do.
            const bool oneFile = files.size() == 1 && !QFileInfo(paths.front()).isDir() &&
                                 !options.cacheDir.empty() &&
                                 closeLoadParts(options.parts) == kLoadEverything;
            const std::string identity = oneFile ? traceFileIdentity(files.front()) : std::string();
            const std::string cacheDir = options.cacheDir;
            const bool cacheable =
                !cacheDir.empty() && closeLoadParts(options.parts) == kLoadEverything;
            const uint64_t cacheCap = options.cacheCapBytes;
            // One file: its timeline lanes are built while the load correlates and prices it (they
            // read only columns that are final after the import), and its table's paths and time
            // order while the load prices it, on the core the load's tail leaves idle, instead of
            // after the load.
            auto early = std::make_shared<EarlyBuilds>();
            if (files.size() == 1 && !QFileInfo(paths.front()).isDir()) {
                options.correlated = [early, order](const Trace& t) -> std::function<void()> {
                    try {
                        early->table = std::async(std::launch::async, [&t, order] {
                            const StepTiming step("early: table paths, order");
                            std::optional<SortedKernels> sorted;
                            const auto field = static_cast<KernelField>(order.column);
                            if (order.column >= 0 &&
                                static_cast<size_t>(order.column) < kKernelFieldCount &&
                                isKernelTimeField(field))
                                sorted =
                                    SortedKernels{order.column, order.descending,
                                                  kernelsInTimeOrder(t, field, order.descending)};
                            return std::make_pair(buildKernelPaths(t), std::move(sorted));
                        });
                    } catch (const std::exception&) { // no thread: built after the load
                        return {};
                    }
                    early->trace = &t;
                    return [early] { early->table.wait(); };
                };
                options.imported = [early](const Trace& t) -> std::function<void()> {
                    try {
                        early->tracks = std::async(std::launch::async, [&t] {
                            const StepTiming step("early: timeline lanes");
                            return buildTimelineTracks(t);
                        });
                    } catch (
                        const std::exception&) { // no thread: the lanes are built after the load
                        return {};
                    }
                    early->trace = &t;
                    return [early] { early->tracks.wait(); };
                };
            }
            // A job file, or a session of more ranks than the memory budget holds in full: every
            // rank from its summary, the first shown rank's model loaded.
            const bool several = files.size() > 1 || QFileInfo(paths.value(0)).isDir();
            if (files.size() == 1 && job::isJobFile(files.front()))
                return openFromSummaries(ctx, self, files, {}, options, order);
            if (several) {
                std::vector<SessionFailure> missing;
                const auto expanded = expandSessionInputs(files, missing);
                if (expanded.size() > 1 && job::summariesNeeded(expanded, memoryBudget()))
                    return openFromSummaries(ctx, self, expanded, missing, options, order);
            }
            SessionLoadOptions sessionOptions;
            sessionOptions.load = std::move(options);
            if (paths.size() > 1 || QFileInfo(paths.value(0)).isDir())
                sessionOptions.fileDone = [ctx, self](size_t done, size_t total,
                                                      const std::string&) {
                    ctx.progress(QStringLiteral("Loaded %1 of %2 files").arg(done).arg(total),
                                 static_cast<qint64>(done), static_cast<qint64>(total));
                    ctx.post([self, done, total] {
                        if (self)
                            emit self->filesProgress(static_cast<int>(done),
                                                     static_cast<int>(total));
                    });
                };
            Session loaded;
            {
                const StepTiming step("load");
                loaded = loadSession(files, sessionOptions);
            }
            // The write waits for `prepared`, set when this job ends: the tracker is told now.
            if (cacheable && cacheWriteStarted(loaded))
                ctx.postAlways([tracker = ctx.tracker()] { trackCacheWrites(*tracker); });
            QStringList failures;
            for (const auto& f : loaded.failed)
                failures << QString::fromStdString(f.file + ": " + f.reason);
            QString failedPath = paths.value(0), reason;
            if (!loaded.failed.empty()) {
                failedPath = QString::fromStdString(loaded.failed.front().file);
                reason = QString::fromStdString(loaded.failed.front().reason);
            }
            std::shared_ptr<const TraceViews> session;
            bool storeViews = false;
            if (!loaded.empty() && !ctx.cancelled()) {
                const uint32_t shown = loaded.ranks.empty() ? 0 : loaded.ranks.front().trace;
                std::unique_ptr<CachedViews> cached;
                // One file of one rank (a file of several GPUs shows a session's rows instead), not
                // a converted copy, and still in the state the identity names: the model is of it.
                if (!identity.empty() && loaded.traces.size() == 1 && loaded.ranks.size() <= 1) {
                    const Trace& t = *loaded.traces.front().trace;
                    storeViews = !t.ownedFiles && t.sourcePath.empty() &&
                                 traceFileIdentity(files.front()) == identity;
                    if (storeViews) cached = lookupViewCache(cacheDir, identity, t).views;
                }
                EarlyViews views = early->take(
                    loaded.traces.size() == 1 ? loaded.traces.front().trace.get() : nullptr);
                session = prepareVisibleViews(std::make_shared<const Session>(std::move(loaded)),
                                              shown, order, std::move(cached), std::move(views));
                storeViews = storeViews && !session->viewsFromCache;
            }
            // Dropped when the load was cancelled (cancel() has told the window) or superseded.
            ctx.post([self, failedPath, reason, failures, session] {
                if (!self) return;
                self->busy_ = false;
                if (session) {
                    emit self->loaded(session);
                    if (!failures.isEmpty()) emit self->partlyFailed(failures);
                } else if (reason.isEmpty()) { // nothing loaded and nothing failed
                    emit self->cancelled();
                } else {
                    emit self->failed(failedPath, reason);
                }
            });
            // What follows is for the other tabs and the next open: it yields the cores to the
            // window and to the views the user waits for, as the model cache's writer does
            // (core/cache/trace_cache.h).
            platform::lowerThreadPriority();
            if (session && !ctx.cancelled()) {
                ctx.progress(QStringLiteral("Preparing the other tabs"));
                auto complete = completeViews(session);
                ctx.post([self, complete] {
                    if (self) emit self->completed(complete);
                });
                // Only when the file is as it was before the load: views of another state are never
                // kept.
                if (storeViews && traceFileIdentity(files.front()) == identity) try {
                        // No views kept is only a slower reopen.
                        (void)storeViewCache(cacheDir, identity, *session->trace, viewsOf(*session),
                                             cacheCap);
                    } catch (const std::exception&) {
                    }
            }
            prepared.set_value();
            return {};
        });
    busy_ = true;
}

} // namespace ls::gui
