#include "widgets/export/csv_export.h"

#include "core/reports/table_writer.h"
#include "widgets/util/revealed_table_model.h"

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSaveFile>
#include <QTableView>
#include <QTreeView>
#include <functional>

namespace ls::gui {
namespace {

struct Layout {
    std::vector<int> columns; // logical indexes, visual order, visible only
    bool tree = false;
};

Layout layoutOf(const QAbstractItemView& view) {
    Layout l;
    const QHeaderView* header = nullptr;
    if (auto* table = qobject_cast<const QTableView*>(&view)) header = table->horizontalHeader();
    if (auto* tree = qobject_cast<const QTreeView*>(&view)) {
        header = tree->header();
        l.tree = true;
    }
    const int count = view.model() ? view.model()->columnCount() : 0;
    for (int v = 0; v < count; ++v) {
        const int logical = header ? header->logicalIndex(v) : v;
        if (!header || !header->isSectionHidden(logical)) l.columns.push_back(logical);
    }
    return l;
}

QString cellText(const QModelIndex& i) {
    const QVariant raw = i.data(kCsvRole);
    return raw.isValid() ? raw.toString() : i.data(Qt::DisplayRole).toString();
}

QString headerText(const QAbstractItemModel& m, int column) {
    const QVariant raw = m.headerData(column, Qt::Horizontal, kCsvRole);
    return raw.isValid() ? raw.toString()
                         : m.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
}

// Calls row(depth, index of column 0) for every row the export covers, in view order.
void forEachRow(const QAbstractItemView& view, bool selectedOnly,
                const std::function<void(int, const QModelIndex&)>& row) {
    // A table still revealing its rows (widgets/util/revealed_table_model.h) gives all of them.
    if (!selectedOnly)
        if (RevealedTableModel* revealed = revealedModel(view.model())) revealed->revealAll();
    const QAbstractItemModel* m = view.model();
    const QItemSelectionModel* sel = view.selectionModel();
    std::function<void(const QModelIndex&, int)> walk = [&](const QModelIndex& parent, int depth) {
        const int n = m->rowCount(parent);
        for (int r = 0; r < n; ++r) {
            const QModelIndex first = m->index(r, 0, parent);
            if (!selectedOnly || (sel && sel->isRowSelected(r, parent))) row(depth, first);
            if (m->hasChildren(first)) walk(first, depth + 1);
        }
    };
    if (!selectedOnly || !sel) {
        walk({}, 0);
        return;
    }
    // Selected rows of a flat table: use the selection's row ranges instead of testing every row.
    if (!qobject_cast<const QTreeView*>(&view)) {
        std::vector<int> rows;
        for (const QItemSelectionRange& range : sel->selection())
            for (int r = range.top(); r <= range.bottom(); ++r) rows.push_back(r);
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        for (int r : rows) row(0, m->index(r, 0));
        return;
    }
    walk({}, 0);
}

std::vector<std::string> headerFields(const QAbstractItemModel& m, const Layout& l) {
    std::vector<std::string> fields;
    if (l.tree) fields.emplace_back("depth");
    for (int c : l.columns) fields.push_back(headerText(m, c).toStdString());
    return fields;
}

std::vector<std::string> rowFields(const QModelIndex& first, int depth, const Layout& l) {
    std::vector<std::string> fields;
    if (l.tree) fields.push_back(std::to_string(depth));
    for (int c : l.columns) fields.push_back(cellText(first.siblingAtColumn(c)).toStdString());
    return fields;
}

} // namespace

CsvExportResult exportViewCsv(const QAbstractItemView& view, const QString& path,
                              bool selectedOnly) {
    CsvExportResult result;
    const QAbstractItemModel* m = view.model();
    if (!m) {
        result.error = QStringLiteral("nothing to export");
        return result;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        result.error = file.errorString();
        return result;
    }
    const Layout l = layoutOf(view);
    std::string line;
    auto write = [&](const std::vector<std::string>& fields) {
        line.clear();
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i) line += ',';
            line += csvField(fields[i]);
        }
        line += '\n'; // as layerscope-cli writes it
        file.write(line.data(), static_cast<qint64>(line.size()));
    };
    write(headerFields(*m, l));
    forEachRow(view, selectedOnly, [&](int depth, const QModelIndex& first) {
        write(rowFields(first, depth, l));
        ++result.rows;
    });
    if (!file.commit()) {
        result.error = file.errorString();
        return result;
    }
    result.ok = true;
    return result;
}

QString viewText(const QAbstractItemView& view, bool selectedOnly, QChar separator) {
    const QAbstractItemModel* m = view.model();
    if (!m) return {};
    const Layout l = layoutOf(view);
    QString out;
    auto add = [&](const std::vector<std::string>& fields) {
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i) out += separator;
            QString f = QString::fromStdString(fields[i]);
            f.replace(separator, QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
            out += f;
        }
        out += QLatin1Char('\n');
    };
    add(headerFields(*m, l));
    forEachRow(view, selectedOnly,
               [&](int depth, const QModelIndex& first) { add(rowFields(first, depth, l)); });
    return out;
}

} // namespace ls::gui
