#include "widgets/session/load_settings.h"

#include "core/cache/trace_cache.h"
#include "core/load/memory_budget.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <cstdlib>
#include <string_view>

namespace ls::gui {
namespace {

const QString kCacheKey = QStringLiteral("cache/enabled");
const QString kBudgetKey = QStringLiteral("memory/budgetBytes");
uint64_t budgetThisRun = 0;

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

uint64_t memoryBudget() {
    if (budgetThisRun) return budgetThisRun;
    const auto saved = QSettings().value(kBudgetKey, 0).toULongLong();
    return saved ? saved : defaultMemoryBudget();
}

void setMemoryBudgetForThisRun(uint64_t bytes) { budgetThisRun = bytes; }

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

    QAction* budget =
        file->addAction(QStringLiteral("Memory &Budget for Ranks…"), parent, [parent, status] {
            bool ok = false;
            const double gib = QInputDialog::getDouble(
                parent, QStringLiteral("Memory Budget for Ranks"),
                QStringLiteral("Memory for the full models of a job's ranks, in GiB (every rank "
                               "keeps its summary; 0 restores a quarter of this machine's "
                               "memory, %1). Used for the next session opened.")
                    .arg(QString::fromStdString(formatByteSize(defaultMemoryBudget()))),
                static_cast<double>(memoryBudget()) / double(1 << 30), 0, 1 << 20, 2, &ok);
            if (!ok) return;
            QSettings().setValue(kBudgetKey, static_cast<qulonglong>(gib * double(1 << 30)));
            budgetThisRun = 0; // the setting now rules
            status(QStringLiteral("Memory budget for ranks: %1")
                       .arg(QString::fromStdString(formatByteSize(memoryBudget()))));
        });
    budget->setToolTip(QStringLiteral(
        "A job of more ranks than fit opens from their summaries; the ranks you look at get their "
        "full models, the least recently looked at leaving first"));
}

} // namespace ls::gui
