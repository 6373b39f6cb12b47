#pragma once
// The roofline's family grouping: kernel families live here in core/compare, above
// core/reports' roofline, so the CLI and the Roofline tab take the grouping from here.
#include "core/reports/roofline.h"

namespace ls {

// Each kernel's family (kernelFamily of its name, each distinct name folded once).
RooflineGroupOf rooflineFamilyGroups(const Trace& t);

} // namespace ls
