// `layerscope-cli kernels --filter/--sort` on the bundled sample trace: the filter language of
// core/views/kernel_filter.h as the CLI applies it, against SQL over the export; bad expressions
// are one-line usage errors.
#include "tests/support/cli_table.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

namespace ls::test {
namespace {

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST(KernelFilterCli, FilterThenSortByDurationDescending) {
    SqlReader sql(sampleTrace());
    const int64_t longer =
        sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end - start > 50000");
    const auto t = cliTable({"kernels", sampleTrace().string(), "--filter", "duration > 50us",
                             "--sort", "duration_ns", "--desc"});
    ASSERT_EQ(static_cast<int64_t>(t.rows.size()), longer);
    ASSERT_GT(t.rows.size(), 2u);
    std::vector<int64_t> durations;
    for (size_t r = 0; r < t.rows.size(); ++r)
        durations.push_back(std::stoll(t.at(r, "duration_ns")));
    EXPECT_TRUE(std::is_sorted(durations.rbegin(), durations.rend())) << "descending";
    EXPECT_LT(durations.back(), durations.front());
    EXPECT_GT(durations.back(), 50000);

    // Inline option values, and the filter's column aliases for --sort.
    const auto up = cliTable(
        {"kernels", sampleTrace().string(), "--filter=duration > 50us", "--sort", "Duration"});
    ASSERT_EQ(up.rows.size(), t.rows.size());
    for (size_t r = 1; r < up.rows.size(); ++r)
        EXPECT_LE(std::stoll(up.at(r - 1, "duration_ns")), std::stoll(up.at(r, "duration_ns")));
}

TEST(KernelFilterCli, FilterAppliesWithinALayer) {
    const auto layer = cliTable({"kernels", sampleTrace().string(), "--layer", "layer0"});
    const auto both = cliTable({"kernels", sampleTrace().string(), "--layer", "layer0", "--filter",
                                "direction = backward"});
    std::vector<std::string> expected, actual;
    for (size_t r = 0; r < layer.rows.size(); ++r)
        if (layer.at(r, "direction") == "backward") expected.push_back(layer.at(r, "id"));
    for (size_t r = 0; r < both.rows.size(); ++r) actual.push_back(both.at(r, "id"));
    EXPECT_FALSE(expected.empty());
    EXPECT_LT(expected.size(), layer.rows.size());
    EXPECT_EQ(actual, expected);
    // A blank filter keeps every row.
    EXPECT_EQ(cliTable({"kernels", sampleTrace().string(), "--filter", ""}).rows.size(),
              cliTable({"kernels", sampleTrace().string()}).rows.size());
}

TEST(KernelFilterCli, BadFilterOrSortIsAUsageErrorOnOneLine) {
    const std::string f = sampleTrace().string();
    const auto oneLineUsageError = [](const std::vector<std::string>& args,
                                      const std::string& prefix) {
        const auto r = runCli(args);
        EXPECT_EQ(r.rc, 2) << prefix;
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(startsWith(r.err, prefix)) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    };
    oneLineUsageError({"kernels", f, "--filter", "durtion > 50us"},
                      "error: --filter: unknown column \"durtion\"; columns: id,");
    oneLineUsageError({"kernels", f, "--filter", "name ~ ("},
                      "error: --filter: bad regular expression \"(\"");
    oneLineUsageError({"kernels", f, "--filter", "duration > 5xs"},
                      "error: --filter: \"5xs\" is not a duration (use ns, us, ms or s)");
    oneLineUsageError({"kernels", f, "--filter", "name < b"},
                      "error: --filter: operator < needs a numeric column");
    oneLineUsageError({"kernels", f, "--sort", "durtion"},
                      "error: --sort: unknown column \"durtion\"");
    oneLineUsageError({"kernels", f, "--desc"}, "error: --desc needs --sort");
    // Parse errors come before reading the file.
    oneLineUsageError({"kernels", "/nonexistent/x.sqlite", "--filter", "durtion > 1"},
                      "error: --filter: unknown column");
}

TEST(KernelFilterCli, HelpDescribesFilterAndSort) {
    const auto r = runCli({"kernels", "--help"});
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("--filter EXPR"), std::string::npos);
    EXPECT_NE(r.out.find("--sort COLUMN"), std::string::npos);
    EXPECT_NE(r.out.find("--desc"), std::string::npos);
}

} // namespace
} // namespace ls::test
