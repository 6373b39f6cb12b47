#pragma once
// One kind of work the window does off the GUI thread after a load (preparing another rank's
// trace, every rank's table and tree), so that the window keeps painting meanwhile. Each run()
// supersedes the one before it: a superseded or cancelled run's result never reaches the GUI.
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace ls::gui {

class BackgroundJob : public QObject {
    Q_OBJECT
  public:
    using Done = std::function<void()>; // what the work hands back, run on the GUI thread
    explicit BackgroundJob(QObject* parent = nullptr);
    ~BackgroundJob() override; // waits for work still running: it holds what it reads

    void run(std::function<Done()> work);
    void cancel();
    bool busy() const { return busy_; }

  signals:
    void finished();                  // the latest run's result has been applied
    void failed(const QString& what); // the latest run threw

  private:
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
    };
    std::vector<Worker> workers_;
    quint64 job_ = 0; // GUI thread only: the run whose result is wanted
    bool busy_ = false;
};

} // namespace ls::gui
