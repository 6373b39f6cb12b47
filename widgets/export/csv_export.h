#pragma once
// Writes what a view shows as RFC 4180 CSV (UTF-8): its visible columns in their visual order,
// its rows in their current order (all, or the selected ones). The file is written to a
// temporary name and renamed over the target only when complete (QSaveFile).
#include <QString>
#include <vector>

class QAbstractItemView;

namespace ls::gui {

// Models may offer the machine-readable text of a cell and a column's CSV name on this role
// (the kernel table gives the CLI's raw values); otherwise the display text is written.
inline constexpr int kCsvRole = Qt::UserRole + 2;

struct CsvExportResult {
    bool ok = false;
    qint64 rows = 0;
    QString error; // one line
};

// selectedOnly: only rows with a selected cell. Tree models are written depth first with a
// leading "depth" column.
CsvExportResult exportViewCsv(const QAbstractItemView& view, const QString& path,
                              bool selectedOnly);
// The same content as a string (for the clipboard: tab-separated, no quoting beyond tabs/newlines).
QString viewText(const QAbstractItemView& view, bool selectedOnly, QChar separator);

} // namespace ls::gui
