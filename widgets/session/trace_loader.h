#pragma once
// Loads a trace off the GUI thread. Each start() gets a job id; results of a job that was
// cancelled or superseded are dropped (hotspot's job tracker is the model).
#include "core/load/load.h"
#include "core/present/trace_views.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace ls::gui {

class TraceLoader : public QObject {
    Q_OBJECT
  public:
    explicit TraceLoader(QObject* parent = nullptr);
    ~TraceLoader() override;

    void start(const QString& path) { start(QStringList{path}); }
    // Several files, or folders of them, open as one session (the ranks of one job).
    void start(const QStringList& paths);
    void cancel(); // the load in progress, until its table is shown
    // The kernel table's order, for the next start(): the rows are sorted on the loader thread.
    void setKernelOrder(KernelOrder order) { order_ = order; }
    bool busy() const { return busy_; }

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
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done =
            std::make_shared<std::atomic<bool>>(false); // set as it returns
    };
    void joinFinishedRetired();
    void stop(); // the worker, whatever it is doing (a new load, the loader's end)

    Worker worker_;
    std::vector<Worker>
        retired_; // superseded loads, cancelled; joined once done, or on destruction
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::atomic<quint64> job_{0};
    bool busy_ = false;
    KernelOrder order_;
};

} // namespace ls::gui
