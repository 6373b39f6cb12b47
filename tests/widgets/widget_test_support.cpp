#include "tests/widgets/widget_test_support.h"

#include "widgets/window/main_window.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <sqlite3.h>

namespace ls::gui::test {

QString samplePath() {
    return QStringLiteral(LAYERSCOPE_SOURCE_DIR "/resources/sample_gpt2_2layer_fp16_h200.sqlite");
}

std::unique_ptr<MainWindow> openInWindow(const QString& path) {
    return openSessionInWindow({path});
}

std::unique_ptr<MainWindow> openSessionInWindow(const QStringList& files) {
    QStandardPaths::setTestModeEnabled(true);
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    QSignalSpy loaded(w.get(), &MainWindow::traceLoaded);
    w->openFiles(files);
    return loaded.wait(60000) ? std::move(w) : nullptr;
}

bool waitForRank(MainWindow& window) {
    QDeadlineTimer deadline(60000);
    while (window.rankPending() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return !window.rankPending();
}

CliRun runCli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(LAYERSCOPE_CLI), args);
    CliRun r;
    if (!p.waitForFinished(60000)) return r;
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

std::vector<QStringList> parseCsv(const QString& text) {
    std::vector<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false, any = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"')) {
            quoted = true;
            any = true;
        } else if (c == QLatin1Char(',')) {
            row << field;
            field.clear();
            any = true;
        } else if (c == QLatin1Char('\n')) {
            row << field;
            rows.push_back(row);
            row.clear();
            field.clear();
            any = false;
        } else if (c != QLatin1Char('\r')) {
            field += c;
            any = true;
        }
    }
    if (any) {
        row << field;
        rows.push_back(row);
    }
    return rows;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::vector<int64_t> sqlColumn(const QString& path, const char* sql) {
    std::vector<int64_t> out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW) out.push_back(sqlite3_column_int64(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

qulonglong sqlKernelTimeNs(const QString& path) {
    sqlite3* db = nullptr;
    const QByteArray uri = QStringLiteral("file:%1?immutable=1").arg(path).toUtf8();
    qulonglong total = 0;
    if (sqlite3_open_v2(uri.constData(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL", -1,
                               &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            total = static_cast<qulonglong>(sqlite3_column_int64(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return total;
}

} // namespace ls::gui::test
