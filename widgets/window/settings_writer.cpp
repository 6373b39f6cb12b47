#include "widgets/window/settings_writer.h"

#include <QSettings>

namespace ls::gui {

SettingsWriter::~SettingsWriter() {
    if (thread_.joinable()) thread_.join();
}

void SettingsWriter::write(std::vector<std::pair<QString, QVariant>> values) {
    if (thread_.joinable()) thread_.join();
    thread_ = std::thread([values = std::move(values)] {
        QSettings settings;
        for (const auto& [key, value] : values) settings.setValue(key, value);
    }); // the file is written as `settings` goes, on this thread
}

} // namespace ls::gui
