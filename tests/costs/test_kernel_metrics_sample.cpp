// Per-kernel FLOPs, bytes, dtype and Tensor Core use on the bundled sample (GPT-2 style, 2 layers,
// d_model 768, d_ff 3072, vocab 50257, 12 heads of 64, batch 4 x seq 256, fp16 autocast, one
// training iteration on an H200), checked against the model's dimensions written out by hand,
// and the `kernels` / `summary` CLI columns checked against each other and SQL over the file.
#include "core/costs/tensor_core.h"
#include "core/load/load.h"
#include "tests/support/cli_table.h"
#include "tests/support/sample_fixture.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sqlite3.h>

namespace {

using namespace ls::test;

// The model, by hand.
constexpr double kTokens = 4.0 * 256; // batch x seq
constexpr double kLayers = 2;
// Linear weights per layer: qkv 768x2304, attention projection 768x768, fc1 768x3072, fc2 3072x768;
// plus the LM head 768x50257. Biases are added in GEMM epilogues or separate kernels: not GEMM
// math.
constexpr double kLinearWeights =
    kLayers * (768.0 * 2304 + 768.0 * 768 + 768.0 * 3072 + 3072.0 * 768) + 768.0 * 50257;
constexpr double kForwardGemmFlops =
    2 * kTokens * kLinearWeights; // 2 FLOPs (one FMA) per token and weight
// Attention, dense (the causal mask is not subtracted: the marker does not record is_causal, and
// MFU figures use the dense count): QK^T and PV, 2*B*H*L*S*E each, per layer.
constexpr double kForwardAttentionFlops = kLayers * 4.0 * 4 * 12 * 256 * 256 * 64;

class KernelMetricsSample : public SampleTraceSuite {
  protected:
    static std::string opName(uint32_t k) {
        const auto op = trace_->kernelLinks.op[k];
        return op.valid() ? std::string(trace_->str(trace_->ranges.name[op.value])) : std::string();
    }
    static bool isGemmOp(const std::string& op) {
        return op == "aten::mm" || op == "aten::addmm" || op == "aten::bmm" ||
               op == "aten::matmul" || op == "aten::linear";
    }
    // Sum of finite FLOPs over kernels whose op passes `pick`, per direction.
    template <typename Pick> static std::map<ls::Direction, double> flopsBy(Pick pick) {
        std::map<ls::Direction, double> out;
        for (uint32_t i = 0; i < trace_->kernels.size(); ++i)
            if (pick(opName(i)) && std::isfinite(trace_->metrics.flops[i]))
                out[trace_->kernelLinks.direction[i]] += trace_->metrics.flops[i];
        return out;
    }
};

TEST_F(KernelMetricsSample, GemmFlopsAreTwiceTokensTimesLinearWeightsAndBackwardTwiceThat) {
    const auto flops = flopsBy(isGemmOp);
    EXPECT_DOUBLE_EQ(kForwardGemmFlops, 108038455296.0) << "the hand computation itself";
    EXPECT_DOUBLE_EQ(flops.at(ls::Direction::Forward), kForwardGemmFlops);
    EXPECT_DOUBLE_EQ(flops.at(ls::Direction::Backward), 2 * kForwardGemmFlops) << "dgrad + wgrad";
}

TEST_F(KernelMetricsSample, AttentionFlopsAreDenseFourBHLLEForwardAndTwiceBackward) {
    const auto flops =
        flopsBy([](const std::string& op) { return op.find("attention") != std::string::npos; });
    EXPECT_DOUBLE_EQ(flops.at(ls::Direction::Forward), kForwardAttentionFlops);
    EXPECT_DOUBLE_EQ(flops.at(ls::Direction::Backward), 2 * kForwardAttentionFlops);
}

TEST_F(KernelMetricsSample, EveryGemmAndAttentionMathKernelUsedTensorCores) {
    const auto& m = trace_->metrics;
    size_t math = 0;
    for (uint32_t i = 0; i < trace_->kernels.size(); ++i) {
        const std::string op = opName(i);
        if (!isGemmOp(op) && op.find("attention") == std::string::npos) continue;
        const std::string name(trace_->str(trace_->kernels.name[i]));
        if (!m.tcMathOp[i]) {
            EXPECT_EQ(m.flops[i], 0) << "auxiliary kernel " << name;
            continue;
        }
        ++math;
        EXPECT_EQ(m.tc[i], ls::TcState::Used)
            << op << " " << name << ": " << ls::tcReason(ls::TcVerdict{m.tc[i], m.tcRule[i]});
        EXPECT_GT(m.flops[i], 0) << name;
    }
    // forward: 2 layers x (qkv, proj, fc1, fc2, attention) + LM head = 11; backward: 2 layers x
    // (4 GEMMs x dgrad/wgrad + attention) + LM head dgrad/wgrad = 20
    EXPECT_EQ(math, 31u);
}

TEST_F(KernelMetricsSample, MmAndAddmmKernelsAlwaysHaveFlops) {
    size_t n = 0;
    for (uint32_t i = 0; i < trace_->kernels.size(); ++i) {
        const std::string op = opName(i);
        if (op != "aten::mm" && op != "aten::addmm") continue;
        ++n;
        EXPECT_FALSE(std::isnan(trace_->metrics.flops[i]))
            << op << " " << trace_->str(trace_->kernels.name[i]);
    }
    // forward: 2 layers x (qkv mm + 3 addmm) + LM head mm = 9; backward: 2 layers x 4 GEMMs x
    // (dgrad + wgrad) + LM head wgrad, dgrad and its split-K reduce = 19
    EXPECT_EQ(n, 28u);
}

TEST_F(KernelMetricsSample, SplitKReduceHasNoFlopsAndItsGemmKernelCarriesThem) {
    const auto& k = trace_->kernels;
    size_t reduces = 0;
    for (uint32_t i = 0; i < k.size(); ++i) {
        if (trace_->str(k.name[i]).find("splitKreduce") == std::string_view::npos) continue;
        ++reduces;
        EXPECT_EQ(trace_->metrics.flops[i], 0);
        EXPECT_EQ(trace_->metrics.tcMathOp[i], 0);
        const auto op = trace_->kernelLinks.op[i];
        ASSERT_TRUE(op.valid());
        // the LM head's dgrad: dX[1024,768] = dLogits[1024,50257] . W[50257,768]
        EXPECT_EQ(trace_->str(trace_->ranges.sizes[op.value]), "[[1024, 50257], [50257, 768]]");
        std::vector<uint32_t> siblings;
        for (uint32_t j = 0; j < k.size(); ++j)
            if (j != i && trace_->kernelLinks.op[j] == op) siblings.push_back(j);
        ASSERT_EQ(siblings.size(), 1u);
        EXPECT_DOUBLE_EQ(trace_->metrics.flops[siblings[0]], 2.0 * 1024 * 768 * 50257);
        EXPECT_EQ(trace_->metrics.tc[siblings[0]], ls::TcState::Used);
    }
    EXPECT_GE(reduces, 1u);
}

TEST_F(KernelMetricsSample, NvjetHshKernelsAreFloat16FromTheirName) {
    size_t n = 0;
    for (size_t i = 0; i < kernels_->rows.size(); ++i) {
        if (kernels_->at(i, "name").rfind("nvjet_sm90_hsh_", 0) != 0) continue;
        ++n;
        EXPECT_EQ(kernels_->at(i, "dtype"), "float16") << kernels_->at(i, "name");
        EXPECT_EQ(kernels_->at(i, "dtype_source"), "kernel name");
        EXPECT_EQ(kernels_->at(i, "tc"), "used");
        EXPECT_FALSE(kernels_->at(i, "tc_reason").empty());
        EXPECT_FALSE(kernels_->at(i, "flops_rule").empty());
    }
    EXPECT_GT(n, 20u);
}

// AdamW's exp_avg_sq.addcmul_(grad, grad, 1 - beta2) passes the gradient list twice; the kernel
// reads it from memory once. Its bytes are exp_avg_sq and grad read and exp_avg_sq written: 3 x P
// float32 values over the op's kernels, P the model's parameters written out by hand (untied LM
// head).
TEST_F(KernelMetricsSample, AdamWAddcmulReadsTheGradientListOnce) {
    constexpr double d = 768, ff = 3072, vocab = 50257, positions = 256;
    constexpr double perLayer =
        2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * ff + ff) + (ff * d + d);
    constexpr double params = vocab * d + positions * d + kLayers * perLayer + 2 * d + vocab * d;
    double bytes = 0, seconds = 0;
    size_t kernels = 0;
    for (uint32_t i = 0; i < trace_->kernels.size(); ++i) {
        if (opName(i) != "aten::_foreach_addcmul_") continue;
        ++kernels;
        bytes += trace_->metrics.bytes[i];
        seconds += static_cast<double>(trace_->kernels.duration(i)) * 1e-9;
        EXPECT_NE(std::string(trace_->str(trace_->metrics.rule[i])).find("read once"),
                  std::string::npos);
    }
    ASSERT_GT(kernels, 0u);
    EXPECT_NEAR(bytes, 3 * params * 4, 1e-9 * bytes)
        << "the op's bytes, split over its kernels by duration, add back up";
    // Each list is far larger than the 50 MB L2, so the rate must stay under the H200's HBM peak
    // (4.8 TB/s); counting the gradient twice gave 5.08 TB/s.
    EXPECT_LT(bytes / seconds, 4.8e12);
    EXPECT_GT(bytes / seconds, 2.0e12);
}

TEST_F(KernelMetricsSample, KernelsCsvRatesFollowFromFlopsBytesAndDuration) {
    ASSERT_EQ(kernels_->rows.size(), trace_->kernels.size());
    size_t checked = 0;
    for (size_t i = 0; i < kernels_->rows.size(); ++i) {
        SCOPED_TRACE(formatCsvRow(kernels_->rows[i]));
        const std::string& f = kernels_->at(i, "flops");
        const double core = trace_->metrics.flops[i];
        EXPECT_EQ(f.empty(), !std::isfinite(core)) << "empty exactly when unknown";
        if (f.empty()) {
            EXPECT_EQ(kernels_->at(i, "tflops_s"), "");
            EXPECT_EQ(kernels_->at(i, "intensity"), "");
            continue;
        }
        const double flops = std::stod(f), ns = std::stod(kernels_->at(i, "duration_ns"));
        EXPECT_NEAR(flops, core, 0.5);
        EXPECT_NEAR(std::stod(kernels_->at(i, "tflops_s")), flops / ns / 1e3, 0.0006);
        const std::string& b = kernels_->at(i, "bytes");
        if (b.empty() || std::stod(b) == 0) continue;
        const double bytes = std::stod(b);
        EXPECT_NEAR(std::stod(kernels_->at(i, "intensity")), flops / bytes, 0.0006);
        EXPECT_NEAR(std::stod(kernels_->at(i, "gbytes_s")), bytes / ns, 0.0006);
        ++checked;
    }
    EXPECT_GT(checked, 100u);
}

TEST_F(KernelMetricsSample, LayerSumFlopsAndTensorCoreShareAddUp) {
    // per (layer, direction) from the kernels listing
    struct Sum {
        double flops = 0;
        int64_t ns = 0, tcNs = 0,
                flopsNs = 0; // flopsNs: time of the kernels with a known FLOP count
    };
    std::map<std::pair<std::string, std::string>, Sum> byLayer;
    double allFlops = 0;
    for (size_t i = 0; i < kernels_->rows.size(); ++i) {
        const std::string& layer = kernels_->at(i, "layer");
        auto& s = byLayer[{layer.empty() ? "(none)" : layer, kernels_->at(i, "direction")}];
        const int64_t ns = std::stoll(kernels_->at(i, "duration_ns"));
        s.ns += ns;
        if (kernels_->at(i, "tc") == "used") s.tcNs += ns;
        if (std::isfinite(trace_->metrics.flops[i])) {
            s.flops += trace_->metrics.flops[i];
            s.flopsNs += ns;
            allFlops += trace_->metrics.flops[i];
        }
    }
    const CliTable t = cliTable({"summary", sampleTrace().string(), "--report", "layer_sum"});
    ASSERT_EQ(t.rows.size(), byLayer.size());
    double rowFlops = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        SCOPED_TRACE(formatCsvRow(t.rows[i]));
        const auto it = byLayer.find({t.at(i, "layer"), t.at(i, "direction")});
        ASSERT_NE(it, byLayer.end());
        const double ns = std::stod(t.at(i, "gpu_time_ns"));
        EXPECT_EQ(std::stoll(t.at(i, "gpu_time_ns")), it->second.ns);
        EXPECT_NEAR(std::stod(t.at(i, "tc_time_pct")),
                    100.0 * static_cast<double>(it->second.tcNs) / ns, 0.006);
        if (t.at(i, "flops").empty()) { // no kernel of the row has a formula: empty, never 0
            EXPECT_EQ(it->second.flops, 0.0);
            EXPECT_EQ(t.at(i, "tflops_s"), "");
            continue;
        }
        const double flops = std::stod(t.at(i, "flops"));
        rowFlops += flops;
        EXPECT_NEAR(flops, it->second.flops, 0.5);
        // The rate over the kernels that have a FLOP count, as the layer tree shows it.
        EXPECT_NEAR(std::stod(t.at(i, "tflops_s")),
                    flops / static_cast<double>(it->second.flopsNs) / 1e3, 0.0006);
    }
    EXPECT_NEAR(rowFlops, allFlops, 0.5 * static_cast<double>(t.rows.size()));
    EXPECT_GT(allFlops, 3 * kForwardGemmFlops) << "forward + backward GEMMs at least";
}

TEST_F(KernelMetricsSample, TcSumRowsAddUpToEachDevicesKernelTime) {
    SqlReader sql(sampleTrace());
    std::map<int64_t, std::pair<int64_t, int64_t>> device; // id -> (time, count)
    sql.each(
        "SELECT deviceId, sum(end - start), count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY "
        "deviceId",
        [&](sqlite3_stmt* st) {
            device[SqlReader::int64(st, 0)] = {SqlReader::int64(st, 1), SqlReader::int64(st, 2)};
        });
    ASSERT_FALSE(device.empty());
    std::map<std::pair<std::string, std::string>, int64_t> fromKernels; // (device, tc) -> time
    for (size_t i = 0; i < kernels_->rows.size(); ++i)
        fromKernels[{kernels_->at(i, "device"), kernels_->at(i, "tc")}] +=
            std::stoll(kernels_->at(i, "duration_ns"));

    const CliTable t = cliTable({"summary", sampleTrace().string(), "--report", "tc_sum"});
    std::map<int64_t, std::pair<int64_t, int64_t>> sums;
    std::map<int64_t, double> percent;
    std::set<std::string> states;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        SCOPED_TRACE(formatCsvRow(t.rows[i]));
        const int64_t d = std::stoll(t.at(i, "device")), ns = std::stoll(t.at(i, "gpu_time_ns"));
        sums[d].first += ns;
        sums[d].second += std::stoll(t.at(i, "kernels"));
        percent[d] += std::stod(t.at(i, "gpu_time_pct"));
        states.insert(t.at(i, "tc"));
        EXPECT_EQ(ns, (fromKernels[{t.at(i, "device"), t.at(i, "tc")}]));
        EXPECT_NEAR(std::stod(t.at(i, "gpu_time_pct")),
                    100.0 * static_cast<double>(ns) / static_cast<double>(device[d].first), 0.006);
    }
    EXPECT_EQ(sums, device);
    for (const auto& [d, p] : percent) EXPECT_NEAR(p, 100.0, 0.02) << "device " << d;
    EXPECT_TRUE(states.count("used") && states.count("n/a"));
    for (const auto& s : states) EXPECT_TRUE(s == "used" || s == "not used" || s == "n/a") << s;
}

TEST(KernelMetricsDdp, NvjetTstKernelsAreBfloat16AndUseTensorCores) {
    const fs::path file = sharedDir() / "traces" / "ddp_bf16_h200x2_rank0.sqlite";
    LS_REQUIRE_FILE(file);
    const CliTable t = cliTable({"kernels", file.string()});
    size_t n = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        if (t.at(i, "name").rfind("nvjet_sm90_tst_", 0) != 0) continue;
        ++n;
        SCOPED_TRACE(formatCsvRow(t.rows[i]));
        EXPECT_EQ(t.at(i, "dtype"), "bfloat16");
        EXPECT_EQ(t.at(i, "dtype_source"), "kernel name");
        EXPECT_EQ(t.at(i, "tc"), "used");
    }
    EXPECT_GT(n, 10u);
}

} // namespace
