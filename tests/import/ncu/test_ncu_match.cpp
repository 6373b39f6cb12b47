// Matching ncu's kernels to a trace's on the real pair in ../shared/traces (one program profiled
// by Nsight Systems and by `ncu --launch-count 60`), checked against the CSV and the export read
// independently; subsets, files of other programs, impossible orders, measured Tensor Cores.
#include "core/import/ncu/ncu_metrics.h"
#include "tests/import/ncu/ncu_test_support.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace {

using namespace ls;
using namespace ls::test;

TEST(NcuRealPair, AllSixtyMatchTheFirstSixtyKernels) {
    LS_REQUIRE_PAIR();
    const Trace& t = *realPair().trace;
    auto parsed = readNcuCsvFile(pairCsv().string());
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const NcuCsv& csv = *parsed.csv;
    ASSERT_EQ(csv.kernels.size(), 60u);
    EXPECT_EQ(csv.skippedLines, 4u);
    const NcuMatch m = matchNcuKernels(t, csv);
    EXPECT_EQ(m.matched, 60u);
    EXPECT_EQ(m.unmatched, 0u);
    EXPECT_EQ(m.ambiguous, 0u);
    ASSERT_EQ(m.notes.size(), 1u);
    EXPECT_NE(m.notes[0].find("ncu pid 539"), std::string::npos)
        << m.notes[0] << " (the two runs have other pids)";

    // The trace's first 60 kernels by start, read by SQL.
    SqlReader sql(pairTrace());
    std::vector<std::tuple<std::string, Dim3, Dim3>> first;
    sql.each("SELECT s.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ FROM "
             "CUPTI_ACTIVITY_KIND_KERNEL k "
             "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start LIMIT 60",
             [&](sqlite3_stmt* st) {
                 auto u = [&](int c) { return static_cast<uint32_t>(SqlReader::int64(st, c)); };
                 first.emplace_back(SqlReader::text(st, 0), Dim3{u(1), u(2), u(3)},
                                    Dim3{u(4), u(5), u(6)});
             });
    ASSERT_EQ(first.size(), 60u);
    size_t sameText = 0;
    for (uint32_t i = 0; i < 60; ++i) {
        ASSERT_EQ(csv.kernels[i].id, i);
        EXPECT_EQ(m.state[i], NcuMatchState::Matched) << m.reason[i];
        EXPECT_EQ(m.kernelOfNcu[i], KernelId(i)) << "ncu ID " << i;
        EXPECT_EQ(m.ncuOf(KernelId(i)), i);
        const auto& [name, grid, block] = first[i];
        EXPECT_EQ(t.str(t.kernels.name[i]), name);
        EXPECT_EQ(ncuNameKey(csv.kernels[i].name), ncuNameKey(name)) << i;
        sameText += csv.kernels[i].name == name;
        EXPECT_EQ(csv.kernels[i].grid, grid) << i;
        EXPECT_EQ(csv.kernels[i].block, block) << i;
        EXPECT_EQ(t.kernels.grid[i], grid);
        EXPECT_EQ(t.kernels.block[i], block);
    }
    EXPECT_LT(sameText, 30u) << "most names differ in style between the two tools";
    for (uint32_t k = 60; k < t.kernels.size(); ++k)
        EXPECT_EQ(m.ncuOf(KernelId(k)), NcuMatch::kNone);
}

TEST(NcuRealPair, MetricValuesLandOnTheRightKernel) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    auto imported = importNcuCsv(pair.trace, pairCsv().string());
    ASSERT_TRUE(imported.ok()) << imported.error;
    const NcuMetrics& store = *imported.metrics;
    const DetailsFile& d = pair.csv;
    const size_t cSection = d.col("Section Name"), cMetric = d.col("Metric Name"),
                 cUnit = d.col("Metric Unit"), cValue = d.col("Metric Value"),
                 cName = d.col("Kernel Name");
    const std::vector<std::pair<std::string, std::string>> metrics = {
        {"GPU Speed Of Light Throughput", "Duration"},
        {"GPU Speed Of Light Throughput", "DRAM Throughput"},
        {"GPU Speed Of Light Throughput", "DRAM Frequency"},
        {"GPU Speed Of Light Throughput", "Compute (SM) Throughput"},
        {"Occupancy", "Achieved Occupancy"},
        {"Occupancy", "Theoretical Occupancy"},
        {"Launch Statistics", "Registers Per Thread"},
        {"Launch Statistics", "Grid Size"}};
    size_t checked = 0;
    for (const std::string id : {"0", "15", "19", "37", "52", "59"}) {
        const KernelId k(static_cast<uint32_t>(std::stoul(id)));
        ASSERT_TRUE(store.has(k));
        for (const auto* row : d.kernel(id)) {
            EXPECT_EQ(ncuNameKey((*row)[cName]),
                      ncuNameKey(pair.trace->str(pair.trace->kernels.name[k.value])));
            for (const auto& [section, name] : metrics) {
                if ((*row)[cSection] != section || (*row)[cMetric] != name) continue;
                const auto m = store.csv().findMetric(section, name);
                ASSERT_TRUE(m) << name;
                EXPECT_EQ(store.metric(*m).unit, (*row)[cUnit]);
                const std::string& cell = (*row)[cValue];
                EXPECT_DOUBLE_EQ(store.value(k, *m), std::stod(noCommas(cell)))
                    << id << " " << name;
                EXPECT_EQ(store.text(k, *m), noCommas(cell))
                    << "as ncu printed it, without separators";
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 6u * metrics.size());
    // Known metrics, and registers as ncu measured them equal the export's for every match.
    for (uint32_t k = 0; k < 60; ++k) {
        EXPECT_DOUBLE_EQ(store.known(KernelId(k), NcuKnownMetric::Registers),
                         pair.trace->kernels.registers[k])
            << k;
        const double ns = store.known(KernelId(k), NcuKnownMetric::Duration);
        EXPECT_GT(ns, 0);
        EXPECT_FALSE(std::isnan(store.known(KernelId(k), NcuKnownMetric::AchievedOccupancy)));
        EXPECT_FALSE(std::isnan(store.known(KernelId(k), NcuKnownMetric::TheoreticalOccupancy)));
        EXPECT_FALSE(std::isnan(store.known(KernelId(k), NcuKnownMetric::SmThroughput)));
        EXPECT_FALSE(std::isnan(store.known(KernelId(k), NcuKnownMetric::DramThroughput)));
    }
    for (uint32_t k = 60; k < pair.trace->kernels.size(); ++k) {
        EXPECT_FALSE(store.has(KernelId(k)));
        EXPECT_TRUE(std::isnan(store.known(KernelId(k), NcuKnownMetric::Duration)));
        EXPECT_EQ(store.text(KernelId(k), 0), "");
    }
    const auto sections = store.sections();
    ASSERT_GE(sections.size(), 4u);
    EXPECT_EQ(sections[0].first, "GPU Speed Of Light Throughput");
    EXPECT_FALSE(store.hasTensorCoreCounts());
    EXPECT_FALSE(store.tensorCore(KernelId(15)).has_value());
}

// ncu numbers profiled launches from 0 whatever it skipped.
std::vector<std::vector<std::string>>
renumbered(const DetailsFile& d, const std::function<bool(const std::string&)>& keep,
           std::vector<uint32_t>* originals = nullptr) {
    std::vector<std::vector<std::string>> out;
    std::map<std::string, std::string> ids;
    for (const auto& r : d.rows) {
        if (!keep(r[0])) continue;
        auto [it, added] = ids.try_emplace(r[0], std::to_string(ids.size()));
        if (added && originals) originals->push_back(static_cast<uint32_t>(std::stoul(r[0])));
        auto row = r;
        row[0] = it->second;
        out.push_back(std::move(row));
    }
    return out;
}

TEST(NcuRealPair, LaunchSkipSubsetMatchesTheSameKernels) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    // --launch-skip 10 --launch-count 20
    std::vector<uint32_t> originals;
    const std::string text = pair.csv.text(renumbered(
        pair.csv,
        [](const std::string& id) {
            const int i = std::stoi(id);
            return i >= 10 && i < 30;
        },
        &originals));
    const NcuCsv csv = parseOk(text);
    ASSERT_EQ(csv.kernels.size(), 20u);
    const NcuMatch m = matchNcuKernels(*pair.trace, csv);
    EXPECT_EQ(m.matched, 20u);
    EXPECT_EQ(m.unmatched + m.ambiguous, 0u);
    for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(m.kernelOfNcu[i], KernelId(10 + i)) << m.reason[i];

    // --kernel-name regex:nvjet: only the cuBLAS kernels, a per-name subsequence.
    originals.clear();
    const auto nvjet = renumbered(
        pair.csv,
        [&](const std::string& id) {
            return pair.csv.kernel(id).front()->at(pair.csv.col("Kernel Name")).rfind("nvjet", 0) ==
                   0;
        },
        &originals);
    const NcuCsv byName = parseOk(pair.csv.text(nvjet));
    ASSERT_EQ(byName.kernels.size(), 6u);
    const NcuMatch mn = matchNcuKernels(*pair.trace, byName);
    EXPECT_EQ(mn.matched, 6u);
    for (uint32_t i = 0; i < originals.size(); ++i)
        EXPECT_EQ(mn.kernelOfNcu[i], KernelId(originals[i])) << mn.reason[i];

    // --launch-skip 13 --launch-count 2: two kernels that occur twice in a row in the trace.
    const NcuCsv twice = parseOk(pair.csv.text(
        renumbered(pair.csv, [](const std::string& id) { return id == "13" || id == "14"; })));
    const NcuMatch mt = matchNcuKernels(*pair.trace, twice);
    EXPECT_EQ(mt.matched, 0u) << "two places fit; no guess";
    EXPECT_EQ(mt.ambiguous, 2u);
    EXPECT_NE(mt.reason[0].find("fit 2 places"), std::string::npos) << mt.reason[0];
}

TEST(NcuRealPair, BareFunctionNamesMatchShortNames) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    const Trace& t = *pair.trace;
    // ncu --print-kernel-base function, --launch-skip 10 --launch-count 20.
    auto rows = renumbered(
        pair.csv, [](const std::string& id) { return std::stoi(id) >= 10 && std::stoi(id) < 30; });
    for (auto& r : rows)
        r[pair.csv.col("Kernel Name")] =
            std::string(t.str(t.kernels.shortName[10 + std::stoul(r[0])]));
    const NcuMatch m = matchNcuKernels(t, parseOk(pair.csv.text(rows)));
    EXPECT_EQ(m.matched, 20u);
    for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(m.kernelOfNcu[i], KernelId(10 + i)) << m.reason[i];
}

// Rows of the real file given another pid (a second process, as DDP ranks are).
std::vector<std::vector<std::string>> withPid(const DetailsFile& d, const std::string& pid,
                                              int idOffset) {
    auto rows = d.rows;
    for (auto& r : rows) {
        r[1] = pid;
        r[0] = std::to_string(std::stoi(r[0]) + idOffset);
    }
    return rows;
}

TEST(NcuRealPair, ProcessesArePairedOrLeftAmbiguous) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    const uint32_t tracePid =
        pair.trace->processes[pair.trace->streamOf(pair.trace->kernels, 0).process.value].pid;
    ASSERT_NE(tracePid, 539u) << "the two runs had different pids";
    // Two ncu processes with the same kernels and one trace process: no way to tell which.
    auto rows = withPid(pair.csv, "539", 0);
    for (auto& r : withPid(pair.csv, "540", 60)) rows.push_back(r);
    const NcuMatch two = matchNcuKernels(*pair.trace, parseOk(pair.csv.text(rows)));
    EXPECT_EQ(two.matched, 0u);
    EXPECT_EQ(two.ambiguous, 120u);
    EXPECT_NE(two.reason[0].find("fit each other equally well"), std::string::npos)
        << two.reason[0];
    // One of them with the trace's pid: that one is paired, the other is not.
    rows = withPid(pair.csv, "539", 0);
    for (auto& r : withPid(pair.csv, std::to_string(tracePid), 60)) rows.push_back(r);
    const NcuMatch same = matchNcuKernels(*pair.trace, parseOk(pair.csv.text(rows)));
    EXPECT_EQ(same.matched, 60u);
    for (uint32_t i = 0; i < 60; ++i) {
        EXPECT_FALSE(same.kernelOfNcu[i].valid());
        EXPECT_EQ(same.kernelOfNcu[60 + i], KernelId(i));
    }
    EXPECT_NE(same.reason[0].find("fits another ncu process better"), std::string::npos)
        << same.reason[0];
}

NcuCsv syntheticOtherProgram() {
    std::string s = ncuLine(kDetailsHeader);
    const std::vector<std::string> names = {
        "void my_lib::conv_forward<float, 3>(const float *, float *, int)",
        "void at::vectorized_elementwise_kernel<16, at::FooFunctor<float>, std::array<char *, "
        "1>>(int, T2, T3)",
        "sgemm_128x64_nn", "void my_lib::relu<float>(float *, int)"};
    for (size_t i = 0; i < 8; ++i)
        s += ncuLine(detailsRow(std::to_string(i), names[i % names.size()],
                                "GPU Speed Of Light Throughput", "Duration", "ns", "100"));
    return parseOk(s);
}

TEST(NcuRealPair, AnotherProgramsKernelsMatchNothing) {
    LS_REQUIRE_PAIR();
    const NcuCsv csv = syntheticOtherProgram();
    const NcuMatch m = matchNcuKernels(*realPair().trace, csv);
    EXPECT_EQ(m.matched, 0u);
    EXPECT_EQ(m.unmatched, 8u);
    for (size_t i = 0; i < 8; ++i) {
        EXPECT_FALSE(m.kernelOfNcu[i].valid());
        EXPECT_NE(m.reason[i].find("no kernel of this name"), std::string::npos) << m.reason[i];
    }
    EXPECT_NE(m.reason[1].find("base name vectorized_elementwise_kernel"), std::string::npos)
        << m.reason[1];
    for (uint32_t k = 0; k < realPair().trace->kernels.size(); ++k)
        EXPECT_EQ(m.ncuOf(KernelId(k)), NcuMatch::kNone);

    // A few real names among many foreign ones are too few to place by order.
    std::string s = ncuLine(kDetailsHeader);
    const auto& d = realPair().csv;
    for (size_t i = 0; i < 10; ++i) {
        if (i == 3 || i == 7) { // the trace's kernels 4 and 5 (FillFunctor, triu_tril)
            for (const auto* row : d.kernel(i == 3 ? "4" : "5")) {
                auto r = *row;
                r[0] = std::to_string(i);
                r[1] = "77"; // one process, as detailsRow's
                s += ncuLine(r);
            }
        } else {
            s += ncuLine(detailsRow(std::to_string(i),
                                    "void foreign_kernel_" + std::to_string(i) + "()", "S", "M", "",
                                    "1"));
        }
    }
    const NcuMatch few = matchNcuKernels(*realPair().trace, parseOk(s));
    EXPECT_EQ(few.matched, 0u);
    EXPECT_NE(few.reason[3].find("too few"), std::string::npos) << few.reason[3];
}

TEST(NcuRealPair, ImpossibleOrderOrDimsGiveNoWrongMatches) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    const auto& d = pair.csv;
    // The right names in reverse launch order.
    {
        std::vector<std::vector<std::string>> rows;
        for (const auto& r : d.rows) {
            auto row = r;
            row[0] = std::to_string(59 - std::stoi(r[0]));
            rows.push_back(row);
        }
        const NcuCsv csv = parseOk(d.text(rows));
        const NcuMatch m = matchNcuKernels(*pair.trace, csv);
        EXPECT_EQ(m.matched, 0u);
        EXPECT_EQ(m.unmatched + m.ambiguous, 60u);
        EXPECT_NE(m.reason[0].find("order fits no place"), std::string::npos) << m.reason[0];
    }
    // Grids that no kernel of that name has: those stay unmatched, the rest match where they are.
    {
        auto rows = d.rows;
        const size_t cGrid = d.col("Grid Size");
        for (auto& r : rows)
            if (r[0] == "6" || r[0] == "37") r[cGrid] = "(7, 7, 7)";
        const NcuMatch m = matchNcuKernels(*pair.trace, parseOk(d.text(rows)));
        EXPECT_EQ(m.matched, 58u);
        EXPECT_EQ(m.unmatched, 2u);
        for (uint32_t i = 0; i < 60; ++i) {
            if (i == 6 || i == 37) {
                EXPECT_EQ(m.state[i], NcuMatchState::Unmatched);
                EXPECT_NE(m.reason[i].find("none with grid (7, 7, 7)"), std::string::npos)
                    << m.reason[i];
            } else {
                EXPECT_EQ(m.kernelOfNcu[i], KernelId(i)) << m.reason[i];
            }
        }
    }
    // Two kernels of one name with their grids swapped: both exist, but not at those places.
    {
        auto rows = d.rows;
        const size_t cGrid = d.col("Grid Size");
        for (auto& r : rows) {
            if (r[0] == "11")
                r[cGrid] = "(1728, 1, 1)";
            else if (r[0] == "12")
                r[cGrid] = "(3, 1, 1)";
        }
        const NcuMatch m = matchNcuKernels(*pair.trace, parseOk(d.text(rows)));
        for (uint32_t i = 0; i < 60; ++i) {
            if (m.kernelOfNcu[i].valid()) {
                EXPECT_EQ(m.kernelOfNcu[i], KernelId(i)) << "a wrong match: " << m.reason[i];
            }
            if (i == 11 || i == 12) {
                EXPECT_NE(m.state[i], NcuMatchState::Matched);
                EXPECT_NE(m.reason[i].find("differ"), std::string::npos) << m.reason[i];
            }
        }
        EXPECT_EQ(m.matched, 58u);
    }
}

// A raw-page file with tensor-pipe instruction counts for the real kernels: the measured verdict.
TEST(NcuRealPair, TensorPipeCountsGiveAMeasuredVerdict) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    const auto& d = pair.csv;
    std::vector<std::string> header = {"ID",
                                       "Process ID",
                                       "Process Name",
                                       "Host Name",
                                       "Kernel Name",
                                       "Context",
                                       "Stream",
                                       "Block Size",
                                       "Grid Size",
                                       "Device",
                                       "CC",
                                       "gpu__time_duration.sum",
                                       "sm__inst_executed_pipe_tensor_op_hmma.avg",
                                       "sm__inst_executed_pipe_tensor_op_hmma.sum",
                                       "sm__inst_executed_pipe_tensor_op_gmma.sum",
                                       "smsp__inst_executed_op_hfma2_mma.sum"};
    std::string s = "program output\n" + ncuLine(header) +
                    ncuLine({"", "", "", "", "", "", "", "", "", "", "", "nsecond", "inst", "inst",
                             "inst", "inst"});
    // 15: nvjet (GMMA), 37: cutlass s1688 (HMMA), 16: an fp16 add issuing only HFMA2.MMA.
    for (const std::string& id : d.ids()) {
        const auto& r = *d.kernel(id).front();
        std::string hmma = "0", gmma = "0", hfma2 = "0";
        if (id == "15") gmma = "12,288";
        if (id == "37") hmma = "1,638,400";
        if (id == "16") hmma = hfma2 = "4,608";
        std::vector<std::string> row(r.begin(), r.begin() + 11);
        row.insert(row.end(), {"1,000", hmma == "0" ? "0" : "1", hmma, gmma, hfma2});
        s += ncuLine(row);
    }
    TempDir dir;
    writeFile(dir / "raw.csv", s);
    auto imported = importNcuCsv(pair.trace, (dir / "raw.csv").string());
    ASSERT_TRUE(imported.ok()) << imported.error;
    const NcuMetrics& store = *imported.metrics;
    EXPECT_EQ(store.csv().page, NcuPage::Raw);
    EXPECT_EQ(store.match().matched, 60u);
    ASSERT_TRUE(store.hasTensorCoreCounts());
    auto verdict = [&](uint32_t k) { return store.tensorCore(KernelId(k)); };
    ASSERT_TRUE(verdict(15));
    EXPECT_EQ(verdict(15)->state, TcState::Used) << verdict(15)->reason;
    EXPECT_EQ(verdict(37)->state, TcState::Used) << verdict(37)->reason;
    EXPECT_EQ(verdict(16)->state, TcState::NotUsed)
        << "HFMA2.MMA is not Tensor Core math: " << verdict(16)->reason;
    EXPECT_NE(verdict(16)->reason.find("HFMA2.MMA 4608"), std::string::npos) << verdict(16)->reason;
    EXPECT_EQ(verdict(4)->state, TcState::NotUsed);
    EXPECT_FALSE(verdict(60).has_value()) << "not measured";
    EXPECT_EQ(ncuTensorCoreText(verdict(15)->state), "used (measured)");
    EXPECT_EQ(ncuTensorCoreText(verdict(4)->state), "not used (measured)");
    EXPECT_DOUBLE_EQ(store.known(KernelId(3), NcuKnownMetric::Duration), 1000);
    // The name-based verdict in the trace is left as it was.
    EXPECT_EQ(pair.trace->metrics.tc.size(), pair.trace->kernels.size());
}

} // namespace
