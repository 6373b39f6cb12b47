#include "widgets/compare/diff_table_model.h"

#include "core/compare/diff_table.h"
#include "widgets/export/csv_export.h"
#include "widgets/util/units.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <cmath>
#include <iterator>

namespace ls::gui {
namespace {

struct ColumnInfo {
    const char* title; // the GUI header
    const char* help;  // the header's tooltip: what the column shows and its unit
};

// In DiffTableModel::Column order, which is diffColumns' order.
constexpr ColumnInfo kColumns[] = {
    {"Key", "The group both runs are matched by at this level"},
    {"Direction", "forward, backward, optimizer or other; empty where the level has none"},
    {"A count",
     "Kernels of run A in the group over all iterations (op level: op instances); 0: only in B"},
    {"B count",
     "Kernels of run B in the group over all iterations (op level: op instances); 0: only in A"},
    {"A GPU time", "Run A's kernel time per iteration (per sample with Per sample), in µs or ms"},
    {"B GPU time", "Run B's kernel time per iteration (per sample with Per sample), in µs or ms"},
    {"Δ time",
     "B GPU time − A GPU time, in µs or ms: red where B is slower, green where it is faster"},
    {"B/A", "B GPU time ÷ A GPU time; empty when A has no time"},
    {"A FLOPs", "Run A's FLOPs per iteration (per sample), of the kernels with a known formula; an "
                "FMA is 2 FLOPs"},
    {"B FLOPs", "Run B's FLOPs per iteration (per sample), of the kernels with a known formula; an "
                "FMA is 2 FLOPs"},
    {"A TFLOP/s", "Run A's FLOPs ÷ the GPU time of the kernels with known FLOPs, in TFLOP/s"},
    {"B TFLOP/s", "Run B's FLOPs ÷ the GPU time of the kernels with known FLOPs, in TFLOP/s"},
    {"A Tensor Core", "Share of run A's GPU time in kernels that used Tensor Cores, in %"},
    {"B Tensor Core", "Share of run B's GPU time in kernels that used Tensor Cores, in %"},
    {"A shapes", "Input shapes of run A's first instance of the op"},
    {"B shapes", "Input shapes of run B's first instance of the op"},
};

QString keyTitle(DiffLevel level) {
    switch (level) {
    case DiffLevel::Direction:
        return QStringLiteral("Direction group");
    case DiffLevel::Layer:
        return QStringLiteral("Layer");
    case DiffLevel::Op:
        return QStringLiteral("Op");
    case DiffLevel::Family:
        return QStringLiteral("Kernel family");
    case DiffLevel::Kernel:
        return QStringLiteral("Kernel");
    case DiffLevel::Iteration:
        return QStringLiteral("Iteration");
    }
    return QStringLiteral("Key");
}

QString signedDuration(double ns) {
    if (!std::isfinite(ns)) return {};
    return (ns > 0 ? QStringLiteral("+") : QString()) + formatDuration(ns);
}

QString q(const std::string& s) { return QString::fromStdString(s); }

} // namespace

DiffTableModel::DiffTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffTableModel::setResult(std::shared_ptr<const DiffResult> diff) {
    beginResetModel();
    diff_ = std::move(diff);
    columns_ = diff_ ? static_cast<int>(diffColumns(diff_->level).size()) : 0;
    endResetModel();
}

const DiffRow* DiffTableModel::rowAt(int row) const {
    if (!diff_ || row < 0) return nullptr;
    if (row < static_cast<int>(diff_->rows.size())) return &diff_->rows[static_cast<size_t>(row)];
    return isTotal(row) ? &diff_->total : nullptr;
}

int DiffTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !diff_ ? 0 : static_cast<int>(diff_->rows.size()) + 1;
}

int DiffTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : columns_;
}

QVariant DiffTableModel::data(const QModelIndex& index, int role) const {
    const DiffRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r || index.column() < 0 || index.column() >= columns_) return {};
    const auto column = static_cast<Column>(index.column());
    const bool total = isTotal(index.row());
    const bool onlyA = !total && r->b.count == 0, onlyB = !total && r->a.count == 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Key:
            return q(r->key) + (onlyA   ? QStringLiteral("  [only in A]")
                                : onlyB ? QStringLiteral("  [only in B]")
                                        : QString());
        case Dir:
            return q(r->direction);
        case ACount:
            return QString::number(r->a.count);
        case BCount:
            return QString::number(r->b.count);
        case ATime:
            return formatDuration(r->a.gpuTimeNs);
        case BTime:
            return formatDuration(r->b.gpuTimeNs);
        case Delta:
            return signedDuration(r->deltaNs());
        case Ratio:
            return std::isfinite(r->ratio()) ? QStringLiteral("%1×").arg(r->ratio(), 0, 'f', 2)
                                             : QString();
        case AFlops:
            return formatFlops(r->a.flops);
        case BFlops:
            return formatFlops(r->b.flops);
        case ATflops:
            return formatNumber(r->a.tflopsPerSecond(), 1);
        case BTflops:
            return formatNumber(r->b.tflopsPerSecond(), 1);
        case ATc:
            return formatPercent(r->a.tcShare());
        case BTc:
            return formatPercent(r->b.tcShare());
        case AShapes:
            return q(r->a.shapes);
        case BShapes:
            return q(r->b.shapes);
        }
        break;
    case SortRole:
        switch (column) {
        case Key:
            return q(r->key);
        case Dir:
            return q(r->direction);
        case ACount:
            return static_cast<qulonglong>(r->a.count);
        case BCount:
            return static_cast<qulonglong>(r->b.count);
        case ATime:
            return r->a.gpuTimeNs;
        case BTime:
            return r->b.gpuTimeNs;
        case Delta:
            return r->deltaNs();
        case Ratio:
            return r->ratio();
        case AFlops:
            return r->a.flops;
        case BFlops:
            return r->b.flops;
        case ATflops:
            return r->a.tflopsPerSecond();
        case BTflops:
            return r->b.tflopsPerSecond();
        case ATc:
            return r->a.tcShare();
        case BTc:
            return r->b.tcShare();
        case AShapes:
            return q(r->a.shapes);
        case BShapes:
            return q(r->b.shapes);
        }
        break;
    case kCsvRole:
        return q(diffRowCells(*r, diff_->level)[static_cast<size_t>(column)]);
    case TotalRole:
        return total;
    case Qt::TextAlignmentRole:
        return column == Key || column == Dir || column >= AShapes
                   ? QVariant()
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::FontRole:
        if (total) {
            QFont f;
            f.setBold(true);
            return f;
        }
        if (onlyA || onlyB) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        break;
    case Qt::BackgroundRole:
        if (total) return QBrush(QColor(128, 128, 128, 40));
        if (onlyA) return QBrush(QColor(230, 80, 60, 45));
        if (onlyB) return QBrush(QColor(60, 150, 230, 45));
        break;
    case Qt::ForegroundRole:
        if ((column == Delta || column == Ratio) && std::isfinite(r->deltaNs()) &&
            r->deltaNs() != 0)
            return QBrush(r->deltaNs() > 0 ? QColor(0xb0, 0x20, 0x20) : QColor(0x1a, 0x7a, 0x2a));
        break;
    case Qt::ToolTipRole: {
        if (column == AShapes || column == BShapes) return data(index, Qt::DisplayRole);
        if (column != Key) break;
        QString tip = q(r->key);
        if (onlyA) tip += QStringLiteral("\nOnly in A: run B has no such group");
        if (onlyB) tip += QStringLiteral("\nOnly in B: run A has no such group");
        if (!r->a.shapes.empty() || !r->b.shapes.empty())
            tip +=
                QStringLiteral("\nShapes A: %1\nShapes B: %2").arg(q(r->a.shapes), q(r->b.shapes));
        if (!r->scope.empty() && !total)
            tip += QStringLiteral("\nDouble-click or Enter: drill down");
        return tip;
    }
    default:
        break;
    }
    return {};
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columns_ ||
        section >= static_cast<int>(std::size(kColumns)))
        return {};
    const ColumnInfo& c = kColumns[section];
    const DiffColumn csv = diffColumns(diff_->level)[static_cast<size_t>(section)];
    switch (role) {
    case Qt::DisplayRole:
        return section == Key ? keyTitle(diff_->level) : QString::fromUtf8(c.title);
    case Qt::ToolTipRole:
        return QStringLiteral("%1\nCSV column %2: %3")
            .arg(QString::fromUtf8(c.help),
                 QString::fromUtf8(csv.name.data(), static_cast<qsizetype>(csv.name.size())),
                 QString::fromUtf8(csv.help.data(), static_cast<qsizetype>(csv.help.size())));
    case kCsvRole:
        return QString::fromUtf8(csv.name.data(), static_cast<qsizetype>(csv.name.size()));
    default:
        return {};
    }
}

DiffSortProxy::DiffSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(DiffTableModel::SortRole);
}

bool DiffSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    // Rank 2: the totals row, 1: an unknown value, 0: a value. Higher ranks go last in either
    // order; the proxy sorts descending by calling lessThan(right, left).
    const auto rank = [](const QModelIndex& i, const QVariant& v) {
        if (i.data(DiffTableModel::TotalRole).toBool()) return 2;
        return v.typeId() == QMetaType::Double && !std::isfinite(v.toDouble()) ? 1 : 0;
    };
    const QVariant l = left.data(sortRole()), r = right.data(sortRole());
    const int rl = rank(left, l), rr = rank(right, r);
    if (rl != rr) return sortOrder() == Qt::AscendingOrder ? rl < rr : rl > rr;
    if (rl) return false;
    if (l.typeId() == QMetaType::QString)
        return QString::compare(l.toString(), r.toString(), Qt::CaseInsensitive) < 0;
    return l.toDouble() < r.toDouble();
}

} // namespace ls::gui
