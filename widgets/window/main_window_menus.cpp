// The main window's menus: File (open, recent, compare, export, load settings), Edit, View (docks,
// tabs, iteration navigation) and Help, with their shortcuts.
#include "core/present/step_timing.h"
#include "core/pytorch/correlation.h"
#include "widgets/compare/compare_panel.h"
#include "widgets/export/csv_export.h"
#include "widgets/help/shortcuts_dialog.h"
#include "widgets/iterations/iteration_navigator.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/panes/load_report_text.h"
#include "widgets/panes/ranks_panel.h"
#include "widgets/panes/summary_charts.h"
#include "widgets/roofline/roofline_panel.h"
#include "widgets/session/load_settings.h"
#include "widgets/session/trace_loader.h"
#include "widgets/start/start_page.h"
#include "widgets/tables/details_view.h"
#include "widgets/tables/kernel_details.h"
#include "widgets/tables/kernel_summary_model.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/tables/kernel_table_view.h"
#include "widgets/tables/layer_tree_model.h"
#include "widgets/timeline/timeline_area.h"
#include "widgets/util/units.h"
#include "widgets/window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <iterator>

namespace ls::gui {

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction* open = file->addAction(QStringLiteral("&Open…"), this, [this] {
        QSettings settings;
        const QString dir = settings.value(QStringLiteral("lastDir"), QDir::homePath()).toString();
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, QStringLiteral("Open trace (several: the ranks of one job)"), dir,
            QStringLiteral("Traces (*.sqlite *.sql *.nvvp *.json *.json.gz *.nsys-rep "
                           "*.qdrep);;Nsight Systems or nvprof (*.sqlite *.sql *.nvvp *.nsys-rep "
                           "*.qdrep);;PyTorch profiler (*.json *.json.gz);;All files (*)"));
        if (!paths.isEmpty()) openFiles(paths);
    });
    open->setShortcut(QKeySequence::Open);
    connect(start_, &StartPage::openRequested, open, &QAction::trigger);
    open->setToolTip(QStringLiteral(
        "Open a trace, or select several (one per rank) to open them as one session"));
    QAction* openDir = file->addAction(QStringLiteral("Open &Folder of Ranks…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, QStringLiteral("Open the traces of a folder as one session"),
            QSettings().value(QStringLiteral("lastDir"), QDir::homePath()).toString());
        if (!dir.isEmpty()) openFile(dir);
    });
    openDir->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    QAction* nextRank = file->addAction(QStringLiteral("Next Rank"), this, [this] {
        if (rankBox_->count() > 1)
            showRank(
                rankBox_->itemData((rankBox_->currentIndex() + 1) % rankBox_->count()).toInt());
    });
    nextRank->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    QAction* previousRank = file->addAction(QStringLiteral("Previous Rank"), this, [this] {
        if (rankBox_->count() > 1)
            showRank(rankBox_
                         ->itemData((rankBox_->currentIndex() + rankBox_->count() - 1) %
                                    rankBox_->count())
                         .toInt());
    });
    previousRank->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketLeft));
    QAction* allRanks =
        file->addAction(QStringLiteral("All Ranks in Table and Tree"), this, [this] {
            if (shownRanks_ && shownRanks_->session->traces.size() > 1)
                showRank(kAllRanks);
            else
                statusLabel_->setText(QStringLiteral(
                    "All ranks: open several rank files (or their folder) as one session first"));
        });
    allRanks->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    allRanks->setObjectName(QStringLiteral("allRanksAction"));
    allRanks->setToolTip(QStringLiteral("Every rank's kernels in one table and one layer tree; the "
                                        "timeline and panes keep their rank"));
    QAction* compare = file->addAction(QStringLiteral("&Compare With…"), this, [this] {
        if (const QString path = ComparePanel::chooseFile(this); !path.isEmpty()) compareWith(path);
    });
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    compare->setToolTip(QStringLiteral(
        "Open a second run (B) and compare it with this one (A) by layer, op and kernel"));
    recentMenu_ = file->addMenu(QStringLiteral("Open &Recent"));
    updateRecentMenu();
    addLoadSettingsMenus(file, this, [this](const QString& text) { statusLabel_->setText(text); });
    QAction* importNcu = file->addAction(QStringLiteral("&Import Nsight Compute CSV…"), this,
                                         &MainWindow::importNcuInteractive);
    importNcu->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    importNcu->setToolTip(QStringLiteral("ncu --csv output (details or raw page) of the same "
                                         "program: its metrics join the kernels they measured"));
    file->addSeparator();
    QAction* exportAll = file->addAction(QStringLiteral("&Export Table as CSV…"), this,
                                         [this] { exportInteractive(false); });
    exportAll->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAll->setToolTip(QStringLiteral(
        "The kernel table, layer tree or kernel summary you last clicked, as shown"));
    QAction* exportSelected = file->addAction(QStringLiteral("Export &Selected Rows as CSV…"), this,
                                              [this] { exportInteractive(true); });
    exportSelected->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
    QAction* find = edit->addAction(QStringLiteral("&Filter Kernels"), this, [this] {
        kernelDock_->show();
        kernelDock_->raise();
        kernelView_->filterEdit()->setFocus();
        kernelView_->filterEdit()->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
    edit->addAction(QStringLiteral("Show &All Kernels"), this, [this] {
        kernelModel_->clearScope();
        kernelView_->applyFilter(QString());
        layerView_->clearSelection();
    });

    QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
    const QString tabNames[] = {QStringLiteral("&Timeline"),
                                QStringLiteral("&Summary"),
                                QStringLiteral("&Forward/Backward"),
                                QStringLiteral("&Load Report"),
                                QStringLiteral("&Ranks"),
                                QStringLiteral("R&oofline"),
                                QStringLiteral("F&indings"),
                                QStringLiteral("Summary T&ables")};
    for (int i = 0; i < static_cast<int>(std::size(tabNames)); ++i) {
        QAction* a = view->addAction(tabNames[i], this, [this, i] { tabs_->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    view->addSeparator();
    for (QDockWidget* dock : {layerDock_, kernelDock_, detailsDock_})
        view->addAction(dock->toggleViewAction());
    layerDock_->toggleViewAction()->setShortcut(QKeySequence(Qt::ALT | Qt::Key_1));
    kernelDock_->toggleViewAction()->setShortcut(QKeySequence(Qt::ALT | Qt::Key_2));
    detailsDock_->toggleViewAction()->setShortcut(QKeySequence(Qt::ALT | Qt::Key_3));
    view->addSeparator();
    view->addActions(iterations_->navigationActions()); // their shortcuts work from every tab
    view->addSeparator();
    view->addAction(QStringLiteral("&Expand Layer Tree"), layerView_, &QTreeView::expandAll);
    view->addAction(QStringLiteral("&Collapse Layer Tree"), layerView_, &QTreeView::collapseAll);

    QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
    help->addAction(QStringLiteral("Open &Sample Trace"), this, [this] { openFile(samplePath()); });
    addShortcutsAction(help, this); // F1, Ctrl+/
    help->addAction(QStringLiteral("&Filter Syntax"), this, [this] {
        QMessageBox::information(this, QStringLiteral("Kernel filter syntax"),
                                 kernelView_->filterEdit()->toolTip());
    });
    help->addAction(QStringLiteral("&About Layerscope"), this, [this] {
        QMessageBox::about(
            this, QStringLiteral("About Layerscope"),
            QStringLiteral(
                "<b>Layerscope %1</b><p>A viewer for GPU traces of deep-learning jobs: Nsight "
                "Systems SQLite exports, correlated by layer.</p>")
                .arg(QCoreApplication::applicationVersion()));
    });
}

} // namespace ls::gui
