#pragma once
// Ordering rows of the summary tables by a SummarySort key (Paddle's sorted_by).
#include "core/reports/summary_tables/summary_table.h"

#include <vector>

namespace ls {

// Totals, averages and maxima descending, minima ascending; ties by name.
void sortSummaryRows(std::vector<SummaryTableRow*>& rows, SummarySort sort);

} // namespace ls
