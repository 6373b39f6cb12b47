#include "core/pytorch/dict_context.h"

#include "core/import/common/raw_text.h"
#include "core/pytorch/correlation.h"

namespace ls {

std::vector<RangeId> pyprofMarkerStack(const Trace& t, KernelId k) {
    const OpId op = t.kernelLinks.opInstance[k.value];
    if (op.valid() && t.ops.direction[op.value] == Direction::Backward &&
        t.ops.paired[op.value].valid()) {
        std::vector<RangeId> stack;
        for (RangeId r = t.ops.extent[t.ops.paired[op.value].value]; r.valid();
             r = t.ranges.parent[r.value])
            stack.push_back(r);
        return stack;
    }
    return rangeStack(t, k);
}

DictCalls::DictCalls(const Trace& t) : t_(t) {}
DictCalls::~DictCalls() = default;

RawTextReader& DictCalls::reader() {
    if (!raw_) raw_ = std::make_unique<RawTextReader>(t_);
    return *raw_;
}

const DictMarker* DictCalls::parsed(RangeId call) {
    auto [it, inserted] = parsed_.try_emplace(call.value);
    if (inserted) it->second = parseDictMarker(reader().text(call, true));
    return it->second ? &*it->second : nullptr;
}

namespace {

// The forward op's place among the call's markers of its name (a backward kernel's forward op is
// its pair): which of multi_head_attention_forward's two GEMMs, say. nullopt when the forward op
// is not inside the call.
std::optional<InnerSite> siteInCall(const Trace& t, RangeId call, RangeId op, KernelId k) {
    const auto& r = t.ranges;
    uint32_t forward = op.value;
    const OpId inst = t.kernelLinks.opInstance[k.value];
    if (inst.valid() && t.ops.direction[inst.value] == Direction::Backward &&
        t.ops.paired[inst.value].valid())
        forward = t.ops.range[t.ops.paired[inst.value].value].value;
    InnerSite site{t.str(r.name[forward]), 0, 0};
    const uint32_t end = t.threadRangeBegin[t.rangeThread(call).value + 1];
    bool inside = false;
    for (uint32_t j = call.value + 1; j < end && r.depth[j] > r.depth[call.value];
         ++j) { // the call's subtree
        inside = inside || j == forward;
        if (r.name[j] != r.name[forward] || !(r.flags[j] & kPytorchMarker)) continue;
        if (j < forward) ++site.ordinal;
        ++site.count;
    }
    if (!inside) return std::nullopt;
    return site;
}

bool endsWith(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

} // namespace

std::optional<InferredOp> inferFromDictMarker(const Trace& t, DictCalls& calls, RangeId op,
                                              KernelId k, std::string& dictName) {
    RangeId call;
    for (RangeId s : pyprofMarkerStack(t, k))
        if (isDictCall(t, s)) call = s; // the outermost, as PyProf takes it
    if (!call.valid()) return std::nullopt;
    const DictMarker* dict = calls.parsed(call);
    if (!dict) return std::nullopt;
    dictName = dict->name;
    std::string_view inner = t.str(t.ranges.name[op.value]);
    if (isDictCall(t, op)) inner.remove_prefix(inner.rfind('.') + 1); // torch.norm -> norm
    if (!endsWith(dict->name, "multi_head_attention_forward")) return inferInnerOp(*dict, inner);
    const auto site = siteInCall(t, call, op, k);
    if (!site) return std::nullopt;
    return inferInnerOp(*dict, inner, &*site);
}

} // namespace ls
