// layerscope-cli diff A B: two runs compared by meaning (core/compare/run_diff.h).
#include "app/cli/commands.h"
#include "core/compare/diff_table.h"
#include "core/compare/run_diff.h"

#include <filesystem>
#include <ostream>

namespace ls::cli {
namespace {

// A side's trace stays alive through the DiffSide's shared_ptr; the session only labels ranks.
std::optional<DiffSide> loadSide(const std::string& path, const std::string& rankText,
                                 const char* which, const LoadOptions& options, Context& c,
                                 int& exitCode) {
    std::error_code ec;
    const bool folder = std::filesystem::is_directory(path, ec);
    DiffSide side;
    side.label = std::string(which) + ": " + std::filesystem::path(path).filename().string();
    if (rankText.empty() && !folder) {
        LoadResult r = loadTrace(path, options);
        if (!r.ok()) {
            c.err << formatLoadError(path, *r.error) << "\n";
            exitCode = kUnreadable;
            return std::nullopt;
        }
        side.trace = r.trace;
        return side;
    }
    SessionLoadOptions sessionOptions;
    sessionOptions.load = options;
    Session s = loadSession({path}, sessionOptions);
    for (const auto& f : s.failed) c.err << "error: " << f.file << ": " << f.reason << "\n";
    if (s.empty()) {
        exitCode = kUnreadable;
        return std::nullopt;
    }
    std::string known;
    for (const auto& r : s.ranks) known += (known.empty() ? "" : " ") + std::to_string(r.rank);
    if (rankText.empty()) {
        if (s.ranks.size() != 1) {
            c.err << "error: " << path << " holds ranks " << known << ": pick one with --"
                  << (which[0] == 'A' ? "a" : "b") << "-rank N\n";
            exitCode = kUsage;
            return std::nullopt;
        }
    }
    const SessionRank* chosen =
        s.ranks.size() == 1 && rankText.empty() ? &s.ranks.front() : nullptr;
    for (const auto& r : s.ranks)
        if (!rankText.empty() && std::to_string(r.rank) == rankText) chosen = &r;
    if (!chosen) {
        c.err << "error: " << path << " has no rank " << rankText << " (its ranks: " << known
              << ")\n";
        exitCode = kUsage;
        return std::nullopt;
    }
    side.trace = s.traces[chosen->trace].trace;
    side.process = chosen->process;
    side.device = chosen->device;
    side.label += " rank " + std::to_string(chosen->rank);
    return side;
}

std::optional<int64_t> positiveInteger(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
        text.size() > 12)
        return std::nullopt;
    const int64_t v = std::stoll(text);
    return v > 0 ? std::optional(v) : std::nullopt;
}

} // namespace

int commandDiff(const Options& o, Context& c) {
    if (o.positional.size() != 2) {
        c.err << "error: diff takes two traces, A and B\n";
        return kUsage;
    }
    const auto format = formatOption(o, c);
    if (!format) return kUsage;
    const auto level = diffLevelByName(o.get("by", "layer"));
    if (!level) {
        c.err << "error: --by must be direction, layer, op, family, kernel or iteration\n";
        return kUsage;
    }
    DiffOptions options;
    options.level = *level;
    options.perSample = o.flags.count("per-sample") > 0;
    for (const auto& [key, into] :
         {std::pair("batch-a", &options.batchA), std::pair("batch-b", &options.batchB)}) {
        if (!o.values.count(key)) continue;
        const auto v = positiveInteger(o.get(key, ""));
        if (!v) {
            c.err << "error: --" << key << " must be a positive number of samples\n";
            return kUsage;
        }
        *into = *v;
    }
    int rc = kOk;
    const auto a = loadSide(o.positional[0], o.get("a-rank", ""), "A", cliLoadOptions(o), c, rc);
    if (!a) return rc;
    const auto b = loadSide(o.positional[1], o.get("b-rank", ""), "B", cliLoadOptions(o), c, rc);
    if (!b) return rc;

    const DiffResult result = diffRuns(*a, *b, options);
    // The verdict heads a table for people; CSV and TSV stay machine-readable (it goes to stderr).
    std::ostream& prose = *format == TableFormat::Text ? c.out : c.err;
    prose << result.verdict << "\n";
    prose << a->label << " (" << result.iterationsA << " iteration"
          << (result.iterationsA == 1 ? "" : "s") << "), " << b->label << " (" << result.iterationsB
          << " iteration" << (result.iterationsB == 1 ? "" : "s") << ")";
    if (options.perSample)
        prose << "; per sample: batch " << result.batchA << " (" << result.batchSourceA << ") and "
              << result.batchB << " (" << result.batchSourceB << ")";
    prose << "\n";
    for (const auto& note : result.notes) prose << "note: " << note << "\n";
    if (*format == TableFormat::Text) c.out << "\n";

    TableWriter w(c.out, *format);
    std::vector<std::string> header;
    for (const auto& col : diffColumns(*level)) header.emplace_back(col.name);
    w.header(header);
    for (const auto& row : result.rows) w.row(diffRowCells(row, *level));
    w.row(diffRowCells(result.total, *level));
    w.finish();
    return kOk;
}

} // namespace ls::cli
