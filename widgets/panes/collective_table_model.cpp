#include "widgets/panes/collective_table_model.h"

#include "widgets/util/units.h"

namespace ls::gui {
namespace {

QString ms(TimeNs ns) { return QString::number(static_cast<double>(ns) / 1e6, 'f', 3); }

struct Header {
    const char* title;
    const char* tip;
};

constexpr Header kHeaders[CollectiveTableModel::Count] = {
    {"#", "Collectives in order of their first start"},
    {"Type", "all_reduce, all_gather, reduce_scatter, broadcast, …"},
    {"Communicator",
     "As far as the trace tells it: the launch call, or the rank's k-th communication stream"},
    {"Ranks", "Ranks that ran this collective"},
    {"Bytes", "Message size (largest element count × element size), where the trace has it "
              "(PyTorch profiler args)"},
    {"Skew (ms)", "Last rank's start - first rank's start"},
    {"Last rank", "The rank that started last: the others waited for it"},
    {"Waited (ms)", "Sum over ranks of (last start - their start)"},
    {"Longest kernel (ms)", "The longest of the collective's kernels, waiting included"},
};

} // namespace

void CollectiveTableModel::setCollectives(std::shared_ptr<const void> owner,
                                          const CollectiveMatch* match) {
    beginResetModel();
    owner_ = match ? std::move(owner) : nullptr;
    match_ = match;
    endResetModel();
}

int CollectiveTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !match_ ? 0 : static_cast<int>(match_->collectives.size());
}

int CollectiveTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : Count;
}

QVariant CollectiveTableModel::data(const QModelIndex& index, int role) const {
    if (!match_ || !index.isValid() || index.row() >= rowCount()) return {};
    const MatchedCollective& c = match_->collectives[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(c, index.row(), index.column());
    case kSortRole:
        return sortValue(c, index.row(), index.column());
    case Qt::TextAlignmentRole:
        return index.column() == Type || index.column() == Communicator
                   ? QVariant()
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant CollectiveTableModel::display(const MatchedCollective& c, int row, int column) const {
    switch (column) {
    case Index:
        return QString::number(row);
    case Type: {
        const std::string_view name = collectiveName(c.type);
        return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    case Communicator:
        return QString::fromStdString(c.comm);
    case Ranks:
        return QString::number(c.members.size());
    case Bytes:
        return c.bytes ? formatBytes(static_cast<double>(c.bytes)) : QString();
    case Skew:
        return ms(c.skew());
    case LastRank:
        return QString::number(c.lastRank);
    case Waited:
        return ms(c.waited);
    case Longest:
        return ms(c.maxDuration);
    default:
        return {};
    }
}

QVariant CollectiveTableModel::sortValue(const MatchedCollective& c, int row, int column) const {
    switch (column) {
    case Index:
        return static_cast<double>(row);
    case Type:
    case Communicator:
        return display(c, row, column);
    case Ranks:
        return static_cast<double>(c.members.size());
    case Bytes:
        return static_cast<double>(c.bytes);
    case Skew:
        return static_cast<double>(c.skew());
    case LastRank:
        return c.lastRank;
    case Waited:
        return static_cast<double>(c.waited);
    case Longest:
        return static_cast<double>(c.maxDuration);
    default:
        return {};
    }
}

QVariant CollectiveTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= Count) return {};
    if (role == Qt::DisplayRole) return QString::fromUtf8(kHeaders[section].title);
    if (role == Qt::ToolTipRole) return QString::fromUtf8(kHeaders[section].tip);
    return {};
}

} // namespace ls::gui
