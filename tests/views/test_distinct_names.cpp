// Short names that tell kernels apart, on the names of the bundled sample (fp16) and the bf16
// run: the three cuBLAS/CUTLASS GEMMs whose short name is Kernel2 read by element type, tile and
// layout, and a group of elementwise kernels by the words only each one has.
#include "core/load/load.h"
#include "core/views/distinct_names.h"
#include "tests/support/test_support.h"

#include <map>
#include <set>

namespace ls::test {
namespace {

// Every distinct (full, short) pair of a trace, in first-seen order.
std::pair<std::vector<std::string_view>, std::vector<std::string_view>> namesOf(const Trace& t) {
    std::vector<std::string_view> fulls, shorts;
    std::set<uint32_t> seen;
    for (size_t k = 0; k < t.kernels.size(); ++k)
        if (seen.insert(t.kernels.name[k].value).second) {
            fulls.push_back(t.str(t.kernels.name[k]));
            shorts.push_back(t.str(t.kernels.shortName[k]));
        }
    return {fulls, shorts};
}

TEST(DistinctNames, TheSamplesThreeKernel2GemmsReadByTypeTileAndLayout) {
    const LoadResult r = loadTrace(sampleTrace().string());
    ASSERT_TRUE(r.ok());
    const auto [fulls, shorts] = namesOf(*r.trace);
    const auto names = distinctShortNames(fulls, shorts);
    std::map<std::string, std::string> kernel2; // full -> shown
    for (size_t i = 0; i < fulls.size(); ++i)
        if (shorts[i] == "Kernel2") kernel2[std::string(fulls[i])] = names[i];
    ASSERT_EQ(kernel2.size(), 3u);
    EXPECT_EQ(kernel2["void "
                      "cutlass::Kernel2<cutlass_75_tensorop_f16_s1688gemm_f16_128x128_tn_align1>("
                      "T1::Params)"],
              "Kernel2 ·f16 128x128 tn");
    EXPECT_EQ(kernel2["void "
                      "cutlass::Kernel2<cutlass_75_tensorop_f16_s1688gemm_f16_256x128_nt_align1>("
                      "T1::Params)"],
              "Kernel2 ·f16 256x128 nt");
    EXPECT_EQ(kernel2["void "
                      "cutlass::Kernel2<cutlass_75_tensorop_f16_s1688gemm_f16_256x128_nn_align1>("
                      "T1::Params)"],
              "Kernel2 ·f16 256x128 nn");
    // A short name nobody else has stays as it is.
    for (size_t i = 0; i < fulls.size(); ++i)
        if (shorts[i] == "cunn_SoftMaxForward") {
            EXPECT_EQ(names[i], "cunn_SoftMaxForward");
        }
}

TEST(DistinctNames, SharedShortNamesBecomeMostlyDistinct) {
    for (const fs::path& file :
         {sampleTrace(), sourceDir() / "tests/data/compare/gpt2_2layer_bf16_b8_h200.sqlite"}) {
        const LoadResult r = loadTrace(file.string());
        ASSERT_TRUE(r.ok());
        const auto [fulls, shorts] = namesOf(*r.trace);
        const auto names = distinctShortNames(fulls, shorts);
        const std::set<std::string_view> shortSet(shorts.begin(), shorts.end());
        const std::set<std::string> shownSet(names.begin(), names.end());
        // Before: 56 names of the sample shared 31 short names; after, nearly one label each.
        EXPECT_LT(shortSet.size(), fulls.size() * 3 / 4) << file;
        EXPECT_GE(shownSet.size(), fulls.size() * 9 / 10) << file;
        for (size_t i = 0; i < fulls.size(); ++i)
            EXPECT_EQ(names[i].rfind(std::string(shorts[i]), 0), 0u) << names[i];
    }
}

} // namespace
} // namespace ls::test
