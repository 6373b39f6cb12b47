#include "widgets/panes/ranks_panel.h"

#include "widgets/panes/collective_table_model.h"
#include "widgets/panes/rank_heat_map.h"
#include "widgets/panes/rank_timeline.h"
#include "widgets/util/units.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>
#include <map>

namespace ls::gui {
namespace {

constexpr int kSortRole = CollectiveTableModel::kSortRole;

QString ms(TimeNs ns) { return QString::number(static_cast<double>(ns) / 1e6, 'f', 3); }

// A number cell: shown as text, sorted by value.
QStandardItem* numberItem(const QString& text, double value) {
    auto* item = new QStandardItem(text);
    item->setData(value, kSortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QStandardItem* textItem(const QString& text) {
    auto* item = new QStandardItem(text);
    item->setData(text, kSortRole);
    item->setEditable(false);
    return item;
}

QTableView* sortedTable(QAbstractItemModel* model, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(kSortRole);
    auto* view = new QTableView(parent);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(
        0, Qt::AscendingOrder); // by rank, by collective: the header's default would be descending
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    return view;
}

void setHeaders(QStandardItemModel* model,
                const std::vector<std::pair<QString, QString>>& columns) {
    model->setColumnCount(static_cast<int>(columns.size()));
    for (int c = 0; c < static_cast<int>(columns.size()); ++c) {
        model->setHeaderData(c, Qt::Horizontal, columns[static_cast<size_t>(c)].first);
        model->setHeaderData(c, Qt::Horizontal, columns[static_cast<size_t>(c)].second,
                             Qt::ToolTipRole);
    }
}

} // namespace

RanksPanel::RanksPanel(QWidget* parent)
    : QWidget(parent), verdict_(new QLabel), rankModel_(new QStandardItemModel(this)),
      collectiveModel_(new CollectiveTableModel(this)), rankTable_(sortedTable(rankModel_, this)),
      collectiveTable_(sortedTable(collectiveModel_, this)), heatMap_(new RankHeatMap),
      timeline_(new RankTimeline), chartBox_(new QVBoxLayout) {
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setHeaders(
        rankModel_,
        {{QStringLiteral("Rank"), QStringLiteral("The rank (from the environment, distributedInfo, "
                                                 "the file name, the device or the order given)")},
         {QStringLiteral("Host"), QStringLiteral("The machine the rank ran on")},
         {QStringLiteral("PID"), QStringLiteral("The rank's process")},
         {QStringLiteral("Device"), QStringLiteral("The rank's GPU, as the export numbers it")},
         {QStringLiteral("Kernels"), QStringLiteral("Kernels the rank ran")},
         {QStringLiteral("Span (ms)"),
          QStringLiteral("From the rank's first kernel start to its last kernel end")},
         {QStringLiteral("Busy (ms)"),
          QStringLiteral("Time any kernel ran (union of kernel intervals)")},
         {QStringLiteral("Compute (ms)"),
          QStringLiteral("Time a compute (non-communication) kernel ran")},
         {QStringLiteral("Comm (ms)"),
          QStringLiteral("Time a communication kernel (NCCL, NVSHMEM) ran")},
         {QStringLiteral("Overlap (ms)"),
          QStringLiteral("Communication hidden behind compute: both ran at once on this GPU")},
         {QStringLiteral("Exposed comm (ms)"),
          QStringLiteral("Communication with no compute beside it: Comm - Overlap")},
         {QStringLiteral("Idle (ms)"), QStringLiteral("Span - Busy: the GPU ran no kernel")}});
    // The times first, where the tab's narrow table shows them, and host, PID, device and kernel
    // count after them: Comm and Exposed comm were off to the right, behind a scroll bar, when a
    // user asked which rank spends more time in NCCL (usability test, docs/usability.md). The
    // model keeps rank_sum's column order.
    for (int logical = 1; logical <= 4; ++logical)
        rankTable_->horizontalHeader()->moveSection(
            rankTable_->horizontalHeader()->visualIndex(logical), rankModel_->columnCount() - 1);
    rankTable_->setToolTip(
        QStringLiteral("Double-click a rank to show its kernels, layers and timeline"));
    collectiveTable_->setToolTip(
        QStringLiteral("Double-click a collective to show its last-arriving rank"));
    connect(rankTable_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        emit rankRequested(i.sibling(i.row(), 0).data(kSortRole).toInt());
    });
    connect(collectiveTable_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        emit rankRequested(i.sibling(i.row(), 6).data(kSortRole).toInt()); // the last rank
    });
    connect(heatMap_, &RankHeatMap::rankClicked, this, &RanksPanel::rankRequested);

    connect(timeline_, &RankTimeline::rankClicked, this, &RanksPanel::rankRequested);
    connect(collectiveTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) {
                timeline_->selectCollective(
                    i.isValid() ? i.sibling(i.row(), 0).data(kSortRole).toInt() : -1);
            });
    auto* filter = new QLineEdit;
    filter->setPlaceholderText(QStringLiteral("Ranks, e.g. 0-7, 12"));
    filter->setToolTip(QStringLiteral(
        "Which ranks the timeline shows: numbers and ranges separated by commas; empty shows all"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, this, [this, filter](const QString& text) {
        const bool ok = timeline_->setRankFilter(text);
        filter->setStyleSheet(ok ? QString()
                                 : QStringLiteral("QLineEdit { border: 1px solid #b00020; }"));
    });
    auto* order = new QComboBox;
    order->addItems({QStringLiteral("Order by rank"),
                     QStringLiteral("Most exposed communication first"),
                     QStringLiteral("Most idle first"), QStringLiteral("Most compute first")});
    order->setToolTip(QStringLiteral("The order of the timeline's rank rows"));
    connect(order, &QComboBox::currentIndexChanged, this,
            [this](int i) { timeline_->setOrder(static_cast<RankTimeline::Order>(i)); });
    auto* split = new QCheckBox(QStringLiteral("Compute and communication lanes"));
    split->setChecked(true);
    split->setToolTip(QStringLiteral("Off: one busy lane per rank (collapsed rows)"));
    connect(split, &QCheckBox::toggled, timeline_, &RankTimeline::setSplitLanes);
    auto* legend =
        new QLabel(QStringLiteral("<span style='color:#3b6ea8'>■</span> compute  <span "
                                  "style='color:#d95f3b'>■</span> communication  "
                                  "<span style='color:#9c27b0'>|</span> selected collective · "
                                  "wheel zooms, drag pans, double-click fits"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(filter);
    controls->addWidget(order);
    controls->addWidget(split);
    legend->setSizePolicy(
        QSizePolicy::Ignored,
        QSizePolicy::Preferred); // clipped rather than widening the window and squeezing the docks
    controls->addWidget(legend, 1);
    auto* timelineBox = new QWidget;
    auto* timelineLayout = new QVBoxLayout(timelineBox);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->addLayout(controls);
    timelineLayout->addWidget(timeline_, 1);

    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(rankTable_);
    auto* chartHolder = new QWidget;
    chartHolder->setLayout(chartBox_);
    chartBox_->setContentsMargins(0, 0, 0, 0);
    top->addWidget(chartHolder);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(heatMap_);
    bottom->addWidget(collectiveTable_);
    auto* panes = new QSplitter(Qt::Vertical);
    panes->addWidget(timelineBox);
    panes->addWidget(top);
    panes->addWidget(bottom);
    panes->setStretchFactor(0, 3);
    panes->setStretchFactor(1, 2);
    panes->setStretchFactor(2, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(verdict_);
    layout->addWidget(panes, 1);
}

void RanksPanel::setAnalysis(std::shared_ptr<const RankAnalysis> analysis) {
    analysis_ = std::move(analysis);
    fillRankTable();
    fillCollectives();
    heatMap_->setIterations(analysis_ ? analysis_->iterations : std::vector<RankIterationRow>{});
    timeline_->setAnalysis(analysis_);
    // The chart is the dearest part (Qt Charts lays out its scene: 15-30 ms on the GUI thread) and
    // the tab is usually hidden while a trace opens: it is built when the panel is next shown.
    dropChart();
    chartStale_ = true;
    if (isVisible()) rebuildChart();
    verdict_->setText(verdict());
}

void RanksPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (chartStale_) rebuildChart();
}

void RanksPanel::dropChart() {
    if (!chart_) return;
    chartBox_->removeWidget(chart_);
    chart_->deleteLater();
    chart_ = nullptr;
}

QString RanksPanel::verdict() const {
    if (!analysis_ || analysis_->ranks.empty())
        return QStringLiteral("No GPU work in these traces.");
    const auto& rows = analysis_->ranks;
    const Session& s = *analysis_->session;
    QString text = QStringLiteral("%1 rank%2 in %3 file%4. ")
                       .arg(rows.size())
                       .arg(rows.size() == 1 ? QString() : QStringLiteral("s"))
                       .arg(s.traces.size())
                       .arg(s.traces.size() == 1 ? QString() : QStringLiteral("s"));
    const auto mostExposed =
        std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
            return a.exposedComm < b.exposedComm;
        });
    TimeNs comm = 0, overlap = 0;
    for (const auto& r : rows) {
        comm += r.comm;
        overlap += r.overlap;
    }
    if (comm > 0)
        text +=
            QStringLiteral("%1 % of communication is hidden behind compute; rank %2 has the most "
                           "exposed communication (%3 ms). ")
                .arg(100.0 * static_cast<double>(overlap) / static_cast<double>(comm), 0, 'f', 1)
                .arg(mostExposed->rank)
                .arg(ms(mostExposed->exposedComm));
    else
        text += QStringLiteral("No communication kernels. ");
    std::map<int, int> lastCount;
    size_t multi = 0;
    for (const auto& c : analysis_->collectives.collectives)
        if (c.members.size() > 1) {
            ++multi;
            ++lastCount[c.lastRank];
        }
    if (multi > 0) {
        const auto straggler =
            std::max_element(lastCount.begin(), lastCount.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        text += QStringLiteral("Rank %1 arrived last at %2 of %3 collectives. ")
                    .arg(straggler->first)
                    .arg(straggler->second)
                    .arg(multi);
    }
    text += QStringLiteral("Clocks: %1.").arg(QString::fromStdString(s.clockAlignment));
    return text;
}

void RanksPanel::fillRankTable() {
    rankModel_->removeRows(0, rankModel_->rowCount());
    if (!analysis_) return;
    for (const auto& r : analysis_->ranks) {
        auto time = [](TimeNs v) { return numberItem(ms(v), static_cast<double>(v)); };
        rankModel_->appendRow(
            {numberItem(QString::number(r.rank), r.rank), textItem(QString::fromStdString(r.host)),
             numberItem(QString::number(r.pid), r.pid),
             numberItem(QString::number(r.device), r.device),
             numberItem(QString::number(r.kernels), static_cast<double>(r.kernels)), time(r.span),
             time(r.busy), time(r.compute), time(r.comm), time(r.overlap), time(r.exposedComm),
             time(r.idle)});
    }
    rankTable_->resizeColumnsToContents();
}

void RanksPanel::fillCollectives() {
    collectiveModel_->setCollectives(analysis_, analysis_ ? &analysis_->collectives : nullptr);
    collectiveTable_->resizeColumnsToContents(); // measures 1,000 rows at most
}

// Stacked bars per rank: compute alone, communication hidden behind compute, exposed
// communication, copies and sets while no kernel runs, and idle add up to the rank's span.
void RanksPanel::rebuildChart() {
    dropChart();
    chartStale_ = false;
    if (!analysis_ || analysis_->ranks.empty()) return;
    auto* computeOnly = new QBarSet(QStringLiteral("Compute only"));
    auto* overlap = new QBarSet(QStringLiteral("Comm under compute"));
    auto* exposed = new QBarSet(QStringLiteral("Exposed comm"));
    auto* copies = new QBarSet(QStringLiteral("Copies and sets only"));
    auto* idle = new QBarSet(QStringLiteral("Idle"));
    computeOnly->setColor(QColor(0x3b, 0x6e, 0xa8));
    overlap->setColor(QColor(0x7f, 0xb2, 0x5a));
    exposed->setColor(QColor(0xd9, 0x5f, 0x3b));
    copies->setColor(QColor(0x9a, 0x7f, 0xb8));
    idle->setColor(QColor(0xc8, 0xc8, 0xc8));
    QStringList categories;
    double most = 0;
    for (const auto& r : analysis_->ranks) {
        auto v = [](TimeNs ns) { return static_cast<double>(ns) / 1e6; };
        *computeOnly << v(r.compute - r.overlap);
        *overlap << v(r.overlap);
        *exposed << v(r.exposedComm);
        *copies << v(r.busy - r.compute -
                     r.exposedComm); // busy with no kernel running: copies and sets
        *idle << v(r.idle);
        most = std::max(most, v(r.span));
        categories << QString::number(r.rank);
    }
    auto* series = new QStackedBarSeries;
    series->append({computeOnly, overlap, exposed, copies, idle});
    auto* chart = new QChart;
    chart->addSeries(series);
    chart->setTitle(QStringLiteral("GPU time per rank (ms)"));
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(
        true); // a narrow chart elides the entries: hovering gives the whole name
    auto* ranks = new QBarCategoryAxis;
    ranks->append(categories);
    ranks->setTitleText(QStringLiteral("rank"));
    auto* axis = new QValueAxis;
    axis->setRange(0, most * 1.05);
    axis->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(ranks, Qt::AlignBottom);
    chart->addAxis(axis, Qt::AlignLeft);
    series->attachAxis(ranks);
    series->attachAxis(axis);
    chart->setMargins(QMargins(2, 2, 2, 2));
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    view->setToolTip(QStringLiteral(
        "Each bar adds up to the rank's span: compute alone, communication hidden behind compute, "
        "exposed communication, copies and sets with no kernel beside them, idle"));
    chart_ = view;
    chartBox_->addWidget(view);
}

} // namespace ls::gui
