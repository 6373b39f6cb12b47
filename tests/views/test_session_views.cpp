// The kernel table and layer tree over every rank of a session (core/views/session_*), on the
// two FSDP ranks recorded for this project: sizes, sorts and filters against SQL over both
// files, and the combined tree against each file's SQL counts and its own tree.
#include "core/load/session_load.h"
#include "core/views/session_kernel_table.h"
#include "core/views/session_layer_tree.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <functional>

namespace ls::test {
namespace {

fs::path rankFile(int r) {
    return sourceDir() / "tests/data/ranks" /
           ("fsdp_nsys_bf16_h100x2_rank" + std::to_string(r) + ".sqlite");
}

struct Fixture {
    Session session;
    std::shared_ptr<const SessionKernelTable> table;
    std::vector<std::shared_ptr<const LayerTree>> trees;
    SessionLayerTree tree;
    std::vector<const Trace*> traces;

    Fixture() : session(loadSession({rankFile(0).string(), rankFile(1).string()})) {
        std::vector<std::shared_ptr<const KernelTable>> parts;
        std::vector<const LayerTree*> treeParts;
        std::vector<uint32_t> base;
        for (uint32_t t = 0; t < session.traces.size(); ++t) {
            parts.push_back(
                std::make_shared<const KernelTable>(session.traces[t].trace, session, t));
            trees.push_back(
                std::make_shared<const LayerTree>(buildLayerTree(*session.traces[t].trace)));
            treeParts.push_back(trees.back().get());
            traces.push_back(session.traces[t].trace.get());
        }
        table = std::make_shared<const SessionKernelTable>(parts);
        for (uint32_t t = 0; t < traces.size(); ++t)
            base.push_back(table->rowOf(t, KernelId(0)).value);
        tree = combineLayerTrees(treeParts, base);
    }
    std::vector<KernelId> allRows() const {
        std::vector<KernelId> rows(table->size());
        for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = KernelId(i);
        return rows;
    }
};

// The trace index holding rank r's file (the session orders traces by rank).
uint32_t traceOfFile(const Session& s, int r) {
    for (uint32_t t = 0; t < s.traces.size(); ++t)
        if (fs::path(s.traces[t].file).filename() == rankFile(r).filename()) return t;
    return UINT32_MAX;
}

std::vector<int64_t> sqlInts(int file, const std::string& sql) {
    std::vector<int64_t> out;
    SqlReader(rankFile(file)).each(sql, [&](sqlite3_stmt* st) {
        out.push_back(SqlReader::int64(st, 0));
    });
    return out;
}

TEST(SessionKernelTable, RowsOfBothRanksMapToTheirTracesKernels) {
    LS_REQUIRE_FILE(rankFile(0));
    Fixture f;
    ASSERT_EQ(f.session.traces.size(), 2u);
    const auto n0 = static_cast<size_t>(
        SqlReader(rankFile(0)).scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    const auto n1 = static_cast<size_t>(
        SqlReader(rankFile(1)).scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(f.table->size(), n0 + n1);
    for (uint32_t t = 0; t < 2; ++t)
        for (uint32_t k = 0; k < f.traces[t]->kernels.size(); k += 97) {
            const KernelId row = f.table->rowOf(t, KernelId(k));
            ASSERT_EQ(f.table->traceOf(row), t);
            ASSERT_EQ(f.table->localOf(row).value, k);
            ASSERT_EQ(f.table->text(row, KernelField::Name),
                      f.table->table(t).text(KernelId(k), KernelField::Name));
            ASSERT_EQ(f.table->number(row, KernelField::Duration),
                      f.table->table(t).number(KernelId(k), KernelField::Duration));
        }
}

TEST(SessionKernelTable, NumberAndTextColumnsSortAcrossRanksAsSqlOrdersBothFiles) {
    LS_REQUIRE_FILE(rankFile(0));
    Fixture f;
    auto rows = f.allRows();
    f.table->sort(rows, KernelField::Registers, true);
    auto expected = sqlInts(0, "SELECT registersPerThread FROM CUPTI_ACTIVITY_KIND_KERNEL");
    const auto other = sqlInts(1, "SELECT registersPerThread FROM CUPTI_ACTIVITY_KIND_KERNEL");
    expected.insert(expected.end(), other.begin(), other.end());
    std::sort(expected.begin(), expected.end(), std::greater<>());
    ASSERT_EQ(rows.size(), expected.size());
    for (size_t r = 0; r < rows.size(); ++r)
        ASSERT_EQ(f.table->number(rows[r], KernelField::Registers),
                  static_cast<double>(expected[r]))
            << r;

    // Names from StringIds in SQL, sorted by their bytes; ties keep the registers order.
    f.table->sort(rows, KernelField::Name, false);
    std::vector<std::string> names;
    for (int file = 0; file < 2; ++file)
        SqlReader(rankFile(file))
            .each("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                  "k.demangledName",
                  [&](sqlite3_stmt* st) { names.push_back(SqlReader::text(st, 0)); });
    std::sort(names.begin(), names.end());
    ASSERT_EQ(rows.size(), names.size());
    for (size_t r = 0; r < rows.size(); ++r) {
        ASSERT_EQ(f.table->text(rows[r], KernelField::Name), names[r]) << r;
        if (r && names[r] == names[r - 1]) {
            ASSERT_GE(f.table->number(rows[r - 1], KernelField::Registers),
                      f.table->number(rows[r], KernelField::Registers))
                << r;
        }
    }

    // Vocabulary columns and NVTX paths merge across ranks too.
    for (KernelField field :
         {KernelField::Dir, KernelField::NvtxPath, KernelField::NvtxRange, KernelField::Rank}) {
        f.table->sort(rows, field, false);
        for (size_t r = 1; r < rows.size(); ++r)
            if (field != KernelField::NvtxRange) {
                ASSERT_LE(f.table->text(rows[r - 1], field), f.table->text(rows[r], field)) << r;
            }
    }
    f.table->sort(rows, KernelField::Rank,
                  false); // the rank column splits the table at the ranks' boundary
    EXPECT_EQ(f.table->text(rows.front(), KernelField::Rank), "0");
    EXPECT_EQ(f.table->text(rows.back(), KernelField::Rank), "1");
}

TEST(SessionKernelTable, AFilterAppliesToEachRank) {
    LS_REQUIRE_FILE(rankFile(0));
    Fixture f;
    auto parsed = KernelFilter::parse("rank = 1 and duration > 10us");
    ASSERT_TRUE(parsed.filter) << parsed.error;
    const auto kept = f.table->filter(*parsed.filter, f.allRows());
    const int64_t sql =
        SqlReader(rankFile(1))
            .scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end - start > 10000");
    EXPECT_GT(sql, 0);
    EXPECT_EQ(static_cast<int64_t>(kept.size()), sql);
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    for (KernelId row : kept) ASSERT_EQ(f.table->traceOf(row), traceOfFile(f.session, 1));
}

TEST(SessionLayerTree, ARankNodePerTraceHoldsThatTracesTreeWithSqlTotals) {
    LS_REQUIRE_FILE(rankFile(0));
    Fixture f;
    const LayerTree& c = f.tree.tree;
    const auto children = layerTreeChildren(c, 0);
    ASSERT_EQ(children.size(), 2u);
    EXPECT_EQ(c.kernels[0], f.table->size());
    for (int file = 0; file < 2; ++file) {
        const uint32_t t = traceOfFile(f.session, file);
        const uint32_t rank = children[t];
        EXPECT_EQ(c.kind[rank], LayerNodeKind::Rank);
        EXPECT_EQ(f.tree.trace[rank], t);
        SqlReader db(rankFile(file));
        EXPECT_EQ(static_cast<int64_t>(c.kernels[rank]),
                  db.scalar("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        EXPECT_EQ(static_cast<int64_t>(c.gpuTimeNs[rank]),
                  db.scalar("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
        // Its kernels are exactly the trace's rows of the session table.
        const auto rows = kernelsOfSessionNode(f.tree, f.traces, rank);
        ASSERT_EQ(rows.size(), c.kernels[rank]);
        EXPECT_EQ(rows.front(), f.table->rowOf(t, KernelId(0)));
        EXPECT_EQ(rows.back().value, f.table->rowOf(t, KernelId(0)).value + rows.size() - 1);
    }
    // Every other node is its trace's node one level down, with the same name and totals, and
    // every kernel's leaf lies under its own trace's Rank node.
    for (uint32_t n = 1; n < c.size(); ++n) {
        if (c.kind[n] == LayerNodeKind::Rank) continue;
        const LayerTree& own = *f.trees[f.tree.trace[n]];
        const uint32_t l = f.tree.local[n];
        ASSERT_EQ(c.kind[n], own.kind[l]);
        ASSERT_EQ(c.depth[n], own.depth[l] + 1);
        ASSERT_EQ(layerNodeName(*f.traces[f.tree.trace[n]], c, n),
                  layerNodeName(*f.traces[f.tree.trace[n]], own, l));
        ASSERT_EQ(c.kernels[n], own.kernels[l]);
        ASSERT_EQ(c.gpuTimeNs[n], own.gpuTimeNs[l]);
        ASSERT_EQ(layerTreeChildren(c, n).size(), layerTreeChildren(own, l).size());
    }
    for (uint32_t row = 0; row < f.table->size(); ++row) {
        uint32_t n = c.kernelNode[row];
        while (c.depth[n] > 1) n = c.parent[n];
        ASSERT_EQ(n, 1 + f.table->traceOf(KernelId(row))) << row;
    }
}

} // namespace
} // namespace ls::test
