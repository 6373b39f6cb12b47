#include "widgets/session/settings_writer.h"

#include <QSettings>
#include <utility>

namespace ls::gui {

SettingsWriter::SettingsWriter(Write write) : write_(std::move(write)) {
    if (!write_)
        write_ = [](const QVariantMap& values) {
            QSettings settings; // its own instance: QSettings objects are not shared by threads
            for (auto it = values.begin(); it != values.end(); ++it)
                settings.setValue(it.key(), it.value());
        }; // synced when it goes
}

SettingsWriter::~SettingsWriter() {
    if (thread_.joinable()) thread_.join(); // it writes what is pending, then ends
}

void SettingsWriter::write(const QVariantMap& values) {
    std::lock_guard lock(mutex_);
    for (auto it = values.begin(); it != values.end(); ++it) pending_.insert(it.key(), it.value());
    if (running_) return; // the running thread takes them after its write
    // A thread only while there is something to write: a window holds no idle thread (the load
    // tests count the process's threads). The last one has ended or is returning.
    if (thread_.joinable()) thread_.join();
    running_ = true;
    thread_ = std::thread([this] { run(); });
}

void SettingsWriter::waitUntilWritten() {
    std::unique_lock lock(mutex_);
    written_.wait(lock, [this] { return !running_; });
}

void SettingsWriter::run() {
    std::unique_lock lock(mutex_);
    while (!pending_.isEmpty()) {
        const QVariantMap values = std::exchange(pending_, {});
        lock.unlock();
        write_(values);
        lock.lock();
    }
    running_ = false;
    written_.notify_all();
}

} // namespace ls::gui
