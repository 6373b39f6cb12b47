#pragma once
// Writes settings off the GUI thread. QSettings syncs its file to the disk (write, fsync, rename)
// when it is destroyed, and after an open, while a model cache or another program was writing,
// that took the GUI thread 111-241 ms for 3 ms of CPU. write() hands the values to a thread of
// the writer's own and returns; values given while it writes are merged (the later value of a
// key wins) and written next. The destructor waits for what is still to be written.
#include <QString>
#include <QVariantMap>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ls::gui {

class SettingsWriter {
  public:
    using Write = std::function<void(const QVariantMap&)>; // runs on the writer's thread
    // By default the values go to QSettings() (the application's settings).
    explicit SettingsWriter(Write write = {});
    ~SettingsWriter();
    SettingsWriter(const SettingsWriter&) = delete;
    SettingsWriter& operator=(const SettingsWriter&) = delete;

    void write(const QVariantMap& values);
    void waitUntilWritten(); // every value given so far is written

  private:
    void run();

    Write write_;
    std::mutex mutex_;
    std::condition_variable written_;
    QVariantMap pending_;
    bool running_ = false; // a thread is writing, or about to end
    std::thread thread_;   // one at a time, started by a write when none runs
};

} // namespace ls::gui
