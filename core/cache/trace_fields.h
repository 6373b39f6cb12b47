#pragma once
// Every field of a Trace, in one list, visited by the model cache's writer and reader alike
// (core/cache/trace_file.cpp), so the two cannot disagree on the order. A field added to Trace
// must be added here: the size check below fails until it is.
#include "core/model/trace.h"

#include <tuple>

namespace ls::cache_fields {

template <typename Ar, typename Tuple> void columns(Ar& ar, Tuple&& cols) {
    std::apply([&](auto&... v) { (ar.vec(v), ...); }, cols);
}

template <typename Ar, typename G, typename I> void csr(Ar& ar, Csr<G, I>& c) {
    ar.vec(c.offsets);
    ar.vec(c.ids);
}

// The side tables of the packed columns (their per-row columns are in the tables' tie()).
template <typename Ar> void sides(Ar& ar, TimeColumn& c) {
    ar.pod(c.origin);
    ar.vec(c.blockBase);
    ar.vec(c.farRows);
    ar.vec(c.farTimes);
}
template <typename Ar> void sides(Ar& ar, EndColumn& e) {
    ar.vec(e.farRows);
    ar.vec(e.farLength);
}
template <typename Ar, typename Id> void sides(Ar& ar, Dict16Column<Id>& d) { ar.vec(d.distinct); }
template <typename Ar, typename Offset, int32_t Absent>
void sides(Ar& ar, BlockInt32Column<Offset, Absent>& b) {
    ar.vec(b.base);
    ar.vec(b.farRows);
    ar.vec(b.farValues);
}

// Narrow columns whole: per-row columns and side tables.
template <typename Ar, typename Id> void narrow(Ar& ar, Dict16Column<Id>& d) {
    ar.vec(d.code);
    ar.vec(d.wide);
    sides(ar, d);
}
template <typename Ar, typename Id> void narrow(Ar& ar, BlockIdColumn<Id>& b) {
    ar.vec(b.offset);
    ar.vec(b.base);
    ar.vec(b.farRows);
    ar.vec(b.farIds);
}

template <typename Ar, typename T> void valueDict(Ar& ar, ValueDict16Column<T>& c) {
    ar.vec(c.code);
    ar.vec(c.distinct);
    ar.vec(c.wide);
}

template <typename Ar> void pairs(Ar& ar, std::vector<std::pair<std::string, std::string>>& v) {
    ar.list(v, [&](auto& p) {
        ar.text(p.first);
        ar.text(p.second);
    });
}

template <typename Ar> void visit(Ar& ar, Trace& t) {
    ar.text(t.path);
    ar.text(t.sourcePath);
    ExportInfo& i = t.info;
    ar.text(i.format);
    ar.text(i.productVersion);
    ar.text(i.schemaVersion);
    pairs(ar, i.metadata);
    ar.text(i.host);
    ar.pod(i.epochNs);
    ar.pod(i.epochKnown);
    pairs(ar, i.environment);
    ar.pool(t.strings);

    // Columns by the load part they belong to: a reader of some parts skips the others.
    ar.part(kLoadKernels, [&] {
        columns(ar, t.kernels.tie());
        for (DictColumn<Dim3>* d : {&t.kernels.grid, &t.kernels.block}) ar.vec(d->distinct);
        for (auto* c : {&t.kernels.staticSmem, &t.kernels.dynamicSmem, &t.kernels.smemConfig})
            valueDict(ar, *c);
    });
    ar.part(kLoadMemory, [&] {
        columns(ar, t.memcpys.tie());
        columns(ar, t.memsets.tie());
    });
    ar.part(kLoadApiCalls, [&] {
        ApiCallColumns& a = t.apiCalls;
        columns(ar, a.tie());
        sides(ar, a.start);
        sides(ar, a.end);
        sides(ar, a.thread);
        sides(ar, a.name);
        sides(ar, a.result);
        sides(ar, a.correlation);
    });
    ar.part(kLoadNvtx, [&] {
        RangeColumns& r = t.ranges;
        columns(ar, r.tie());
        sides(ar, r.start);
        sides(ar, r.end);
        sides(ar, r.name);
        sides(ar, r.sizes.own);
        ar.vec(r.sizes.byPair);
        ar.pod(r.sizes.paired);
        sides(ar, r.opId);
        ar.vec(r.shape.distinct);
        SparseInt32Column& seq = t.ranges.seq;
        ar.vec(seq.present);
        ar.vec(seq.before);
        ar.vec(seq.values);
        ar.pod(seq.rows);
        ar.vec(t.ranges.parent.farRows);
        ar.vec(t.ranges.parent.farIds);
    });

    ar.list(t.processes, [&](Process& p) {
        ar.pod(p.pid);
        ar.text(p.name);
    });
    ar.list(t.threads, [&](Thread& th) {
        ar.pod(th.process);
        ar.pod(th.tid);
        ar.text(th.name);
        ar.pod(th.priority);
    });
    ar.list(t.devices, [&](Device& d) {
        ar.pod(d.id);
        ar.text(d.name);
        ar.pod(d.smCount);
        ar.pod(d.memoryBytes);
        ar.pod(d.computeMajor);
        ar.pod(d.computeMinor);
    });
    ar.vec(t.streams);
    ar.part(kLoadOsRuntime, [&] {
        columns(ar, std::tie(t.osRuntime.start, t.osRuntime.end, t.osRuntime.name, t.osRuntime.pid,
                             t.osRuntime.tid));
    });
    ar.part(kLoadMemory, [&] { columns(ar, t.memory.tie()); });
    ar.vec(t.fwdBwdFlows);
    ar.vec(t.collectiveArgs);

    ar.part(kLoadKernels, [&] { csr(ar, t.streamKernels); });
    ar.part(kLoadApiCalls, [&] { csr(ar, t.threadApiCalls); });
    ar.part(kLoadNvtx, [&] {
        ar.vec(t.threadRangeBegin);
        ar.vec(t.rangeSourceRows.plain);
        ar.vec(t.rangeSourceRows.runStart);
        ar.vec(t.rangeSourceRows.runValue);
        ar.pod(t.rangeSourceRows.count);
        csr(ar, t.threadStartEnd);
        ar.vec(t.startEndTree);
        ar.vec(t.startEndTreeBegin);
    });
    ar.part(kLoadKernels | kLoadApiCalls, [&] {
        csr(ar, t.apiKernels);
        KernelGraphColumns& g = t.kernelGraph;
        columns(ar, std::tie(g.graph, g.node, g.originalNode, g.capture, g.how));
        csr(ar, t.captureKernels);
    });

    ar.part(kLoadCorrelation, [&] {
        OpColumns& o = t.ops;
        narrow(ar, o.range);
        narrow(ar, o.extent);
        narrow(ar, o.layer);
        columns(ar, std::tie(o.direction, o.paired));
        KernelLinks& l = t.kernelLinks;
        narrow(ar, l.range);
        narrow(ar, l.op);
        narrow(ar, l.opInstance);
        narrow(ar, l.layer);
        columns(ar, std::tie(l.direction));
    });
    ar.part(kLoadCosts, [&] {
        KernelMetrics& m = t.metrics;
        columns(ar, std::tie(m.dtype, m.dtypeSource, m.tc, m.tcRule, m.tcMathOp, m.occupancy,
                             m.occupancyLimiter));
        for (auto* c : {&m.flops, &m.bytes}) valueDict(ar, *c);
        narrow(ar, m.rule);
    });

    ar.list(t.iterations, [&](IterationSpan& s) {
        ar.pod(s.number);
        ar.text(s.name);
        ar.pod(s.start);
        ar.pod(s.end);
    });
    ar.pod(t.iterationRule);
    ar.pod(t.iterationConfidence);
    ar.pod(t.captureStart);
    ar.pod(t.captureEnd);
    ar.report(t.report);
    ar.pod(t.parts);
    // Not kept: ownedFiles (a converted copy is never cached), loadSeconds and loadPhases (the
    // reopen sets its own), the GPU tables' importStreams (emptied at assembly).
}

#if defined(__GLIBCXX__) && defined(__x86_64__)
// The layout this list was written against (libstdc++, x86-64). A new Trace field changes it:
// add the field above, then update the size.
static_assert(sizeof(Trace) == 7040,
              "Trace changed: add the new field to core/cache/trace_fields.h");
#endif

} // namespace ls::cache_fields
