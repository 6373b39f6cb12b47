#pragma once
// Packs the wide columns importers write (import*, importEnd) into the model's narrow ones
// (core/model/end_column.h, core/model/narrow_columns.h), once assembly has put the rows in their
// final order, freeing each wide column as soon as its packed form exists so that the load's peak
// falls with the model.
#include "core/model/trace.h"

#include <cstdint>
#include <vector>

namespace ls {

// End, thread, name and result of API calls whose rows are final (after the duplicate drop), one
// column at a time.
void packApiCalls(ApiCallColumns& a);
// Puts ranges in their final order (new row i is old row perm[i], a permutation of the rows) and
// packs their end, name, sizes, seq and opId. The importers' thread and source row columns must
// be freed already (they are read before: grouping, Trace::rangeSourceRows). `sourceRows` are
// the rows' export rowids in the new order: coded op ids and seqs are decoded with them.
void packRanges(RangeColumns& r, const Column<uint32_t>& perm, const RowRuns& sourceRows,
                unsigned threads);

} // namespace ls
