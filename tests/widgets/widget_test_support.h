#pragma once
// Helpers for the offscreen widget tests: the sample trace, layerscope-cli run as a separate
// process (the independent reference for what the GUI shows and exports), CSV parsing and SQL.
#include <QString>
#include <QStringList>

#include <vector>

namespace ls::gui::test {

QString samplePath();

struct CliRun {
    int exitCode = -1;
    QString out, err;
};
CliRun runCli(const QStringList& args);

// RFC 4180: quoted fields may hold commas, quotes and line breaks.
std::vector<QStringList> parseCsv(const QString& text);
QByteArray readAll(const QString& path);
// SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL, read-only.
qulonglong sqlKernelTimeNs(const QString& path);

} // namespace ls::gui::test
