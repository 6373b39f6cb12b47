#pragma once
// Where PyProf looks for a kernel's apex/pyprof markers: the NVTX stack around its launch or, for
// a backward kernel, the stack around the forward op it pairs with (autograd's thread carries
// none of the user's markers).
#include "core/trace.h"

#include <vector>

namespace ls {

// Innermost first.
std::vector<RangeId> pyprofMarkerStack(const Trace& t, KernelId k);
// Whether r may be an apex dict op marker ("mod.op"), judged before its text is re-read.
bool mayBeDictOp(const Trace& t, RangeId r);

} // namespace ls
