#include "widgets/tables/kernel_details.h"

#include "core/pytorch/correlation.h"
#include "core/pytorch/graph_replay.h"
#include "widgets/tables/details_view.h"
#include "widgets/util/units.h"

namespace ls::gui {
namespace {

// Values wrap at their punctuation in a narrow dock (see DetailsView).
QString esc(std::string_view s) {
    return breakableHtml(QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())));
}

class Html {
  public:
    void section(const QString& title) {
        end();
        out_ += QStringLiteral(
                    "<h4 style='margin:8px 0 2px 0'>%1</h4><table cellspacing='0' cellpadding='1'>")
                    .arg(title);
        open_ = true;
    }
    void row(const QString& key, const QString& value) {
        if (value.isEmpty()) return;
        out_ += QStringLiteral("<tr><td style='color:#666;padding-right:8px;white-space:nowrap' "
                               "valign='top'>%1</td><td>%2</td></tr>")
                    .arg(key, value);
    }
    void end() {
        if (open_) out_ += QStringLiteral("</table>");
        open_ = false;
    }
    void raw(const QString& html) { out_ += html; }
    QString text() {
        end();
        return out_;
    }

  private:
    QString out_;
    bool open_ = false;
};

QString field(const KernelTable& t, KernelId k, KernelField f) { return esc(t.text(k, f)); }

// Where a kernel replayed by a CUDA graph launch came from: its graph and node, the node it was
// cloned from, and the launch call made during capture whose op and ranges it takes.
void graphSection(Html& h, const Trace& t, uint32_t i) {
    const auto& g = t.kernelGraph;
    if (g.empty() || g.how[i] == GraphAttribution::None) return;
    h.section(QStringLiteral("CUDA graph"));
    h.row(QStringLiteral("Graph"), esc(graphLabel(t, i)));
    if (g.node[i] != kNoGraphNode) {
        h.row(QStringLiteral("Node id"), QString::number(g.node[i]));
        if (g.originalNode[i] != g.node[i])
            h.row(QStringLiteral("Cloned from"),
                  QStringLiteral("graph %1 node %2 (id %3, at instantiation)")
                      .arg(g.originalNode[i] >> 32)
                      .arg(g.originalNode[i] & 0xFFFFFFFFu)
                      .arg(g.originalNode[i]));
    }
    const ApiCallId launch = t.kernels.launch[i];
    if (launch.valid()) {
        const auto [k0, k1] = t.apiKernels.of(launch);
        h.row(QStringLiteral("Launch"), QStringLiteral("%1 · %L2 GPU item%3")
                                            .arg(esc(t.str(t.apiCalls.name[launch.value])))
                                            .arg(k1 - k0)
                                            .arg(k1 - k0 == 1 ? QString() : QStringLiteral("s")));
    }
    const ApiCallId c = g.capture[i];
    switch (g.how[i]) {
    case GraphAttribution::Capture:
        h.row(QStringLiteral("Captured by"),
              QStringLiteral("%1 at %2 · correlation %3")
                  .arg(esc(t.str(t.apiCalls.name[c.value])),
                       formatOffset(t.apiCalls.start[c.value] - t.captureStart))
                  .arg(t.apiCalls.correlationOf(c.value)));
        h.row(
            QStringLiteral("Attribution"),
            QStringLiteral("op, ranges, shapes and layer of the launch call made during capture"));
        break;
    case GraphAttribution::AroundLaunch:
        h.row(QStringLiteral("Attribution"),
              QStringLiteral("<i>capture not in the trace (or no node id): the op and ranges "
                             "around the graph launch</i>"));
        break;
    case GraphAttribution::LaunchItem:
        h.row(QStringLiteral("Attribution"),
              QStringLiteral("<i>the whole graph launch as one item: its kernels were not traced "
                             "(nsys --cuda-graph-trace=graph; =node traces each)</i>"));
        break;
    case GraphAttribution::None:
        break;
    }
}

QString opLine(const Trace& t, OpId op) {
    const RangeId r = t.ops.range[op.value];
    QString s = esc(t.str(t.ranges.name[r.value]));
    if (t.ranges.opId[r.value] >= 0) s += QStringLiteral(" · op_id %1").arg(t.ranges.opId[r.value]);
    if (t.ranges.seq[r.value] >= 0) s += QStringLiteral(" · seq %1").arg(t.ranges.seq[r.value]);
    if (t.ranges.sizes[r.value].valid() && !t.str(t.ranges.sizes[r.value]).empty())
        s += QStringLiteral("<br><code>%1</code>").arg(esc(t.str(t.ranges.sizes[r.value])));
    return s;
}

} // namespace

QString kernelDetailsHtml(const KernelTable& table, KernelId k, const NcuMetrics* ncu) {
    const Trace& t = table.trace();
    if (!k.valid() || k.value >= t.kernels.size())
        return QStringLiteral("<p style='color:#666'>Select a kernel to see its details.</p>");
    const uint32_t i = k.value;
    const auto& kern = t.kernels;
    Html h;
    h.raw(QStringLiteral("<p style='margin:0'><b>%1</b></p>")
              .arg(field(table, k, KernelField::Name)));

    h.section(QStringLiteral("GPU"));
    h.row(QStringLiteral("Duration"),
          QStringLiteral("%1 (%2 ns)")
              .arg(formatDuration(static_cast<double>(kern.duration(i))))
              .arg(kern.duration(i)));
    h.row(
        QStringLiteral("Start"),
        QStringLiteral("%1 after capture start").arg(formatOffset(kern.start[i] - t.captureStart)));
    h.row(QStringLiteral("Device · stream"), QStringLiteral("GPU %1 · context %2 · stream %3")
                                                 .arg(t.streamOf(kern, i).device)
                                                 .arg(t.streamOf(kern, i).context)
                                                 .arg(t.streamOf(kern, i).stream));
    // A whole graph launch (graph trace mode) has no launch shape of its own.
    const bool wholeGraph =
        !t.kernelGraph.empty() && t.kernelGraph.how[i] == GraphAttribution::LaunchItem;
    if (!wholeGraph) {
        h.row(QStringLiteral("Grid · block"),
              QStringLiteral("(%1) · (%2)")
                  .arg(field(table, k, KernelField::Grid), field(table, k, KernelField::Block)));
        h.row(QStringLiteral("Registers"), QString::number(kern.registers[i]));
        h.row(QStringLiteral("Shared memory"),
              QStringLiteral("%1 static · %2 dynamic")
                  .arg(formatBytes(kern.staticSmem[i]), formatBytes(kern.dynamicSmem[i])));
    }

    h.section(QStringLiteral("Launch"));
    const ApiCallId call = kern.launch[i];
    if (call.valid()) {
        const auto& a = t.apiCalls;
        const Thread& th = t.threads[a.thread[call.value].value];
        h.row(QStringLiteral("Call"), esc(t.str(a.name[call.value])));
        h.row(QStringLiteral("Call time"),
              QStringLiteral("%1 at %2")
                  .arg(formatDuration(static_cast<double>(a.end[call.value] - a.start[call.value])),
                       formatOffset(a.start[call.value] - t.captureStart)));
        h.row(QStringLiteral("Launch → start"),
              formatDuration(static_cast<double>(kern.start[i] - a.start[call.value])));
        h.row(QStringLiteral("Thread"),
              QStringLiteral("%1%2 · pid %3")
                  .arg(th.tid)
                  .arg(th.name.empty() ? QString() : QStringLiteral(" (%1)").arg(esc(th.name)))
                  .arg(t.processes[th.process.value].pid));
    } else {
        h.row(QStringLiteral("Call"), QStringLiteral("<i>no launch call in the export</i>"));
    }
    h.row(QStringLiteral("Correlation id"), QString::number(kern.correlation[i]));
    graphSection(h, t, i);

    const auto stack = rangeStack(t, k);
    if (!stack.empty()) {
        h.section(QStringLiteral("NVTX stack"));
        for (auto it = stack.rbegin(); it != stack.rend(); ++it)
            h.row(QStringLiteral("%1").arg(it == stack.rbegin()     ? QStringLiteral("outermost")
                                           : it + 1 == stack.rend() ? QStringLiteral("innermost")
                                                                    : QString()),
                  esc(t.str(t.ranges.name[it->value])));
        h.row(QStringLiteral("Innermost (raw)"),
              QStringLiteral("<code>%1</code>").arg(field(table, k, KernelField::NvtxRange)));
    }

    h.section(QStringLiteral("Op"));
    const OpId op = t.kernelLinks.opInstance[i];
    h.row(QStringLiteral("Direction"), field(table, k, KernelField::Dir));
    h.row(QStringLiteral("Layer"), field(table, k, KernelField::Layer));
    if (op.valid()) {
        h.row(QStringLiteral("Op"), opLine(t, op));
        if (t.kernelLinks.op[i].valid() && t.kernelLinks.op[i] != t.ops.range[op.value])
            h.row(QStringLiteral("Inner op"), field(table, k, KernelField::Op));
        const OpId paired = t.ops.paired[op.value];
        if (paired.valid())
            h.row(t.ops.direction[op.value] == Direction::Backward ? QStringLiteral("Forward op")
                                                                   : QStringLiteral("Backward op"),
                  opLine(t, paired));
    } else {
        h.row(QStringLiteral("Op"),
              QStringLiteral("<i>none (no PyTorch marker around the launch)</i>"));
    }
    const QString source = field(table, k, KernelField::DataTypeSource);
    h.row(QStringLiteral("dtype"),
          field(table, k, KernelField::DataType) +
              (source.isEmpty()
                   ? QString()
                   : QStringLiteral(" <span style='color:#666'>(from %1)</span>").arg(source)));

    h.section(QStringLiteral("Work"));
    const double flops = table.number(k, KernelField::Flops),
                 bytes = table.number(k, KernelField::Bytes);
    h.row(QStringLiteral("FLOPs"),
          flops == flops ? QStringLiteral("%1 (%2)").arg(formatFlops(flops),
                                                         field(table, k, KernelField::Flops))
                         : QStringLiteral("<i>unknown</i>"));
    h.row(QStringLiteral("Bytes"),
          bytes == bytes ? QStringLiteral("%1 (%2)").arg(formatBytes(bytes),
                                                         field(table, k, KernelField::Bytes))
                         : QStringLiteral("<i>unknown</i>"));
    h.row(QStringLiteral("Intensity"),
          formatNumber(table.number(k, KernelField::Intensity), 2) +
              (flops == flops && bytes == bytes ? QStringLiteral(" FLOP/byte") : QString()));
    h.row(QStringLiteral("Achieved"),
          flops == flops ? QStringLiteral("%1 TFLOP/s · %2 GB/s")
                               .arg(formatNumber(table.number(k, KernelField::TflopsS), 2),
                                    formatNumber(table.number(k, KernelField::GbytesS), 1))
                         : QString());
    h.row(QStringLiteral("Formula"), field(table, k, KernelField::FlopsRule));
    h.row(QStringLiteral("Tensor Cores"),
          QStringLiteral("<b>%1</b> — %2")
              .arg(field(table, k, KernelField::Tc), field(table, k, KernelField::TcReason)));
    if (ncu && ncu->has(k)) {
        if (const auto measured = ncu->tensorCore(k))
            h.row(QStringLiteral("Measured"),
                  QStringLiteral("<b>%1</b> — %2")
                      .arg(esc(ncuTensorCoreText(measured->state)), esc(measured->reason)));
        for (const auto& [section, metrics] : ncu->sections()) {
            h.section(QStringLiteral("Nsight Compute: %1")
                          .arg(section.empty() ? QStringLiteral("metrics") : esc(section)));
            for (uint32_t m : metrics) {
                const auto& info = ncu->metric(m);
                const std::string value = ncu->text(k, m);
                if (!value.empty())
                    h.row(esc(info.name),
                          esc(value) + (info.unit.empty() ? QString()
                                                          : QStringLiteral(" ") + esc(info.unit)));
            }
        }
    } else if (ncu) {
        h.section(QStringLiteral("Nsight Compute"));
        h.row(QString(), QStringLiteral("<i>not measured in %1</i>").arg(esc(ncu->path())));
    }
    return h.text();
}

} // namespace ls::gui
