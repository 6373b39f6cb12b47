#pragma once
// The work behind the Compare tab, off the GUI thread: opening the second run (load B, build its
// timeline rows, find both sides' iterations, compute the first diff) and every later diff of the
// same pair (another level, a drill-down, per sample). Each request has a job id; a result that a
// newer request superseded is dropped, as TraceLoader does.
#include "core/compare/run_diff.h"
#include "core/present/timeline_data.h"
#include "core/pytorch/iterations.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

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

class CompareLoader : public QObject {
    Q_OBJECT
  public:
    explicit CompareLoader(QObject* parent = nullptr);
    ~CompareLoader() override;

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
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
    };
    void launch(std::function<void()> work);

    std::vector<Worker> workers_; // joined once done, or on destruction
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::atomic<quint64> loadJob_{0}, diffJob_{0};
    bool loading_ = false, diffing_ = false;
};

} // namespace ls::gui
