// Nsight Compute CSV import: number and page parsing, one-line errors for malformed files, and
// matching ncu's kernels to a trace's on the real pair in ../shared/traces (one program profiled
// by Nsight Systems and by `ncu --launch-count 60`), checked against the CSV and the export read
// independently here; subsets, files of other programs, impossible orders; the CLI's --ncu.
#include "core/load.h"
#include "core/ncu_csv.h"
#include "core/ncu_match.h"
#include "tests/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace {

using namespace ls;
using namespace ls::test;

fs::path pairTrace() { return sharedDir() / "traces" / "pair_gpt1layer_fp16_h200.nsys.sqlite"; }
fs::path pairCsv() { return sharedDir() / "traces" / "pair_gpt1layer_fp16_h200.ncu.csv"; }

// ncu quotes every field.
std::string ncuLine(const std::vector<std::string>& fields) {
    std::string out;
    for (size_t i = 0; i < fields.size(); ++i) {
        out += i ? ",\"" : "\"";
        for (char c : fields[i]) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += '"';
    }
    return out + "\n";
}

// The real CSV read here without the code under test: lines before the header dropped, the rest
// through the test suite's own RFC 4180 reader.
struct DetailsFile {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    size_t col(const std::string& name) const {
        return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    }
    // Rows of one kernel ID.
    std::vector<const std::vector<std::string>*> kernel(const std::string& id) const {
        std::vector<const std::vector<std::string>*> out;
        for (const auto& r : rows)
            if (r[0] == id) out.push_back(&r);
        return out;
    }
    // ID order of first appearance.
    std::vector<std::string> ids() const {
        std::vector<std::string> out;
        for (const auto& r : rows)
            if (out.empty() || out.back() != r[0]) out.push_back(r[0]);
        return out;
    }
    std::string text(const std::vector<std::vector<std::string>>& keep) const {
        std::string s = "==PROF== Connected to process 1 (/usr/bin/python3)\nsome program output\n" + ncuLine(header);
        for (const auto& r : keep) s += ncuLine(r);
        return s;
    }
};

DetailsFile readDetails(const fs::path& file) {
    const std::string text = readFile(file);
    const size_t at = text.find("\n\"ID\",");
    DetailsFile d;
    if (at == std::string::npos) {
        ADD_FAILURE() << "no header in " << file;
        return d;
    }
    std::string error;
    auto table = parseCsv(std::string_view(text).substr(at + 1), &error);
    EXPECT_EQ(error, "");
    d.header = table.front();
    for (size_t i = 1; i < table.size(); ++i)
        if (table[i].size() > 1) d.rows.push_back(table[i]);
    return d;
}

std::string noCommas(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return s;
}

struct Pair {
    std::shared_ptr<const Trace> trace;
    DetailsFile csv;
};

// Loaded once for the suite; nullptr trace when ../shared is absent.
const Pair& realPair() {
    static const Pair p = [] {
        Pair r;
        if (!fs::exists(pairTrace()) || !fs::exists(pairCsv())) return r;
        auto loaded = loadTrace(pairTrace().string());
        EXPECT_TRUE(loaded.ok());
        r.trace = loaded.trace;
        r.csv = readDetails(pairCsv());
        return r;
    }();
    return p;
}

#define LS_REQUIRE_PAIR()                                                                          \
    LS_REQUIRE_FILE(pairTrace());                                                                  \
    LS_REQUIRE_FILE(pairCsv());                                                                    \
    ASSERT_NE(realPair().trace, nullptr)

NcuCsv parseOk(std::string_view text) {
    auto r = parseNcuCsv(text);
    EXPECT_TRUE(r.ok()) << r.error;
    return r.ok() ? std::move(*r.csv) : NcuCsv{};
}

// ---------------------------------------------------------------------------------------------
// Parsing

TEST(NcuCsvParse, NumbersWithThousandsSeparatorsAndNa) {
    const std::vector<std::pair<std::string, double>> good = {
        {"1,234.5", 1234.5}, {"3,182,432,432.43", 3182432432.43}, {"-1,000", -1000}, {"12", 12},
        {"0.5", 0.5},        {"1e+06", 1e6},                      {" 42 ", 42},      {"100,000,000", 1e8}};
    for (const auto& [text, value] : good) {
        const auto v = parseNcuNumber(text);
        ASSERT_TRUE(v.has_value()) << text;
        EXPECT_DOUBLE_EQ(*v, value) << text;
    }
    for (const char* bad : {"n/a", "", "1,23", "12,", ",123", "1,2345", "(64, 50, 1)", "1.2.3", "abc", "1.", "--1", "1,234,56"})
        EXPECT_FALSE(parseNcuNumber(bad).has_value()) << bad;
    EXPECT_EQ(parseNcuDim3("(64, 50, 1)"), (Dim3{64, 50, 1}));
    EXPECT_EQ(parseNcuDim3("256,1,1"), (Dim3{256, 1, 1}));
    EXPECT_FALSE(parseNcuDim3("(64, 50)").has_value());
    EXPECT_FALSE(parseNcuDim3("n/a").has_value());
}

const std::vector<std::string> kDetailsHeader = {
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size",
    "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Name", "Rule Type",
    "Rule Description", "Estimated Speedup Type", "Estimated Speedup"};

std::vector<std::string> detailsRow(const std::string& id, const std::string& name, const std::string& section,
                                    const std::string& metric, const std::string& unit, const std::string& value) {
    return {id, "77", "python3", "127.0.0.1", name, "1", "7", "(128, 1, 1)", "(64, 1, 1)", "0", "9.0",
            section, metric, unit, value, "", "", "", "", ""};
}

std::string smallDetails() {
    std::string s = "epoch 1 loss 2.5\n==PROF== Disconnected from process 77\n" + ncuLine(kDetailsHeader);
    s += ncuLine(detailsRow("0", "kernelA(int)", "GPU Speed Of Light Throughput", "Duration", "usecond", "1,234.5"));
    s += ncuLine(detailsRow("0", "kernelA(int)", "GPU Speed Of Light Throughput", "DRAM Frequency", "hz", "3,182,432,432.43"));
    s += ncuLine(detailsRow("0", "kernelA(int)", "Occupancy", "Achieved Occupancy", "%", "n/a"));
    s += ncuLine(detailsRow("0", "kernelA(int)", "Launch Statistics", "Function Cache Configuration", "", "CachePreferNone"));
    auto rule = detailsRow("0", "kernelA(int)", "SpeedOfLight", "", "", "");
    rule[15] = "SOLBottleneck";
    rule[17] = "This kernel grid is too small, with \"quotes\", commas\nand a line break.";
    s += ncuLine(rule);
    s += ncuLine(detailsRow("1", "kernelB<4>(float *)", "GPU Speed Of Light Throughput", "Duration", "msecond", "2.5"));
    s += ncuLine(detailsRow("1", "kernelB<4>(float *)", "Occupancy", "Achieved Occupancy", "%", "45.5"));
    s += "==PROF== Report: done\n";
    return s;
}

TEST(NcuCsvParse, DetailsPageAfterProgramOutput) {
    const NcuCsv csv = parseOk(smallDetails());
    EXPECT_EQ(csv.page, NcuPage::Details);
    EXPECT_EQ(csv.skippedLines, 2u);
    EXPECT_EQ(csv.ruleRows, 1u);
    ASSERT_EQ(csv.kernels.size(), 2u);
    EXPECT_EQ(csv.kernels[0].name, "kernelA(int)");
    EXPECT_EQ(csv.kernels[1].id, 1u);
    EXPECT_EQ(csv.kernels[0].pid, 77u);
    EXPECT_EQ(csv.kernels[0].processName, "python3");
    EXPECT_TRUE(csv.kernels[0].hasDims);
    EXPECT_EQ(csv.kernels[0].grid, (Dim3{64, 1, 1}));
    EXPECT_EQ(csv.kernels[0].block, (Dim3{128, 1, 1}));
    ASSERT_EQ(csv.metrics.size(), 4u);
    const auto duration = csv.findMetric("GPU Speed Of Light Throughput", "Duration");
    ASSERT_TRUE(duration);
    EXPECT_EQ(csv.metrics[*duration].unit, "usecond");
    EXPECT_EQ(csv.columnName(*duration), "ncu:GPU Speed Of Light Throughput/Duration [usecond]");
    EXPECT_DOUBLE_EQ(csv.value(0, *duration), 1234.5);
    EXPECT_DOUBLE_EQ(csv.value(1, *duration), 2500.0) << "msecond converted to the metric's usecond";
    EXPECT_DOUBLE_EQ(csv.knownValue(1, NcuKnownMetric::Duration), 2.5e6) << "known duration in ns";
    EXPECT_EQ(csv.text(0, *duration), "1234.5");
    const auto freq = csv.findMetric("", "DRAM Frequency");
    ASSERT_TRUE(freq);
    EXPECT_EQ(csv.text(0, *freq), "3182432432.43");
    EXPECT_FALSE(csv.has(1, *freq));
    EXPECT_EQ(csv.text(1, *freq), "");
    const auto occ = csv.known(NcuKnownMetric::AchievedOccupancy);
    ASSERT_TRUE(occ);
    EXPECT_TRUE(std::isnan(csv.value(0, *occ)));
    EXPECT_EQ(csv.text(0, *occ), "n/a");
    EXPECT_DOUBLE_EQ(csv.value(1, *occ), 45.5);
    const auto cache = csv.findMetric("", "Function Cache Configuration");
    ASSERT_TRUE(cache);
    EXPECT_EQ(csv.text(0, *cache), "CachePreferNone");
    EXPECT_EQ(csv.columnName(*cache), "ncu:Launch Statistics/Function Cache Configuration");
    EXPECT_TRUE(csv.warnings.size() >= 1u) << "kernel 1 has fewer metrics than kernel 0";
}

TEST(NcuCsvParse, RawPageWithUnitsLine) {
    const std::vector<std::string> header = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                             "Stream", "Block Size", "Grid Size", "Device", "CC",
                                             "gpu__time_duration.sum", "launch__registers_per_thread",
                                             "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum"};
    std::string s = "hello from the program\n" + ncuLine(header);
    s += ncuLine({"", "", "", "", "", "", "", "", "", "", "", "usecond", "register/thread", "%", "Mbyte"});
    s += ncuLine({"0", "5", "a.out", "host", "k1()", "1", "7", "(32, 1, 1)", "(2, 1, 1)", "0", "9.0", "1,024.25", "32", "50", "1.5"});
    s += ncuLine({"1", "5", "a.out", "host", "k2()", "1", "7", "(32, 1, 1)", "(4, 1, 1)", "0", "9.0", "3", "n/a", "12.5", "2,048"});
    const NcuCsv csv = parseOk(s);
    EXPECT_EQ(csv.page, NcuPage::Raw);
    EXPECT_EQ(csv.skippedLines, 1u);
    ASSERT_EQ(csv.kernels.size(), 2u);
    ASSERT_EQ(csv.metrics.size(), 4u);
    EXPECT_EQ(csv.metrics[0], (NcuMetricInfo{"", "gpu__time_duration.sum", "usecond"}));
    EXPECT_EQ(csv.columnName(0), "ncu:gpu__time_duration.sum [usecond]");
    EXPECT_DOUBLE_EQ(csv.value(0, 0), 1024.25);
    EXPECT_DOUBLE_EQ(csv.knownValue(0, NcuKnownMetric::Duration), 1024250.0);
    EXPECT_DOUBLE_EQ(csv.knownValue(0, NcuKnownMetric::Registers), 32);
    EXPECT_EQ(csv.text(1, 1), "n/a");
    EXPECT_DOUBLE_EQ(csv.knownValue(1, NcuKnownMetric::AchievedOccupancy), 12.5);
    EXPECT_DOUBLE_EQ(csv.value(1, 3), 2048);
    EXPECT_EQ(csv.kernels[1].grid, (Dim3{4, 1, 1}));
}

// Each malformed input: no result, a one-line reason that says what is wrong.
void expectError(std::string_view text, const std::string& mentions) {
    const auto r = parseNcuCsv(text);
    EXPECT_FALSE(r.ok()) << "accepted:\n" << text.substr(0, 300);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(mentions), std::string::npos) << "wanted \"" << mentions << "\" in: " << r.error;
}

TEST(NcuCsvParse, MalformedFilesGiveOneLineErrors) {
    const std::string good = smallDetails();
    expectError("", "empty");
    expectError(" \n\n\r\n", "empty");
    expectError("just some program output\nand more\n", "no Nsight Compute CSV header");
    expectError("\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n\"50.0\",\"100\",\"2\",\"k\"\n",
                "no Nsight Compute CSV header");
    expectError("\"ID\",\"Process ID\",\"Name\"\n\"0\",\"1\",\"x\"\n", "Kernel Name");
    expectError(ncuLine(kDetailsHeader), "no kernel lines");
    // Truncated inside a quoted field, and between two fields of a line.
    const size_t cut = good.find("3,182,432");
    expectError(good.substr(0, cut + 4), "truncated");
    const size_t lastLine = good.rfind("\"1\",\"77\"");
    expectError(good.substr(0, good.find("\"(128, 1, 1)\"", lastLine)), "8 fields where a details line has at least 15");
    // Mixed pages: a raw header after a details table; details lines under a raw header.
    const std::vector<std::string> raw = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                          "Stream", "Block Size", "Grid Size", "Device", "CC", "gpu__time_duration.sum"};
    std::string mixed = good + ncuLine(raw) + ncuLine({"0", "5", "a", "h", "k()", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "9.0", "3"});
    expectError(mixed, "mixed pages");
    std::string rawThenDetails = ncuLine(raw) + ncuLine({"", "", "", "", "", "", "", "", "", "", "", "nsecond"}) +
                                 ncuLine(detailsRow("0", "k()", "S", "Duration", "ns", "5"));
    expectError(rawThenDetails, "fields where the header has");
    expectError(good + ncuLine(kDetailsHeader) + ncuLine(detailsRow("0", "kernelA(int)", "S", "M", "", "1")), "second header");
    // Program output after the header, a non-numeric ID, a reused ID.
    expectError(ncuLine(kDetailsHeader) + ncuLine(detailsRow("0", "k()", "S", "M", "", "1")) + "epoch 2 done\n", "fields");
    expectError(ncuLine(kDetailsHeader) + ncuLine(detailsRow("x", "k()", "S", "M", "", "1")), "not a number");
    expectError(ncuLine(kDetailsHeader) + ncuLine(detailsRow("0", "k()", "S", "M", "", "1")) +
                    ncuLine(detailsRow("0", "other()", "S", "M", "", "1")),
                "another kernel name");
}

TEST(NcuCsvParse, TruncatedRealFileIsAnError) {
    LS_REQUIRE_FILE(pairCsv());
    const std::string text = readFile(pairCsv());
    ASSERT_TRUE(parseNcuCsv(text).ok()) << parseNcuCsv(text).error;
    // Cut in the middle of a kernel name, the way a copy that stopped early looks.
    const size_t cut = text.find("nvjet_sm90_hsh_96x64", text.size() / 2);
    ASSERT_NE(cut, std::string::npos);
    expectError(std::string_view(text).substr(0, cut + 5), "truncated");
}

// ---------------------------------------------------------------------------------------------
// Names

TEST(NcuNames, NcuAndNsightSystemsStylesGiveOneKey) {
    EXPECT_EQ(ncuNameKey("void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
                         "std::array<char *, (unsigned long)1>>(int, T2, T3)"),
              ncuNameKey("void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>, std::array<char *, 1>>(int, T2, T3)"));
    EXPECT_EQ(ncuNameKey("void (anonymous namespace)::foo<(bool)1>(float*)"), ncuNameKey("void <unnamed>::foo<1>(float *)"));
    EXPECT_EQ(ncuNameKey("void at::native::<unnamed>::k<(int)-1>()"), ncuNameKey("void at::<unnamed>::k<-1>()"));
    EXPECT_NE(ncuNameKey("void k<float>(int)"), ncuNameKey("void k<double>(int)"));
    EXPECT_NE(ncuNameKey("void k<4>(int)"), ncuNameKey("void k<8>(int)"));
    EXPECT_EQ(ncuNameKey("nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN"), "nvjet_sm90_hsh_144x128_64x6_1x2_h_bz_TNN");
    EXPECT_EQ(ncuNameKey("unsigned  long   x"), "unsigned long x");
}

// ---------------------------------------------------------------------------------------------
// The real pair

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
    EXPECT_NE(m.notes[0].find("ncu pid 539"), std::string::npos) << m.notes[0] << " (the two runs have other pids)";

    // The trace's first 60 kernels by start, read by SQL.
    SqlReader sql(pairTrace());
    std::vector<std::tuple<std::string, Dim3, Dim3>> first;
    sql.each("SELECT s.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ FROM CUPTI_ACTIVITY_KIND_KERNEL k "
             "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start LIMIT 60",
             [&](sqlite3_stmt* st) {
                 auto u = [&](int c) { return static_cast<uint32_t>(SqlReader::int64(st, c)); };
                 first.emplace_back(SqlReader::text(st, 0), Dim3{u(1), u(2), u(3)}, Dim3{u(4), u(5), u(6)});
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
    for (uint32_t k = 60; k < t.kernels.size(); ++k) EXPECT_EQ(m.ncuOf(KernelId(k)), NcuMatch::kNone);
}

TEST(NcuRealPair, MetricValuesLandOnTheRightKernel) {
    LS_REQUIRE_PAIR();
    const auto& pair = realPair();
    auto imported = importNcuCsv(pair.trace, pairCsv().string());
    ASSERT_TRUE(imported.ok()) << imported.error;
    const NcuMetrics& store = *imported.metrics;
    const DetailsFile& d = pair.csv;
    const size_t cSection = d.col("Section Name"), cMetric = d.col("Metric Name"), cUnit = d.col("Metric Unit"),
                 cValue = d.col("Metric Value"), cName = d.col("Kernel Name");
    const std::vector<std::pair<std::string, std::string>> metrics = {
        {"GPU Speed Of Light Throughput", "Duration"},       {"GPU Speed Of Light Throughput", "DRAM Throughput"},
        {"GPU Speed Of Light Throughput", "DRAM Frequency"}, {"GPU Speed Of Light Throughput", "Compute (SM) Throughput"},
        {"Occupancy", "Achieved Occupancy"},                 {"Occupancy", "Theoretical Occupancy"},
        {"Launch Statistics", "Registers Per Thread"},       {"Launch Statistics", "Grid Size"}};
    size_t checked = 0;
    for (const std::string id : {"0", "15", "19", "37", "52", "59"}) {
        const KernelId k(static_cast<uint32_t>(std::stoul(id)));
        ASSERT_TRUE(store.has(k));
        for (const auto* row : d.kernel(id)) {
            EXPECT_EQ(ncuNameKey((*row)[cName]), ncuNameKey(pair.trace->str(pair.trace->kernels.name[k.value])));
            for (const auto& [section, name] : metrics) {
                if ((*row)[cSection] != section || (*row)[cMetric] != name) continue;
                const auto m = store.csv().findMetric(section, name);
                ASSERT_TRUE(m) << name;
                EXPECT_EQ(store.metric(*m).unit, (*row)[cUnit]);
                const std::string& cell = (*row)[cValue];
                EXPECT_DOUBLE_EQ(store.value(k, *m), std::stod(noCommas(cell))) << id << " " << name;
                EXPECT_EQ(store.text(k, *m), noCommas(cell)) << "as ncu printed it, without separators";
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, 6u * metrics.size());
    // Known metrics, and registers as ncu measured them equal the export's for every match.
    for (uint32_t k = 0; k < 60; ++k) {
        EXPECT_DOUBLE_EQ(store.known(KernelId(k), NcuKnownMetric::Registers), pair.trace->kernels.registers[k]) << k;
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
std::vector<std::vector<std::string>> renumbered(const DetailsFile& d, const std::function<bool(const std::string&)>& keep,
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
    const std::string text = pair.csv.text(renumbered(pair.csv, [](const std::string& id) {
        const int i = std::stoi(id);
        return i >= 10 && i < 30;
    }, &originals));
    const NcuCsv csv = parseOk(text);
    ASSERT_EQ(csv.kernels.size(), 20u);
    const NcuMatch m = matchNcuKernels(*pair.trace, csv);
    EXPECT_EQ(m.matched, 20u);
    EXPECT_EQ(m.unmatched + m.ambiguous, 0u);
    for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(m.kernelOfNcu[i], KernelId(10 + i)) << m.reason[i];

    // --kernel-name regex:nvjet: only the cuBLAS kernels, a per-name subsequence.
    originals.clear();
    const auto nvjet = renumbered(pair.csv, [&](const std::string& id) {
        return pair.csv.kernel(id).front()->at(pair.csv.col("Kernel Name")).rfind("nvjet", 0) == 0;
    }, &originals);
    const NcuCsv byName = parseOk(pair.csv.text(nvjet));
    ASSERT_EQ(byName.kernels.size(), 6u);
    const NcuMatch mn = matchNcuKernels(*pair.trace, byName);
    EXPECT_EQ(mn.matched, 6u);
    for (uint32_t i = 0; i < originals.size(); ++i) EXPECT_EQ(mn.kernelOfNcu[i], KernelId(originals[i])) << mn.reason[i];

    // --launch-skip 13 --launch-count 2: two kernels that occur twice in a row in the trace.
    const NcuCsv twice = parseOk(pair.csv.text(renumbered(pair.csv, [](const std::string& id) {
        return id == "13" || id == "14";
    })));
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
    auto rows = renumbered(pair.csv, [](const std::string& id) { return std::stoi(id) >= 10 && std::stoi(id) < 30; });
    for (auto& r : rows) r[pair.csv.col("Kernel Name")] = std::string(t.str(t.kernels.shortName[10 + std::stoul(r[0])]));
    const NcuMatch m = matchNcuKernels(t, parseOk(pair.csv.text(rows)));
    EXPECT_EQ(m.matched, 20u);
    for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(m.kernelOfNcu[i], KernelId(10 + i)) << m.reason[i];
}

// Rows of the real file given another pid (a second process, as DDP ranks are).
std::vector<std::vector<std::string>> withPid(const DetailsFile& d, const std::string& pid, int idOffset) {
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
    const uint32_t tracePid = pair.trace->processes[pair.trace->kernels.process[0].value].pid;
    ASSERT_NE(tracePid, 539u) << "the two runs had different pids";
    // Two ncu processes with the same kernels and one trace process: no way to tell which.
    auto rows = withPid(pair.csv, "539", 0);
    for (auto& r : withPid(pair.csv, "540", 60)) rows.push_back(r);
    const NcuMatch two = matchNcuKernels(*pair.trace, parseOk(pair.csv.text(rows)));
    EXPECT_EQ(two.matched, 0u);
    EXPECT_EQ(two.ambiguous, 120u);
    EXPECT_NE(two.reason[0].find("fit each other equally well"), std::string::npos) << two.reason[0];
    // One of them with the trace's pid: that one is paired, the other is not.
    rows = withPid(pair.csv, "539", 0);
    for (auto& r : withPid(pair.csv, std::to_string(tracePid), 60)) rows.push_back(r);
    const NcuMatch same = matchNcuKernels(*pair.trace, parseOk(pair.csv.text(rows)));
    EXPECT_EQ(same.matched, 60u);
    for (uint32_t i = 0; i < 60; ++i) {
        EXPECT_FALSE(same.kernelOfNcu[i].valid());
        EXPECT_EQ(same.kernelOfNcu[60 + i], KernelId(i));
    }
    EXPECT_NE(same.reason[0].find("fits another ncu process better"), std::string::npos) << same.reason[0];
}

NcuCsv syntheticOtherProgram() {
    std::string s = ncuLine(kDetailsHeader);
    const std::vector<std::string> names = {
        "void my_lib::conv_forward<float, 3>(const float *, float *, int)",
        "void at::vectorized_elementwise_kernel<16, at::FooFunctor<float>, std::array<char *, 1>>(int, T2, T3)",
        "sgemm_128x64_nn", "void my_lib::relu<float>(float *, int)"};
    for (size_t i = 0; i < 8; ++i)
        s += ncuLine(detailsRow(std::to_string(i), names[i % names.size()], "GPU Speed Of Light Throughput", "Duration", "ns", "100"));
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
    EXPECT_NE(m.reason[1].find("base name vectorized_elementwise_kernel"), std::string::npos) << m.reason[1];
    for (uint32_t k = 0; k < realPair().trace->kernels.size(); ++k) EXPECT_EQ(m.ncuOf(KernelId(k)), NcuMatch::kNone);

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
            s += ncuLine(detailsRow(std::to_string(i), "void foreign_kernel_" + std::to_string(i) + "()", "S", "M", "", "1"));
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
                EXPECT_NE(m.reason[i].find("none with grid (7, 7, 7)"), std::string::npos) << m.reason[i];
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
            if (r[0] == "11") r[cGrid] = "(1728, 1, 1)";
            else if (r[0] == "12") r[cGrid] = "(3, 1, 1)";
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
    std::vector<std::string> header = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                                       "Block Size", "Grid Size", "Device", "CC", "gpu__time_duration.sum",
                                       "sm__inst_executed_pipe_tensor_op_hmma.avg", "sm__inst_executed_pipe_tensor_op_hmma.sum",
                                       "sm__inst_executed_pipe_tensor_op_gmma.sum", "smsp__inst_executed_op_hfma2_mma.sum"};
    std::string s = "program output\n" + ncuLine(header) +
                    ncuLine({"", "", "", "", "", "", "", "", "", "", "", "nsecond", "inst", "inst", "inst", "inst"});
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
    EXPECT_EQ(verdict(16)->state, TcState::NotUsed) << "HFMA2.MMA is not Tensor Core math: " << verdict(16)->reason;
    EXPECT_NE(verdict(16)->reason.find("HFMA2.MMA 4608"), std::string::npos) << verdict(16)->reason;
    EXPECT_EQ(verdict(4)->state, TcState::NotUsed);
    EXPECT_FALSE(verdict(60).has_value()) << "not measured";
    EXPECT_EQ(ncuTensorCoreText(verdict(15)->state), "used (measured)");
    EXPECT_EQ(ncuTensorCoreText(verdict(4)->state), "not used (measured)");
    EXPECT_DOUBLE_EQ(store.known(KernelId(3), NcuKnownMetric::Duration), 1000);
    // The name-based verdict in the trace is left as it was.
    EXPECT_EQ(pair.trace->metrics.tc.size(), pair.trace->kernels.size());
}

// ---------------------------------------------------------------------------------------------
// CLI

TEST(NcuCli, KernelsAppendMetricColumnsOnMatchedRows) {
    LS_REQUIRE_PAIR();
    const auto r = runCli({"kernels", pairTrace().string(), "--ncu", pairCsv().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::string error;
    const auto table = parseCsv(r.out, &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(table.size(), realPair().trace->kernels.size() + 1);
    const auto& header = table[0];
    const auto first = std::find(header.begin(), header.end(), "ncu:id");
    ASSERT_NE(first, header.end());
    EXPECT_EQ(*(first - 1), "dtype_source") << "after the standard columns";
    const size_t cId = static_cast<size_t>(first - header.begin());
    EXPECT_EQ(header.size() - cId - 1, 45u) << "one column per metric in the file";
    const size_t cOcc = static_cast<size_t>(std::find(header.begin(), header.end(), "ncu:Occupancy/Achieved Occupancy [%]") - header.begin());
    const size_t cDur = static_cast<size_t>(
        std::find(header.begin(), header.end(), "ncu:GPU Speed Of Light Throughput/Duration [ns]") - header.begin());
    ASSERT_LT(cOcc, header.size());
    ASSERT_LT(cDur, header.size());
    const auto& d = realPair().csv;
    for (size_t row = 1; row < table.size(); ++row) {
        const auto& f = table[row];
        ASSERT_EQ(f.size(), header.size());
        const bool matched = row <= 60;
        size_t filled = 0;
        for (size_t c = cId; c < f.size(); ++c) filled += !f[c].empty();
        if (!matched) {
            EXPECT_EQ(filled, 0u) << "row " << row;
            continue;
        }
        EXPECT_GE(filled, 40u) << "row " << row;
        EXPECT_EQ(f[cId], f[0]) << "ncu ID = trace kernel id on this pair";
        for (const auto* line : d.kernel(f[0])) {
            const auto& l = *line;
            const std::string& metric = l[d.col("Metric Name")];
            const std::string value = noCommas(l[d.col("Metric Value")]);
            if (metric == "Achieved Occupancy") {
                EXPECT_EQ(f[cOcc], value);
            } else if (metric == "Duration") {
                EXPECT_EQ(f[cDur], value);
            }
        }
    }
}

TEST(NcuCli, InfoPrintsTheMatchReport) {
    LS_REQUIRE_PAIR();
    const auto r = runCli({"info", pairTrace().string(), "--ncu", pairCsv().string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("ncu match: 60 matched, 0 unmatched, 0 ambiguous"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("details page, 60 kernels, 45 metrics"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("-> trace pid 432"), std::string::npos) << r.out;
    EXPECT_EQ(runCli({"info", pairTrace().string()}).out.find("ncu"), std::string::npos);

    // A file of another program: counts, reasons, and the kernels table says how many matched.
    TempDir dir;
    std::string s = ncuLine(kDetailsHeader);
    for (size_t i = 0; i < 8; ++i)
        s += ncuLine(detailsRow(std::to_string(i), "void other_kernel_" + std::to_string(i) + "()", "S", "Duration", "ns", "5"));
    writeFile(dir / "other.csv", s);
    const auto other = runCli({"info", pairTrace().string(), "--ncu", (dir / "other.csv").string()});
    EXPECT_EQ(other.rc, 0);
    EXPECT_NE(other.out.find("ncu match: 0 matched, 8 unmatched, 0 ambiguous"), std::string::npos) << other.out;
    EXPECT_NE(other.out.find("unmatched ncu ID 0 void other_kernel_0(): no kernel of this name in the trace"), std::string::npos)
        << other.out;
    EXPECT_NE(other.out.find("and 3 more"), std::string::npos) << other.out;
    const auto k = runCli({"kernels", pairTrace().string(), "--ncu", (dir / "other.csv").string()});
    EXPECT_EQ(k.rc, 0);
    EXPECT_NE(k.err.find("0 of 8 Nsight Compute kernels matched"), std::string::npos) << k.err;

    const auto all = runCli({"summary", pairTrace().string(), "--report", "ncu_match", "--ncu", (dir / "other.csv").string()});
    ASSERT_EQ(all.rc, 0) << all.err;
    const auto rows = parseCsv(all.out);
    ASSERT_EQ(rows.size(), 9u);
    EXPECT_EQ(rows[0], (std::vector<std::string>{"ncu_id", "pid", "kernel_name", "grid", "block", "state", "kernel_id", "reason"}));
    EXPECT_EQ(rows[8][5], "unmatched");
    EXPECT_EQ(runCli({"summary", pairTrace().string(), "--report", "ncu_match"}).rc, 2);
}

TEST(NcuCli, BadCsvIsAOneLineErrorWithExitThree) {
    LS_REQUIRE_FILE(pairTrace());
    TempDir dir;
    writeFile(dir / "empty.csv", "");
    writeFile(dir / "wrong.csv", "\"Time (%)\",\"Total Time (ns)\"\n\"1\",\"2\"\n");
    writeFile(dir / "cut.csv", smallDetails().substr(0, smallDetails().find("3,182") + 3));
    for (const auto& [name, mentions] : std::vector<std::pair<std::string, std::string>>{
             {"empty.csv", "empty"}, {"wrong.csv", "header"}, {"cut.csv", "truncated"}, {"missing.csv", "no such file"}}) {
        const std::string file = (dir / name).string();
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"kernels", pairTrace().string(), "--ncu", file},
              {"info", pairTrace().string(), "--ncu", file},
              {"summary", pairTrace().string(), "--report", "ncu_match", "--ncu", file}}) {
            const auto r = runCli(args);
            EXPECT_EQ(r.rc, 3) << args[0] << " " << name;
            EXPECT_EQ(r.out, "") << args[0] << " " << name;
            EXPECT_EQ(r.err.rfind("error: " + file + ": ", 0), 0u) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
        }
    }
}

} // namespace
