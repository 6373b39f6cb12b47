#pragma once
// Where PyProf looks for a kernel's apex/pyprof markers: the NVTX stack around its launch or, for
// a backward kernel, the stack around the forward op it pairs with (autograd's thread carries
// none of the user's markers).
#include "core/model/trace.h"
#include "core/pytorch/dict_op_shapes.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ls {

// Innermost first.
std::vector<RangeId> pyprofMarkerStack(const Trace& t, KernelId k);
// Whether r is an apex dict marker of a call ("mod.op"), as the loader flagged it.
inline bool isDictCall(const Trace& t, RangeId r) { return t.ranges.flags[r.value] & kDictCall; }

class RawTextReader;
// Dict call texts re-read from the file and parsed once each, for all kernels under them.
class DictCalls {
  public:
    explicit DictCalls(const Trace& t);
    ~DictCalls();
    RawTextReader& reader(); // opened on first use
    const DictMarker* parsed(RangeId call);

  private:
    const Trace& t_;
    std::unique_ptr<RawTextReader> raw_;
    std::unordered_map<uint32_t, std::optional<DictMarker>> parsed_;
};

// The aten op that kernel k's innermost op marker `op` ran, with shapes from the outermost dict
// call around it (core/pytorch/dict_op_shapes.h); dictName gets that call's "mod.op".
std::optional<InferredOp> inferFromDictMarker(const Trace& t, DictCalls& calls, RangeId op,
                                              KernelId k, std::string& dictName);

} // namespace ls
