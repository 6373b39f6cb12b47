#include "core/prepared/view_file.h"

#include "core/cache/archive.h"
#include "core/cache/trace_cache.h"

namespace ls {
namespace {

constexpr archive::Format kFormat{{'L', 'S', 'V', 'I', 'E', 'W', 'S', '\0'}, kViewCacheVersion};
constexpr const char* kSuffix = ".lsviews";

// The views fit one model of the file: the identity of the file's state, then what was loaded.
std::string viewIdentity(const std::string& identity, const Trace& t) {
    return identity + "\nviews of parts " + std::to_string(t.parts) + " kernels " +
           std::to_string(t.kernels.size()) + " ranges " + std::to_string(t.ranges.size()) +
           " api " + std::to_string(t.apiCalls.size()) + " memcpys " +
           std::to_string(t.memcpys.size()) + " memsets " + std::to_string(t.memsets.size()) +
           " strings " + std::to_string(t.strings.size());
}

// A bool as a byte: a byte read from a file is a bool only once compared.
template <typename Ar> void flag(Ar& ar, bool& b) {
    uint8_t byte = b;
    ar.pod(byte);
    b = byte != 0;
}

template <typename Ar> void visitTree(Ar& ar, LayerTree& tree) {
    ar.vec(tree.parent);
    ar.vec(tree.kind);
    ar.vec(tree.depth);
    ar.vec(tree.name);
    ar.vec(tree.direction);
    ar.vec(tree.childBegin);
    ar.vec(tree.children);
    ar.vec(tree.kernels);
    ar.vec(tree.gpuTimeNs);
    ar.vec(tree.flops);
    ar.vec(tree.flopsTimeNs);
    ar.vec(tree.tcUsedTimeNs);
    ar.vec(tree.orderedKernels);
    ar.vec(tree.kernelBegin);
    ar.vec(tree.kernelEnd);
    ar.vec(tree.kernelNode);
}

template <typename Ar> void visitTracks(Ar& ar, TimelineTracks& tracks) {
    ar.list(tracks.groups, [&](TimelineGroup& g) {
        ar.text(g.label);
        flag(ar, g.gpu);
        ar.pod(g.process);
        ar.pod(g.thread);
        ar.pod(g.stream);
    });
    ar.list(tracks.lanes, [&](TimelineLane& l) {
        ar.pod(l.group);
        ar.pod(l.kind);
        ar.pod(l.level);
        ar.vec(l.events);
    });
    ar.pod(tracks.start);
    ar.pod(tracks.end);
}

template <typename Ar> void visitIteration(Ar& ar, IterationRow& r) {
    ar.text(r.name);
    ar.pod(r.number);
    ar.pod(r.start);
    ar.pod(r.end);
    ar.pod(r.gpuStart);
    ar.pod(r.gpuEnd);
    ar.pod(r.kernels);
    ar.pod(r.busy);
    ar.pod(r.forward);
    ar.pod(r.backward);
    ar.pod(r.optimizer);
    ar.pod(r.comm);
    ar.pod(r.idle);
    flag(ar, r.outlier);
}

template <typename Ar>
void visitViews(Ar& ar, LayerTree& tree, TimelineTracks& tracks, KernelPaths& paths,
                IterationSummary& iterations, int32_t& column, uint8_t& descending,
                std::vector<KernelId>& sortedRows) {
    visitTree(ar, tree);
    visitTracks(ar, tracks);
    ar.vec(paths.nodes);
    ar.vec(paths.ofKernel);
    ar.list(iterations.rows, [&](IterationRow& r) { visitIteration(ar, r); });
    visitIteration(ar, iterations.median);
    ar.pod(iterations.rule);
    ar.pod(iterations.confidence);
    ar.pod(column);
    ar.pod(descending);
    ar.vec(sortedRows);
}

template <typename V, typename Id> bool below(const V& ids, size_t n, Id valueOf) {
    for (const auto& id : ids)
        if (valueOf(id) >= n) return false;
    return true;
}

// Each of 0 .. n-1 once.
template <typename V> bool permutation(const V& rows, size_t n) {
    if (rows.size() != n) return false;
    std::vector<bool> seen(n);
    for (const auto& r : rows) {
        if (r.value >= n || seen[r.value]) return false;
        seen[r.value] = true;
    }
    return true;
}

// The tree's arrays agree: one length per node, every node but the root the child of its parent
// exactly once (the tree model walks children and parents both ways), kinds and directions known.
bool treeFits(const LayerTree& tree, size_t kernels, size_t strings) {
    const size_t nodes = tree.parent.size();
    bool ok = nodes > 0 && tree.kind.size() == nodes && tree.depth.size() == nodes &&
              tree.name.size() == nodes && tree.direction.size() == nodes &&
              tree.childBegin.size() == nodes + 1 && tree.kernels.size() == nodes &&
              tree.gpuTimeNs.size() == nodes && tree.flops.size() == nodes &&
              tree.flopsTimeNs.size() == nodes && tree.tcUsedTimeNs.size() == nodes &&
              tree.kernelBegin.size() == nodes && tree.kernelEnd.size() == nodes &&
              tree.kernelNode.size() == kernels && tree.children.size() == nodes - 1 &&
              tree.childBegin.front() == 0 && tree.childBegin.back() == tree.children.size();
    if (!ok) return false;
    std::vector<bool> seen(nodes);
    for (size_t n = 0; n < nodes && ok; ++n) {
        ok &= tree.childBegin[n] <= tree.childBegin[n + 1] &&
              tree.kernelBegin[n] <= tree.kernelEnd[n] && tree.kernelEnd[n] <= kernels;
        ok &= !tree.name[n].valid() || tree.name[n].value < strings;
        ok &= tree.kind[n] <= LayerNodeKind::Rank &&
              static_cast<uint8_t>(tree.direction[n]) <= static_cast<uint8_t>(Direction::Other);
        ok &= n == 0 ? tree.depth[n] == 0
                     : tree.parent[n] < n && tree.depth[n] == tree.depth[tree.parent[n]] + 1;
        for (uint32_t i = tree.childBegin[n]; ok && i < tree.childBegin[n + 1]; ++i) {
            const uint32_t c = tree.children[i];
            ok &= c != 0 && c < nodes && !seen[c] && tree.parent[c] == n;
            if (ok) seen[c] = true;
        }
    }
    return ok && below(tree.kernelNode, nodes, [](uint32_t x) -> size_t { return x; }) &&
           permutation(tree.orderedKernels, kernels);
}

// Every id the views hold points into the trace or into the views themselves: a file that passes
// the checksums by accident cannot make the window read out of bounds.
bool fits(const CachedViews& v, const Trace& t) {
    const size_t kernels = t.kernels.size(), strings = t.strings.size();
    const auto plain = [](auto x) -> size_t { return x; };
    bool ok = treeFits(v.layers, kernels, strings);
    for (const auto& l : v.tracks.lanes) {
        ok &= l.group < v.tracks.groups.size() && l.kind <= TimelineEventKind::Memory &&
              l.level < v.tracks.lanes.size();
        const size_t n = l.kind == TimelineEventKind::Range     ? t.ranges.size()
                         : l.kind == TimelineEventKind::ApiCall ? t.apiCalls.size()
                         : l.kind == TimelineEventKind::Kernel  ? kernels
                         : l.kind == TimelineEventKind::Memcpy  ? t.memcpys.size()
                         : l.kind == TimelineEventKind::Memset  ? t.memsets.size()
                                                                : t.memory.size();
        ok &= below(l.events, n, plain);
    }
    for (const auto& g : v.tracks.groups)
        ok &= (!g.stream.valid() || g.stream.value < t.streams.size()) &&
              (!g.process.valid() || g.process.value < t.processes.size()) &&
              (!g.thread.valid() || g.thread.value < t.threads.size());
    const auto& paths = v.paths;
    ok &= !paths.nodes.empty() && paths.ofKernel.size() == kernels &&
          below(paths.ofKernel, paths.nodes.size(), plain);
    for (size_t n = 1; n < paths.nodes.size(); ++n)
        ok &= paths.nodes[n].parent < n && paths.nodes[n].name.value < strings;
    ok &= v.sorted.rows.empty() ||
          (v.sorted.column >= 0 && static_cast<size_t>(v.sorted.column) < kKernelFieldCount &&
           permutation(v.sorted.rows, kernels));
    return ok;
}

} // namespace

std::string storeViewCache(const std::string& dir, const std::string& identity, const Trace& trace,
                           const ViewsToStore& views, uint64_t cap) {
    if (!views.layers || !views.tracks || !views.paths || !views.iterations) return "views missing";
    std::vector<KernelId> none;
    int32_t column = views.sortedRows ? views.sortColumn : -1;
    uint8_t descending = views.sortDescending;
    // The model cache file is kept: these views are its companion.
    return storeCacheFile(
        dir, companionCacheFile(dir, identity, kSuffix), traceCacheFile(dir, identity), cap,
        [&](const std::string& temp) {
            // The writer only reads what it visits.
            return archive::write(
                temp, kFormat, viewIdentity(identity, trace), [&](archive::Writer& w) {
                    visitViews(w, const_cast<LayerTree&>(*views.layers),
                               const_cast<TimelineTracks&>(*views.tracks),
                               const_cast<KernelPaths&>(*views.paths),
                               const_cast<IterationSummary&>(*views.iterations), column, descending,
                               views.sortedRows
                                   ? const_cast<std::vector<KernelId>&>(*views.sortedRows)
                                   : none);
                });
        });
}

ViewLookup lookupViewCache(const std::string& dir, const std::string& identity,
                           const Trace& trace) {
    auto v = std::make_unique<CachedViews>();
    std::string why;
    int32_t column = -1;
    uint8_t descending = 0;
    try {
        why =
            archive::read(companionCacheFile(dir, identity, kSuffix), kFormat,
                          viewIdentity(identity, trace), kLoadEverything, [&](archive::Reader& r) {
                              visitViews(r, v->layers, v->tracks, v->paths, v->iterations, column,
                                         descending, v->sorted.rows);
                          });
    } catch (const std::exception& e) { // out of memory or mappings: built again instead
        why = std::string("cannot read the view cache file: ") + e.what();
    }
    if (!why.empty()) return {nullptr, why};
    v->sorted.column = v->sorted.rows.empty() ? -1 : column;
    v->sorted.descending = descending != 0;
    if (!fits(*v, trace)) return {nullptr, "damaged (views do not fit the trace)"};
    return {std::move(v), {}};
}

} // namespace ls
