#include "core/findings/kernel_findings.h"

#include "core/costs/kernel_class.h"
#include "core/costs/occupancy.h"
#include "core/findings/finding_text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ls {
namespace {

// Element-wise kernels shorter than this are "small": their fixed costs (a launch, a round trip
// of their tensors through DRAM) are most of them. Longer ones are bandwidth-bound on their own.
constexpr TimeNs kSmallKernel = 50'000;
// A chain this long or longer is a fusion candidate: two kernels are often a GEMM's epilogue
// that cannot be fused without a custom kernel; three are a pattern torch.compile fuses.
constexpr size_t kMinChain = 3;
// occupancy_limited looks at the kernels that make this share of the GPU time, at most
// kTopKernels names: the "top kernels" a user would look at first.
constexpr double kTopShare = 0.8;
constexpr size_t kTopKernels = 20;
// Half the SM's warps or fewer; and the limit must come from registers or shared memory (a
// block size or block count limit is the launch's own choice).
constexpr double kLowOccupancyPercent = 50;
// occupancy_limited never estimates a launch faster than at this share of its roofline time:
// streaming kernels reach about this much of DRAM bandwidth, compute ever less of the peak.
constexpr double kReachableRoofPercent = 80;
// far_below_roofline: under a quarter of the roof for their intensity; the estimate is the time
// saved at half the roof, which large well-shaped GEMMs reach with cuBLAS/CUTLASS.
constexpr double kFarBelowPercent = 25;
constexpr double kReachablePercent = 50;
// The cost below which a rule says nothing: a percent of an iteration (as idle_findings).
constexpr double kMinPercent = 1.0;

bool occupancyExempt(KernelClass c) {
    // GEMM and attention kernels keep their tiles in registers and shared memory and trade
    // warps for them by design (cuBLAS picks them by measuring); GEMMs on CUDA cores that could
    // use Tensor Cores are no_tensor_cores'; communication kernels wait on the network.
    return c == KernelClass::GemmTensorCore || c == KernelClass::GemmNoTensorCore ||
           c == KernelClass::Attention || c == KernelClass::Communication ||
           c == KernelClass::GraphLaunch;
}

bool isGemm(std::string_view name, TcState tc) {
    const KernelClass c = classifyKernel(name, tc);
    return c == KernelClass::GemmTensorCore || c == KernelClass::GemmNoTensorCore;
}

const Device* deviceOf(const Trace& t, uint32_t id) {
    for (const Device& d : t.devices)
        if (d.id == id) return &d;
    return nullptr;
}

void topEvidence(std::vector<std::pair<TimeNs, KernelId>>& byTime, const Trace& t, Finding& f) {
    std::sort(byTime.begin(), byTime.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second.value < b.second.value;
    });
    for (size_t i = 0; i < byTime.size() && i < kMaxEvidence; ++i)
        f.evidence.kernels.push_back(byTime[i].second);
    if (!byTime.empty()) {
        f.evidence.windowStart = t.kernels.start[byTime[0].second.value];
        f.evidence.windowEnd = t.kernels.end[byTime[0].second.value];
    }
}

Finding baseFinding(const FindingScope& scope, std::string rule, double costNs) {
    Finding f;
    f.rule = std::move(rule);
    f.costMsPerIteration = costNs / 1e6;
    f.evidence.trace = scope.traceIndex;
    f.evidence.ranks = scope.ranks;
    return f;
}

std::vector<Finding> fusionCandidates(const FindingScope& scope, const IterationWindows& windows,
                                      const std::vector<KernelClass>& classes,
                                      const std::vector<uint8_t>& inScope,
                                      std::vector<uint8_t>& inChain) {
    std::vector<Finding> out;
    const Trace& t = *scope.trace;
    // Per stream, the element-wise run it is in, and whether other work came before it.
    std::vector<std::vector<uint32_t>> run(t.streams.size());
    std::vector<uint8_t> otherBefore(t.streams.size(), 0);
    struct Chain {
        std::vector<uint32_t> kernels;
        TimeNs time = 0, longest = 0;
    };
    std::vector<Chain> chains;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        if (!inScope[k]) continue;
        const uint32_t s = t.kernels.streamIndex[k].value;
        if (classes[k] == KernelClass::Elementwise && t.kernels.duration(k) < kSmallKernel) {
            if (otherBefore[s]) run[s].push_back(k);
            continue;
        }
        // Other work closes the run: a chain between two pieces of other work.
        if (run[s].size() >= kMinChain) {
            Chain c;
            for (const uint32_t e : run[s]) {
                c.time += t.kernels.duration(e);
                c.longest = std::max(c.longest, t.kernels.duration(e));
                inChain[e] = 1;
            }
            c.kernels = std::move(run[s]);
            chains.push_back(std::move(c));
        }
        run[s].clear();
        otherBefore[s] = 1;
    }
    TimeNs time = 0, saved = 0;
    uint64_t kernels = 0;
    size_t longestChain = 0;
    for (const Chain& c : chains) {
        time += c.time;
        saved += c.time - c.longest;
        kernels += c.kernels.size();
        longestChain = std::max(longestChain, c.kernels.size());
    }
    const double n = std::max(1, windows.count());
    const double cost = static_cast<double>(saved) / n;
    if (chains.empty() || cost < kMinPercent / 100 * windows.periodNs) return out;
    Finding f = baseFinding(scope, "fusion_candidates", cost);
    f.statement = scope.prefix + std::to_string(chains.size()) + " chains of " +
                  std::to_string(kernels) + " small element-wise kernels (up to " +
                  std::to_string(longestChain) + " in a row) between other work take " +
                  findingMs(static_cast<double>(time)) + " of GPU time; fused, at most " +
                  findingMs(static_cast<double>(saved)) + " less";
    f.bound = "each chain as one kernel taking as long as its longest kernel (its tensors read "
              "and written once), over " +
              std::to_string(windows.count()) + " iteration periods";
    f.fix = "Fuse them: torch.compile, a fused optimizer (fused=True), fused layers (apex, "
            "Transformer Engine) or a custom Triton kernel.";
    f.figures = {{"gpu_time_ns", static_cast<double>(time)},
                 {"saved_ns", static_cast<double>(saved)},
                 {"chains", static_cast<double>(chains.size())},
                 {"kernels", static_cast<double>(kernels)},
                 {"periods", n}};
    // The costliest chains' kernels first, in their order.
    std::vector<size_t> order(chains.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return chains[a].time - chains[a].longest > chains[b].time - chains[b].longest;
    });
    for (const size_t i : order)
        for (const uint32_t k : chains[i].kernels)
            if (f.evidence.kernels.size() < kMaxEvidence) f.evidence.kernels.push_back(KernelId(k));
    const Chain& top = chains[order.front()];
    f.evidence.windowStart = t.kernels.start[top.kernels.front()];
    f.evidence.windowEnd = t.kernels.end[top.kernels.back()];
    f.evidence.text = "element-wise kernels of the costliest chains, in order";
    out.push_back(std::move(f));
    return out;
}

// The occupancy a launch would have if the registers and shared memory that bind it did not.
double occupancyUnlimited(const Occupancy& o, uint32_t maxWarps) {
    if (o.blocksPerSm == 0 || maxWarps == 0) return 0;
    uint32_t blocks = std::min(o.blockLimitWarps, o.blockLimitSm);
    if (!(o.limiters & kLimitRegisters)) blocks = std::min(blocks, o.blockLimitRegisters);
    if (!(o.limiters & kLimitSharedMemory)) blocks = std::min(blocks, o.blockLimitSharedMem);
    const double warpsPerBlock = static_cast<double>(o.activeWarpsPerSm) / o.blocksPerSm;
    return std::min(1.0, blocks * warpsPerBlock / maxWarps);
}

std::vector<Finding> occupancyLimited(const FindingScope& scope, const IterationWindows& windows,
                                      const std::vector<KernelClass>& classes,
                                      const std::vector<uint8_t>& inScope,
                                      const std::vector<uint8_t>& inChain) {
    std::vector<Finding> out;
    const Trace& t = *scope.trace;
    const auto& m = t.metrics;
    const Device* device = deviceOf(t, scope.device);
    if (!device || m.occupancy.size() != t.kernels.size()) return out;
    const DeviceLimits* limits = deviceLimits(device->computeMajor, device->computeMinor);
    const DevicePeaks* peaks = devicePeaks(device->name, device->memoryBytes);
    if (!limits || !peaks) return out;
    // The top kernels: names by GPU time until kTopShare of it, at most kTopKernels.
    std::vector<TimeNs> byName(t.strings.size(), 0);
    TimeNs total = 0;
    for (uint32_t k = 0; k < t.kernels.size(); ++k)
        if (inScope[k] && t.kernels.name[k].valid()) {
            byName[t.kernels.name[k].value] += t.kernels.duration(k);
            total += t.kernels.duration(k);
        }
    std::vector<std::pair<TimeNs, uint32_t>> names;
    for (uint32_t s = 0; s < byName.size(); ++s)
        if (byName[s] > 0) names.push_back({byName[s], s});
    std::sort(names.begin(), names.end(), std::greater<>());
    std::vector<uint8_t> top(t.strings.size(), 0);
    TimeNs covered = 0;
    for (size_t i = 0; i < names.size() && i < kTopKernels &&
                       static_cast<double>(covered) < kTopShare * static_cast<double>(total);
         ++i) {
        top[names[i].second] = 1;
        covered += names[i].first;
    }
    using Shape = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
    std::map<Shape, double> unlimited;
    double time = 0, saved = 0, weightedOccupancy = 0;
    uint64_t kernels = 0;
    std::map<uint32_t, double> savedByName;
    std::vector<std::pair<TimeNs, KernelId>> evidence;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        if (!inScope[k] || inChain[k] || !t.kernels.name[k].valid() ||
            !top[t.kernels.name[k].value])
            continue;
        if (!(m.occupancyLimiter[k] & (kLimitRegisters | kLimitSharedMemory))) continue;
        if (m.occupancyLimiter[k] & kLimitNotApplicable) continue;
        const double occ = m.occupancy[k];
        if (!std::isfinite(occ) || occ > kLowOccupancyPercent || occupancyExempt(classes[k]))
            continue;
        // Without the work the cost model gives it there is no roof to bound the estimate.
        if (!std::isfinite(m.flops[k]) || !std::isfinite(m.bytes[k])) continue;
        const Dim3& b = t.kernels.block[k];
        const Shape shape{b.x * b.y * b.z, t.kernels.registers[k], t.kernels.staticSmem[k],
                          t.kernels.dynamicSmem[k], t.kernels.smemConfig[k]};
        auto [it, fresh] = unlimited.try_emplace(shape, 0.0);
        if (fresh) {
            const LaunchShape launch{std::get<0>(shape), std::get<1>(shape), std::get<2>(shape),
                                     std::get<3>(shape), std::get<4>(shape)};
            if (const auto o = theoreticalOccupancy(launch, *limits))
                it->second = occupancyUnlimited(*o, limits->maxWarpsPerSm);
        }
        const double free = it->second * 100;
        if (free <= occ) continue;
        const double dur = static_cast<double>(t.kernels.duration(k));
        const double roofTime =
            std::max(m.flops[k] / computePeak(*peaks, m.dtype[k], m.tc[k]) * 1e9,
                     m.bytes[k] / peaks->bandwidth * 1e9) /
            (kReachableRoofPercent / 100);
        const double s = std::max(0.0, std::min(dur * (1 - occ / free), dur - roofTime));
        time += dur;
        saved += s;
        weightedOccupancy += occ * dur;
        ++kernels;
        savedByName[t.kernels.name[k].value] += s;
        evidence.push_back({t.kernels.duration(k), KernelId(k)});
    }
    const double n = std::max(1, windows.count());
    if (!kernels || saved / n < kMinPercent / 100 * windows.periodNs) return out;
    Finding f = baseFinding(scope, "occupancy_limited", saved / n);
    uint8_t limiters = 0;
    for (const auto& [tm, k] : evidence)
        limiters |= m.occupancyLimiter[k.value] & (kLimitRegisters | kLimitSharedMemory);
    const double meanOccupancy = weightedOccupancy / time;
    f.statement = scope.prefix + std::to_string(kernels) + " launches of " +
                  std::to_string(savedByName.size()) + " top kernels run at a time-weighted " +
                  findingPercent(meanOccupancy) + " theoretical occupancy, limited by " +
                  occupancyLimiterText(limiters) + ": " + findingMs(time) +
                  " of GPU time, at most " + findingMs(saved) + " less";
    f.bound = "an upper bound: each launch faster in proportion to the warps its registers or "
              "shared memory take away, but never faster than at 80 % of its roofline";
    f.fix = "Cap registers (__launch_bounds__, -maxrregcount, Triton num_warps/num_stages), use "
            "less shared memory per block, or choose a smaller tile.";
    f.figures = {{"gpu_time_ns", time},
                 {"saved_ns", saved},
                 {"kernels", static_cast<double>(kernels)},
                 {"occupancy_pct", meanOccupancy},
                 {"periods", n}};
    topEvidence(evidence, t, f);
    f.evidence.text = "launches limited by " + occupancyLimiterText(limiters) + ", longest first";
    out.push_back(std::move(f));
    return out;
}

} // namespace

std::vector<Finding> farBelowRoofline(const FindingScope& scope, const IterationWindows& windows,
                                      const std::vector<RooflinePoint>& points) {
    std::vector<Finding> out;
    const Trace& t = *scope.trace;
    double time = 0, saved = 0;
    uint64_t kernels = 0;
    std::vector<std::string> names;
    const RooflinePoint* worst = nullptr;
    double worstSaved = 0;
    for (const RooflinePoint& p : points) {
        // GEMMs on CUDA cores that could use Tensor Cores are no_tensor_cores' finding.
        if (!p.peaks || p.tc == TcState::NotUsed || !isGemm(p.group.name, p.tc)) continue;
        const double pc = p.percentOfRoof();
        if (!std::isfinite(pc) || pc >= kFarBelowPercent) continue;
        const double s = static_cast<double>(p.gpuTimeNs) * (1 - pc / kReachablePercent);
        time += static_cast<double>(p.gpuTimeNs);
        saved += s;
        kernels += p.kernels;
        names.push_back(p.group.name);
        if (s > worstSaved) worstSaved = s, worst = &p;
    }
    const double n = std::max(1, windows.iterations);
    if (!worst || saved / n < kMinPercent / 100 * windows.periodNs) return out;
    Finding f = baseFinding(scope, "far_below_roofline", saved / n);
    f.statement =
        scope.prefix + std::to_string(kernels) + " GEMM kernels of " +
        std::to_string(names.size()) +
        " kinds reach under a quarter of the roofline for their intensity: " + findingMs(time) +
        " of GPU time, " + findingMs(saved) + " less at half the roof; the costliest, " +
        worst->group.name + ", reaches " + findingPercent(worst->percentOfRoof());
    f.bound = "half the roof at their arithmetic intensity on " + worst->gpu +
              " (the roofline report's roof), a fraction large GEMMs reach";
    f.fix = "Make the shapes GEMM-friendly: batch small matmuls (bmm, grouped GEMM), pad "
            "dimensions to multiples of 64, fuse the projections (one QKV matmul), and check "
            "the layout needs no transposes.";
    f.figures = {{"gpu_time_ns", time},
                 {"saved_ns", saved},
                 {"kernels", static_cast<double>(kernels)},
                 {"worst_percent_of_roof", worst->percentOfRoof()},
                 {"iterations", n}};
    std::vector<uint8_t> named(t.strings.size(), 0);
    for (uint32_t s = 0; s < t.strings.size(); ++s)
        if (std::find(names.begin(), names.end(), t.str(StringId(s))) != names.end()) named[s] = 1;
    std::vector<std::pair<TimeNs, KernelId>> evidence;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const StringId id =
            t.kernels.shortName[k].valid() ? t.kernels.shortName[k] : t.kernels.name[k];
        if (named[id.value] && t.metrics.tc[k] != TcState::NotUsed)
            evidence.push_back({t.kernels.duration(k), KernelId(k)});
    }
    topEvidence(evidence, t, f);
    f.evidence.text = "GEMM kernels far below their roof, longest first";
    out.push_back(std::move(f));
    return out;
}

std::vector<uint8_t> kernelsInScope(const FindingScope& scope, const IterationWindows& windows) {
    const Trace& t = *scope.trace;
    std::vector<uint8_t> in(t.kernels.size(), 0);
    if (windows.windows.empty()) return in;
    const TimeNs from = windows.windows.front().start, to = windows.windows.back().end;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        const Stream& s = t.streamOf(t.kernels, k);
        in[k] = s.device == scope.device &&
                (!scope.process.valid() || s.process == scope.process) &&
                t.kernels.start[k] >= from && t.kernels.start[k] < to;
    }
    return in;
}

std::vector<uint8_t> fusionChainKernels(const Trace& t, const std::vector<uint8_t>& inScope) {
    FindingScope scope;
    scope.trace = &t;
    IterationWindows none;
    none.windows.push_back({});
    std::vector<uint8_t> chain(t.kernels.size(), 0);
    fusionCandidates(scope, none, classifyKernels(t), inScope, chain);
    return chain;
}

std::vector<Finding> kernelFindings(const FindingScope& scope, const IterationWindows& windows) {
    const Trace& t = *scope.trace;
    const std::vector<KernelClass> classes = classifyKernels(t);
    const std::vector<uint8_t> inScope = kernelsInScope(scope, windows);
    std::vector<uint8_t> inChain(t.kernels.size(), 0);
    std::vector<Finding> out = fusionCandidates(scope, windows, classes, inScope, inChain);
    for (Finding& f : occupancyLimited(scope, windows, classes, inScope, inChain))
        out.push_back(std::move(f));
    return out;
}

} // namespace ls
