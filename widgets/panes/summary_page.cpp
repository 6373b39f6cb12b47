#include "widgets/panes/summary_page.h"

#include "core/present/step_timing.h"
#include "widgets/panes/summary_charts.h"
#include "widgets/tables/kernel_summary_model.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace ls::gui {

SummaryPage::SummaryPage(QWidget* parent)
    : QSplitter(Qt::Vertical, parent), charts_(new SummaryCharts),
      model_(new KernelSummaryModel(this)), table_(new QTableView) {
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(KernelSummaryModel::SortRole);
    table_->setObjectName(QStringLiteral("kernelSummary"));
    table_->setModel(proxy);
    table_->setSortingEnabled(true);
    table_->sortByColumn(KernelSummaryModel::Total, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    addWidget(charts_);
    addWidget(table_);
    setStretchFactor(0, 3);
    setStretchFactor(1, 2);
}

std::vector<std::function<void()>> SummaryPage::showSteps(std::shared_ptr<const TraceViews> views) {
    std::vector<std::function<void()>> steps;
    for (auto& chart : charts_->setSharesSteps(views->charts))
        steps.emplace_back([chart = std::move(chart)] {
            const StepTiming step("summary chart");
            chart();
        });
    steps.emplace_back([this, views] {
        const StepTiming step("summary table");
        model_->setRows(*views->kernelSummary);
        table_->resizeColumnsToContents();
    });
    return steps;
}

std::vector<QAbstractItemView*> SummaryPage::exportViews() const { return {table_}; }

} // namespace ls::gui
