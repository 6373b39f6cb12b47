#include "widgets/summary_tables/summary_tables_page.h"

#include "widgets/session/background_job.h"
#include "widgets/summary_tables/summary_table_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace ls::gui {
namespace {

struct TableChoice {
    const char* report;
    const char* label;
};
constexpr TableChoice kTables[] = {
    {"overview", "Overview: time per event type"},
    {"model", "Model: step, data loader, forward, backward, optimization"},
    {"distribution", "Distribution: communication, computation, overlap"},
    {"operator", "Operator: op → inner phases → kernels"},
    {"kernel_table", "Kernel: per kernel name"},
};
constexpr const char* kSorts[] = {"cpu_total", "cpu_avg", "cpu_max", "cpu_min",
                                  "gpu_total", "gpu_avg", "gpu_max", "gpu_min"};

} // namespace

SummaryTablesPage::SummaryTablesPage(QWidget* parent)
    : QWidget(parent), header_(new QLabel), tableBox_(new QComboBox), sortBox_(new QComboBox),
      view_(new QTreeView), model_(new SummaryTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      job_(new BackgroundJob(this, QStringLiteral("summary tables"),
                             QStringLiteral("Computing the summary table"))) {
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::PlainText);
    header_->setText(QStringLiteral("Open a trace to see PaddlePaddle's summary tables of it."));
    for (const auto& t : kTables)
        tableBox_->addItem(QString::fromUtf8(t.label), QString::fromLatin1(t.report));
    tableBox_->setToolTip(QStringLiteral("PaddlePaddle's profiler tables, for any trace "
                                         "(docs/summary-tables.md)"));
    for (const char* s : kSorts) sortBox_->addItem(QString::fromLatin1(s));
    sortBox_->setToolTip(QStringLiteral("Order of the Operator and Kernel tables, as Paddle's "
                                        "sorted_by: totals, averages, maxima descending, minima "
                                        "ascending"));
    connect(tableBox_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    connect(sortBox_, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(QStringLiteral("Table:")));
    top->addWidget(tableBox_, 1);
    top->addWidget(new QLabel(QStringLiteral("Sort by:")));
    top->addWidget(sortBox_);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(SummaryTableModel::kSortRole);
    view_->setModel(proxy_);
    view_->setUniformRowHeights(true);
    view_->setAlternatingRowColors(true);
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->setSortingEnabled(false); // the order is Paddle's, picked in the combo
    view_->header()->setStretchLastSection(false);
    view_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(SummaryTableModel::Name, QHeaderView::Interactive);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setToolTip(QStringLiteral("Click an op, an inner phase or a kernel to select its "
                                     "kernels in the kernel table, the layer tree and the "
                                     "timeline"));
    connect(view_, &QTreeView::clicked, this, [this](const QModelIndex& i) { pickRow(i); });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(header_);
    layout->addWidget(view_, 1);
}

std::vector<std::function<void()>>
SummaryTablesPage::showSteps(std::shared_ptr<const TraceViews> views) {
    return {[this, views] {
        trace_ = views ? views->trace : nullptr;
        model_->setTable({});
        if (!trace_) {
            header_->setText(QStringLiteral("The summary tables need the trace itself: %1")
                                 .arg(QString::fromStdString(views ? views->notice : "")));
            return;
        }
        recompute();
    }};
}

std::vector<QAbstractItemView*> SummaryTablesPage::exportViews() const { return {view_}; }

void SummaryTablesPage::showTable(const QString& report) {
    const int i = tableBox_->findData(report);
    if (i >= 0 && i != tableBox_->currentIndex())
        tableBox_->setCurrentIndex(i); // recomputes
    else
        recompute();
}

void SummaryTablesPage::recompute() {
    if (!trace_) return;
    const std::string report = tableBox_->currentData().toString().toStdString();
    const bool sortable = report == "operator" || report == "kernel_table";
    sortBox_->setEnabled(sortable);
    const SummarySort sort =
        parseSummarySort(sortBox_->currentText().toStdString()).value_or(SummarySort::CpuTotal);
    header_->setText(QStringLiteral("Computing…"));
    const std::shared_ptr<const Trace> trace = trace_;
    job_->run([this, trace, report, sort]() -> BackgroundJob::Done {
        SummaryTable table = summaryTable(*trace, report, sort);
        return [this, table = std::move(table)]() mutable {
            const QString note = QString::fromStdString(table.note);
            const QString title = QString::fromStdString(table.title);
            const bool tree = title == QStringLiteral("Operator Summary");
            model_->setTable(std::move(table));
            view_->setRootIsDecorated(tree); // flat tables need no expander column
            view_->expandToDepth(0);         // ops open onto their phases; phases stay closed
            view_->resizeColumnToContents(SummaryTableModel::Name);
            // Demangled kernel names run to hundreds of characters: the numbers stay in view,
            // the name is elided in the middle and whole in its tooltip.
            view_->setColumnWidth(SummaryTableModel::Name,
                                  std::min(view_->columnWidth(SummaryTableModel::Name),
                                           std::max(240, view_->viewport()->width() * 2 / 5)));
            header_->setText(QStringLiteral("%1 (times in ms). %2").arg(title, note));
            emit tableShown();
        };
    });
}

void SummaryTablesPage::pickRow(const QModelIndex& index) {
    const int r = model_->rowOf(proxy_->mapToSource(index.siblingAtColumn(0)));
    if (r < 0) return;
    const SummaryTableRow& row = model_->table().rows[static_cast<size_t>(r)];
    if (row.kernels.empty()) return;
    emit kernelsRequested(
        row.kernels, QStringLiteral("%1: %2").arg(QString::fromStdString(model_->table().title),
                                                  QString::fromStdString(row.name)));
}

} // namespace ls::gui
