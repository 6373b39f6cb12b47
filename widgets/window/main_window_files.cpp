// MainWindow's file actions on the user's request: exporting a table as CSV and importing an
// Nsight Compute CSV, parsed off the GUI thread as a job of the window's tracker (kept apart from
// the window's construction and views).
#include "core/import/ncu/ncu_metrics.h"
#include "widgets/export/csv_export.h"
#include "widgets/panes/load_report_text.h"
#include "widgets/session/job_tracker.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/window/main_window.h"

#include <QAbstractItemView>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QTableView>
#include <QTextBrowser>
#include <stdexcept>

namespace ls::gui {
namespace {

const auto kExportDirKey = QStringLiteral("exportDir");
const auto kNcuKind = QStringLiteral("ncu");

} // namespace

QString MainWindow::exportView(const QAbstractItemView& view, const QString& path,
                               bool selectedOnly) {
    const CsvExportResult r = exportViewCsv(view, path, selectedOnly);
    if (!r.ok) return r.error.isEmpty() ? QStringLiteral("could not write the file") : r.error;
    statusLabel_->setText(
        QStringLiteral("Exported %L1 rows to %2").arg(r.rows).arg(QDir::toNativeSeparators(path)));
    return {};
}

QString MainWindow::importNcu(const QString& path) {
    // The window keeps handling events meanwhile: only this call waits.
    QEventLoop loop;
    QString error;
    bool ended = false;
    importNcuInBackground(path, [&](const QString& e) {
        error = e;
        ended = true;
        loop.quit();
    });
    if (!ended) loop.exec();
    return error;
}

void MainWindow::importNcuInBackground(const QString& path,
                                       std::function<void(const QString&)> done) {
    if (!shown()) {
        if (done) done(QStringLiteral("open a trace first"));
        return;
    }
    const auto trace = shown()->trace;
    const QString name = QFileInfo(path).fileName();
    JobTracker* jobs = JobTracker::nearest(this);
    // A newer import supersedes this one; its metrics are dropped.
    const quint64 id = jobs->submit(
        kNcuKind, QStringLiteral("Importing %1").arg(name),
        [this, trace, path](const JobContext& ctx) -> JobTracker::Result {
            ctx.progress(QStringLiteral("Reading and matching the kernels"));
            NcuImport imported = importNcuCsv(trace, path.toStdString());
            if (!imported.ok()) throw std::runtime_error(imported.error);
            return [this, trace, path, metrics = std::move(imported.metrics)] {
                if (!shown() || shown()->trace != trace)
                    throw std::runtime_error("another trace was opened meanwhile");
                ncu_ = metrics;
                kernelModel_->setNcu(ncu_);
                const auto& m = ncu_->match();
                QString report = QStringLiteral("<h3>Nsight Compute import</h3><p>%1</p><ul>")
                                     .arg(path.toHtmlEscaped());
                for (const auto& line : ncu_->report(10))
                    report += QStringLiteral("<li>%1</li>")
                                  .arg(QString::fromStdString(line).toHtmlEscaped());
                reportView_->setHtml(loadReportHtml(*shown()->trace) + report +
                                     QStringLiteral("</ul>"));
                statusLabel_->setText(QStringLiteral("Nsight Compute: %L1 kernels matched, %L2 "
                                                     "unmatched, %L3 ambiguous, %L4 metrics")
                                          .arg(m.matched)
                                          .arg(m.unmatched)
                                          .arg(m.ambiguous)
                                          .arg(ncu_->metricCount()));
                showKernelDetails(kernelView_->currentKernel());
            };
        });
    statusLabel_->setText(QStringLiteral("Importing %1…").arg(name));
    // What became of it, once: "" when the metrics are shown, else the error line.
    auto* watch = new QObject(this);
    auto error = std::make_shared<QString>();
    connect(jobs, &JobTracker::failed, watch, [id, error](quint64 job, const QString& text) {
        if (job == id) *error = text;
    });
    connect(jobs, &JobTracker::cancelled, watch, [id, error](quint64 job) {
        if (job == id) *error = QStringLiteral("cancelled");
    });
    connect(jobs, &JobTracker::ended, watch,
            [this, id, error, watch, name, done = std::move(done)](quint64 job) {
                if (job != id) return;
                watch->deleteLater();
                if (!error->isEmpty() && *error != QLatin1String("cancelled"))
                    statusLabel_->setText(
                        QStringLiteral("Could not import %1: %2").arg(name, *error));
                if (done) done(*error);
            });
}

void MainWindow::importNcuInteractive() {
    if (!shown()) return;
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Import Nsight Compute CSV"),
        settings.value(QStringLiteral("ncuDir"), QDir::homePath()).toString(),
        QStringLiteral("Nsight Compute CSV (*.csv *.txt);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(QStringLiteral("ncuDir"), QFileInfo(path).absolutePath());
    importNcuInBackground(path, [this, path](const QString& error) {
        if (!error.isEmpty() && error != QLatin1String("cancelled"))
            QMessageBox::warning(this, QStringLiteral("Import failed"),
                                 QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), error));
    });
}

void MainWindow::exportInteractive(bool selectedOnly) {
    QAbstractItemView* view = exportTarget();
    if (!shown() || !view) return;
    QString what = view->objectName().isEmpty() ? QStringLiteral("table") : view->objectName();
    if (view == kernelView_->table()) what = QStringLiteral("kernels");
    QSettings settings;
    const QString dir = settings.value(kExportDirKey, QDir::homePath()).toString();
    const QString suggested = QDir(dir).filePath(
        QStringLiteral("%1-%2.csv").arg(QFileInfo(shownPath_).completeBaseName(), what));
    const QString path = QFileDialog::getSaveFileName(
        this,
        selectedOnly ? QStringLiteral("Export selected rows") : QStringLiteral("Export table"),
        suggested, QStringLiteral("CSV (*.csv)"));
    if (path.isEmpty()) return;
    settings.setValue(kExportDirKey, QFileInfo(path).absolutePath());
    const QString error = exportView(*view, path, selectedOnly);
    if (!error.isEmpty())
        QMessageBox::warning(this, QStringLiteral("Export failed"),
                             QStringLiteral("%1: %2").arg(path, error));
}

} // namespace ls::gui
