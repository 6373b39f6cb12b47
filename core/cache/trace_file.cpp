#include "core/cache/trace_file.h"

#include "core/cache/archive.h"
#include "core/cache/trace_fields.h"

#include <algorithm>
#include <limits>

namespace ls {
namespace {

constexpr archive::Format kFormat{{'L', 'S', 'T', 'R', 'A', 'C', 'E', '\0'}, kTraceCacheVersion};

// A packed column's side tables agree with its per-row codes: what its reads index stays in
// bounds.
template <typename Codes, typename Code, typename Values>
bool farRowsMatch(const Codes& codes, Code far, const Column<uint32_t>& rows,
                  const Values& values) {
    if (rows.size() != values.size()) return false;
    size_t k = 0;
    for (size_t i = 0; i < codes.size(); ++i)
        if (codes[i] == far && (k >= rows.size() || rows[k++] != i)) return false;
    return k == rows.size();
}
bool sound(const EndColumn& e, size_t rows) {
    return e.size() == rows && farRowsMatch(e.length, EndColumn::kFar, e.farRows, e.farLength);
}
template <typename Offset, int32_t Absent>
bool sound(const BlockInt32Column<Offset, Absent>& c, size_t rows) {
    using C = BlockInt32Column<Offset, Absent>;
    return c.size() == rows && c.base.size() == (c.size() + C::kBlockRows - 1) / C::kBlockRows &&
           farRowsMatch(c.offset, C::kFarCode, c.farRows, c.farValues);
}
template <typename Id> bool sound(const BlockIdColumn<Id>& c, size_t rows) {
    using C = BlockIdColumn<Id>;
    return c.size() == rows && c.base.size() == 2 * ((rows + C::kBlockRows - 1) / C::kBlockRows) &&
           farRowsMatch(c.offset, C::kFarCode, c.farRows, c.farIds);
}
// Every row's id is below `limit` (ids index a table of that many).
// `invalid`: the column may hold the invalid id too (a kernel without a layer).
template <typename Id>
bool sound(const Dict16Column<Id>& c, size_t rows, size_t limit, bool invalid = false) {
    auto fits = [&](uint32_t id) { return id < limit || (invalid && id == Id::kInvalid); };
    bool ok = c.size() == rows && (c.code.empty() || c.wide.empty());
    for (uint16_t code : c.code) ok &= code < c.distinct.size();
    for (uint32_t id : c.distinct) ok &= fits(id);
    for (Id id : c.wide) ok &= fits(id.value);
    return ok;
}

// Codes within the table of values, or the values whole; `rows` rows or none.
template <typename T> bool sound(const ValueDict16Column<T>& c, size_t rows) {
    bool ok = (c.size() == rows || c.empty()) && (c.code.empty() || c.wide.empty());
    for (uint16_t code : c.code) ok &= code < c.distinct.size();
    return ok;
}

// A paired column's ids per code of its first column (whose codes are checked with it), or a
// column of its own.
template <typename Id>
bool sound(const PairedDict16Column<Id>& c, const Dict16Column<Id>& first, size_t rows,
           size_t limit) {
    if (!c.paired) return sound(c.own, rows, limit);
    bool ok = c.own.empty() && first.wide.empty() && c.byPair.size() == first.distinct.size();
    for (uint32_t id : c.byPair) ok &= id < limit;
    return ok;
}

// Every table's columns have one length, and every id into the string pool is in it: what the
// views rely on, checked once so a cache that passes the checksum by accident cannot crash them.
bool consistent(Trace& t) {
    bool ok = true;
    // Every column of a table is empty or has the table's rows.
    auto same = [&](size_t rows, auto&& tuple) {
        std::apply([&](auto&... v) { ((ok &= v.empty() || v.size() == rows), ...); }, tuple);
    };
    same(t.kernels.size(), t.kernels.tie());
    same(t.memcpys.size(), t.memcpys.tie());
    same(t.memsets.size(), t.memsets.tie());
    same(t.apiCalls.size(), t.apiCalls.tie());
    same(t.ranges.size(), t.ranges.tie());
    ok &= t.apiCalls.start.blocksConsistent() && t.ranges.start.blocksConsistent();
    for (const DictColumn<Dim3>* d : {&t.kernels.grid, &t.kernels.block})
        for (uint32_t code : d->code) ok &= code < d->distinct.size();
    for (const auto* c : {&t.kernels.staticSmem, &t.kernels.dynamicSmem, &t.kernels.smemConfig})
        ok &= sound(*c, t.kernels.size());
    const KernelGraphColumns& g = t.kernelGraph;
    same(t.kernels.size(),
         std::tie(t.kernels.start, g.graph, g.node, g.originalNode, g.capture, g.how));
    // Graph columns are all there or all absent.
    ok &= g.how.size() == g.graph.size() && g.how.size() == g.capture.size();
    for (ApiCallId c : g.capture) ok &= !c.valid() || c.value < t.apiCalls.size();
    ok &= t.rangeSourceRows.consistent(t.ranges.size());
    ok &= t.threadRangeBegin.empty() ||
          (t.threadRangeBegin.front() == 0 && t.threadRangeBegin.back() == t.ranges.size() &&
           std::is_sorted(t.threadRangeBegin.begin(), t.threadRangeBegin.end()));
    const size_t strings = t.strings.size();
    for (const auto* names : {&t.kernels.name, &t.kernels.shortName})
        for (StringId id : *names) ok &= id.value < strings;
    const ApiCallColumns& a = t.apiCalls;
    ok &= sound(a.end, a.size()) && sound(a.result, a.size()) && sound(a.correlation, a.size()) &&
          sound(a.name, a.size(), strings) &&
          sound(a.thread, a.size(), std::numeric_limits<uint32_t>::max());
    const RangeColumns& r = t.ranges;
    ok &= sound(r.end, r.size()) && sound(r.opId, r.size()) && sound(r.name, r.size(), strings) &&
          sound(r.sizes, r.name, r.size(), strings);
    ok &= r.shape.size() == r.size() && (r.shape.code.empty() || r.shape.wide.empty());
    for (uint8_t code : r.shape.code) ok &= code < r.shape.distinct.size();
    // Correlation and costs, where the cache holds them (parts read leave them empty).
    const size_t kernels = t.kernels.size();
    const OpColumns& o = t.ops;
    if (!o.range.empty() || !o.extent.empty() || !o.layer.empty())
        ok &= sound(o.range, o.size()) && sound(o.extent, o.size()) &&
              sound(o.layer, o.size(), strings, true);
    const KernelLinks& l = t.kernelLinks;
    if (!l.range.empty() || !l.op.empty() || !l.opInstance.empty() || !l.layer.empty())
        ok &= sound(l.range, kernels) && sound(l.op, kernels) && sound(l.opInstance, kernels) &&
              sound(l.layer, kernels, strings, true);
    if (!t.metrics.rule.empty()) ok &= sound(t.metrics.rule, kernels, strings, true);
    ok &= sound(t.metrics.flops, kernels) && sound(t.metrics.bytes, kernels);
    return ok;
}

} // namespace

std::string writeTraceFile(const Trace& trace, const std::string& identity,
                           const std::string& file) {
    // The writer only reads what it visits.
    return archive::write(file, kFormat, identity, [&](archive::Writer& w) {
        cache_fields::visit(w, const_cast<Trace&>(trace));
    });
}

// A trace read in part, as a partial import leaves it: parts left out are empty and nothing
// points into them.
void markParts(Trace& t, uint32_t wanted) {
    t.parts &= heldLoadParts(wanted);
    if (!(wanted & kLoadApiCalls))
        for (auto* launch : {&t.kernels.launch, &t.memcpys.launch, &t.memsets.launch})
            std::fill(launch->begin(), launch->end(), ApiCallId());
    if (!(wanted & kLoadApiCalls))
        std::fill(t.kernelGraph.capture.begin(), t.kernelGraph.capture.end(), ApiCallId());
}

TraceFileRead readTraceFile(const std::string& file, const std::string& identity, uint32_t parts) {
    auto trace = std::make_shared<Trace>();
    const uint32_t wanted = closeLoadParts(parts);
    if (std::string why =
            archive::read(file, kFormat, identity, wanted,
                          [&](archive::Reader& r) { cache_fields::visit(r, *trace); });
        !why.empty())
        return {nullptr, why};
    if (!consistent(*trace)) return {nullptr, "damaged (inconsistent columns)"};
    markParts(*trace, wanted);
    return {std::move(trace), {}};
}

} // namespace ls
