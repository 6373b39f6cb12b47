// Where a model's bytes are (info --memory): the rows add up to the budget's count of the model,
// each table's columns have that table's rows as the export counts them (SQL over the file), and
// a column's bytes are its rows times its element size at least.
#include "core/cache/model_breakdown.h"
#include "core/cache/model_bytes.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <map>

namespace ls::test {
namespace {

TEST(ModelBreakdown, RowsAddUpToTheModelAndCountTheExportsRows) {
    const LoadResult loaded = loadTrace(sampleTrace().string(), LoadOptions{}); // no cache

    ASSERT_TRUE(loaded.ok());
    const Trace& t = *loaded.trace;
    const auto rows = modelBytesBreakdown(t);
    uint64_t sum = 0;
    std::map<std::string, uint64_t> rowsOf; // "table.column" -> rows
    for (const auto& r : rows) {
        sum += r.bytes;
        rowsOf[r.table + "." + r.column] = r.rows;
    }
    EXPECT_EQ(sum, modelBytes(t));
    const SqlReader sql(sampleTrace());
    const auto kernels =
        static_cast<uint64_t>(sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_GT(kernels, 0u);
    for (const char* c : {"start", "end", "name", "grid", "registers", "streamIndex", "launch"})
        EXPECT_EQ(rowsOf.at(std::string("kernels.") + c), kernels) << c;
    for (const char* c : {"range", "op", "direction", "layer"})
        EXPECT_EQ(rowsOf.at(std::string("kernel links.") + c), kernels) << c;
    for (const char* c : {"flops", "bytes", "tc", "occupancy"})
        EXPECT_EQ(rowsOf.at(std::string("kernel metrics.") + c), kernels) << c;
    EXPECT_EQ(rowsOf.at("memcpys.start"),
              static_cast<uint64_t>(sql.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY")));
    EXPECT_EQ(rowsOf.at("index.streamKernels"), kernels); // every kernel under its stream
    for (const auto& r : rows) {
        if (r.table == "strings" || r.table == "other" || r.table == "index") continue;
        EXPECT_GE(r.bytes, r.rows) << r.table << "." << r.column; // at least a byte a row
    }
    EXPECT_EQ(rows.back().table, "other");
}

// After the load no importer's column holds a byte, and the narrow columns hold their narrow
// forms: a range's kind, flags and depth one byte, a kernel's FLOPs and bytes two.
TEST(ModelBreakdown, ImportColumnsAreFreedAndNarrowColumnsStayNarrow) {
    const LoadResult loaded = loadTrace(sampleTrace().string(), LoadOptions{}); // no cache
    ASSERT_TRUE(loaded.ok());
    const Trace& t = *loaded.trace;
    for (const auto& r : modelBytesBreakdown(t)) {
        if (r.column.rfind("import", 0) == 0) {
            EXPECT_EQ(r.bytes, 0u) << r.table << "." << r.column;
        }
    }
    EXPECT_TRUE(t.kernels.importStreams.empty());
    EXPECT_TRUE(t.ranges.shape.wide.empty());
    EXPECT_EQ(t.ranges.shape.code.size(), t.ranges.size());
    EXPECT_LT(t.ranges.shape.distinct.size(), 64u);
    for (const auto* c : {&t.metrics.flops, &t.metrics.bytes}) {
        EXPECT_TRUE(c->wide.empty());
        EXPECT_EQ(c->code.size(), t.kernels.size());
        EXPECT_LT(c->distinct.size(), t.kernels.size() / 2) << "an op's cost repeats";
    }
}

} // namespace
} // namespace ls::test
