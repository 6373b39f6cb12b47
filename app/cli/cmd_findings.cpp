// layerscope-cli findings FILE...: what is wrong with a trace (or the ranks of a job), costliest
// first, each with its cost per iteration, the bound it is estimated against, its evidence and
// what usually fixes it (core/findings, docs/findings.md).
#include "app/cli/commands.h"
#include "core/findings/compare_findings.h"
#include "core/findings/findings.h"

#include <cstdio>
#include <filesystem>
#include <ostream>
#include <string>

namespace ls::cli {
namespace {

std::string msText(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ms);
    return buf;
}

std::string jsonString(std::string_view s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::string evidenceText(const Session& s, const Finding& f) {
    std::string text = f.evidence.text;
    if (s.traces.size() > 1 && f.evidence.trace < s.traces.size())
        text += " (" + s.traces[f.evidence.trace].file + ")";
    text += ": " + std::to_string(f.evidence.kernels.size()) + " kernels, " +
            std::to_string(f.evidence.ranges.size()) + " ranges";
    return text;
}

void writeJson(const Session& s, const FindingList& list, std::ostream& out) {
    out << "{\n  \"iteration_ms\": " << msText(list.iterationMs)
        << ",\n  \"iterations\": " << list.iterations
        << ",\n  \"iteration_basis\": " << jsonString(list.iterationBasis)
        << ",\n  \"findings\": [";
    for (size_t i = 0; i < list.findings.size(); ++i) {
        const Finding& f = list.findings[i];
        out << (i ? "," : "") << "\n    {\"rank\": " << i + 1
            << ", \"rule\": " << jsonString(f.rule)
            << ", \"statement\": " << jsonString(f.statement)
            << ", \"cost_ms_per_iteration\": " << msText(f.costMsPerIteration)
            << ", \"bound\": " << jsonString(f.bound) << ", \"fix\": " << jsonString(f.fix)
            << ", \"evidence\": " << jsonString(evidenceText(s, f)) << ", \"file\": "
            << jsonString(f.evidence.trace < s.traces.size() ? s.traces[f.evidence.trace].file : "")
            << ", \"ranks\": [";
        for (size_t r = 0; r < f.evidence.ranks.size(); ++r)
            out << (r ? ", " : "") << f.evidence.ranks[r];
        out << "], \"figures\": {";
        for (size_t k = 0; k < f.figures.size(); ++k) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%.17g", f.figures[k].second);
            out << (k ? ", " : "") << jsonString(f.figures[k].first) << ": " << buf;
        }
        out << "}}";
    }
    out << "\n  ]\n}\n";
}

} // namespace

int commandFindings(const Options& o, Context& c) {
    const std::string formatName = o.get("format", "table");
    std::optional<TableFormat> format;
    if (formatName != "json") {
        format = parseTableFormat(formatName);
        if (!format) {
            c.err << "error: --format must be table, csv, tsv or json\n";
            return kUsage;
        }
    }
    int rc = 0;
    const auto session = loadSessionForCommand(o, c, rc);
    if (!session) return rc;
    FindingList list;
    if (const std::string reference = o.get("compare", ""); !reference.empty()) {
        // The reference is one run: a comparison of rank against rank needs `diff --a-rank`.
        LoadResult r = loadTrace(reference, cliLoadOptions(o));
        if (!r.ok()) {
            c.err << formatLoadError(reference, *r.error) << "\n";
            return kUnreadable;
        }
        DiffSide side;
        side.trace = r.trace;
        side.label = std::filesystem::path(reference).filename().string();
        list = findingsAgainst(*session, side);
    } else {
        list = findings(*session);
    }
    if (formatName == "json") {
        writeJson(*session, list, c.out);
        return rc;
    }
    if (*format == TableFormat::Text)
        c.out << "iteration: " << msText(list.iterationMs) << " ms (" << list.iterationBasis << ", "
              << list.iterations << " iterations)\n";
    TableWriter w(c.out, *format);
    w.header({"rank", "rule", "statement", "cost_ms_per_iteration", "bound", "evidence", "fix"});
    for (size_t i = 0; i < list.findings.size(); ++i) {
        const Finding& f = list.findings[i];
        w.row({std::to_string(i + 1), f.rule, f.statement, msText(f.costMsPerIteration), f.bound,
               evidenceText(*session, f), f.fix});
    }
    w.finish();
    if (list.findings.empty() && *format == TableFormat::Text)
        c.out << "no findings: nothing costs more than 1 % of an iteration\n";
    return rc;
}

} // namespace ls::cli
