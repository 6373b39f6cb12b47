#pragma once
// The aten op a kernel ran, with shapes taken from the apex/pyprof dict marker around it.
// PyTorch 1.x emit_nvtx markers ("mm, seq = 72") record no sizes, but the dict marker of the
// functional call ({'mod': 'torch.nn.functional', 'op': 'linear', 'args': [...]}) has every
// argument; this maps the call's arguments onto the inner op (the GEMM of linear gets
// [[M, K], [K, N]], its bias add [[..., N], [N]]) so op_costs prices it like an emit_nvtx op.
#include "core/import/common/pytorch_marker.h"
#include "core/model/dtype.h"
#include "core/model/shapes.h"

#include <optional>
#include <string>
#include <string_view>

namespace ls {

struct InferredOp {
    std::string name; // an op_costs name, e.g. "mm", "add_", "native_dropout"
    Shapes shapes;
    DType dtype = DType::Unknown; // of the call's first floating-point tensor
    bool alpha = false; // add/sub with a scaling factor: a + alpha*b is 2 FLOPs per element
};

// Where the kernel's forward op sits inside the dict call: its marker name, its index among the
// call's markers of that name, and how many there are. Calls that run several ops of one name
// (multi_head_attention_forward's two GEMMs) need it; a backward kernel's site is its forward op's.
struct InnerSite {
    std::string_view name;
    uint32_t ordinal = 0;
    uint32_t count = 1;
};

// innerOp: the innermost emit_nvtx op name under the dict marker ("mm", "aten::add_",
// "_fused_dropout", "threshold_backward"), or the dict's own op name when the kernel has no
// inner marker. nullopt when the pair is not one we can map.
std::optional<InferredOp> inferInnerOp(const DictMarker& dict, std::string_view innerOp,
                                       const InnerSite* site = nullptr);

} // namespace ls
