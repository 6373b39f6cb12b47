#pragma once
// Settings the window changes after an open (the recent files, the last folder) reach the disk
// on a thread of their own. QSettings writes its file, synced to the disk, when the object that
// changed it goes: on a busy disk that held the GUI thread for a quarter of a second after a
// 5M-kernel open (241 ms of wall time, 3 ms of CPU).
#include <QString>
#include <QVariant>
#include <thread>
#include <utility>
#include <vector>

namespace ls::gui {

class SettingsWriter {
  public:
    SettingsWriter() = default;
    SettingsWriter(const SettingsWriter&) = delete;
    SettingsWriter& operator=(const SettingsWriter&) = delete;
    ~SettingsWriter(); // waits for the write in progress

    // Sets these keys to these values in the application's settings, off the calling thread;
    // a write still in progress ends first. Other QSettings objects of the process see the
    // values once the thread has set them, and the thread ends with the file written.
    void write(std::vector<std::pair<QString, QVariant>> values);

  private:
    std::thread thread_;
};

} // namespace ls::gui
