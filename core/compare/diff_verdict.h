#pragma once
// The one line above a comparison: how much slower or faster B is per iteration and which
// groups (direction, family, layers) explain most of it, with a Tensor Core shift where there
// is one: "B is 1.42x slower per iteration; 71 % of the difference is backward GEMMs of layer0
// and layer1, which moved from Tensor Core kernels to SIMT kernels".
#include "core/compare/run_diff.h"

#include <string>

namespace ls {

// total: the totals row; familyLayerRows: rows by (family, direction, layer), the layer in
// scope.layer, as diffRuns builds them; per: what the times are normalized to ("per iteration",
// "per sample").
std::string diffVerdict(const DiffRow& total, const std::vector<DiffRow>& familyLayerRows,
                        std::string_view per = "per iteration");

} // namespace ls
