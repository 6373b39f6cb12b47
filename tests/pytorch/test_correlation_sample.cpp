// Correlation on the bundled sample (GPT-2, 2 layers, one training iteration, emit_nvtx with
// shapes, user ranges `iteration 2`, `forward`, `layer0`, `layer1`, `backward`, `optimizer`):
// layers, forward/backward pairs and the layer/op summaries, checked against SQL over the file
// and against each other.
#include "core/load/load.h"
#include "core/pytorch/correlation.h"
#include "tests/support/cli_table.h"
#include "tests/support/sample_fixture.h"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sqlite3.h>

namespace {

using namespace ls::test;

// A kernel is known by (start, correlation id): unique in the sample (checked below).
using KernelKey = std::pair<int64_t, int64_t>;

class CorrelationSample : public SampleTraceSuite {
  protected:
    static std::map<KernelKey, uint32_t> idsByKey() {
        std::map<KernelKey, uint32_t> ids;
        const auto& k = trace_->kernels;
        for (uint32_t i = 0; i < k.size(); ++i)
            EXPECT_TRUE(ids.emplace(KernelKey(k.start[i], k.correlation[i]), i).second);
        return ids;
    }

    // Kernels whose launch call (same correlation id and process) lies inside a range with this
    // text on the call's own thread, by SQL over the file.
    static std::set<uint32_t> sqlKernelsInRange(const std::string& text) {
        const auto ids = idsByKey();
        std::set<uint32_t> out;
        SqlReader sql(sampleTrace());
        sql.each("SELECT DISTINCT k.start, k.correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                 "  AND ((r.globalTid >> 24) & 16777215) = ((k.globalPid >> 24) & 16777215) "
                 "JOIN NVTX_EVENTS n ON n.text = '" +
                     text +
                     "' AND n.globalTid = r.globalTid "
                     "  AND n.start <= r.start AND n.end >= r.end",
                 [&](sqlite3_stmt* st) {
                     const auto it = ids.find({SqlReader::int64(st, 0), SqlReader::int64(st, 1)});
                     if (it == ids.end())
                         ADD_FAILURE() << "SQL kernel not loaded";
                     else
                         out.insert(it->second);
                 });
        return out;
    }

    // Backward kernels of a layer, by SQL: launched on the autograd thread inside an engine
    // wrapper whose node carries seq N, where a forward marker inside the layer range carries N.
    static std::set<uint32_t> sqlBackwardKernelsOfLayer(const std::string& layer) {
        const auto ids = idsByKey();
        std::set<uint32_t> out;
        SqlReader sql(sampleTrace());
        sql.each(
            "WITH fwd AS (SELECT DISTINCT CAST(substr(m.text, instr(m.text, ', seq = ') + 8) AS "
            "INTEGER) AS seq "
            "  FROM NVTX_EVENTS m JOIN NVTX_EVENTS l ON l.text = '" +
                layer +
                "' AND m.globalTid = l.globalTid "
                "  AND m.start >= l.start AND m.end <= l.end WHERE instr(m.text, ', seq = ') > 0), "
                "wrapper AS (SELECT start, end, globalTid, substr(text, 38) AS rest FROM "
                "NVTX_EVENTS "
                "  WHERE text LIKE 'autograd::engine::evaluate_function: %'), "
                "node AS (SELECT w.start, w.end, w.globalTid, CAST(substr(n.text, instr(n.text, ', "
                "seq = ') + 8) AS INTEGER) AS seq "
                "  FROM wrapper w JOIN NVTX_EVENTS n ON n.globalTid = w.globalTid AND n.start >= "
                "w.start AND n.end <= w.end "
                "  AND n.text LIKE substr(w.rest, 1, instr(w.rest, ',') - 1) || ', seq = %') "
                "SELECT DISTINCT k.start, k.correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                "  AND ((r.globalTid >> 24) & 16777215) = ((k.globalPid >> 24) & 16777215) "
                "JOIN node ON node.globalTid = r.globalTid AND node.start <= r.start AND node.end "
                ">= r.end "
                "WHERE node.seq IN (SELECT seq FROM fwd)",
            [&](sqlite3_stmt* st) {
                const auto it = ids.find({SqlReader::int64(st, 0), SqlReader::int64(st, 1)});
                if (it == ids.end())
                    ADD_FAILURE() << "SQL kernel not loaded";
                else
                    out.insert(it->second);
            });
        return out;
    }

    static std::set<uint32_t> idsOf(const CliTable& t, const std::vector<size_t>& rows) {
        std::set<uint32_t> out;
        for (size_t i : rows) out.insert(static_cast<uint32_t>(std::stoul(t.at(i, "id"))));
        return out;
    }
    static std::set<uint32_t> allIds(const CliTable& t) {
        std::vector<size_t> rows(t.rows.size());
        for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
        return idsOf(t, rows);
    }
};

TEST_F(CorrelationSample, KernelsLaunchedInsideALayerRangeHaveThatLayer) {
    ASSERT_EQ(kernels_->rows.size(), trace_->kernels.size());
    for (const std::string layer : {"layer0", "layer1"}) {
        const auto expected = sqlKernelsInRange(layer);
        EXPECT_GT(expected.size(), 10u) << layer;
        for (uint32_t id : expected) {
            EXPECT_EQ(trace_->str(trace_->kernelLinks.layer[id]), layer) << "kernel " << id;
            EXPECT_EQ(kernels_->at(id, "layer"), layer) << "kernel " << id;
            EXPECT_EQ(kernels_->at(id, "direction"), "forward") << "kernel " << id;
        }
    }
}

// Phase and iteration ranges are never layers (DESIGN.md): a kernel whose launch lies in no layer
// range, and whose forward op lies in none, has an empty layer cell, whatever phase encloses it.
TEST_F(CorrelationSample, KernelsOutsideLayerRangesHaveNoLayer) {
    std::set<uint32_t> inLayers = sqlKernelsInRange("layer0");
    for (uint32_t id : sqlKernelsInRange("layer1")) inLayers.insert(id);
    size_t outside = 0;
    for (uint32_t id = 0; id < trace_->kernels.size(); ++id) {
        const std::string layer = kernels_->at(id, "layer");
        EXPECT_TRUE(layer.empty() || layer == "layer0" || layer == "layer1")
            << "kernel " << id << ": " << layer;
        if (trace_->kernelLinks.direction[id] == ls::Direction::Forward && !inLayers.count(id)) {
            EXPECT_EQ(layer, "") << "kernel " << id;
            ++outside;
        }
    }
    EXPECT_GT(outside, 5u); // embedding, LM head, loss
}

TEST_F(CorrelationSample, LayerOptionListsTheForwardKernelsOfTheLayerPlusItsBackwardKernels) {
    for (const std::string layer : {"layer0", "layer1"}) {
        SCOPED_TRACE(layer);
        const CliTable t = cliTable({"kernels", sampleTrace().string(), "--layer", layer});
        EXPECT_EQ(t.header, kernels_->header);
        const auto forward = sqlKernelsInRange(layer), backward = sqlBackwardKernelsOfLayer(layer);
        EXPECT_GT(backward.size(), 10u);
        std::set<uint32_t> listedForward, listedBackward;
        for (size_t i = 0; i < t.rows.size(); ++i) {
            const auto id = static_cast<uint32_t>(std::stoul(t.at(i, "id")));
            EXPECT_EQ(t.at(i, "layer"), layer);
            EXPECT_EQ(t.rows[i], kernels_->rows[id]) << "same row as in the full listing";
            (t.at(i, "direction") == "backward" ? listedBackward : listedForward).insert(id);
            if (t.at(i, "direction") == "backward") {
                EXPECT_NE(t.at(i, "fwd_op_id"), "") << "kernel " << id;
            }
        }
        EXPECT_EQ(listedForward, forward)
            << "non-backward kernels are exactly those launched inside the range";
        EXPECT_EQ(listedBackward, backward)
            << "backward kernels are those of nodes paired with the layer's ops";
        const auto viaCore = ls::kernelsOfLayer(*trace_, trace_->strings.find(layer));
        EXPECT_EQ(viaCore.size(), t.rows.size());
    }
    EXPECT_TRUE(
        cliTable({"kernels", sampleTrace().string(), "--layer", "no such layer"}).rows.empty());
}

TEST_F(CorrelationSample, EveryBackwardNodeWithASeqHasAForwardPartnerInTheSameLayer) {
    const CliTable ops = cliTable({"ops", sampleTrace().string()});
    std::map<std::string, size_t> byOpId;
    for (size_t i = 0; i < ops.rows.size(); ++i) {
        EXPECT_NE(ops.at(i, "op_id"), "") << formatCsvRow(ops.rows[i]);
        EXPECT_TRUE(byOpId.emplace(ops.at(i, "op_id"), i).second)
            << "op_id " << ops.at(i, "op_id") << " twice";
    }
    size_t nodes = 0;
    std::set<std::string> layers;
    for (size_t i = 0; i < ops.rows.size(); ++i) {
        const std::string& name = ops.at(i, "name");
        if (ops.at(i, "direction") != "backward" || ops.at(i, "seq").empty()) continue;
        if (name.size() < 9 || name.compare(name.size() - 9, 9, "Backward0") != 0) continue;
        ++nodes;
        SCOPED_TRACE(formatCsvRow(ops.rows[i]));
        const auto it = byOpId.find(ops.at(i, "paired_op_id"));
        ASSERT_NE(it, byOpId.end()) << "no forward partner";
        const size_t f = it->second;
        // The partner is a forward op instance on the main thread. Its direction is forward, or
        // backward for the loss scaling (aten::mul) run inside the user's `backward` range.
        EXPECT_EQ(ops.at(f, "name").find("Backward"), std::string::npos);
        EXPECT_EQ(ops.at(f, "seq"), ops.at(i, "seq"));
        EXPECT_EQ(ops.at(f, "layer"), ops.at(i, "layer"));
        EXPECT_LT(std::stoll(ops.at(f, "start_ns")), std::stoll(ops.at(i, "start_ns")))
            << "forward runs first";
        EXPECT_NE(ops.at(f, "tid"), ops.at(i, "tid")) << "backward runs on the autograd thread";
        layers.insert(ops.at(i, "layer"));
    }
    EXPECT_GT(nodes, 50u);
    EXPECT_TRUE(layers.count("layer0") && layers.count("layer1"));
}

TEST_F(CorrelationSample, OpsCsvHeaderAndSymmetricPairs) {
    const auto r = runCli({"ops", sampleTrace().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "op_id,name,seq,direction,layer,tid,start_ns,end_"
                                                 "ns,kernels,gpu_time_ns,paired_op_id,sizes,rank");
    const CliTable ops = cliTable({"ops", sampleTrace().string()});
    ASSERT_EQ(ops.rows.size(), trace_->ops.size());
    std::map<std::string, size_t> byOpId;
    for (size_t i = 0; i < ops.rows.size(); ++i) byOpId[ops.at(i, "op_id")] = i;
    size_t pairs = 0;
    for (size_t i = 0; i < ops.rows.size(); ++i) {
        const std::string& p = ops.at(i, "paired_op_id");
        if (p.empty()) continue;
        ++pairs;
        const auto it = byOpId.find(p);
        ASSERT_NE(it, byOpId.end()) << formatCsvRow(ops.rows[i]);
        EXPECT_EQ(ops.at(it->second, "paired_op_id"), ops.at(i, "op_id"))
            << formatCsvRow(ops.rows[i]);
        EXPECT_NE(ops.at(it->second, "tid"), ops.at(i, "tid"))
            << "a pair is a main-thread op and an autograd-thread node";
    }
    EXPECT_GT(pairs, 100u);
}

// Autocast nests op instances (aten::linear seq 251 holds aten::to seq 252 and aten::linear seq
// 254, each an op instance of its own, paired with its own backward node). Each kernel belongs
// to one op instance (kernelLinks.opInstance, as op_sum counts), so the `ops` rows' kernels and
// gpu_time_ns must not count a nested instance's kernels again: the rows add up to at most all
// kernels, and per name and direction to op_sum.
TEST_F(CorrelationSample, OpsCountEachKernelUnderOneOpInstance) {
    const CliTable ops = cliTable({"ops", sampleTrace().string()});
    ASSERT_EQ(ops.rows.size(), trace_->ops.size());
    std::vector<uint64_t> own(trace_->ops.size(), 0), ownTime(trace_->ops.size(), 0);
    for (uint32_t i = 0; i < trace_->kernels.size(); ++i)
        if (const ls::OpId o = trace_->kernelLinks.opInstance[i]; o.valid()) {
            ++own[o.value];
            ownTime[o.value] += static_cast<uint64_t>(trace_->kernels.duration(i));
        }
    uint64_t kernels = 0;
    size_t mismatches = 0;
    std::map<std::pair<std::string, std::string>, uint64_t> timeByName;
    for (size_t i = 0; i < ops.rows.size(); ++i) {
        kernels += std::stoull(ops.at(i, "kernels"));
        timeByName[{ops.at(i, "name"), ops.at(i, "direction")}] +=
            std::stoull(ops.at(i, "gpu_time_ns"));
        if (std::stoull(ops.at(i, "kernels")) != own[i] ||
            std::stoull(ops.at(i, "gpu_time_ns")) != ownTime[i]) {
            if (++mismatches <= 5)
                ADD_FAILURE() << "op row counts kernels of other op instances: "
                              << formatCsvRow(ops.rows[i]) << "\nits own: " << own[i]
                              << " kernels, " << ownTime[i] << " ns";
        }
    }
    EXPECT_EQ(mismatches, 0u);
    EXPECT_LE(kernels, trace_->kernels.size());
    const CliTable opSum = cliTable({"summary", sampleTrace().string(), "--report", "op_sum"});
    for (size_t i = 0; i < opSum.rows.size(); ++i) {
        if (opSum.at(i, "op") == "(none)") continue;
        const auto key = std::make_pair(opSum.at(i, "op"), opSum.at(i, "direction"));
        EXPECT_EQ(timeByName[key], std::stoull(opSum.at(i, "gpu_time_ns")))
            << formatCsvRow(opSum.rows[i]);
    }
}

TEST_F(CorrelationSample, LayerAndOpSummariesAddUpToAllKernelTime) {
    SqlReader sql(sampleTrace());
    const int64_t total = sql.scalar("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    const int64_t count = sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    ASSERT_GT(total, 0);
    for (const std::string report : {"layer_sum", "op_sum"}) {
        SCOPED_TRACE(report);
        const CliTable t = cliTable({"summary", sampleTrace().string(), "--report", report});
        int64_t time = 0, kernels = 0;
        double percent = 0;
        for (size_t i = 0; i < t.rows.size(); ++i) {
            time += std::stoll(t.at(i, "gpu_time_ns"));
            kernels += std::stoll(t.at(i, "kernels"));
            percent += std::stod(t.at(i, "gpu_time_pct"));
        }
        EXPECT_EQ(time, total);
        EXPECT_EQ(kernels, count);
        EXPECT_NEAR(percent, 100.0, 0.01 * static_cast<double>(t.rows.size()));
    }
    const CliTable layers = cliTable({"summary", sampleTrace().string(), "--report", "layer_sum"});
    std::set<std::pair<std::string, std::string>> keys;
    for (size_t i = 0; i < layers.rows.size(); ++i)
        keys.insert({layers.at(i, "layer"), layers.at(i, "direction")});
    for (const char* layer : {"layer0", "layer1"}) {
        EXPECT_TRUE(keys.count({layer, "forward"})) << layer;
        EXPECT_TRUE(keys.count({layer, "backward"})) << layer;
    }
    EXPECT_EQ(keys.size(), layers.rows.size()) << "one row per (layer, direction)";
}

TEST_F(CorrelationSample, KernelsUnderTheForwardRangeAreThoseWithForwardOnTheirPath) {
    const auto& r = trace_->ranges;
    std::vector<ls::RangeId> forwardRanges;
    for (uint32_t i = 0; i < r.size(); ++i)
        if (trace_->str(r.name[i]) == "forward") forwardRanges.emplace_back(i);
    ASSERT_EQ(forwardRanges.size(), 1u);
    const auto under = ls::kernelsUnder(*trace_, forwardRanges[0]);
    const std::set<uint32_t> viaIndex = [&] {
        std::set<uint32_t> s;
        for (ls::KernelId k : under) s.insert(k.value);
        return s;
    }();
    EXPECT_EQ(viaIndex.size(), under.size()) << "no kernel twice";
    std::vector<size_t> withForward;
    for (size_t i = 0; i < kernels_->rows.size(); ++i) {
        const auto parts = splitOn(kernels_->at(i, "nvtx_path"), " > ");
        if (std::find(parts.begin(), parts.end(), "forward") != parts.end())
            withForward.push_back(i);
    }
    EXPECT_GT(viaIndex.size(), 20u);
    EXPECT_EQ(viaIndex, idsOf(*kernels_, withForward));
    EXPECT_EQ(viaIndex, sqlKernelsInRange("forward"));
    EXPECT_EQ(viaIndex,
              allIds(cliTable({"kernels", sampleTrace().string(), "--range", "forward"})));
    const auto named = ls::kernelsUnderRangesNamed(*trace_, "forward");
    std::set<uint32_t> byName;
    for (ls::KernelId k : named) byName.insert(k.value);
    EXPECT_EQ(viaIndex, byName);
}

TEST_F(CorrelationSample, NvtxPathListsTheStackOutermostFirstSeparatedByAngleBrackets) {
    size_t inLayer0 = 0;
    for (size_t i = 0; i < kernels_->rows.size(); ++i) {
        const std::string& path = kernels_->at(i, "nvtx_path");
        const auto stack = ls::rangeStack(*trace_, ls::KernelId(static_cast<uint32_t>(i)));
        const auto parts = splitOn(path, " > ");
        ASSERT_EQ(parts.size(), stack.size()) << path;
        for (size_t j = 0; j < parts.size(); ++j)
            EXPECT_EQ(parts[j], trace_->str(trace_->ranges.name[stack[stack.size() - 1 - j].value]))
                << path;
        if (!stack.empty()) {
            EXPECT_EQ(stack.front(), trace_->kernelLinks.range[i]);
            EXPECT_FALSE(kernels_->at(i, "nvtx_range").empty());
        }
        if (kernels_->at(i, "layer") == "layer0" && kernels_->at(i, "direction") == "forward") {
            ++inLayer0;
            EXPECT_TRUE(path == "iteration 2 > forward > layer0" ||
                        path.rfind("iteration 2 > forward > layer0 > ", 0) == 0)
                << path;
        }
    }
    EXPECT_GT(inLayer0, 0u);
}

} // namespace
