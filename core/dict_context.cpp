#include "core/dict_context.h"

#include "core/correlation.h"

namespace ls {

std::vector<RangeId> pyprofMarkerStack(const Trace& t, KernelId k) {
    const OpId op = t.kernelLinks.opInstance[k.value];
    if (op.valid() && t.ops.direction[op.value] == Direction::Backward && t.ops.paired[op.value].valid()) {
        std::vector<RangeId> stack;
        for (RangeId r = t.ops.extent[t.ops.paired[op.value].value]; r.valid(); r = t.ranges.parent[r.value]) stack.push_back(r);
        return stack;
    }
    return rangeStack(t, k);
}

bool mayBeDictOp(const Trace& t, RangeId r) {
    return (t.ranges.flags[r.value] & kPytorchMarker) && t.str(t.ranges.name[r.value]).find('.') != std::string_view::npos;
}

} // namespace ls
