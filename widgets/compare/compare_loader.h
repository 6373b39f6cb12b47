#pragma once
// The work behind the Compare tab, off the GUI thread: opening the second run (load B, build its
// timeline rows, find both sides' iterations, compute the first diff) and every later diff of the
// same pair (another level, a drill-down, per sample). Each request is a job of the window's
// JobTracker (kinds "compare" and "diff"); a result that a newer request superseded is dropped, as
// TraceLoader does.
#include "core/compare/run_diff.h"
#include "core/present/timeline_data.h"
#include "core/pytorch/iterations.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>

namespace ls::gui {

// The two runs of a comparison and what the tab draws of them, built once per pair.
struct ComparePair {
    DiffSide a, b;
    std::shared_ptr<const TimelineData> timelineA, timelineB;
    std::vector<IterationSpan> iterationsA, iterationsB;
    QString pathA, pathB;
};

// One computed diff: the pair, the options it was asked with and what diffRuns returned.
struct CompareResult {
    std::shared_ptr<const ComparePair> pair;
    DiffOptions options;
    DiffResult diff;
    double seconds = 0; // diffRuns' time
};

class JobTracker;

class CompareLoader : public QObject {
    Q_OBJECT
  public:
    // The tracker: `tracker`, else JobTracker::nearest(this) at the first request (the window's).
    explicit CompareLoader(QObject* parent = nullptr, JobTracker* tracker = nullptr);
    ~CompareLoader() override; // cancels its jobs; the tracker joins them

    // A: the open trace and its timeline rows (built when it was opened); B: the file at pathB.
    void open(std::shared_ptr<const Trace> a, std::shared_ptr<const TimelineData> timelineA,
              const QString& pathA, const QString& pathB, const DiffOptions& options);
    // Another diff of a pair that is open.
    void diff(std::shared_ptr<const ComparePair> pair, const DiffOptions& options);
    // Stops the load of B (the tab keeps what it showed) and drops pending diffs.
    void cancel();
    bool loading() const { return loading_; }
    bool diffing() const { return diffing_; }

  signals:
    void progress(const QString& message);
    // A new pair and its first diff.
    void opened(std::shared_ptr<const ls::gui::CompareResult> result);
    // Another diff of an open pair.
    void diffed(std::shared_ptr<const ls::gui::CompareResult> result);
    void failed(const QString& path, const QString& reason);
    void cancelled();

  private:
    JobTracker* tracker();

    QPointer<JobTracker> tracker_;
    quint64 loadJob_ = 0, diffJob_ = 0; // the tracker's ids of the latest requests
    QString openPath_, diffPath_;       // B's file of each: what failed() names
    bool loading_ = false, diffing_ = false;
};

} // namespace ls::gui
