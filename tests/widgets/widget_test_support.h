#pragma once
// Helpers for the offscreen widget tests: the sample trace, layerscope-cli run as a separate
// process (the independent reference for what the GUI shows and exports), CSV parsing and SQL.
#include <QEvent>
#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

namespace ls::gui {
class MainWindow;
}

namespace ls::gui::test {

QString samplePath();

// A shown 1400x900 main window (test-mode settings) with `path` loaded; null if loading failed.
std::unique_ptr<MainWindow> openInWindow(const QString& path);
// The same with several files opened as one session.
std::unique_ptr<MainWindow> openSessionInWindow(const QStringList& files);

// Runs the event loop until the rank switch or all-ranks table that showRank started is on
// screen (it is prepared off the GUI thread); false if it did not come within a minute.
bool waitForRank(MainWindow& window);

struct CliRun {
    int exitCode = -1;
    QString out, err;
};
CliRun runCli(const QStringList& args);

// Counts the events of one type a watched object receives (installEventFilter(&counter)).
class EventCounter : public QObject {
  public:
    explicit EventCounter(QEvent::Type type) : type_(type) {}
    int count = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == type_) ++count;
        return false;
    }

  private:
    QEvent::Type type_;
};

// RFC 4180: quoted fields may hold commas, quotes and line breaks.
std::vector<QStringList> parseCsv(const QString& text);
QByteArray readAll(const QString& path);
// The first column of every row of sql over the file, read-only.
std::vector<int64_t> sqlColumn(const QString& path, const char* sql);
// SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL, read-only.
qulonglong sqlKernelTimeNs(const QString& path);

} // namespace ls::gui::test
