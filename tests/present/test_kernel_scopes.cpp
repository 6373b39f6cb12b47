// The scopes a click puts on the kernel table and timeline, computed in core without Qt: a
// layer's rows on every rank of the all-ranks table, and the GPU span of a clicked range.
#include "core/load/session_load.h"
#include "core/present/kernel_scopes.h"
#include "core/pytorch/correlation.h"
#include "tests/support/sample_fixture.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>

namespace fs = std::filesystem;
using ls::KernelId;

namespace {

class KernelScopes : public ls::test::SampleTraceSuite {};

TEST_F(KernelScopes, GpuSpanRunsFromTheFirstStartToTheLastEnd) {
    const ls::Trace& t = *trace_;
    ASSERT_GE(t.kernels.size(), 10u);
    EXPECT_FALSE(ls::gpuSpanOf(t, {}));
    // Given out of order: the span is the earliest start and the latest end, by hand.
    const std::vector<KernelId> picked{KernelId(9), KernelId(2), KernelId(5)};
    double from = 1e300, to = -1e300;
    for (uint32_t k : {2u, 5u, 9u}) {
        from = std::min(from, static_cast<double>(t.kernels.start[k]));
        to = std::max(to, static_cast<double>(t.kernels.end[k]));
    }
    const auto span = ls::gpuSpanOf(t, picked);
    ASSERT_TRUE(span);
    EXPECT_EQ(span->first, from);
    EXPECT_EQ(span->second, to);
    const auto one = ls::gpuSpanOf(t, {KernelId(7)});
    ASSERT_TRUE(one);
    EXPECT_EQ(one->first, static_cast<double>(t.kernels.start[7]));
    EXPECT_EQ(one->second, static_cast<double>(t.kernels.end[7]));
}

TEST_F(KernelScopes, LayerRowsOnEveryRankAreThatLayersKernelsOfEachTrace) {
    // Two ranks: the sample under two names.
    const fs::path dir = fs::temp_directory_path() / "ls_kernel_scopes";
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(ls::test::sampleTrace(), dir / "rank0.sqlite");
    fs::copy_file(ls::test::sampleTrace(), dir / "rank1.sqlite");
    auto session = std::make_shared<ls::Session>(ls::loadSession({dir.string()}));
    ASSERT_EQ(session->traces.size(), 2u);
    const auto all = ls::prepareAllRanks(*ls::analyseRanks(session));

    // A layer of the sample: the first kernel's that has one.
    const ls::Trace& t = *trace_;
    ls::StringId layer;
    for (size_t k = 0; k < t.kernels.size() && !layer.valid(); ++k) layer = t.kernelLinks.layer[k];
    ASSERT_TRUE(layer.valid());
    const std::string name(t.str(layer));
    const size_t perTrace = ls::kernelsOfLayer(t, layer).size();
    ASSERT_GT(perTrace, 0u);

    const auto rows = ls::layerRowsOnEveryRank(*all, name);
    ASSERT_EQ(rows.size(), 2 * perTrace);
    EXPECT_EQ(std::set<KernelId>(rows.begin(), rows.end()).size(), rows.size());
    for (KernelId row : rows) {
        const uint32_t trace = all->kernels->traceOf(row);
        const ls::Trace& there = *all->traces[trace];
        const KernelId k = all->kernels->localOf(row);
        EXPECT_EQ(there.str(there.kernelLinks.layer[k.value]), name);
    }
    // Rows of rank 0 come first.
    EXPECT_EQ(all->kernels->traceOf(rows.front()), 0u);
    EXPECT_EQ(all->kernels->traceOf(rows.back()), 1u);
    EXPECT_TRUE(ls::layerRowsOnEveryRank(*all, "no such layer anywhere").empty());
    fs::remove_all(dir);
}

} // namespace
