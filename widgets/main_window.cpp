#include "widgets/main_window.h"

#include "widgets/kernel_summary_model.h"
#include "widgets/load_report_text.h"
#include "widgets/trace_loader.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>

#include <numeric>

namespace ls::gui {
namespace {
constexpr int kMaxRecent = 8;
const auto kRecentKey = QStringLiteral("recentFiles");
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), loader_(new TraceLoader(this)), summaryModel_(new KernelSummaryModel(this)) {
    setWindowTitle(QStringLiteral("Layerscope"));
    setAcceptDrops(true);

    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(summaryModel_);
    proxy->setSortRole(KernelSummaryModel::SortRole);
    summaryView_ = new QTableView;
    summaryView_->setModel(proxy);
    summaryView_->setSortingEnabled(true);
    summaryView_->sortByColumn(KernelSummaryModel::Total, Qt::DescendingOrder);
    summaryView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    summaryView_->horizontalHeader()->setStretchLastSection(true);
    summaryView_->verticalHeader()->hide();
    summaryView_->setWordWrap(false);
    summaryView_->setTextElideMode(Qt::ElideMiddle);
    summaryView_->verticalHeader()->setDefaultSectionSize(summaryView_->fontMetrics().height() + 6);

    reportView_ = new QTextBrowser;
    tabs_ = new QTabWidget;
    tabs_->addTab(summaryView_, QStringLiteral("Kernel summary"));
    tabs_->addTab(reportView_, QStringLiteral("Load report"));
    setCentralWidget(tabs_);
    reportView_->setHtml(QStringLiteral("<p>Open an Nsight Systems SQLite export (File → Open, Ctrl+O), drop one on "
                                        "this window, or try the sample trace (Help → Open sample trace).</p>"));

    progress_ = new QProgressBar;
    progress_->setMaximumWidth(260);
    progress_->setTextVisible(true);
    cancelButton_ = new QPushButton(QStringLiteral("Cancel"));
    statusLabel_ = new QLabel;
    statusBar()->addWidget(statusLabel_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
    setLoading(false);

    connect(cancelButton_, &QPushButton::clicked, loader_, &TraceLoader::cancel);
    connect(loader_, &TraceLoader::progress, this, [this](qint64 done, qint64 total, const QString& table) {
        progress_->setMaximum(1000);
        progress_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
        progress_->setFormat(QStringLiteral("%1 / %2 rows").arg(done).arg(total));
        statusLabel_->setText(QStringLiteral("Reading %1…").arg(table));
    });
    connect(loader_, &TraceLoader::loaded, this, &MainWindow::showTrace);
    connect(loader_, &TraceLoader::failed, this, &MainWindow::showError);
    connect(loader_, &TraceLoader::cancelled, this, [this] {
        setLoading(false);
        statusLabel_->setText(QStringLiteral("Loading cancelled"));
    });

    buildMenus();
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) resize(1200, 760);
    tabs_->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
}

MainWindow::~MainWindow() = default;

QString MainWindow::samplePath() {
    const QString name = QStringLiteral("sample_gpt2_2layer_fp16_h200.sqlite");
    const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/layerscope/") + name;
    if (QFileInfo::exists(installed)) return QDir::cleanPath(installed);
    return QStringLiteral(LAYERSCOPE_RESOURCES_DIR "/") + name;
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction* open = file->addAction(QStringLiteral("&Open…"), this, [this] {
        QSettings settings;
        const QString dir = settings.value(QStringLiteral("lastDir"), QDir::homePath()).toString();
        const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open trace"), dir,
                                                          QStringLiteral("Traces (*.sqlite *.sql *.nvvp);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(QStringLiteral("Open &Recent"));
    updateRecentMenu();
    file->addSeparator();
    QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
    QAction* summary = view->addAction(QStringLiteral("Kernel &summary"), this, [this] { tabs_->setCurrentIndex(0); });
    summary->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction* report = view->addAction(QStringLiteral("&Load report"), this, [this] { tabs_->setCurrentIndex(1); });
    report->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));

    QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
    help->addAction(QStringLiteral("Open &sample trace"), this, [this] { openFile(samplePath()); });
    help->addAction(QStringLiteral("&About Layerscope"), this, [this] {
        QMessageBox::about(this, QStringLiteral("About Layerscope"),
                           QStringLiteral("<b>Layerscope %1</b><p>A viewer for GPU traces of deep-learning jobs: Nsight "
                                          "Systems SQLite exports, correlated by layer.</p>")
                               .arg(QCoreApplication::applicationVersion()));
    });
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList recent = QSettings().value(kRecentKey).toStringList();
    for (const QString& path : recent) recentMenu_->addAction(path, this, [this, path] { openFile(path); });
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::openFile(const QString& path) {
    loadingPath_ = path;
    setLoading(true);
    statusLabel_->setText(QStringLiteral("Opening %1…").arg(QFileInfo(path).fileName()));
    loader_->start(path);
}

void MainWindow::setLoading(bool loading) {
    progress_->setVisible(loading);
    cancelButton_->setVisible(loading);
    if (loading) {
        progress_->setMaximum(0); // busy until the first progress report
        progress_->setValue(0);
    }
}

void MainWindow::showTrace(std::shared_ptr<const Trace> trace) {
    setLoading(false);
    trace_ = std::move(trace);
    summaryModel_->setTrace(trace_);
    summaryView_->resizeColumnsToContents();
    reportView_->setHtml(loadReportHtml(*trace_));
    const QFileInfo info(loadingPath_);
    setWindowTitle(QStringLiteral("%1 — Layerscope").arg(info.fileName()));
    setWindowFilePath(info.absoluteFilePath());

    const auto& k = trace_->kernels;
    double gpu = 0;
    for (size_t i = 0; i < k.size(); ++i) gpu += static_cast<double>(k.duration(i));
    statusLabel_->setText(QStringLiteral("Span %1  ·  %2 kernels  ·  GPU time %3  ·  loaded in %4")
                              .arg(formatDuration(static_cast<double>(trace_->captureEnd - trace_->captureStart)))
                              .arg(k.size())
                              .arg(formatDuration(gpu), formatDuration(trace_->loadSeconds * 1e9)));

    QSettings settings;
    QStringList recent = settings.value(kRecentKey).toStringList();
    recent.removeAll(info.absoluteFilePath());
    recent.prepend(info.absoluteFilePath());
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue(kRecentKey, recent);
    settings.setValue(QStringLiteral("lastDir"), info.absolutePath());
    updateRecentMenu();
    emit traceLoaded();
}

void MainWindow::showError(const QString& path, const QString& reason) {
    setLoading(false);
    statusLabel_->setText(QStringLiteral("Could not open %1").arg(QFileInfo(path).fileName()));
    emit loadFailed(reason);
    if (QApplication::platformName() == QLatin1String("offscreen")) return; // no modal dialogs in tests
    QMessageBox box(QMessageBox::Warning, QStringLiteral("Could not open trace"),
                    QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), reason), QMessageBox::Ok, this);
    box.setDetailedText(QStringLiteral("File: %1\nReason: %2\n\nLayerscope reads Nsight Systems exports made with "
                                       "`nsys export --type sqlite`. It opens them read-only and never writes beside them.")
                            .arg(path, reason));
    box.exec();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const auto urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
    loader_->cancel();
    QMainWindow::closeEvent(e);
}

} // namespace ls::gui
