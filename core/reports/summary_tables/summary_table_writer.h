#pragma once
// The summary tables as CSV/TSV rows (TableWriter: name, calls, cpu_total_ns … gpu_ratio_pct,
// then the tree depth and row kind) and as text laid out like Paddle's console tables (a title
// line, "Time unit: ms", the same columns and "Total / Avg / Max / Min / Ratio(%)" cells).
#include "core/reports/summary_tables/summary_table.h"
#include "core/reports/table_writer.h"

#include <optional>
#include <string>
#include <string_view>

namespace ls {

enum class SummaryTimeUnit : uint8_t { S, Ms, Us, Ns };
std::optional<SummaryTimeUnit> parseSummaryTimeUnit(std::string_view s); // "s", "ms", "us", "ns"

void writeSummaryTableRows(TableWriter& w, const SummaryTable& table);
std::string formatSummaryTableText(const SummaryTable& table,
                                   SummaryTimeUnit unit = SummaryTimeUnit::Ms);

// "-" where a cell is absent, else the time in the unit with two decimals, as Paddle prints it.
std::string formatSummaryTime(double ns, SummaryTimeUnit unit);
std::string_view summaryRowKindName(SummaryRowKind k); // "total", "event_type", "op" …

} // namespace ls
