#include "core/reports/summary_tables/summary_table_writer.h"

#include "core/reports/summary.h"
#include "core/reports/summary_tables/paddle_text.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ls {
namespace {

std::string pct(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string_view unitName(SummaryTimeUnit u) {
    static constexpr std::string_view kNames[] = {"s", "ms", "us", "ns"};
    return kNames[static_cast<size_t>(u)];
}

std::string statCell(const TimeCell& c, SummaryTimeUnit u) {
    if (!c.present) return "- / - / - / - / -";
    if (c.totalOnly)
        return formatSummaryTime(static_cast<double>(c.d.total), u) + " / - / - / - / " +
               pct(c.ratioPct);
    const bool any = c.d.count > 0;
    return formatSummaryTime(static_cast<double>(c.d.total), u) + " / " +
           formatSummaryTime(any ? c.d.avg() : -1, u) + " / " +
           formatSummaryTime(any ? static_cast<double>(c.d.max) : -1, u) + " / " +
           formatSummaryTime(any ? static_cast<double>(c.d.min) : -1, u) + " / " + pct(c.ratioPct);
}

std::string indented(const SummaryTableRow& r) { return std::string(2u * r.depth, ' ') + r.name; }

// Long kernel names are cut to the column as Paddle cuts them ("…" in three dots).
std::string fit(std::string s, size_t width) {
    if (s.size() > width && width > 3) s = s.substr(0, width - 3) + "...";
    return s;
}

std::string calls(const SummaryTableRow& r) { return r.callsKnown ? std::to_string(r.calls) : "-"; }

std::string statTable(const SummaryTable& t, SummaryTimeUnit u, size_t nameWidth, bool cpu) {
    std::vector<std::vector<std::string>> rows;
    size_t callsWidth = 6, cpuWidth = 40, gpuWidth = 40;
    for (const auto& r : t.rows) {
        std::vector<std::string> cells = {fit(indented(r), nameWidth), calls(r)};
        if (cpu) cells.push_back(statCell(r.cpu, u));
        cells.push_back(statCell(r.gpu, u));
        callsWidth = std::max(callsWidth, cells[1].size());
        if (cpu) cpuWidth = std::max(cpuWidth, cells[2].size());
        gpuWidth = std::max(gpuWidth, cells.back().size());
        rows.push_back(std::move(cells));
    }
    std::vector<size_t> widths = {nameWidth, callsWidth};
    std::vector<std::string> header = {"Name", "Calls"};
    if (cpu) {
        widths.push_back(cpuWidth);
        header.emplace_back("CPU Total / Avg / Max / Min / Ratio(%)");
    }
    widths.push_back(gpuWidth);
    header.emplace_back("GPU Total / Avg / Max / Min / Ratio(%)");
    PaddleText p(widths);
    p.title(t.title);
    p.line("Time unit: " + std::string(unitName(u)));
    p.separator();
    p.row(header);
    p.separator();
    for (const auto& r : rows) p.row(r);
    p.separator();
    p.line("Note:\n" + t.note);
    p.rule();
    return std::move(p).text();
}

std::string overviewText(const SummaryTable& t, SummaryTimeUnit u) {
    PaddleText p({25, 25, 25, 25});
    p.title(t.title);
    p.line("Time unit: " + std::string(unitName(u)));
    p.separator();
    p.row({"Event Type", "Calls", "CPU Time", "Ratio (%)"});
    p.separator();
    for (const auto& r : t.rows) {
        if (r.kind == SummaryRowKind::GpuSection) {
            p.separator();
            p.row({"", "Calls", "GPU Time", "Ratio (%)"});
            p.separator();
            continue;
        }
        const TimeCell& c = r.gpu.present ? r.gpu : r.cpu;
        p.row({indented(r), std::to_string(r.calls),
               formatSummaryTime(static_cast<double>(c.d.total), u), pct(c.ratioPct)});
    }
    p.separator();
    p.line("Note:\n" + t.note);
    p.rule();
    return std::move(p).text();
}

std::string distributionText(const SummaryTable& t, SummaryTimeUnit u) {
    PaddleText p({25, 25, 25});
    p.title(t.title);
    p.line("Time unit: " + std::string(unitName(u)));
    p.separator();
    p.row({"Name", "Total Time", "Ratio (%)"});
    p.separator();
    for (const auto& r : t.rows)
        p.row({indented(r), formatSummaryTime(static_cast<double>(r.cpu.d.total), u),
               pct(r.cpu.ratioPct)});
    p.separator();
    p.line("Note:\n" + t.note);
    p.rule();
    return std::move(p).text();
}

} // namespace

std::optional<SummaryTimeUnit> parseSummaryTimeUnit(std::string_view s) {
    if (s == "s") return SummaryTimeUnit::S;
    if (s == "ms") return SummaryTimeUnit::Ms;
    if (s == "us") return SummaryTimeUnit::Us;
    if (s == "ns") return SummaryTimeUnit::Ns;
    return std::nullopt;
}

std::string formatSummaryTime(double ns, SummaryTimeUnit unit) {
    if (ns < 0) return "-";
    static constexpr double kDivisor[] = {1e9, 1e6, 1e3, 1};
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f", ns / kDivisor[static_cast<size_t>(unit)]);
    return buf;
}

std::string_view summaryRowKindName(SummaryRowKind k) {
    static constexpr std::string_view kNames[] = {"total", "event_type", "phase",      "op",
                                                  "inner", "kernel",     "gpu_section"};
    return kNames[static_cast<size_t>(k)];
}

void writeSummaryTableRows(TableWriter& w, const SummaryTable& table) {
    w.header({"name", "calls", "cpu_total_ns", "cpu_avg_ns", "cpu_max_ns", "cpu_min_ns",
              "cpu_ratio_pct", "gpu_total_ns", "gpu_avg_ns", "gpu_max_ns", "gpu_min_ns",
              "gpu_ratio_pct", "depth", "kind"});
    auto cells = [](const TimeCell& c, std::vector<std::string>& f) {
        if (!c.present) {
            f.insert(f.end(), 5, std::string());
            return;
        }
        const bool stats = !c.totalOnly && c.d.count > 0;
        f.push_back(std::to_string(c.d.total));
        f.push_back(stats ? formatOneDecimal(c.d.avg()) : std::string());
        f.push_back(stats ? std::to_string(c.d.max) : std::string());
        f.push_back(stats ? std::to_string(c.d.min) : std::string());
        f.push_back(pct(c.ratioPct));
    };
    for (const auto& r : table.rows) {
        if (r.kind == SummaryRowKind::GpuSection) continue;
        std::vector<std::string> f = {r.name, r.callsKnown ? std::to_string(r.calls) : ""};
        cells(r.cpu, f);
        cells(r.gpu, f);
        f.push_back(std::to_string(r.depth));
        f.emplace_back(summaryRowKindName(r.kind));
        w.row(std::move(f));
    }
}

std::string formatSummaryTableText(const SummaryTable& table, SummaryTimeUnit unit) {
    if (table.title == "Overview Summary") return overviewText(table, unit);
    if (table.title == "Distribution Summary") return distributionText(table, unit);
    if (table.title == "Kernel Summary") return statTable(table, unit, 90, false);
    if (table.title == "Operator Summary") return statTable(table, unit, 52, true);
    return statTable(table, unit, 15, true);
}

} // namespace ls
