#include "core/costs/kernel_metrics.h"

#include "core/costs/occupancy.h"
#include "core/costs/op_costs.h"
#include "core/import/common/raw_text.h"
#include "core/model/columns.h"
#include "core/model/parallel.h"
#include "core/model/string_memo.h"
#include "core/pytorch/correlation.h"
#include "core/pytorch/dict_context.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace ls {
namespace {

// What a kernel's name alone says.
struct NameInfo {
    DType dtype = DType::Unknown;
    bool math = false;
    TcVerdict verdict[2]; // by whether the kernel's op is a math op
};

NameInfo nameInfo(std::string_view name) {
    static StringMemo<NameInfo> memo(1 << 16);
    return memo.get(name, [](std::string_view n) {
        return NameInfo{dtypeFromKernelName(n),
                        isMathKernelName(n),
                        {classifyTensorCore(n, false), classifyTensorCore(n, true)}};
    });
}

} // namespace

TcVerdict tensorCoreVerdict(const Trace& t, KernelId k) {
    return {t.metrics.tc[k.value], t.metrics.tcRule[k.value]};
}

void computeKernelMetrics(Trace& t, unsigned threads) {
    // The occupancy reads only the kernels' launch shapes and devices, and writes only its two
    // columns: it runs beside the rest (a fifth of this phase on a million kernels).
    std::exception_ptr occupancyFailed;
    std::jthread occupancy;
    if (threads > 1 && t.kernels.size() >= kParallelRows)
        occupancy = std::jthread([&t, &occupancyFailed] {
            try {
                computeKernelOccupancy(t);
            } catch (...) {
                occupancyFailed = std::current_exception();
            }
        });
    const auto& k = t.kernels;
    const auto& r = t.ranges;
    auto& m = t.metrics;
    const size_t n = k.size();
    ValueDict16Writer<double> flopsOf(m.flops, n, NAN), bytesOf(m.bytes, n, NAN);
    m.dtype.assign(n, DType::Unknown);
    m.dtypeSource.assign(n, DTypeSource::None);
    Column<StringId> rules(n, StringId()); // packed into m.rule at the end: a few distinct ids
    m.tc.assign(n, TcState::NotApplicable);
    m.tcRule.assign(n, 0xFF);
    m.tcMathOp.assign(n, 0);

    // What a kernel's name tells, once per distinct name.
    std::unordered_map<uint32_t, NameInfo> names;
    auto info = [&](uint32_t i) -> const NameInfo& {
        auto [it, inserted] = names.try_emplace(k.name[i].value);
        if (inserted) it->second = nameInfo(t.str(k.name[i]));
        return it->second;
    };
    for (uint32_t i = 0; i < n; ++i) {
        m.dtype[i] = info(i).dtype;
        if (m.dtype[i] != DType::Unknown) m.dtypeSource[i] = DTypeSource::KernelName;
    }

    // Op costs repeat across iterations: compute each once.
    auto verdict = [&](uint32_t i, bool mathOp) { return info(i).verdict[mathOp ? 1 : 0]; };
    struct CachedCost {
        std::optional<OpCost> cost;
        StringId rule, splitRule;
        DType markerDtype = DType::Unknown; // the dict marker's, which wins over kernel names
    };
    std::map<std::tuple<uint32_t, uint32_t, DType>, CachedCost> costs; // (op name, sizes, dtype)
    auto costOf = [&](uint32_t op, DType dtype) -> const CachedCost& {
        auto [it, inserted] = costs.try_emplace({r.name[op].value, r.sizes[op].value, dtype});
        if (inserted) {
            const auto shapes = parseShapes(t.str(r.sizes[op]));
            it->second.cost = shapes ? opCost(t.str(r.name[op]), *shapes, dtype) : std::nullopt;
            if (it->second.cost) {
                it->second.rule = t.strings.intern(it->second.cost->rule);
                it->second.splitRule =
                    t.strings.intern(std::string(it->second.cost->rule) +
                                     "; split over the op's kernels by duration");
            }
        }
        return it->second;
    };
    const StringId auxiliaryRule =
        t.strings.intern("auxiliary kernel: its op's FLOPs are on the op's math kernel");
    // A nesting op (aten::linear around aten::addmm) leaves the math to the nested op's kernels.
    auto hasNestedMarker = [&](uint32_t op) {
        const uint32_t end = t.threadRangeBegin[t.rangeThread(RangeId(op)).value + 1];
        for (uint32_t j = op + 1; j < end && r.depth[j] > r.depth[op]; ++j)
            if (r.flags[j] & kPytorchMarker) return true;
        return false;
    };

    // Kernels grouped by their innermost op marker (kernels are by start, so groups stay by start),
    // and by graph launch: the kernels one captured op replays at each launch are one op call each.
    // One 8-byte key per kernel, (op range << 32 | kernel), sized exactly: this runs at the end of
    // the load, with the whole model resident. A kernel's replay is looked up from it.
    const bool graphs = !t.kernelGraph.empty();
    auto replayOf = [&](uint32_t i) -> uint32_t {
        return graphs && t.kernelGraph.capture[i].valid() ? k.launch[i].value + 1 : 0;
    };
    auto opOf = [](uint64_t key) { return static_cast<uint32_t>(key >> 32); };
    auto kernelOf = [](uint64_t key) { return static_cast<uint32_t>(key); };
    std::vector<uint64_t> byOp; // by (op range, replay, kernel)
    {
        size_t linked = 0;
        for (uint32_t i = 0; i < n; ++i) linked += t.kernelLinks.op[i].valid();
        byOp.reserve(linked);
    }
    for (uint32_t i = 0; i < n; ++i)
        if (const RangeId op = t.kernelLinks.op[i]; op.valid())
            byOp.push_back(uint64_t(op.value) << 32 | i);
    if (graphs)
        parallelSort(byOp.begin(), byOp.end(), std::max(1u, threads), [&](uint64_t a, uint64_t b) {
            if (opOf(a) != opOf(b)) return opOf(a) < opOf(b);
            const uint32_t ra = replayOf(kernelOf(a)), rb = replayOf(kernelOf(b));
            return ra != rb ? ra < rb : a < b;
        });
    else
        parallelSort(byOp.begin(), byOp.end(), std::max(1u, threads), std::less<>());

    // emit_nvtx records no stride or padding, so a forward convolution's output size comes from
    // its backward: convolution_backward's grad_output, paired through the op instances.
    std::unordered_map<uint32_t, Shapes>
        convBackwardShapes; // forward op instance -> backward sizes
    const StringId convolutionBackward = t.strings.find("aten::convolution_backward"),
                   cudnnConvolutionBackward = t.strings.find("aten::cudnn_convolution_backward");
    for (const uint64_t key : byOp) {
        if (!convolutionBackward.valid() && !cudnnConvolutionBackward.valid()) break;
        const uint32_t op = opOf(key), i = kernelOf(key);
        const StringId name = r.name[op]; // by id: this visits every linked kernel
        if (name != convolutionBackward && name != cudnnConvolutionBackward) continue;
        const OpId inst = t.kernelLinks.opInstance[i];
        if (!inst.valid() || !t.ops.paired[inst.value].valid()) continue;
        if (auto shapes = parseShapes(t.str(r.sizes[op])))
            convBackwardShapes[t.ops.paired[inst.value].value] = std::move(*shapes);
    }
    auto forwardConvolution = [&](uint32_t kernel, DType dtype) -> std::optional<OpCost> {
        const OpId inst = t.kernelLinks.opInstance[kernel];
        if (!inst.valid()) return std::nullopt;
        auto it = convBackwardShapes.find(inst.value);
        if (it == convBackwardShapes.end()) return std::nullopt;
        const Shapes& s = it->second; // grad_output, input, weight
        if (s.size() < 3 || s[0].size() < 3 || s[2].size() != s[0].size()) return std::nullopt;
        double outSpatial = 1, kernelSpatial = 1;
        for (size_t d = 2; d < s[0].size(); ++d) outSpatial *= static_cast<double>(s[0][d]);
        for (size_t d = 2; d < s[2].size(); ++d) kernelSpatial *= static_cast<double>(s[2][d]);
        const double flops = 2 * static_cast<double>(s[0][0]) * static_cast<double>(s[2][0]) *
                             outSpatial * static_cast<double>(s[2][1]) * kernelSpatial;
        const int b = dtypeBytes(dtype);
        return OpCost{flops, b ? (numel(s[1]) + numel(s[2]) + numel(s[0])) * b : NAN,
                      OpFamily::Conv,
                      "convolution forward: 2*N*K*P*Q*(C/g)*R*S, output size from its backward's "
                      "grad_output"};
    };
    // PyTorch 1.x markers carry no sizes: the apex/pyprof dict marker around the op (or around its
    // forward op, for backward kernels) gives the shapes and the dtype.
    DictCalls calls(t);
    std::optional<bool> anyDictCall; // looked up once, at the first op without sizes
    auto fromDictMarker = [&](uint32_t op, uint32_t kernel) -> std::optional<CachedCost> {
        if (r.sizes[op].value != 0 && !isDictCall(t, RangeId(op))) return std::nullopt;
        if (!anyDictCall)
            anyDictCall = std::any_of(r.flags.begin(), r.flags.end(),
                                      [](uint8_t f) { return (f & kDictCall) != 0; });
        if (!*anyDictCall)
            return std::nullopt; // emit_nvtx without record_shapes: no call to look for
        std::string dictName;
        const auto inferred =
            inferFromDictMarker(t, calls, RangeId(op), KernelId(kernel), dictName);
        if (!inferred) return std::nullopt;
        auto cost = opCost(inferred->name, inferred->shapes, inferred->dtype);
        if (!cost) return std::nullopt;
        std::string rule(cost->rule);
        if (inferred->alpha) {
            cost->flops *= 2;
            rule = "add/sub with a scaling factor: 2 FLOPs per output element (multiply + add)";
        }
        rule += "; shapes from the dict marker " + dictName;
        CachedCost c{cost, t.strings.intern(rule),
                     t.strings.intern(rule + "; split over the op's kernels by duration"),
                     inferred->dtype};
        return c;
    };
    // A tensor passed twice (AdamW's addcmul_(exp_avg_sq, grad, grad)) is read from memory once:
    // its repeats count as no tensor. Only elementwise and optimizer formulas sum their inputs'
    // bytes this way. Same op, same shapes is taken as the same call site, so the first re-read
    // answers for all of them.
    std::map<std::tuple<uint32_t, uint32_t, DType>, CachedCost> readOnceCosts;
    auto readingRepeatsOnce = [&](uint32_t op, DType dtype,
                                  const CachedCost& plain) -> const CachedCost* {
        if (!(r.flags[op] & kRepeatedInput) || !plain.cost) return nullptr;
        if (plain.cost->family != OpFamily::Elementwise &&
            plain.cost->family != OpFamily::Optimizer)
            return nullptr;
        auto [it, inserted] =
            readOnceCosts.try_emplace({r.name[op].value, r.sizes[op].value, dtype});
        if (inserted) {
            const std::vector<uint8_t> repeated = repeatedInputs(calls.reader().text(RangeId(op)));
            auto shapes = parseShapes(t.str(r.sizes[op]));
            if (!shapes || shapes->size() != repeated.size())
                return nullptr; // leaves the entry empty: plain cost
            for (size_t j = 0; j < repeated.size(); ++j)
                if (repeated[j]) (*shapes)[j].clear();
            if (auto c = opCost(t.str(r.name[op]), *shapes, dtype);
                c && c->family == plain.cost->family) {
                const std::string rule =
                    std::string(c->rule) + "; a tensor passed twice is read once";
                it->second = {c, t.strings.intern(rule),
                              t.strings.intern(rule + "; split over the op's kernels by duration")};
            }
        }
        return it->second.cost ? &it->second : nullptr;
    };
    std::vector<uint32_t> group;
    std::vector<uint8_t> isMath;
    for (size_t g = 0; g < byOp.size();) {
        const uint32_t op = opOf(byOp[g]), replay = replayOf(kernelOf(byOp[g]));
        group.clear();
        for (; g < byOp.size() && opOf(byOp[g]) == op && replayOf(kernelOf(byOp[g])) == replay; ++g)
            group.push_back(kernelOf(byOp[g]));

        // dtype: the first kernel name of the op that tells (math kernels first). emit_nvtx markers
        // carry no dtype.
        DType dtype = DType::Unknown;
        for (uint32_t i : group)
            if (dtype == DType::Unknown && info(i).math) dtype = m.dtype[i];
        for (uint32_t i : group)
            if (dtype == DType::Unknown) dtype = m.dtype[i];

        const CachedCost* cachedPtr = &costOf(op, dtype);
        if (const CachedCost* once = readingRepeatsOnce(op, dtype, *cachedPtr)) cachedPtr = once;
        CachedCost convolutionCost, dictCost;
        if (auto c = fromDictMarker(op, group.front())) {
            dictCost = *c;
            cachedPtr = &dictCost;
            if (dictCost.markerDtype != DType::Unknown) dtype = dictCost.markerDtype;
        }
        if (cachedPtr->cost && cachedPtr->cost->family == OpFamily::Conv &&
            std::isnan(cachedPtr->cost->flops))
            if (auto c = forwardConvolution(group.front(), dtype)) {
                convolutionCost = {c, t.strings.intern(c->rule),
                                   t.strings.intern(std::string(c->rule) +
                                                    "; split over the op's kernels by duration")};
                cachedPtr = &convolutionCost;
            }
        const CachedCost& cached = *cachedPtr;
        const bool mathOp = cached.cost && isMathFamily(cached.cost->family);
        isMath.assign(group.size(), 0);
        size_t mathCount = 0;
        double total = 0;
        for (size_t j = 0; j < group.size(); ++j)
            if (!mathOp || info(group[j]).math) {
                isMath[j] = 1;
                ++mathCount;
            }
        if (mathOp && mathCount == 0 &&
            !hasNestedMarker(op)) { // no kernel looks like math: a leaf op's kernels do it
            isMath.assign(group.size(), 1);
            mathCount = group.size();
        }
        for (size_t j = 0; j < group.size(); ++j) {
            const uint32_t i = group[j];
            const TcVerdict v = verdict(i, mathOp && isMath[j]);
            m.tc[i] = v.state;
            m.tcRule[i] = v.rule;
            m.tcMathOp[i] = mathOp && isMath[j];
            if (isMath[j]) total += static_cast<double>(k.duration(i));
        }
        if (!cached.cost) continue;
        for (size_t j = 0; j < group.size(); ++j) {
            const uint32_t i = group[j];
            if (!isMath[j]) {
                flopsOf.set(i, 0); // an auxiliary kernel of a GEMM/attention op: the math kernel
                                   // has its FLOPs
                rules[i] = auxiliaryRule;
                continue;
            }
            const double share = mathCount == 1 ? 1.0
                                 : total > 0    ? static_cast<double>(k.duration(i)) / total
                                                : 1.0 / static_cast<double>(mathCount);
            flopsOf.set(i, cached.cost->flops * share);
            bytesOf.set(i, cached.cost->bytes * share);
            rules[i] = mathCount == 1 ? cached.rule : cached.splitRule;
            if (cached.markerDtype != DType::Unknown) {
                m.dtype[i] = cached.markerDtype;
                m.dtypeSource[i] = DTypeSource::Marker;
            } else if (m.dtype[i] == DType::Unknown && dtype != DType::Unknown) {
                m.dtype[i] = dtype;
                m.dtypeSource[i] = DTypeSource::KernelName;
            }
        }
    }
    // Kernels outside any op marker: Tensor Core use by name alone.
    for (uint32_t i = 0; i < n; ++i) {
        if (t.kernelLinks.op[i].valid()) continue;
        const TcVerdict v = verdict(i, false);
        m.tc[i] = v.state;
        m.tcRule[i] = v.rule;
    }
    m.rule = Dict16Column<StringId>::of(rules, n);
    columns::release(rules);
    if (!occupancy.joinable()) {
        computeKernelOccupancy(t);
        return;
    }
    occupancy.join();
    if (occupancyFailed) std::rethrow_exception(occupancyFailed);
}

} // namespace ls
