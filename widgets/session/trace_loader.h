#pragma once
// Loads a trace off the GUI thread, as a job of the window's JobTracker (kind "load"): each start()
// is a job that supersedes the one before; results of a job that was cancelled or superseded are
// dropped. A load that writes the model cache adds a "model-cache" job that ends with the write.
#include "core/load/load.h"
#include "core/model/session.h"
#include "core/present/load_overview.h"
#include "core/present/trace_views.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace ls::gui {

class JobContext;
class JobTracker;

class TraceLoader : public QObject {
    Q_OBJECT
  public:
    // The tracker: `tracker`, else JobTracker::nearest(this) at the first start (the window's).
    explicit TraceLoader(QObject* parent = nullptr, JobTracker* tracker = nullptr);
    ~TraceLoader() override; // cancels its load; the tracker joins its thread

    void start(const QString& path) { start(QStringList{path}); }
    // Several files, or folders of them, open as one session (the ranks of one job).
    void start(const QStringList& paths);
    void cancel(); // the load in progress, until its table is shown
    // The kernel table's order, for the next start(): the rows are sorted on the loader thread.
    void setKernelOrder(KernelOrder order) { order_ = order; }
    // The next start()'s thread does nothing until `gate` is ready (or its promise is gone): the
    // window lays out and paints its loading page first, on cores the load does not yet want.
    void holdNextStartUntil(std::shared_future<void> gate) { startGate_ = std::move(gate); }
    bool busy() const { return busy_; }
    // The kernels the latest start() has read so far (one Nsight Systems export; null for other
    // loads): the window draws them while the rest loads.
    std::shared_ptr<const LoadOverview> overview() const { return overview_; }
    // Tests: called on a reading thread after each batch of kernels reaches overview(), with the
    // count so far; a hook that blocks holds the load there (the other reading thread finishes
    // its rows, then waits too). For the next start().
    void setKernelsHook(std::function<void(uint64_t kernels)> hook) {
        kernelsHook_ = std::move(hook);
    }

  signals:
    // done and total count rows, or the file's bytes when inBytes (JSON traces).
    void progress(qint64 rowsRead, qint64 rowsTotal, const QString& table, bool inBytes = false);
    // First the table, tree and timeline (session->complete false), then the same session with
    // the other tabs' rows (completed; a superseded or cancelled load sends neither).
    void loaded(std::shared_ptr<const ls::TraceViews> session);
    void completed(std::shared_ptr<const ls::TraceViews> session);
    void failed(const QString& path, const QString& reason);
    // Some files of a session could not be read; the others opened ("FILE: REASON" each).
    void partlyFailed(const QStringList& lines);
    // A session of several files: how many have finished loading.
    void filesProgress(int done, int total);
    void cancelled();

  private:
    static std::function<void()> openFromSummaries(const JobContext& ctx,
                                                   QPointer<TraceLoader> self,
                                                   const std::vector<std::string>& files,
                                                   const std::vector<SessionFailure>& missing,
                                                   const LoadOptions& options, KernelOrder order);
    JobTracker* tracker();
    void useTracker(JobTracker* tracker);

    QPointer<JobTracker> tracker_;
    quint64 job_ = 0;        // the tracker's id of the latest start()
    quint64 cancelling_ = 0; // job_ once cancel() has asked the tracker
    bool busy_ = false;
    KernelOrder order_;
    std::shared_ptr<LoadOverview> overview_;
    std::shared_future<void> startGate_; // for the next start()
    std::function<void(uint64_t)> kernelsHook_;
};

} // namespace ls::gui
