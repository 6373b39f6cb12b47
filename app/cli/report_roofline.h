#pragma once
// summary --report roofline [--by family|op|layer|kernel]: one roofline point per row
// (core/reports/roofline.h, docs/roofline.md).
#include "core/model/trace.h"
#include "core/reports/table_writer.h"

#include <string>

namespace ls::cli {

// Whether --by names a grouping the roofline report knows.
bool isRooflineGrouping(const std::string& by);
// `by` is family (the default), op, layer or kernel.
void writeRooflineReport(TableWriter& w, const Trace& t, const std::string& by);

} // namespace ls::cli
