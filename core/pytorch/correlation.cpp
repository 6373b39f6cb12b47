#include "core/pytorch/correlation.h"

#include "core/model/columns.h"
#include "core/model/parallel.h"
#include "core/model/range_threads.h"
#include "core/model/search_from.h"
#include "core/pytorch/graph_replay.h"
#include "core/pytorch/range_roles.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ls {
namespace {

// The innermost push/pop range around the call: the last range of its thread starting at or
// before the call is it, or one of its ancestors is (push/pop ranges nest properly). hints: per
// thread, the row the caller's last search of that thread ended at (a pass over calls in time
// order), or null.
RangeId innermostPushPop(const Trace& t, ApiCallId call, std::vector<uint32_t>* hints = nullptr) {
    const auto& r = t.ranges;
    const TimeNs cs = t.apiCalls.start[call.value], ce = t.apiCalls.end[call.value];
    const uint32_t th = t.apiCalls.thread[call.value].value;
    const auto first = r.start.begin() + t.threadRangeBegin[th],
               last = r.start.begin() + t.threadRangeBegin[th + 1];
    const auto startsByThen = [cs](TimeNs s) { return s <= cs; };
    auto it = hints ? partitionPointFrom(first, last, r.start.begin() + (*hints)[th], startsByThen)
                    : std::partition_point(first, last, startsByThen);
    if (hints) // a hint at the thread's end would search the whole thread next time
        (*hints)[th] =
            static_cast<uint32_t>((it == last && it != first ? it - 1 : it) - r.start.begin());
    RangeId cand =
        it == first ? RangeId() : RangeId(static_cast<uint32_t>(it - r.start.begin() - 1));
    while (cand.valid() && (r.kind[cand.value] != RangeKind::PushPop || r.end[cand.value] < ce))
        cand = r.parent[cand.value];
    return cand;
}

// Start/end ranges of the call's thread that contain it. The segment tree holds each subtree's
// latest end, so only subtrees that can still contain the call are visited: O((k + 1) log n)
// for k results, however long some ranges are.
std::vector<RangeId> containingStartEnd(const Trace& t, ApiCallId call) {
    std::vector<RangeId> out;
    const TimeNs cs = t.apiCalls.start[call.value], ce = t.apiCalls.end[call.value];
    const ThreadId th = t.apiCalls.thread[call.value];
    const auto [first, last] = t.threadStartEnd.of(th);
    if (first == last) return out;
    const size_t count = static_cast<size_t>(last - first);
    const size_t limit = static_cast<size_t>(
        std::upper_bound(first, last, cs,
                         [&](TimeNs v, RangeId r) { return v < t.ranges.start[r.value]; }) -
        first);
    if (limit == 0) return out;
    const TimeNs* tree = t.startEndTree.data() + t.startEndTreeBegin[th.value];
    const size_t leaves = Trace::startEndTreeLeaves(count);
    // Iterative descent: (node, first leaf, leaf count).
    std::vector<std::tuple<size_t, size_t, size_t>> stack{{1, 0, leaves}};
    while (!stack.empty()) {
        const auto [node, lo, width] = stack.back();
        stack.pop_back();
        if (lo >= limit || tree[node] < ce) continue;
        if (width == 1) {
            out.push_back(first[lo]);
            continue;
        }
        stack.emplace_back(2 * node + 1, lo + width / 2, width / 2);
        stack.emplace_back(2 * node, lo, width / 2);
    }
    return out;
}

// The innermost of a push/pop range and start/end ranges around the same call.
RangeId innermostOf(const Trace& t, RangeId pushPop, const std::vector<RangeId>& startEnd) {
    RangeId best = pushPop;
    for (RangeId r : startEnd) {
        if (!best.valid()) {
            best = r;
            continue;
        }
        const auto& s = t.ranges.start;
        const auto& e = t.ranges.end;
        if (s[r.value] > s[best.value] ||
            (s[r.value] == s[best.value] && e[r.value] < e[best.value]))
            best = r;
    }
    return best;
}

class Correlator {
  public:
    Correlator(Trace& t, unsigned threads) : t_(t), r_(t.ranges), threads_(threads) {}
    void run() {
        markGraphReplays(t_);
        classifyRanges();
        findOps();
        placeForwardOps();
        pairBySeq();
        checkFwdBwdFlows();
        node_.clear();
        linkKernels();
        pack();
        reportGraphAttribution(t_);
    }

  private:
    bool isMarker(uint32_t i) const { return r_.flags[i] & kPytorchMarker; }
    std::string_view name(uint32_t i) const { return t_.str(r_.name[i]); }
    // Layer and phase from the nearest user ranges at or above range i.
    void userContext(RangeId i, StringId& layer, Direction& phase, bool& hasPhase) const;

    void classifyRanges();
    void findOps();
    void findOpsOfThread(uint32_t th, std::vector<uint8_t>& nodes, std::vector<RangeId>& ranges,
                         std::vector<RangeId>& extents);
    void placeForwardOps();
    void pairBySeq();
    void checkFwdBwdFlows();
    OpId opStartingAt(ThreadId th, TimeNs ts) const;
    void linkKernels();
    void pack();

    Trace& t_;
    RangeColumns& r_;
    unsigned threads_;
    // What a range's name says, worked out once per distinct name (classifyRanges): the passes
    // below ask it for millions of ranges, and the answers parse and lower-case the text.
    struct NameRoles {
        uint8_t framework = 0; // 0 unknown, 1 user, 2 framework
        bool backwardWrapper = false, backwardNode = false, optimizerOp = false;
        bool isPhase = false;  // a user range naming a phase (userRangePhase)
        bool notLayer = false; // a phase or iteration range: never a layer
        Direction phase = Direction::Forward;
    };
    std::vector<NameRoles> roles_; // by name id
    const NameRoles& roles(uint32_t i) const { return roles_[r_.name[i].value]; }
    std::vector<uint8_t> autogradThread_;
    std::vector<uint8_t> node_; // per op instance: a backward node (paired by seq) or a forward op
    // The columns of t_.ops and t_.kernelLinks that the model keeps narrow, whole while they are
    // written and read here, packed at the end (pack()).
    Column<RangeId> opRange_, opExtent_, linkRange_, linkOp_;
    Column<OpId> linkOpInstance_;
    Column<StringId> opLayer_, linkLayer_;
};

// Each whole column is freed as soon as its narrow form exists, and no more columns are packed at
// once than there are workers: the load's peak is near (the kernels' metrics come next).
void Correlator::pack() {
    std::vector<std::function<void()>> tasks;
    auto narrow = [&](auto& to, auto& from) {
        tasks.emplace_back([&to, &from] {
            to = std::remove_reference_t<decltype(to)>::of(from, from.size());
            columns::release(from);
        });
    };
    narrow(t_.ops.range, opRange_);
    narrow(t_.ops.extent, opExtent_);
    narrow(t_.ops.layer, opLayer_);
    narrow(t_.kernelLinks.range, linkRange_);
    narrow(t_.kernelLinks.op, linkOp_);
    narrow(t_.kernelLinks.opInstance, linkOpInstance_);
    narrow(t_.kernelLinks.layer, linkLayer_);
    runTasks(tasks, threads_);
}

void Correlator::classifyRanges() {
    roles_.assign(t_.strings.size(), NameRoles());
    for (uint32_t i = 0; i < r_.size(); ++i) {
        auto& f = roles_[r_.name[i].value];
        if (f.framework) continue;
        // The first range of a name decides whether the name is a framework one.
        const std::string_view text = name(i);
        f.framework = isFrameworkRange(text, isMarker(i)) ? 2 : 1;
        f.backwardWrapper = isBackwardWrapper(text);
        f.backwardNode = isBackwardNode(text);
        f.optimizerOp = isOptimizerOp(text);
        f.isPhase = userRangePhase(text, f.phase);
        f.notLayer = f.isPhase || iterationNumber(text).has_value();
    }
    autogradThread_.assign(t_.threads.size(), 0);
}

// Module scopes (nn.Module ranges of a with_stack PyTorch profiler trace) name a layer only where
// no user range below the phase range does: the model's direct child (Block_0, Embedding_0), the
// second-outermost module around the op.
void Correlator::userContext(RangeId i, StringId& layer, Direction& phase, bool& hasPhase) const {
    layer = StringId();
    hasPhase = false;
    StringId outermostModule, secondOutermost; // module scopes met so far, walking outward
    auto moduleLayer = [&] { return outermostModule.valid() ? secondOutermost : StringId(); };
    for (; i.valid(); i = r_.parent[i.value]) {
        if (r_.flags[i.value] & kModuleScope) {
            secondOutermost = outermostModule;
            outermostModule = r_.name[i.value];
            continue;
        }
        const NameRoles& role = roles(i.value);
        if (role.framework != 1 || r_.kind[i.value] == RangeKind::Mark) continue;
        const bool isPhase = role.isPhase;
        if (isPhase) phase = role.phase;
        // Phase and iteration ranges are never layers (DESIGN.md): ops outside every layer
        // range have none, whatever phase or step encloses them.
        const bool notLayer = role.notLayer;
        if (!layer.valid() && isPhase && moduleLayer().valid())
            layer = moduleLayer();
        else if (!layer.valid() && !notLayer)
            layer = r_.name[i.value];
        if (!hasPhase) hasPhase = isPhase;
        if (hasPhase) return;
    }
    if (!layer.valid()) layer = moduleLayer();
}

// Op instances. Forward: a marker with no marker above it, or the outermost carrier of a seq
// (autocast nests aten::to and aten::addmm, each with its own seq, inside aten::linear); nested
// markers without a seq of their own fold into it. Backward: the engine's wrapper (or a bare
// node) and everything inside it.
void Correlator::findOps() {
    // Threads are independent: each finds its own ops on a core of its own (busiest first), then
    // they are appended in thread order.
    struct Found {
        std::vector<uint8_t> node;
        std::vector<RangeId> range, extent;
    };
    const size_t threads = t_.threads.size();
    std::vector<Found> found(threads);
    std::vector<std::function<void()>> tasks;
    for (uint32_t th : threadsWithRangesBusiestFirst(t_))
        tasks.emplace_back([this, th, &found] {
            findOpsOfThread(th, found[th].node, found[th].range, found[th].extent);
        });
    runTasks(tasks, threads_);
    auto& ops = t_.ops;
    size_t total = 0;
    for (const auto& f : found) total += f.node.size();
    node_.reserve(total);
    opRange_.reserve(total);
    opExtent_.reserve(total);
    for (auto& f : found) {
        node_.insert(node_.end(), f.node.begin(), f.node.end());
        opRange_.insert(opRange_.end(), f.range.begin(), f.range.end());
        opExtent_.insert(opExtent_.end(), f.extent.begin(), f.extent.end());
    }
    ops.direction.resize(total);
    for (size_t o = 0; o < total; ++o)
        ops.direction[o] = node_[o] ? Direction::Backward : Direction::Forward;
    opLayer_.assign(total, StringId());
    ops.paired.assign(total, OpId());
}

void Correlator::findOpsOfThread(uint32_t th, std::vector<uint8_t>& nodes,
                                 std::vector<RangeId>& ranges, std::vector<RangeId>& extents) {
    struct Ancestor {
        bool marker;
        int32_t seq;
    };
    std::vector<Ancestor> path;
    const uint32_t first = t_.threadRangeBegin[th], last = t_.threadRangeBegin[th + 1];
    int backwardDepth = -1;
    for (uint32_t i = first; i < last; ++i) {
        const int d = r_.depth[i];
        path.resize(static_cast<size_t>(d));
        if (backwardDepth >= d) backwardDepth = -1;
        const bool marker = isMarker(i) && r_.kind[i] != RangeKind::Mark;
        const int32_t seq = r_.seq[i];
        path.push_back({marker, seq});
        if (!marker || backwardDepth >= 0) continue;
        RangeId range(i);
        bool node = false;
        if (roles(i).backwardWrapper) {
            node = true;
            for (uint32_t j = i + 1; j < last && r_.depth[j] > d; ++j)
                if (r_.depth[j] == d + 1 && isMarker(j) && r_.seq[j] >= 0) {
                    range = RangeId(j);
                    break;
                }
        } else if (roles(i).backwardNode) {
            node = true;
        } else {
            bool markerAbove = false, seqAbove = false;
            for (int a = 0; a < d; ++a) {
                markerAbove |= path[static_cast<size_t>(a)].marker;
                seqAbove |=
                    path[static_cast<size_t>(a)].marker && path[static_cast<size_t>(a)].seq == seq;
            }
            if (markerAbove && (seq < 0 || seqAbove)) continue;
        }
        if (node) {
            backwardDepth = d;
            autogradThread_[th] = 1;
        }
        nodes.push_back(node ? 1 : 0);
        ranges.push_back(range);
        extents.emplace_back(i);
    }
}

// Forward ops take the nearest user range as layer; a user phase range above them ("optimizer",
// "backward" around loss.backward()) or an optimizer op name sets their direction.
void Correlator::placeForwardOps() {
    auto& ops = t_.ops;
    std::vector<uint32_t> forward; // split these, not all ops: the backward nodes come in a block
    for (uint32_t o = 0; o < opRange_.size(); ++o)
        if (!node_[o]) forward.push_back(o);
    parallelFor(forward.size(), threads_,
                [&](size_t first, size_t last, unsigned) { // each op walks its own parents
                    for (size_t k = first; k < last; ++k) {
                        const uint32_t o = forward[k];
                        Direction phase = Direction::Forward;
                        bool hasPhase = false;
                        userContext(opExtent_[o], opLayer_[o], phase, hasPhase);
                        if (roles(opRange_[o].value).optimizerOp)
                            ops.direction[o] = Direction::Optimizer;
                        else if (hasPhase && phase != Direction::Other)
                            ops.direction[o] = phase;
                    }
                });
}

// A backward node with seq N pairs with the last forward op instance of its process that
// carried seq N: ops that create no autograd node show the seq of the next one that does.
void Correlator::pairBySeq() {
    auto& ops = t_.ops;
    auto threadOf = [&](uint32_t o) { return t_.rangeThread(opExtent_[o]).value; };
    auto startOf = [&](uint32_t o) { return r_.start[opRange_[o].value]; };
    // Forward ops by (process, seq, start, op), never from the autograd engine's threads (ops it
    // runs outside a node wrapper, such as DDP hooks, show seqs of their own). 12 bytes an op: the
    // start is read only where two ops share a process and a seq (ops of several threads). Ops
    // come in range order, so they are mostly in this order already.
    struct Forward {
        uint32_t process, seq, op;
    };
    auto less = [&](const Forward& a, const Forward& b) {
        if (a.process != b.process) return a.process < b.process;
        if (a.seq != b.seq) return a.seq < b.seq;
        const TimeNs sa = startOf(a.op), sb = startOf(b.op);
        return sa != sb ? sa < sb : a.op < b.op;
    };
    std::vector<Forward> forward;
    for (uint32_t o = 0; o < opRange_.size(); ++o)
        if (!node_[o] && r_.seq[opRange_[o].value] >= 0 && !autogradThread_[threadOf(o)])
            forward.push_back({t_.threads[threadOf(o)].process.value,
                               static_cast<uint32_t>(r_.seq[opRange_[o].value]), o});
    if (!std::is_sorted(forward.begin(), forward.end(), less))
        parallelSort(forward.begin(), forward.end(), threads_, less);
    // Each node's forward op is looked up in parallel; the pairs are then made in node order,
    // as the first node of a forward op takes it.
    struct Key {
        uint32_t process, seq;
        TimeNs start;
    };
    auto keyBefore = [&](const Key& k, const Forward& f) {
        if (k.process != f.process) return k.process < f.process;
        if (k.seq != f.seq) return k.seq < f.seq;
        return k.start < startOf(f.op);
    };
    std::vector<OpId> match(opRange_.size());
    parallelFor(opRange_.size(), threads_, [&](size_t first, size_t last, unsigned) {
        // Nodes come in the engine's order, each seq near the last one's: each search starts
        // where the last ended.
        auto hint = forward.end();
        for (size_t o = first; o < last; ++o) {
            if (!node_[o]) continue;
            const int32_t seq = r_.seq[opRange_[o].value];
            if (seq < 0) continue;
            // The last forward op with this seq that started before the node, or with it.
            const Key key{t_.threads[threadOf(static_cast<uint32_t>(o))].process.value,
                          static_cast<uint32_t>(seq), r_.start[opExtent_[o].value]};
            auto it = partitionPointFrom(forward.begin(), forward.end(), hint,
                                         [&](const Forward& f) { return !keyBefore(key, f); });
            hint = it;
            if (it == forward.begin()) continue;
            --it;
            if (it->process == key.process && it->seq == key.seq) match[o] = OpId(it->op);
        }
    });
    for (uint32_t o = 0; o < opRange_.size(); ++o) {
        if (!match[o].valid()) continue;
        const uint32_t f = match[o].value;
        ops.paired[o] = OpId(f);
        if (!ops.paired[f].valid()) ops.paired[f] = OpId(o);
        opLayer_[o] = opLayer_[f];
    }
}

// The op instance holding a marker that starts at ts on th (a flow binds to its enclosing slice).
OpId Correlator::opStartingAt(ThreadId th, TimeNs ts) const {
    if (!th.valid() || th.value + 1 >= t_.threadRangeBegin.size()) return {};
    const auto first = r_.start.begin() + t_.threadRangeBegin[th.value],
               last = r_.start.begin() + t_.threadRangeBegin[th.value + 1];
    auto it = std::lower_bound(first, last, ts);
    if (it == last || *it != ts) return {};
    // Ranges starting together come outermost first: the last of them is the innermost.
    auto at = std::upper_bound(it, last, ts) - 1;
    for (RangeId j(static_cast<uint32_t>(at - r_.start.begin())); j.valid();
         j = r_.parent[j.value]) {
        auto op = std::lower_bound(opExtent_.begin(), opExtent_.end(), j);
        if (op != opExtent_.end() && *op == j)
            return OpId(static_cast<uint32_t>(op - opExtent_.begin()));
    }
    return {};
}

// PyTorch profiler traces link each forward op to its backward node with a fwdbwd flow: count the
// flows whose ends seq pairing joins otherwise (or not at all).
void Correlator::checkFwdBwdFlows() {
    uint64_t disagree = 0;
    for (const FwdBwdFlow& f : t_.fwdBwdFlows) {
        const OpId forward = opStartingAt(f.fromThread, f.fromTs),
                   backward = opStartingAt(f.toThread, f.toTs);
        if (!forward.valid() || !backward.valid() || t_.ops.paired[backward.value] != forward)
            ++disagree;
    }
    if (disagree)
        t_.report.add(Anomaly::FlowDisagreement, disagree,
                      std::to_string(disagree) + " of " + std::to_string(t_.fwdBwdFlows.size()) +
                          " fwdbwd flows");
}

void Correlator::linkKernels() {
    const auto& k = t_.kernels;
    const auto& a = t_.apiCalls;
    auto& links = t_.kernelLinks;
    const size_t n = k.size();
    linkRange_.assign(n, RangeId());
    linkOp_.assign(n, RangeId());
    linkOpInstance_.assign(n, OpId());
    links.direction.assign(n, Direction::Other);
    linkLayer_.assign(n, StringId());
    std::vector<uint8_t> isExtent(r_.size(), 0); // bytes, not vector<bool>: read from two threads
    for (RangeId e : opExtent_) isExtent[e.value] = 1;
    // Kernels are independent: halves on two threads, each writing its own rows. Each half walks
    // its kernels in start order, so each search starts from where the last one ended.
    parallelFor(n, threads_, [&](size_t firstKernel, size_t lastKernel, unsigned) {
        std::vector<uint32_t> rangeHints(t_.threads.size(), UINT32_MAX);
        auto opHint = opExtent_.end();
        for (size_t i = firstKernel; i < lastKernel; ++i) {
            // A replayed graph node takes the context of its capture-time launch.
            const ApiCallId call = t_.contextCall(i);
            if (!call.valid()) continue;
            const uint32_t th = a.thread[call.value].value;
            const RangeId cand = innermostPushPop(t_, call, &rangeHints);
            linkRange_[i] = innermostOf(t_, cand, containingStartEnd(t_, call));
            // The innermost op instance on the stack; opExtent_ is sorted (built in range order).
            for (RangeId j = cand; j.valid(); j = r_.parent[j.value]) {
                if (!isMarker(j.value)) continue;
                if (!linkOp_[i].valid()) linkOp_[i] = j;
                if (!isExtent[j.value]) continue;
                auto op = partitionPointFrom(opExtent_.begin(), opExtent_.end(), opHint,
                                             [j](RangeId e) { return e < j; });
                if (op == opExtent_.end() || *op != j) continue;
                opHint = op;
                const auto o = static_cast<uint32_t>(op - opExtent_.begin());
                linkOpInstance_[i] = OpId(o);
                links.direction[i] = t_.ops.direction[o];
                linkLayer_[i] = opLayer_[o];
                break;
            }
            if (linkOpInstance_[i].valid()) continue;
            Direction phase = Direction::Other;
            bool hasPhase = false;
            userContext(cand, linkLayer_[i], phase, hasPhase);
            links.direction[i] = hasPhase              ? phase
                                 : autogradThread_[th] ? Direction::Backward
                                                       : Direction::Other;
        }
    });
}

} // namespace

void correlate(Trace& t, unsigned threads) { Correlator(t, threads).run(); }

std::vector<KernelId> kernelsUnder(const Trace& t, RangeId r) {
    std::vector<KernelId> out;
    if (!r.valid() || r.value >= t.ranges.size()) return out;
    const TimeNs rs = t.ranges.start[r.value], re = t.ranges.end[r.value];
    const auto [first, last] = t.threadApiCalls.of(t.rangeThread(r));
    auto it = std::lower_bound(
        first, last, rs, [&](ApiCallId c, TimeNs v) { return t.apiCalls.start[c.value] < v; });
    for (; it != last && t.apiCalls.start[it->value] <= re; ++it) {
        if (t.apiCalls.end[it->value] > re) continue;
        const auto [k0, k1] = t.apiKernels.of(*it);
        out.insert(out.end(), k0, k1);
        const auto [c0, c1] = t.captureKernels.of(*it); // what a captured launch replayed
        out.insert(out.end(), c0, c1);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<KernelId> kernelsOfOp(const Trace& t, OpId op) {
    std::vector<KernelId> out;
    if (!op.valid() || op.value >= t.ops.size()) return out;
    for (KernelId k : kernelsUnder(t, t.ops.extent[op.value]))
        if (t.kernelLinks.opInstance[k.value] == op) out.push_back(k);
    return out;
}

std::vector<KernelId> kernelsOfLayer(const Trace& t, StringId layer) {
    std::vector<KernelId> out;
    const auto& l = t.kernelLinks.layer;
    for (uint32_t i = 0; i < l.size(); ++i)
        if (l[i] == layer) out.emplace_back(i);
    return out;
}

std::vector<RangeId> rangesContaining(const Trace& t, ApiCallId call) {
    std::vector<RangeId> out;
    if (!call.valid()) return out;
    for (RangeId j = innermostPushPop(t, call); j.valid(); j = t.ranges.parent[j.value])
        out.push_back(j);
    const auto startEnd = containingStartEnd(t, call);
    if (startEnd.empty()) return out;
    out.insert(out.end(), startEnd.begin(), startEnd.end());
    std::sort(out.begin(), out.end(), [&](RangeId a, RangeId b) {
        const auto& s = t.ranges.start;
        const auto& e = t.ranges.end;
        return s[a.value] != s[b.value] ? s[a.value] > s[b.value] : e[a.value] < e[b.value];
    });
    return out;
}

std::vector<RangeId> rangeStack(const Trace& t, KernelId k) {
    return rangesContaining(t, t.contextCall(k.value));
}

std::vector<KernelId> kernelsUnderRangesNamed(const Trace& t, std::string_view name) {
    std::vector<KernelId> out;
    const StringId id = t.strings.find(name);
    if (!id.valid()) return out;
    for (uint32_t i = 0; i < t.kernels.size(); ++i)
        for (RangeId j : rangeStack(t, KernelId(i)))
            if (t.ranges.name[j.value] == id) {
                out.emplace_back(i);
                break;
            }
    return out;
}

} // namespace ls
