#pragma once
// Where PyProf looks for a kernel's apex/pyprof markers: the NVTX stack around its launch or, for
// a backward kernel, the stack around the forward op it pairs with (autograd's thread carries
// none of the user's markers).
#include "core/dict_op_shapes.h"
#include "core/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace ls {

// Innermost first.
std::vector<RangeId> pyprofMarkerStack(const Trace& t, KernelId k);
// Whether r may be an apex dict op marker ("mod.op"), judged before its text is re-read.
bool mayBeDictOp(const Trace& t, RangeId r);

class RawTextReader;
// The aten op that kernel k's innermost op marker `op` ran, with shapes from the outermost dict
// marker around it (core/dict_op_shapes.h); dictName gets that marker's "mod.op".
std::optional<InferredOp> inferFromDictMarker(const Trace& t, RawTextReader& raw, RangeId op, KernelId k, std::string& dictName);

} // namespace ls
