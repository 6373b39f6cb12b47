// SummaryCharts::setSharesSteps: the Summary tab's charts come one per step of the show queue, so
// that no turn of the event loop builds all four. The first step takes the old charts away; each
// later one adds one chart in its place (the top kernels across the row, the other three below
// it, 2:1:1); the steps together give what setShares gives at once. Without shares: only the
// first step, which leaves no chart.
#include "tests/widgets/widget_test_support.h"
#include "widgets/panes/summary_charts.h"

#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <gtest/gtest.h>
#include <memory>

namespace {

using ls::ChartShares;
using ls::TimeShare;
using ls::gui::SummaryCharts;

std::shared_ptr<const ChartShares> someShares() {
    auto shares = std::make_shared<ChartShares>();
    shares->topKernels = {{"gemm", 3, 3000000, "name:gemm"},
                          {"softmax", 2, 1000000, "name:softmax"}};
    shares->byLayer = {{"layer.0", 4, 2500000, "layer:layer.0"}};
    shares->byDirection = {{"forward", 3, 2000000, "dir:fwd"}, {"backward", 2, 2000000, "dir:bwd"}};
    shares->byTensorCores = {{"Tensor Cores", 3, 3000000, "tc:yes"}};
    return shares;
}

QStringList chartTitles(const SummaryCharts& charts) {
    QStringList titles;
    for (const QChartView* view : charts.findChildren<QChartView*>(Qt::FindDirectChildrenOnly))
        titles << view->chart()->title();
    titles.sort();
    return titles;
}

const QGridLayout* grid(const SummaryCharts& charts) {
    return qobject_cast<const QGridLayout*>(charts.layout());
}

TEST(SummaryChartSteps, EachStepAfterTheFirstAddsOneChartInItsPlace) {
    SummaryCharts charts;
    charts.setShares(someShares()); // a previous trace's charts
    ASSERT_EQ(chartTitles(charts).size(), 4);

    const auto steps = charts.setSharesSteps(someShares());
    ASSERT_EQ(steps.size(), 5u);
    steps[0]();
    EXPECT_TRUE(chartTitles(charts).isEmpty()) << "the first step takes the old charts away";
    for (size_t i = 1; i < steps.size(); ++i) {
        steps[i]();
        EXPECT_EQ(chartTitles(charts).size(), static_cast<qsizetype>(i)) << "after step " << i;
    }
    // Where each one went: the top kernels across the first row, the other three below, 2:1:1.
    const QGridLayout* g = grid(charts);
    ASSERT_NE(g, nullptr);
    int row = -1, column = -1, rowSpan = 0, columnSpan = 0;
    for (int i = 0; i < g->count(); ++i) {
        const auto* view = qobject_cast<QChartView*>(g->itemAt(i)->widget());
        ASSERT_NE(view, nullptr);
        if (view->chart()->title() != QStringLiteral("Top kernels by GPU time")) continue;
        g->getItemPosition(i, &row, &column, &rowSpan, &columnSpan);
    }
    EXPECT_EQ(row, 0);
    EXPECT_EQ(columnSpan, 3);
    for (int c = 0; c < 3; ++c) {
        ASSERT_NE(g->itemAtPosition(1, c), nullptr) << "column " << c;
        EXPECT_EQ(g->columnStretch(c), c == 0 ? 2 : 1);
        EXPECT_EQ(g->itemAtPosition(1, c)->widget()->sizePolicy().horizontalPolicy(),
                  QSizePolicy::Ignored);
    }

    SummaryCharts atOnce;
    atOnce.setShares(someShares());
    EXPECT_EQ(chartTitles(charts), chartTitles(atOnce));
}

TEST(SummaryChartSteps, WithoutSharesOnlyTheOldChartsGo) {
    SummaryCharts charts;
    charts.setShares(someShares());
    const auto steps = charts.setSharesSteps(nullptr);
    ASSERT_EQ(steps.size(), 1u);
    steps[0]();
    EXPECT_TRUE(chartTitles(charts).isEmpty());
}

} // namespace
