#pragma once
// A comparison as a table: the CLI's `diff` columns and each row's cells as text, shared by
// layerscope-cli and the GUI's CSV export so that both write the same file.
#include "core/compare/run_diff.h"

#include <string>
#include <string_view>
#include <vector>

namespace ls {

struct DiffColumn {
    std::string_view name; // CSV header
    std::string_view help; // what it means, with its unit
};

// key,direction,a_count,…,a_tc,b_tc; the op level adds a_shapes,b_shapes.
std::vector<DiffColumn> diffColumns(DiffLevel level);
// Times in ns (one decimal where the per-iteration or per-sample division leaves a fraction),
// ratio b/a, FLOPs, TFLOP/s, Tensor Core share of GPU time in %; empty where unknown.
std::vector<std::string> diffRowCells(const DiffRow& row, DiffLevel level);

} // namespace ls
