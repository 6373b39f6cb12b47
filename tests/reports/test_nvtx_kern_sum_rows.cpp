// `summary --report nvtx_kern_sum` over many ranges: 20,000 marker ranges with one launch each
// (many more rows than the report hands over in one batch), PyTorch texts whose fields rebuild
// them, texts that do not rebuild, equal texts on several ranges and plain user ranges. Every
// row and its order equal SQL's grouping over the same file (range text, kernel name; counts
// and total), ordered as nsys orders them (text bytes, then total time descending). Rows made in
// parts of any size are the same.
#include "core/reports/nvtx_kern_summary.h"
#include "tests/support/correlation_fixture.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using namespace ls::test;
using namespace ls::test::fixture;

constexpr int kRanges = 20000;

std::string sqlQuoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string rangeText(int i) {
    if (i % 10 == 0) return "layer" + std::to_string(i % 3); // plain ranges: groups of many ranges
    if (i % 17 == 0)
        return "aten::odd,  seq = " + std::to_string(i); // fields that do not rebuild the text
    const int op = i % 11 == 0 ? i - 1 : i;              // every 11th repeats the text before it
    std::string s = "aten::op" + std::to_string(op % 7);
    if (op % 3) s += ", seq = " + std::to_string(op % 13);
    s += ", op_id = " + std::to_string((op * 7919) % 100003);
    if (op % 4) s += ", sizes = [[" + std::to_string(op % 5) + ", 8], []]";
    return s + ", input_op_ids = [(" + std::to_string(op) + ",0)]";
}

std::string manyRangesFixture() {
    std::string nvtx = "INSERT INTO NVTX_EVENTS(start, end, text) VALUES ";
    std::string calls =
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(start, end, correlationId, nameId) VALUES ";
    std::string kernels = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(start, end, correlationId, "
                          "demangledName, shortName) VALUES ";
    for (int i = 0; i < kRanges; ++i) {
        const int64_t at = int64_t(i) * 1000,
                      kernelAt = int64_t(kRanges) * 1000 + int64_t(i) * 1000;
        const char* sep = i ? ", " : "";
        nvtx += sep + ("(" + std::to_string(at) + ", " + std::to_string(at + 500) + ", " +
                       sqlQuoted(rangeText(i)) + ")");
        calls += sep + ("(" + std::to_string(at + 100) + ", " + std::to_string(at + 200) + ", " +
                        std::to_string(i + 1) + ", 11)");
        const int name = 1 + i % 3;
        kernels +=
            sep + ("(" + std::to_string(kernelAt) + ", " +
                   std::to_string(kernelAt + 10 + (i * 37) % 400) + ", " + std::to_string(i + 1) +
                   ", " + std::to_string(name) + ", " + std::to_string(name) + ")");
    }
    return nvtx + ";\n" + calls + ";\n" + kernels + ";\n";
}

TEST(NvtxKernSumRows, ManyRangesGiveSqlsGroupsInNsysOrder) {
    TempDir dir;
    const auto l = loadFixture(dir, manyRangesFixture());
    ASSERT_TRUE(l.trace);
    std::string joined;
    for (const auto& line : l.nvtxKernSum) joined += line + "\n";
    std::string error;
    const CsvTable ours = parseCsv(joined, &error);
    ASSERT_EQ(error, "");

    SqlReader sql(l.file);
    ASSERT_TRUE(sql.ok());
    std::vector<std::vector<std::string>> expected;
    sql.each(R"(
        SELECT n.text, count(DISTINCT n.rowid), count(DISTINCT k.rowid), sum(k.end - k.start), s.value
        FROM NVTX_EVENTS n
        JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = n.globalTid AND r.start >= n.start AND r.end <= n.end
        JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId
        JOIN StringIds s ON s.id = k.demangledName
        GROUP BY n.text, s.value
        ORDER BY n.text, sum(k.end - k.start) DESC, s.value)",
             [&](sqlite3_stmt* st) {
                 expected.push_back(
                     {SqlReader::text(st, 0), std::to_string(SqlReader::int64(st, 1)),
                      std::to_string(SqlReader::int64(st, 2)),
                      std::to_string(SqlReader::int64(st, 3)), SqlReader::text(st, 4)});
             });
    ASSERT_GT(expected.size(), size_t(4 * 4096)) << "more rows than a few batches";
    ASSERT_EQ(ours.size(), expected.size() + 1) << "header and one row per group";
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto& row = ours[i + 1];
        ASSERT_EQ(row.size(), 13u);
        const std::vector<std::string> got = {row[0], row[4], row[5], row[6], row[12]};
        ASSERT_EQ(got, expected[i]) << "row " << i;
    }
}

// Rows are made in parts of the text order on every core and handed over in order: parts of one
// text, of a few and of more texts than there are give the same rows. The plain ranges' texts
// (layer0..2, hundreds of ranges each) must not be split between parts.
TEST(NvtxKernSumRows, RowsAreTheSameHoweverTheTextsAreSplitIntoParts) {
    TempDir dir;
    const auto trace = load(dir, correlationFixture(manyRangesFixture()));
    ASSERT_TRUE(trace);
    auto rowsWith = [&](size_t partTexts) {
        std::vector<std::string> rows;
        ls::nvtxKernelSummary(
            *trace,
            [&](const ls::NvtxKernRow& r) {
                rows.push_back(
                    std::string(r.range) + "|" + std::string(r.style) + "|" +
                    std::to_string(r.tid.value_or(0)) + "|" + std::to_string(r.rangeInstances) +
                    "|" + std::to_string(r.kernelInstances) + "|" + std::to_string(r.stats.total) +
                    "|" + std::string(trace->str(r.kernel)));
            },
            partTexts);
        return rows;
    };
    const auto whole = rowsWith(size_t(1) << 30);
    ASSERT_GT(whole.size(), size_t(4 * 4096));
    for (size_t part : {size_t(1), size_t(3), size_t(1000)})
        EXPECT_EQ(rowsWith(part), whole) << "parts of " << part << " texts";
}

// A caller that fails while taking rows (a full disk, say) gets its exception back, and the
// rows being made on the helper thread stop instead of waiting for room forever.
TEST(NvtxKernSumRows, ACallerThatThrowsGetsItsExceptionBack) {
    TempDir dir;
    const auto trace = load(dir, correlationFixture(manyRangesFixture()));
    ASSERT_TRUE(trace);
    size_t taken = 0;
    struct Full {};
    EXPECT_THROW(ls::nvtxKernelSummary(*trace,
                                       [&](const ls::NvtxKernRow&) {
                                           if (++taken == 5000) throw Full{};
                                       }),
                 Full);
    EXPECT_EQ(taken, 5000u);
}

} // namespace
