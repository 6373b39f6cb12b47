// Details of kernels replayed by CUDA graph launches (tests/data/graphs): the node, the node it
// was cloned from, the capture-time launch call and how the kernel was attributed; a whole-graph
// item of a graph-trace export shows no launch shape.
#include "core/load/load.h"
#include "core/views/kernel_table.h"
#include "widgets/tables/kernel_details.h"

#include <gtest/gtest.h>

namespace {

std::shared_ptr<const ls::Trace> loadGraphTrace(const char* name) {
    const std::string path = std::string(LAYERSCOPE_SOURCE_DIR) + "/tests/data/graphs/" + name;
    ls::LoadResult r = ls::loadTrace(path);
    EXPECT_TRUE(r.ok()) << path;
    return r.trace;
}

// The first kernel attributed as `how`.
ls::KernelId firstWith(const ls::Trace& t, ls::GraphAttribution how) {
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        if (!t.kernelGraph.empty() && t.kernelGraph.how[k] == how) return ls::KernelId(k);
    return {};
}

TEST(GraphDetails, AReplayedKernelNamesItsNodeCloneOriginAndCaptureCall) {
    const auto trace = loadGraphTrace("graphs_graph_nodes.sqlite");
    ASSERT_TRUE(trace);
    const ls::KernelTable table(trace);
    const ls::KernelId k = firstWith(*trace, ls::GraphAttribution::Capture);
    ASSERT_TRUE(k.valid());
    const QString html = ls::gui::kernelDetailsHtml(table, k);
    EXPECT_TRUE(html.contains(QStringLiteral("CUDA graph"))) << html.toStdString();
    EXPECT_TRUE(html.contains(QStringLiteral("graph 2 node"))) << html.toStdString();
    EXPECT_TRUE(html.contains(QStringLiteral("graph 1 node"))) << "cloned from the captured graph";
    EXPECT_TRUE(html.contains(QStringLiteral("Captured by")));
    EXPECT_TRUE(html.contains(QStringLiteral("cudaGraphLaunch")));
    EXPECT_EQ(table.text(k, ls::KernelField::Graph).rfind("graph 2 node ", 0), 0u);
}

TEST(GraphDetails, AWholeGraphItemSaysItsKernelsWereNotTraced) {
    const auto trace = loadGraphTrace("graphs_graph_graph.sqlite");
    ASSERT_TRUE(trace);
    const ls::KernelTable table(trace);
    const ls::KernelId k = firstWith(*trace, ls::GraphAttribution::LaunchItem);
    ASSERT_TRUE(k.valid());
    const QString html = ls::gui::kernelDetailsHtml(table, k);
    EXPECT_TRUE(html.contains(QStringLiteral("whole graph launch"))) << html.toStdString();
    EXPECT_FALSE(html.contains(QStringLiteral("Grid · block")));
    EXPECT_EQ(table.text(k, ls::KernelField::Graph), "graph 1 (whole launch)");
}

} // namespace
