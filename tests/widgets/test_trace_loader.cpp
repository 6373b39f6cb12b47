// The loader's cold open (no model cache): the kernel table's NVTX paths, and its rows in a time
// column's order, are built while the load still prices the kernels (LoadOptions::correlated);
// they equal what a table of the finished trace builds and sorts. Another order is sorted after
// the load, the same way.
#include "core/load/load.h"
#include "core/present/trace_views.h"
#include "widgets/session/trace_loader.h"

#include <QSignalSpy>
#include <QTest>
#include <gtest/gtest.h>

namespace {

using ls::KernelField;
using ls::KernelId;
using ls::KernelOrder;
using ls::TraceViews;
using ls::gui::TraceLoader;

std::shared_ptr<const TraceViews> openVisible(const QString& path, KernelOrder order) {
    TraceLoader loader;
    loader.setKernelOrder(order);
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    loader.start(path);
    if (!loaded.wait(60000)) return nullptr;
    return loaded.takeFirst().at(0).value<std::shared_ptr<const TraceViews>>();
}

void expectTheTableOfTheFinishedTrace(const QString& path, KernelField field, bool descending) {
    SCOPED_TRACE(path.toStdString() + " by " + std::string(ls::kernelFieldInfo(field).name));
    qputenv("LAYERSCOPE_NO_CACHE", "1");
    const auto s = openVisible(path, KernelOrder{static_cast<int>(field), descending});
    ASSERT_TRUE(s && s->kernels && s->sortedKernels);
    EXPECT_EQ(s->kernelOrder.column, static_cast<int>(field));
    EXPECT_EQ(s->kernelOrder.descending, descending);
    const ls::LoadResult fresh = ls::loadTrace(path.toStdString());
    ASSERT_TRUE(fresh.ok());
    const ls::KernelTable table(fresh.trace);
    std::vector<KernelId> rows(fresh.trace->kernels.size());
    for (uint32_t k = 0; k < rows.size(); ++k) rows[k] = KernelId(k);
    table.sort(rows, field, descending);
    EXPECT_EQ(*s->sortedKernels, rows);
    EXPECT_EQ(s->kernels->paths()->ofKernel, table.paths()->ofKernel);
    for (uint32_t k = 0; k < rows.size(); ++k)
        ASSERT_EQ(s->kernels->nvtxPath(KernelId(k)), table.nvtxPath(KernelId(k))) << k;
}

const QString kSample =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/resources/sample_gpt2_2layer_fp16_h200.sqlite");
const QString kKineto =
    QStringLiteral(LAYERSCOPE_SOURCE_DIR "/tests/data/kineto/gpt2_2layer_fp16_h200.kineto.json.gz");

TEST(TraceLoaderEarlyViews, TimeOrdersAndPathsEqualThoseOfTheFinishedTrace) {
    for (const QString& path : {kSample, kKineto}) {
        expectTheTableOfTheFinishedTrace(path, KernelField::Duration, true); // the window's default
        expectTheTableOfTheFinishedTrace(path, KernelField::End, false);
    }
}

TEST(TraceLoaderEarlyViews, AnOrderTheCostsGiveIsSortedAfterTheLoad) {
    expectTheTableOfTheFinishedTrace(kSample, KernelField::Flops, true);
    expectTheTableOfTheFinishedTrace(kSample, KernelField::Name, false);
}

} // namespace
