#include "core/compare/run_diff.h"

#include "core/compare/diff_verdict.h"
#include "core/compare/kernel_family.h"
#include "core/model/shapes.h"
#include "core/pytorch/iterations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ls {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::string_view kNoLayer = "(none)";
constexpr std::string_view kLayerSeparator = " › ";

// Internal grouping: the public levels plus (family, direction, layer) for the verdict.
enum class Grouping : uint8_t { Direction, Layer, Op, Family, Kernel, Iteration, FamilyLayer };

Grouping groupingOf(DiffLevel l) { return static_cast<Grouping>(l); }

bool inSide(const DiffSide& s, uint32_t k) {
    const Trace& t = *s.trace;
    const Stream& st = t.streamOf(t.kernels, k);
    return (!s.process || st.process == *s.process) && (!s.device || st.device == *s.device);
}

// What one side's kernels are, for grouping: computed once per diff.
class SideFacts {
  public:
    explicit SideFacts(const DiffSide& side) : side_(side), t_(*side.trace) {
        spans_ = iterationsOf(t_, side.process).spans;
        kernelIteration_.assign(t_.kernels.size(), 0);
        for (uint32_t k = 0; k < t_.kernels.size(); ++k) {
            if (!inSide(side, k)) continue;
            if (!spans_.empty())
                kernelIteration_[k] = iterationAt(spans_, kernelIterationTime(t_, KernelId(k)));
            if (kernelIteration_[k] < 0) ++outsideIterations_;
        }
        numberOps();
    }

    const Trace& trace() const { return t_; }
    int iterations() const { return spans_.empty() ? 1 : static_cast<int>(spans_.size()); }
    uint64_t outsideIterations() const { return outsideIterations_; }
    // A kernel counts when it is the side's and, where the trace names iterations, inside one.
    bool counts(uint32_t k) const { return inSide(side_, k) && kernelIteration_[k] >= 0; }
    int iteration(uint32_t k) const { return kernelIteration_[k]; }

    std::string_view layer(uint32_t k) const {
        const StringId l = t_.kernelLinks.layer[k];
        return l.valid() ? t_.str(l) : kNoLayer;
    }
    Direction direction(uint32_t k) const { return t_.kernelLinks.direction[k]; }
    std::string_view name(uint32_t k) const { return t_.str(t_.kernels.name[k]); }
    const std::string& family(uint32_t k) const {
        const uint32_t id = t_.kernels.name[k].value;
        auto it = families_.find(id);
        if (it == families_.end())
            it = families_.emplace(id, kernelFamily(t_.str(t_.kernels.name[k]))).first;
        return it->second;
    }
    // "aten::linear #2": the op's name and its ordinal among the ops of that name in its layer,
    // direction and iteration; "(none)" outside ops.
    std::string opKey(uint32_t k) const {
        const OpId op = t_.kernelLinks.opInstance[k];
        if (!op.valid()) return std::string(kNoLayer);
        return std::string(t_.str(t_.ranges.name[t_.ops.range[op.value].value])) + " #" +
               std::to_string(opOrdinal_[op.value]);
    }
    OpId op(uint32_t k) const { return t_.kernelLinks.opInstance[k]; }
    std::string opShapes(OpId op) const {
        const StringId s = t_.ranges.sizes[t_.ops.range[op.value].value];
        return s.valid() ? std::string(t_.str(s)) : std::string();
    }

  private:
    void numberOps() {
        opOrdinal_.assign(t_.ops.size(), 0);
        std::vector<uint32_t> ops;
        std::vector<uint8_t> seen(t_.ops.size(), 0);
        for (uint32_t k = 0; k < t_.kernels.size(); ++k) {
            const OpId op = t_.kernelLinks.opInstance[k];
            if (op.valid() && counts(k) && !seen[op.value])
                seen[op.value] = 1, ops.push_back(op.value);
        }
        auto start = [&](uint32_t op) { return t_.ranges.start[t_.ops.range[op].value]; };
        std::sort(ops.begin(), ops.end(), [&](uint32_t x, uint32_t y) {
            return std::pair(start(x), x) < std::pair(start(y), y);
        });
        std::map<std::tuple<int, uint32_t, Direction, uint32_t>, uint32_t> next;
        for (uint32_t op : ops) {
            const int iteration = spans_.empty() ? 0 : iterationAt(spans_, start(op));
            const auto key = std::tuple(iteration, t_.ops.layer[op].value, t_.ops.direction[op],
                                        t_.ranges.name[t_.ops.range[op].value].value);
            opOrdinal_[op] = ++next[key];
        }
    }

    const DiffSide& side_;
    const Trace& t_;
    std::vector<IterationSpan> spans_;
    std::vector<int> kernelIteration_;
    uint64_t outsideIterations_ = 0;
    std::vector<uint32_t> opOrdinal_;
    mutable std::unordered_map<uint32_t, std::string> families_;
};

bool inScope(const SideFacts& f, uint32_t k, const DiffScope& scope) {
    if (scope.direction && f.direction(k) != *scope.direction) return false;
    if (scope.layer) {
        const std::string_view want =
            scope.layer->empty() ? kNoLayer : std::string_view(*scope.layer);
        if (f.layer(k) != want) return false;
    }
    if (scope.family && f.family(k) != *scope.family) return false;
    if (scope.op && f.opKey(k) != *scope.op) return false;
    return true;
}

struct GroupKey {
    std::string key;
    std::string direction;
    std::string layer; // FamilyLayer and Op: the layer; else empty
    auto tie() const { return std::tie(key, direction, layer); }
    bool operator<(const GroupKey& o) const { return tie() < o.tie(); }
};

GroupKey groupKeyOf(const SideFacts& f, uint32_t k, Grouping g) {
    const std::string dir(directionName(f.direction(k)));
    switch (g) {
    case Grouping::Direction:
        return {dir, dir, {}};
    case Grouping::Layer:
        return {std::string(f.layer(k)), dir, {}};
    case Grouping::Op:
        return {f.opKey(k), dir, std::string(f.layer(k))};
    case Grouping::Family:
        return {f.family(k), dir, {}};
    case Grouping::Kernel:
        return {std::string(f.name(k)), dir, {}};
    case Grouping::Iteration:
        return {"iteration " + std::to_string(f.iteration(k) + 1), {}, {}};
    case Grouping::FamilyLayer:
        return {f.family(k), dir, std::string(f.layer(k))};
    }
    return {};
}

struct Accumulator {
    uint64_t kernels = 0;
    std::vector<uint32_t> ops; // op level: the instances (counted once each)
    uint64_t timeNs = 0, flopsTimeNs = 0, tcTimeNs = 0;
    double flops = 0;
    bool anyFlops = false;
    std::string shapes;
};

void add(const SideFacts& f, uint32_t k, Accumulator& acc, Grouping g) {
    const Trace& t = f.trace();
    const auto d = static_cast<uint64_t>(t.kernels.duration(k));
    ++acc.kernels;
    acc.timeNs += d;
    if (const double fl = t.metrics.flops[k]; !std::isnan(fl)) {
        acc.flops += fl;
        acc.flopsTimeNs += d;
        acc.anyFlops = true;
    }
    if (t.metrics.tc[k] == TcState::Used) acc.tcTimeNs += d;
    if (g == Grouping::Op) {
        if (const OpId op = f.op(k); op.valid()) {
            if (acc.ops.empty()) acc.shapes = f.opShapes(op);
            acc.ops.push_back(op.value);
        }
    }
}

DiffSideTotals totalsOf(Accumulator& acc, Grouping g, double divisor) {
    DiffSideTotals s;
    s.count = acc.kernels;
    if (g == Grouping::Op && !acc.ops.empty()) {
        std::sort(acc.ops.begin(), acc.ops.end());
        s.count =
            static_cast<uint64_t>(std::unique(acc.ops.begin(), acc.ops.end()) - acc.ops.begin());
    }
    s.gpuTimeNs = static_cast<double>(acc.timeNs) / divisor;
    s.flops = acc.anyFlops ? acc.flops / divisor : kNaN;
    s.flopsTimeNs = static_cast<double>(acc.flopsTimeNs) / divisor;
    s.tcTimeNs = static_cast<double>(acc.tcTimeNs) / divisor;
    s.shapes = std::move(acc.shapes);
    return s;
}

void addTotals(DiffSideTotals& into, const DiffSideTotals& s) {
    into.count += s.count;
    into.gpuTimeNs += s.gpuTimeNs;
    if (!std::isnan(s.flops)) into.flops = std::isnan(into.flops) ? s.flops : into.flops + s.flops;
    into.flopsTimeNs += s.flopsTimeNs;
    into.tcTimeNs += s.tcTimeNs;
}

std::optional<Direction> directionByName(std::string_view n) {
    for (Direction d :
         {Direction::Forward, Direction::Backward, Direction::Optimizer, Direction::Other})
        if (directionName(d) == n) return d;
    return std::nullopt;
}

// Where a double-click on the row goes: the row's own group as a scope for the next level.
DiffScope drillScope(const GroupKey& g, Grouping grouping, const DiffScope& current) {
    DiffScope s = current;
    switch (grouping) {
    case Grouping::Direction:
        s.direction = directionByName(g.direction);
        break;
    case Grouping::Layer:
        s.layer = g.key;
        s.direction = directionByName(g.direction);
        break;
    case Grouping::Op:
        s.layer = g.layer;
        s.op = g.key;
        s.direction = directionByName(g.direction);
        break;
    case Grouping::Family:
    case Grouping::FamilyLayer:
        s.family = g.key;
        s.direction = directionByName(g.direction);
        if (grouping == Grouping::FamilyLayer) s.layer = g.layer;
        break;
    case Grouping::Kernel:
    case Grouping::Iteration:
        break;
    }
    return s;
}

struct Normalization {
    double a = 1, b = 1;
};

Normalization normalization(const SideFacts& fa, const SideFacts& fb, Grouping g,
                            const DiffOptions& o, DiffResult* result) {
    Normalization n;
    if (g != Grouping::Iteration)
        n = {static_cast<double>(fa.iterations()), static_cast<double>(fb.iterations())};
    if (o.perSample) {
        if (result && (result->batchA <= 0 || result->batchB <= 0)) {
            result->notes.push_back("per-sample view not applied: the batch size of " +
                                    std::string(result->batchA <= 0 ? "A" : "B") +
                                    " is unknown (give it with --batch-a/--batch-b)");
        } else if (result) {
            n.a *= static_cast<double>(result->batchA);
            n.b *= static_cast<double>(result->batchB);
        }
    }
    return n;
}

std::vector<DiffRow> groupRows(const SideFacts& fa, const SideFacts& fb, Grouping g,
                               const DiffOptions& o, Normalization n) {
    std::map<GroupKey, std::pair<Accumulator, Accumulator>> groups;
    for (int side = 0; side < 2; ++side) {
        const SideFacts& f = side == 0 ? fa : fb;
        for (uint32_t k = 0; k < f.trace().kernels.size(); ++k) {
            if (!f.counts(k) || !inScope(f, k, o.scope)) continue;
            auto& acc = groups[groupKeyOf(f, k, g)];
            add(f, k, side == 0 ? acc.first : acc.second, g);
        }
    }
    std::vector<DiffRow> rows;
    rows.reserve(groups.size());
    for (auto& [key, accs] : groups) {
        DiffRow row;
        row.key = key.key;
        if (g == Grouping::Op && !o.scope.layer && key.key != kNoLayer)
            row.key = key.layer + std::string(kLayerSeparator) + key.key;
        row.direction = key.direction;
        row.a = totalsOf(accs.first, g, n.a);
        row.b = totalsOf(accs.second, g, n.b);
        row.scope = drillScope(key, g, o.scope);
        rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const double dx = std::abs(x.deltaNs()), dy = std::abs(y.deltaNs());
        if (dx != dy) return dx > dy;
        return std::tie(x.key, x.direction) < std::tie(y.key, y.direction);
    });
    return rows;
}

void fillBatch(const DiffSide& side, int64_t given, int64_t& batch, std::string& source) {
    if (given > 0) {
        batch = given;
        source = "given";
        return;
    }
    const BatchGuess g = batchSizeOf(side);
    batch = g.batch;
    source = g.batch
                 ? g.rule + " of " + std::to_string(g.ops) + " forward op" + (g.ops == 1 ? "" : "s")
                 : "unknown";
}

} // namespace

std::string_view diffLevelName(DiffLevel l) {
    switch (l) {
    case DiffLevel::Direction:
        return "direction";
    case DiffLevel::Layer:
        return "layer";
    case DiffLevel::Op:
        return "op";
    case DiffLevel::Family:
        return "family";
    case DiffLevel::Kernel:
        return "kernel";
    case DiffLevel::Iteration:
        return "iteration";
    }
    return "layer";
}

std::optional<DiffLevel> diffLevelByName(std::string_view name) {
    for (DiffLevel l : {DiffLevel::Direction, DiffLevel::Layer, DiffLevel::Op, DiffLevel::Family,
                        DiffLevel::Kernel, DiffLevel::Iteration})
        if (diffLevelName(l) == name) return l;
    return std::nullopt;
}

double DiffSideTotals::tflopsPerSecond() const {
    return flopsTimeNs > 0 && !std::isnan(flops) ? flops / flopsTimeNs / 1e3 : kNaN;
}
double DiffSideTotals::tcShare() const { return gpuTimeNs > 0 ? tcTimeNs / gpuTimeNs : kNaN; }
double DiffRow::ratio() const { return a.gpuTimeNs > 0 ? b.gpuTimeNs / a.gpuTimeNs : kNaN; }

BatchGuess batchSizeOf(const DiffSide& side) {
    // Votes in order of trust: an embedding's indices ([batch, sequence]), a convolution's input
    // ([N, C, H, W]), else the leading dimension of any forward op's first 3-D or larger input
    // (fooled by sequence-first layouts, hence last).
    enum Rule { Embedding, Convolution, Leading, kRules };
    std::map<int64_t, uint64_t> votes[kRules];
    const Trace& t = *side.trace;
    for (uint32_t op = 0; op < t.ops.size(); ++op) {
        if (t.ops.direction[op] != Direction::Forward) continue;
        const RangeId r = t.ops.range[op];
        if (side.process) {
            const ThreadId th = t.rangeThread(r);
            if (!th.valid() || t.threads[th.value].process != *side.process) continue;
        }
        const StringId sizes = t.ranges.sizes[r.value];
        if (!sizes.valid()) continue;
        const auto shapes = parseShapes(t.str(sizes));
        if (!shapes || shapes->empty()) continue;
        const std::string_view name = t.str(t.ranges.name[r.value]);
        if (name.find("embedding") != std::string_view::npos && shapes->size() >= 2 &&
            !(*shapes)[1].empty()) {
            ++votes[Embedding][(*shapes)[1].front()];
        } else if (name.find("conv") != std::string_view::npos && (*shapes)[0].size() == 4) {
            ++votes[Convolution][(*shapes)[0].front()];
        } else if ((*shapes)[0].size() >= 3) {
            ++votes[Leading][(*shapes)[0].front()];
        }
    }
    static constexpr std::string_view kRuleText[kRules] = {
        "embedding indices", "convolution inputs", "leading dimension of forward ops' inputs"};
    for (int rule = 0; rule < kRules; ++rule) {
        BatchGuess g;
        for (const auto& [dim, count] : votes[rule])
            if (dim > 0 && count > g.ops) g = {dim, count, std::string(kRuleText[rule])};
        if (g.batch) return g;
    }
    return {};
}

DiffResult diffRuns(const DiffSide& a, const DiffSide& b, const DiffOptions& options) {
    const SideFacts fa(a), fb(b);
    DiffResult r;
    r.level = options.level;
    r.iterationsA = fa.iterations();
    r.iterationsB = fb.iterations();
    fillBatch(a, options.batchA, r.batchA, r.batchSourceA);
    fillBatch(b, options.batchB, r.batchB, r.batchSourceB);
    const Grouping g = groupingOf(options.level);
    const Normalization n = normalization(fa, fb, g, options, &r);
    r.rows = groupRows(fa, fb, g, options, n);
    r.total.key = "(total)";
    r.total.a.flops = r.total.b.flops = kNaN;
    for (const DiffRow& row : r.rows) {
        addTotals(r.total.a, row.a);
        addTotals(r.total.b, row.b);
    }
    r.total.scope = options.scope;
    for (const auto& [side, f] : {std::pair("A", &fa), std::pair("B", &fb)})
        if (f->outsideIterations())
            r.notes.push_back(std::to_string(f->outsideIterations()) + " kernels of " + side +
                              " launched outside its iteration ranges are left out");
    // The verdict weighs the whole comparison at the scope shown, in the same units.
    Normalization verdictNorm = normalization(fa, fb, Grouping::FamilyLayer, options, nullptr);
    if (options.perSample && r.batchA > 0 && r.batchB > 0) {
        verdictNorm.a *= static_cast<double>(r.batchA);
        verdictNorm.b *= static_cast<double>(r.batchB);
    }
    const auto fineRows = groupRows(fa, fb, Grouping::FamilyLayer, options, verdictNorm);
    DiffRow verdictTotal;
    verdictTotal.a.flops = verdictTotal.b.flops = kNaN;
    for (const DiffRow& row : fineRows) {
        addTotals(verdictTotal.a, row.a);
        addTotals(verdictTotal.b, row.b);
    }
    const bool perSample = options.perSample && r.batchA > 0 && r.batchB > 0;
    r.verdict = diffVerdict(verdictTotal, fineRows, perSample ? "per sample" : "per iteration");
    return r;
}

std::vector<KernelId> diffRowKernels(const DiffSide& side, const DiffOptions& options,
                                     const DiffRow& row) {
    const SideFacts f(side);
    const Grouping g = groupingOf(options.level);
    std::vector<KernelId> out;
    for (uint32_t k = 0; k < f.trace().kernels.size(); ++k) {
        if (!f.counts(k) || !inScope(f, k, options.scope)) continue;
        if (row.key == "(total)") {
            out.push_back(KernelId(k));
            continue;
        }
        GroupKey key = groupKeyOf(f, k, g);
        std::string shown = key.key;
        if (g == Grouping::Op && !options.scope.layer && key.key != kNoLayer)
            shown = key.layer + std::string(kLayerSeparator) + key.key;
        if (shown == row.key && key.direction == row.direction) out.push_back(KernelId(k));
    }
    return out;
}

} // namespace ls
