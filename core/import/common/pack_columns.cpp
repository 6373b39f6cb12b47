#include "core/import/common/pack_columns.h"

#include "core/model/columns.h"
#include "core/model/parallel.h"

#include <functional>
#include <vector>

namespace ls {
namespace {

// Each task packs one column and frees its wide source: independent, so they run at once.
void runPacks(std::vector<std::function<void()>>& packs, size_t rows, unsigned threads) {
    runTasks(packs, rows >= kParallelRows ? std::max(1u, threads) : 1);
}

} // namespace

void packApiCalls(ApiCallColumns& a) {
    // One column at a time, those freeing the most for the least first: this runs at the load's
    // peak (every table read, the correlation index built), where packing columns at once would
    // hold several wide and packed forms together. 2.4M calls take a few tens of ms.
    const size_t n = a.size();
    a.result = decltype(a.result)::of(a.importResult, n);
    columns::release(a.importResult);
    a.thread = Dict16Column<ThreadId>::of(a.importThread, n);
    columns::release(a.importThread);
    a.name = Dict16Column<StringId>::of(a.importName, n);
    columns::release(a.importName);
    struct AsInt32 { // the ids' bit patterns
        const Column<uint32_t>& c;
        int32_t operator[](size_t i) const { return static_cast<int32_t>(c[i]); }
    };
    a.correlation = decltype(a.correlation)::of(AsInt32{a.importCorrelation}, n);
    columns::release(a.importCorrelation);
    a.packEnds();
    a.start.packBlocks(); // after the ends, which were read against the 6-byte starts
}

namespace {

// Row i of `c` in the new order: old row perm[i].
template <typename Col> struct Gathered {
    const Col& c;
    const std::vector<uint32_t>& perm;
    auto operator[](size_t i) const { return c[perm[i]]; }
};
template <typename Col> Gathered<Col> gathered(const Col& c, const std::vector<uint32_t>& perm) {
    return {c, perm};
}

// Row i of an op id or seq column in the new order, decoded with its source row.
struct GatheredOpField {
    const RowidBlockInt32Column& c;
    const std::vector<uint32_t>& perm;
    mutable RowRuns::Cursor source;
    int32_t operator[](size_t i) const {
        return c.value(perm[i], [&] { return source(i); });
    }
};

} // namespace

void packRanges(RangeColumns& r, const std::vector<uint32_t>& perm, const RowRuns& sourceRows,
                unsigned threads) {
    const size_t n = r.size();
    // Name, sizes, op id and seq are packed straight through the permutation: their wide forms are
    // never permuted, so the permutation's scratch column is not added to them at the load's peak.
    std::vector<std::function<void()>> packs;
    // Name and sizes are packed by one task: their codes are then paired into one column.
    packs.emplace_back([&] {
        r.name = Dict16Column<StringId>::of(gathered(r.importName, perm), n);
        r.importName = {};
        auto sizes = Dict16Column<StringId>::of(gathered(r.importSizes, perm), n);
        r.importSizes = {};
        r.sizes.pair(r.name, std::move(sizes));
    });
    packs.emplace_back([&] {
        r.opId = decltype(r.opId)::of(
            GatheredOpField{r.importOpId, perm, RowRuns::Cursor(sourceRows)}, n);
        r.importOpId.clear();
    });
    packs.emplace_back([&] {
        r.seq = SparseInt32Column::of(
            GatheredOpField{r.importSeq, perm, RowRuns::Cursor(sourceRows)}, n);
        r.importSeq.clear();
    });
    runPacks(packs, n, threads);
    // What is left of the importers' columns (start, end, kind, flags) moves; then the ends pack.
    bool identity = true;
    for (uint32_t i = 0; i < perm.size() && identity; ++i) identity = perm[i] == i;
    if (!identity) {
        auto left = columns::imports(r);
        columns::permute(left, perm, threads);
    }
    r.packEnds();
    r.start.packBlocks(); // after the ends, which were read against the 6-byte starts
}

} // namespace ls
