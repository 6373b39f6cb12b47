// `summary --report kern_sum` (kernels grouped by name only, as newer nsys cuda_gpu_kern_sum)
// against an independent computation over the same file: SQL for total, count, min and max,
// and median and sample standard deviation computed here from the durations SQL returns.
#include "tests/support/test_support.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace {

using namespace ls::test;

struct Expected {
    int64_t total = 0, count = 0, min = 0, max = 0;
    double avg = 0, median = 0, stddev = 0;
};

double median(std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? static_cast<double>(v[n / 2])
                 : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2.0;
}

double sampleStddev(const std::vector<int64_t>& v) {
    if (v.size() < 2) return 0;
    long double mean = 0;
    for (int64_t x : v) mean += x;
    mean /= v.size();
    long double sq = 0;
    for (int64_t x : v) sq += (x - mean) * (x - mean);
    return static_cast<double>(std::sqrt(sq / (v.size() - 1)));
}

std::map<std::string, Expected> expectedFromSql(const fs::path& file) {
    SqlReader sql(file);
    std::map<std::string, Expected> e;
    const std::string from =
        " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName";
    sql.each("SELECT s.value, sum(k.end - k.start), count(*), min(k.end - k.start), max(k.end - "
             "k.start)" +
                 from + " GROUP BY s.value",
             [&](sqlite3_stmt* st) {
                 Expected& x = e[SqlReader::text(st, 0)];
                 x.total = SqlReader::int64(st, 1);
                 x.count = SqlReader::int64(st, 2);
                 x.min = SqlReader::int64(st, 3);
                 x.max = SqlReader::int64(st, 4);
                 x.avg = static_cast<double>(x.total) / static_cast<double>(x.count);
             });
    std::map<std::string, std::vector<int64_t>> durations;
    sql.each("SELECT s.value, k.end - k.start" + from, [&](sqlite3_stmt* st) {
        durations[SqlReader::text(st, 0)].push_back(SqlReader::int64(st, 1));
    });
    for (auto& [name, d] : durations) {
        e[name].median = median(d);
        e[name].stddev = sampleStddev(d);
    }
    return e;
}

// Our one-decimal text equals the exact value to within the rounding.
void expectOneDecimal(const std::string& text, double exact, const char* what,
                      const std::string& name) {
    EXPECT_NEAR(std::stod(text), exact, 0.05 + 1e-12 * std::fabs(exact)) << what << " of " << name;
}

class KernSumAgainstSql : public ::testing::TestWithParam<TraceCase> {};

TEST_P(KernSumAgainstSql, EveryNameGroupMatchesSql) {
    const TraceCase& c = GetParam();
    LS_REQUIRE_FILE(c.path);
    const auto expected = expectedFromSql(c.path);
    ASSERT_FALSE(expected.empty()) << "no kernels in " << c.path;
    int64_t all = 0;
    for (const auto& [name, e] : expected) all += e.total;

    const auto r = runCli({"summary", c.path.string(), "--report", "kern_sum"});
    ASSERT_EQ(r.rc, 0) << r.err;
    std::string error;
    const auto rows = parseCsv(r.out, &error);
    ASSERT_EQ(error, "");
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(rows.front(), (std::vector<std::string>{"Time (%)", "Total Time (ns)", "Instances",
                                                      "Avg (ns)", "Med (ns)", "Min (ns)",
                                                      "Max (ns)", "StdDev (ns)", "Name"}));
    EXPECT_EQ(rows.size() - 1, expected.size()) << "one row per distinct demangled name";

    std::set<std::string> seen;
    for (size_t i = 1; i < rows.size(); ++i) {
        const auto& row = rows[i];
        ASSERT_EQ(row.size(), 9u) << "row " << i;
        const std::string& name = row[8];
        EXPECT_TRUE(seen.insert(name).second) << "two rows for " << name;
        if (i > 1) {
            EXPECT_GE(std::stoll(rows[i - 1][1]), std::stoll(row[1]))
                << "not sorted by total at row " << i;
        }
        const auto it = expected.find(name);
        if (it == expected.end()) {
            ADD_FAILURE() << "row for a name SQL does not have: " << name;
            continue;
        }
        const Expected& e = it->second;
        EXPECT_EQ(row[1], std::to_string(e.total)) << "total of " << name;
        EXPECT_EQ(row[2], std::to_string(e.count)) << "instances of " << name;
        EXPECT_EQ(row[5], std::to_string(e.min)) << "min of " << name;
        EXPECT_EQ(row[6], std::to_string(e.max)) << "max of " << name;
        expectOneDecimal(row[0], 100.0 * static_cast<double>(e.total) / static_cast<double>(all),
                         "Time (%)", name);
        expectOneDecimal(row[3], e.avg, "avg", name);
        expectOneDecimal(row[4], e.median, "median", name);
        expectOneDecimal(row[7], e.stddev, "stddev", name);
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, KernSumAgainstSql, ::testing::ValuesIn(goldenTraces()),
                         traceParamName);

} // namespace
