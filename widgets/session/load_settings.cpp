#include "widgets/session/load_settings.h"

#include "core/cache/trace_cache.h"

#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <cstdlib>
#include <string_view>

namespace ls::gui {
namespace {

const QString kCacheKey = QStringLiteral("cache/enabled");

bool cacheOffByEnvironment() {
    const char* off = std::getenv("LAYERSCOPE_NO_CACHE");
    return off && *off && std::string_view(off) != "0";
}

} // namespace

LoadOptions loadOptionsFromSettings() {
    QSettings settings;
    LoadOptions options;
    options.nsysPath = settings.value(QStringLiteral("nsysPath")).toString().toStdString();
    if (settings.value(kCacheKey, true).toBool() && !cacheOffByEnvironment())
        options.cacheDir = defaultTraceCacheDir();
    return options;
}

void addLoadSettingsMenus(QMenu* file, QWidget* parent,
                          const std::function<void(const QString&)>& status) {
    QAction* nsys = file->addAction(
        QStringLiteral("Nsight Systems &CLI for Reports…"), parent, [parent, status] {
            QSettings settings;
            const QString current = settings.value(QStringLiteral("nsysPath")).toString();
            const QString path = QFileDialog::getOpenFileName(
                parent,
                QStringLiteral("The nsys that exports .nsys-rep reports (cancel: search PATH)"),
                current.isEmpty() ? QStringLiteral("/opt/nvidia") : current);
            settings.setValue(QStringLiteral("nsysPath"), path);
            status(
                path.isEmpty()
                    ? QStringLiteral("Reports open with the nsys found on PATH or LAYERSCOPE_NSYS")
                    : QStringLiteral("Reports open with %1").arg(path));
        });
    nsys->setToolTip(QStringLiteral("Opening a .nsys-rep or .qdrep runs `nsys export --type "
                                    "sqlite` into Layerscope's cache folder"));

    QMenu* menu = file->addMenu(QStringLiteral("&Model Cache"));
    const QString dir = QString::fromStdString(defaultTraceCacheDir());
    QAction* keep = menu->addAction(QStringLiteral("&Keep a Model Cache for Fast Reopening"));
    keep->setCheckable(true);
    keep->setChecked(QSettings().value(kCacheKey, true).toBool());
    keep->setEnabled(!cacheOffByEnvironment() && !dir.isEmpty());
    keep->setToolTip(
        QStringLiteral("After a trace loads, its model is written to %1 (never beside the trace), "
                       "so opening it again "
                       "reads the model instead of the export. Changed files are loaded again.")
            .arg(dir));
    QObject::connect(keep, &QAction::toggled, parent,
                     [](bool on) { QSettings().setValue(kCacheKey, on); });
    QAction* clear = menu->addAction(QStringLiteral("&Clear Model Cache…"), parent, [parent, dir] {
        const CacheInfo info = traceCacheInfo(dir.toStdString());
        const auto answer =
            QMessageBox::question(parent, QStringLiteral("Clear Model Cache"),
                                  QStringLiteral("Remove %1 cached model(s), %2 MB, from %3?")
                                      .arg(info.entries.size())
                                      .arg(static_cast<double>(info.bytes) / 1e6, 0, 'f', 1)
                                      .arg(dir));
        if (answer == QMessageBox::Yes) clearTraceCache(dir.toStdString());
    });
    clear->setEnabled(!dir.isEmpty());
    menu->setToolTipsVisible(true);
}

} // namespace ls::gui
