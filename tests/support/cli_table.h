#pragma once
// A CLI command's CSV output read by column name, for the correlation tests.
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ls::test {

struct CliTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    size_t col(const std::string& name) const {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << "no column " << name;
        return static_cast<size_t>(it - header.begin());
    }
    const std::string& at(size_t row, const std::string& name) const {
        return rows[row][col(name)];
    }
    // Rows whose column `name` equals value.
    std::vector<size_t> where(const std::string& name, const std::string& value) const {
        std::vector<size_t> out;
        const size_t c = col(name);
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i][c] == value) out.push_back(i);
        return out;
    }
};

// Runs the CLI, expects success and a well-formed CSV with one header and same-width rows.
inline CliTable cliTable(const std::vector<std::string>& args) {
    CliTable t;
    const auto r = runCli(args);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::string error;
    auto csv = parseCsv(r.out, &error);
    EXPECT_EQ(error, "");
    if (csv.empty()) {
        ADD_FAILURE() << "no output";
        return t;
    }
    t.header = csv.front();
    t.rows.assign(csv.begin() + 1, csv.end());
    for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.header.size()) << formatCsvRow(row);
    return t;
}

inline std::vector<std::string> splitOn(const std::string& s, const std::string& sep) {
    std::vector<std::string> out;
    if (s.empty()) return out;
    size_t from = 0;
    for (size_t at; (at = s.find(sep, from)) != std::string::npos; from = at + sep.size())
        out.push_back(s.substr(from, at - from));
    out.push_back(s.substr(from));
    return out;
}

} // namespace ls::test
