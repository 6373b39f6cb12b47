#include "widgets/summary_tables/summary_tables_page.h"

#include "widgets/session/background_job.h"
#include "widgets/summary_tables/memory_table_model.h"
#include "widgets/summary_tables/summary_table_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QStringList>
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
    {"memory", "Memory: GPU memory per op"},
    {"memory_layers", "Memory: GPU memory per layer"},
};

bool isMemoryReport(const std::string& report) { return report.rfind("memory", 0) == 0; }

// The header of a memory table: each device's peaks, or why there is nothing.
QString memoryHeader(const Trace& t, const std::vector<DeviceMemoryPeak>& peaks) {
    if (peaks.empty())
        return QStringLiteral("This trace records no GPU memory events. Record them with the "
                              "PyTorch profiler's profile_memory=True, nsys "
                              "--cuda-memory-usage=true or Paddle's profile_memory.");
    QStringList parts;
    for (const auto& p : peaks) {
        QString part = QStringLiteral("gpu:%1 peak %2 MB allocated")
                           .arg(p.device)
                           .arg(static_cast<double>(p.allocated) / (1024.0 * 1024.0), 0, 'f', 2);
        if (p.reserved != kNoMemoryTotal)
            part += QStringLiteral(", %1 MB reserved")
                        .arg(static_cast<double>(p.reserved) / (1024.0 * 1024.0), 0, 'f', 2);
        part += QStringLiteral(" (allocated peak %1 ms into the capture)")
                    .arg(static_cast<double>(p.allocatedAt - t.captureStart) / 1e6, 0, 'f', 3);
        parts << part;
    }
    return QStringLiteral("GPU memory: %1. Each row: the allocations and releases made inside an "
                          "op (or a layer's ops), as Paddle's memory table.")
        .arg(parts.join(QStringLiteral("; ")));
}
constexpr const char* kSorts[] = {"cpu_total", "cpu_avg", "cpu_max", "cpu_min",
                                  "gpu_total", "gpu_avg", "gpu_max", "gpu_min"};

} // namespace

SummaryTablesPage::SummaryTablesPage(QWidget* parent)
    : QWidget(parent), header_(new QLabel), tableBox_(new QComboBox), sortBox_(new QComboBox),
      view_(new QTreeView), model_(new SummaryTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)), memoryModel_(new MemoryTableModel(this)),
      memoryProxy_(new QSortFilterProxyModel(this)),
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
    memoryProxy_->setSourceModel(memoryModel_);
    memoryProxy_->setSortRole(MemoryTableModel::kSortRole);
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
        memoryModel_->setRows({});
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
    if (isMemoryReport(report)) return recomputeMemory(report == "memory_layers");
    if (view_->model() != proxy_) {
        view_->setModel(proxy_);
        view_->setSortingEnabled(false); // the order is Paddle's, picked in the combo
    }
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

void SummaryTablesPage::recomputeMemory(bool byLayer) {
    sortBox_->setEnabled(false);
    header_->setText(QStringLiteral("Computing…"));
    const std::shared_ptr<const Trace> trace = trace_;
    job_->run([this, trace, byLayer]() -> BackgroundJob::Done {
        auto rows = opMemoryRows(*trace, opsOfMemoryEvents(*trace),
                                 byLayer ? MemoryGrouping::Layer : MemoryGrouping::Op);
        QString header = memoryHeader(*trace, memoryPeaks(*trace));
        return [this, rows = std::move(rows), header = std::move(header)]() mutable {
            memoryModel_->setRows(std::move(rows));
            if (view_->model() != memoryProxy_) view_->setModel(memoryProxy_);
            view_->setRootIsDecorated(false);
            view_->setSortingEnabled(true); // the memory table has no order of Paddle's to keep
            view_->sortByColumn(-1, Qt::AscendingOrder); // core's order until a header click
            view_->resizeColumnToContents(MemoryTableModel::Name);
            header_->setText(header);
            emit tableShown();
        };
    });
}

void SummaryTablesPage::pickRow(const QModelIndex& index) {
    if (view_->model() != proxy_) return; // memory rows have no kernels
    const int r = model_->rowOf(proxy_->mapToSource(index.siblingAtColumn(0)));
    if (r < 0) return;
    const SummaryTableRow& row = model_->table().rows[static_cast<size_t>(r)];
    if (row.kernels.empty()) return;
    emit kernelsRequested(
        row.kernels, QStringLiteral("%1: %2").arg(QString::fromStdString(model_->table().title),
                                                  QString::fromStdString(row.name)));
}

} // namespace ls::gui
