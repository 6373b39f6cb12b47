#pragma once
// The main window of this first version: open a trace (menu, recent files, drag and drop, command
// line, bundled sample), load it in the background with progress and Cancel, and show the kernel
// summary and the load report.
#include "core/trace.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QMenu;

namespace ls::gui {

class KernelSummaryModel;
class TraceLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path);
    std::shared_ptr<const Trace> trace() const { return trace_; }
    // Where the sample trace is: installed share dir, else the source tree's resources/.
    static QString samplePath();

signals:
    void traceLoaded();
    void loadFailed(const QString& reason);

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void closeEvent(QCloseEvent* e) override;

private:
    void buildMenus();
    void updateRecentMenu();
    void showTrace(std::shared_ptr<const Trace> trace);
    void showError(const QString& path, const QString& reason);
    void setLoading(bool loading);

    TraceLoader* loader_;
    std::shared_ptr<const Trace> trace_;
    QString loadingPath_;
    KernelSummaryModel* summaryModel_;
    QTabWidget* tabs_;
    QTableView* summaryView_;
    QTextBrowser* reportView_;
    QProgressBar* progress_;
    QPushButton* cancelButton_;
    QLabel* statusLabel_;
    QMenu* recentMenu_ = nullptr;
};

} // namespace ls::gui
