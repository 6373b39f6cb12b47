#include "core/kernel_metrics.h"

#include "core/op_costs.h"

#include <algorithm>
#include <unordered_map>

namespace ls {
namespace {

struct NameInfo {
    DType dtype = DType::Unknown;
    bool math = false;
};

} // namespace

TcVerdict tensorCoreVerdict(const Trace& t, KernelId k) { return {t.metrics.tc[k.value], t.metrics.tcRule[k.value]}; }

void computeKernelMetrics(Trace& t) {
    const auto& k = t.kernels;
    const auto& r = t.ranges;
    auto& m = t.metrics;
    const size_t n = k.size();
    m.flops.assign(n, NAN);
    m.bytes.assign(n, NAN);
    m.dtype.assign(n, DType::Unknown);
    m.dtypeSource.assign(n, DTypeSource::None);
    m.rule.assign(n, StringId());
    m.tc.assign(n, TcState::NotApplicable);
    m.tcRule.assign(n, 0xFF);
    m.tcMathOp.assign(n, 0);

    // What a kernel's name tells, once per distinct name.
    std::unordered_map<uint32_t, NameInfo> names;
    auto info = [&](uint32_t i) -> const NameInfo& {
        auto [it, inserted] = names.try_emplace(k.name[i].value);
        if (inserted) {
            const std::string_view name = t.str(k.name[i]);
            it->second = {dtypeFromKernelName(name), isMathKernelName(name)};
        }
        return it->second;
    };
    for (uint32_t i = 0; i < n; ++i) {
        m.dtype[i] = info(i).dtype;
        if (m.dtype[i] != DType::Unknown) m.dtypeSource[i] = DTypeSource::KernelName;
    }

    // Kernels grouped by their innermost op marker (kernels are by start, so groups stay by start).
    std::vector<std::pair<uint32_t, uint32_t>> byOp; // (op range, kernel)
    for (uint32_t i = 0; i < n; ++i)
        if (t.kernelLinks.op[i].valid()) byOp.emplace_back(t.kernelLinks.op[i].value, i);
    std::sort(byOp.begin(), byOp.end());
    std::unordered_map<std::string, StringId> ruleIds;
    auto ruleId = [&](std::string_view rule) {
        auto [it, inserted] = ruleIds.try_emplace(std::string(rule));
        if (inserted) it->second = t.strings.intern(rule);
        return it->second;
    };
    std::vector<uint32_t> group, math;
    for (size_t g = 0; g < byOp.size();) {
        const uint32_t op = byOp[g].first;
        group.clear();
        for (; g < byOp.size() && byOp[g].first == op; ++g) group.push_back(byOp[g].second);

        // dtype: the first kernel name of the op that tells (math kernels first). emit_nvtx markers
        // carry no dtype.
        DType dtype = DType::Unknown;
        for (uint32_t i : group)
            if (dtype == DType::Unknown && info(i).math) dtype = m.dtype[i];
        for (uint32_t i : group)
            if (dtype == DType::Unknown) dtype = m.dtype[i];

        const auto shapes = parseShapes(t.str(r.sizes[op]));
        const auto cost = shapes ? opCost(t.str(r.name[op]), *shapes, dtype) : std::nullopt;
        const bool mathOp = cost && isMathFamily(cost->family);
        math.clear();
        for (uint32_t i : group)
            if (!mathOp || info(i).math) math.push_back(i);
        if (mathOp && math.empty()) math = group; // no kernel looks like math: it is the op's work anyway
        for (uint32_t i : group) {
            const bool isMath = std::find(math.begin(), math.end(), i) != math.end();
            const TcVerdict v = classifyTensorCore(t.str(k.name[i]), mathOp && isMath);
            m.tc[i] = v.state;
            m.tcRule[i] = v.rule;
            m.tcMathOp[i] = mathOp && isMath;
        }
        if (!cost) continue;
        double total = 0;
        for (uint32_t i : math) total += static_cast<double>(k.duration(i));
        const StringId rule = ruleId(cost->rule);
        for (uint32_t i : group) {
            const bool isMath = std::find(math.begin(), math.end(), i) != math.end();
            if (!isMath) {
                m.flops[i] = 0; // an auxiliary kernel of a GEMM/attention op: the math kernel has its FLOPs
                m.rule[i] = ruleId("auxiliary kernel: its op's FLOPs are on the op's math kernel");
                continue;
            }
            const double share = math.size() == 1 ? 1.0 : total > 0 ? static_cast<double>(k.duration(i)) / total : 1.0 / static_cast<double>(math.size());
            m.flops[i] = cost->flops * share;
            m.bytes[i] = cost->bytes * share;
            m.rule[i] = math.size() == 1 ? rule : ruleId(std::string(cost->rule) + "; split over the op's kernels by duration");
            if (m.dtype[i] == DType::Unknown && dtype != DType::Unknown) {
                m.dtype[i] = dtype;
                m.dtypeSource[i] = DTypeSource::KernelName;
            }
        }
    }
    // Kernels outside any op marker: Tensor Core use by name alone.
    for (uint32_t i = 0; i < n; ++i) {
        if (t.kernelLinks.op[i].valid()) continue;
        const TcVerdict v = classifyTensorCore(t.str(k.name[i]), false);
        m.tc[i] = v.state;
        m.tcRule[i] = v.rule;
    }
}

} // namespace ls
