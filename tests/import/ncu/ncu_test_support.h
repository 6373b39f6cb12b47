#pragma once
// Shared by the Nsight Compute tests: the real nsys/ncu pair in ../shared/traces, the CSV read
// independently of the code under test, and small CSV builders.
#include "core/import/ncu/ncu_csv.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <vector>

namespace ls::test {

inline fs::path pairTrace() {
    return sharedDir() / "traces" / "pair_gpt1layer_fp16_h200.nsys.sqlite";
}
inline fs::path pairCsv() { return sharedDir() / "traces" / "pair_gpt1layer_fp16_h200.ncu.csv"; }

// ncu quotes every field.
inline std::string ncuLine(const std::vector<std::string>& fields) {
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
        std::string s =
            "==PROF== Connected to process 1 (/usr/bin/python3)\nsome program output\n" +
            ncuLine(header);
        for (const auto& r : keep) s += ncuLine(r);
        return s;
    }
};

inline DetailsFile readDetails(const fs::path& file) {
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

inline std::string noCommas(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return s;
}

struct Pair {
    std::shared_ptr<const Trace> trace;
    DetailsFile csv;
};

// Loaded once for the suite; nullptr trace when ../shared is absent.
inline const Pair& realPair() {
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

inline NcuCsv parseOk(std::string_view text) {
    auto r = parseNcuCsv(text);
    EXPECT_TRUE(r.ok()) << r.error;
    return r.ok() ? std::move(*r.csv) : NcuCsv{};
}

// ---------------------------------------------------------------------------------------------
// Parsing

// Details-page rows of a made-up program.
inline const std::vector<std::string> kDetailsHeader = {"ID",
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
                                                        "Section Name",
                                                        "Metric Name",
                                                        "Metric Unit",
                                                        "Metric Value",
                                                        "Rule Name",
                                                        "Rule Type",
                                                        "Rule Description",
                                                        "Estimated Speedup Type",
                                                        "Estimated Speedup"};

inline std::vector<std::string> detailsRow(const std::string& id, const std::string& name,
                                           const std::string& section, const std::string& metric,
                                           const std::string& unit, const std::string& value) {
    return {id,           "77", "python3", "127.0.0.1", name,   "1",  "7",   "(128, 1, 1)",
            "(64, 1, 1)", "0",  "9.0",     section,     metric, unit, value, "",
            "",           "",   "",        ""};
}

// A small details page: program output first, a unit per metric, a rule row, n/a.
inline std::string smallDetails() {
    std::string s =
        "epoch 1 loss 2.5\n==PROF== Disconnected from process 77\n" + ncuLine(kDetailsHeader);
    s += ncuLine(detailsRow("0", "kernelA(int)", "GPU Speed Of Light Throughput", "Duration",
                            "usecond", "1,234.5"));
    s += ncuLine(detailsRow("0", "kernelA(int)", "GPU Speed Of Light Throughput", "DRAM Frequency",
                            "hz", "3,182,432,432.43"));
    s += ncuLine(detailsRow("0", "kernelA(int)", "Occupancy", "Achieved Occupancy", "%", "n/a"));
    s += ncuLine(detailsRow("0", "kernelA(int)", "Launch Statistics",
                            "Function Cache Configuration", "", "CachePreferNone"));
    auto rule = detailsRow("0", "kernelA(int)", "SpeedOfLight", "", "", "");
    rule[15] = "SOLBottleneck";
    rule[17] = "This kernel grid is too small, with \"quotes\", commas\nand a line break.";
    s += ncuLine(rule);
    s += ncuLine(detailsRow("1", "kernelB<4>(float *)", "GPU Speed Of Light Throughput", "Duration",
                            "msecond", "2.5"));
    s += ncuLine(
        detailsRow("1", "kernelB<4>(float *)", "Occupancy", "Achieved Occupancy", "%", "45.5"));
    s += "==PROF== Report: done\n";
    return s;
}

} // namespace ls::test
