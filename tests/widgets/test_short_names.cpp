// Short kernel names told apart where lists and the timeline show them: the sample (the shared
// gpt2_2layer_fp16_h200 trace) has three different CUTLASS GEMMs whose short name is Kernel2.
#include "core/present/kernel_labels.h"
#include "core/present/timeline_data.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/panes/fwd_bwd_panel.h"
#include "widgets/tables/kernel_table_model.h"
#include "widgets/window/main_window.h"

#include <QTableView>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace {

using ls::KernelField;
using ls::KernelId;

TEST(ShortNames, TwoDifferentKernel2sReadDifferentlyInTableTimelineAndPanes) {
    auto w = ls::gui::test::openInWindow(ls::gui::test::samplePath());
    ASSERT_TRUE(w);
    const ls::Trace& t = *w->trace();
    std::map<std::string, KernelId> kernel2; // full name → one of its kernels
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        if (t.str(t.kernels.shortName[k]) == "Kernel2")
            kernel2.emplace(std::string(t.str(t.kernels.name[k])), KernelId(k));
    ASSERT_GE(kernel2.size(), 2u);

    const ls::KernelLabels labels(t);
    const auto timeline = ls::buildTimelineData(w->trace());
    ls::gui::KernelTableModel* model = w->kernelModel();
    model->clearScope();
    std::set<std::string> seen;
    for (const auto& [full, k] : kernel2) {
        const std::string& label = labels.of(k.value);
        EXPECT_TRUE(label.starts_with("Kernel2 ")) << label;
        EXPECT_TRUE(seen.insert(label).second) << "two Kernel2s read " << label;
        EXPECT_EQ(timeline->kernelLabels->of(k.value), label); // the timeline's bar text
        // The table's Short name column: the label on screen, the full name on hover, core's
        // short name for sorting and CSV.
        const int row = model->rowOf(k);
        ASSERT_GE(row, 0);
        const QModelIndex cell = model->index(row, static_cast<int>(KernelField::ShortName));
        EXPECT_EQ(cell.data(Qt::DisplayRole).toString().toStdString(), label);
        EXPECT_EQ(cell.data(Qt::ToolTipRole).toString().toStdString(), full);
        EXPECT_EQ(cell.data(ls::gui::KernelTableModel::ExportRole).toString(),
                  QStringLiteral("Kernel2"));
    }
    // The Forward/Backward kernel lists show that column rather than the middle-elided full name.
    for (QTableView* v :
         {w->fwdBwdPanel()->forwardKernelsView(), w->fwdBwdPanel()->backwardKernelsView()}) {
        EXPECT_FALSE(v->isColumnHidden(static_cast<int>(KernelField::ShortName)));
        EXPECT_TRUE(v->isColumnHidden(static_cast<int>(KernelField::Name)));
    }
}

} // namespace
