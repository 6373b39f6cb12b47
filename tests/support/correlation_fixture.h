#pragma once
// Small Nsight Systems fixtures for the correlation tests: the SQL around a test's rows, and the
// loaded model with the CLI's `kernels` and `summary --report nvtx_kern_sum` outputs.
#include "tests/support/cli_table.h"
#include "tests/support/nsys_fixture.h"

#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ls::test::fixture {

// Kernel names 1..3, API names 11..13. Runtime calls default to thread 101.
inline std::string correlationFixture(std::string_view rows) {
    return cat({kStringIds, kKernelTable, kRuntimeTable, kNvtxTable, R"(
        INSERT INTO StringIds VALUES (1, 'k_a'), (2, 'k_b'), (3, 'k_c'),
            (11, 'cudaLaunchKernel'), (12, 'cudaGraphLaunch'), (13, 'cuLaunchKernelEx');
    )",
                rows});
}

struct Loaded {
    std::shared_ptr<const ls::Trace> trace;
    std::string file;
    CliTable kernels;                     // `kernels FILE`, one row per kernel by start
    std::vector<std::string> nvtxKernSum; // `summary --report nvtx_kern_sum` lines, header included
};

inline Loaded loadFixture(const TempDir& dir, std::string_view rows) {
    Loaded l;
    l.trace = load(dir, correlationFixture(rows));
    l.file = (dir / "fixture.sqlite").string();
    l.kernels = cliTable({"kernels", l.file});
    const auto r = runCli({"summary", l.file, "--report", "nvtx_kern_sum"});
    EXPECT_EQ(r.rc, 0) << r.err;
    l.nvtxKernSum = splitLines(r.out);
    return l;
}

// Expects the listed columns of kernel row `row` (rows are by start).
inline void expectKernel(const CliTable& t, size_t row,
                         const std::map<std::string, std::string>& expected) {
    ASSERT_LT(row, t.rows.size());
    for (const auto& [name, value] : expected)
        EXPECT_EQ(t.at(row, name), value) << "kernel " << row << ", column " << name;
}

inline constexpr const char* kNvtxKernSumHeader =
    "NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),Med (ns),Min (ns),Max "
    "(ns),StdDev (ns),Kernel Name";

inline std::vector<std::string> withHeader(std::vector<std::string> rows) {
    rows.insert(rows.begin(), kNvtxKernSumHeader);
    return rows;
}

} // namespace ls::test::fixture
