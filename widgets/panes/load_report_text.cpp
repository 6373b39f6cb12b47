#include "widgets/panes/load_report_text.h"

namespace ls::gui {
namespace {
QString q(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())).toHtmlEscaped();
}
} // namespace

QString loadReportHtml(const Trace& t) {
    QString h;
    h += QStringLiteral("<h3>%1</h3>").arg(q(t.path));
    h += QStringLiteral("<p>%1, Nsight Systems %2, schema %3</p>")
             .arg(q(t.info.format), q(t.info.productVersion), q(t.info.schemaVersion));
    h += QStringLiteral("<table cellspacing=4>");
    auto row = [&](const QString& k, const QString& v) {
        h += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v);
    };
    row(QStringLiteral("Kernels"), QString::number(t.kernels.size()));
    row(QStringLiteral("Memcpy / memset"),
        QStringLiteral("%1 / %2").arg(t.memcpys.size()).arg(t.memsets.size()));
    row(QStringLiteral("API calls"), QString::number(t.apiCalls.size()));
    row(QStringLiteral("NVTX ranges"), QString::number(t.ranges.size()));
    row(QStringLiteral("Processes / threads"),
        QStringLiteral("%1 / %2").arg(t.processes.size()).arg(t.threads.size()));
    for (const auto& d : t.devices)
        row(QStringLiteral("GPU %1").arg(d.id),
            QStringLiteral("%1, %2 SMs").arg(q(d.name)).arg(d.smCount));
    row(QStringLiteral("Streams"), QString::number(t.streams.size()));
    h += QStringLiteral("</table><h4>Load report</h4>");
    if (t.report.empty())
        return h + QStringLiteral("<p>Nothing to report: every row was read as expected.</p>");
    h += QStringLiteral("<ul>");
    for (size_t i = 0; i < static_cast<size_t>(Anomaly::Count_); ++i) {
        const auto a = static_cast<Anomaly>(i);
        if (!t.report.count(a)) continue;
        const auto& info = anomalyInfo(a);
        QString details;
        for (const auto& d : t.report.details(a))
            details += (details.isEmpty() ? QString() : QStringLiteral(", ")) + q(d);
        h += QStringLiteral("<li><b>%1</b> %2 (%3): %4%5</li>")
                 .arg(q(info.key))
                 .arg(t.report.count(a))
                 .arg(q(severityName(info.severity)), q(info.sentence),
                      details.isEmpty() ? QString() : QStringLiteral(" [%1]").arg(details));
    }
    return h + QStringLiteral("</ul>");
}

} // namespace ls::gui
