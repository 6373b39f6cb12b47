#include "core/import/common/pack_columns.h"

#include "core/model/columns.h"

#include <vector>

namespace ls {

void packApiCalls(ApiCallColumns& a) {
    // One column at a time, those freeing the most for the least first: this runs at the load's
    // peak (every table read, the correlation index built), where packing columns at once would
    // hold several wide and packed forms together. 2.4M calls take a few tens of ms.
    const size_t n = a.size();
    struct Results { // from their bit patterns
        const Dict16Column<ApiResultBits>& c;
        int32_t operator[](size_t i) const { return static_cast<int32_t>(c[i].value); }
    };
    a.result = decltype(a.result)::of(Results{a.importResult}, n);
    a.importResult = {};
    // Renumbered in the rows' final order: the codes the read gave follow the file's.
    a.thread = Dict16Column<ThreadId>::gather(a.importThread, nullptr);
    a.importThread = {};
    a.name = Dict16Column<StringId>::gather(a.importName, nullptr);
    a.importName = {};
    struct Correlations { // the ids' bit patterns
        const Column<uint32_t>& c;
        int32_t operator[](size_t i) const { return static_cast<int32_t>(c[i]); }
    };
    a.correlation = decltype(a.correlation)::of(Correlations{a.importCorrelation}, n);
    columns::release(a.importCorrelation);
    a.packEnds();
    a.start.packBlocks(); // after the ends, which were read against the 6-byte starts
}

namespace {

// Row i of an op id or seq column in the new order, decoded with its source row.
struct GatheredOpField {
    const RowidBlockInt32Column& c;
    const Column<uint32_t>& perm;
    mutable RowRuns::Cursor source;
    int32_t operator[](size_t i) const {
        return c.value(perm[i], [&] { return source(i); });
    }
};

} // namespace

void packRanges(RangeColumns& r, const Column<uint32_t>& perm, const RowRuns& sourceRows,
                unsigned threads) {
    const size_t n = r.size();
    // Name, sizes, op id and seq are packed straight through the permutation: their wide forms are
    // never permuted, so the permutation's scratch column is not added to them at the load's peak.
    // One at a time, each import column freed once packed, those freeing the most for the least
    // first (seq's packed form holds only the ranges that have one): this step is part of the
    // load's peak, and run side by side they held two more 2-byte columns at once, for no time
    // saved (the gathers are bound by memory).
    r.seq = SparseInt32Column::of(GatheredOpField{r.importSeq, perm, RowRuns::Cursor(sourceRows)},
                                  n, r.importSeq.heldCount());
    r.importSeq.clear();
    r.name = Dict16Column<StringId>::gather(r.importName, &perm);
    r.importName = {};
    auto sizes = Dict16Column<StringId>::gather(r.importSizes, &perm);
    r.importSizes = {};
    r.sizes.pair(r.name, std::move(sizes));
    r.opId =
        decltype(r.opId)::of(GatheredOpField{r.importOpId, perm, RowRuns::Cursor(sourceRows)}, n);
    r.importOpId.clear();
    // Ends and starts pack through the permutation (no 6-byte scratch column for it at this
    // step of the load's peak); what is left of the importers' columns (kind, flags) moves.
    bool identity = true;
    for (uint32_t i = 0; i < perm.size() && identity; ++i) identity = perm[i] == i;
    const Column<uint32_t>* order = identity ? nullptr : &perm;
    r.packEnds(order);
    r.start.packBlocks(order); // after the ends, which were read against the 6-byte starts
    if (!identity) {
        auto left = columns::imports(r);
        columns::permute(left, perm, threads);
    }
}

} // namespace ls
