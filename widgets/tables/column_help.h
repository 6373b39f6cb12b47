#pragma once
// What each kernel-table column means and in which unit, in one place: the header tooltips,
// the column chooser's "What's this column?" and its per-column tooltips all read it.
#include "core/views/kernel_table.h"

#include <QString>

namespace ls::gui {

// A few sentences: what the column holds, its unit on screen and in CSV, its CSV name.
QString columnDescription(KernelField f);

} // namespace ls::gui
