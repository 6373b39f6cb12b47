#include "core/import/ncu/ncu_csv.h"

#include "core/import/ncu/ncu_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <system_error>
#include <unordered_map>

namespace ls {

using ncu::decimalsOf;
using ncu::parseUnsigned;
using ncu::UnitScale;
using ncu::unitScale;

namespace {

// ---------------------------------------------------------------------------------------------
// RFC 4180 records with line numbers, so errors can say where the file goes wrong.

struct Record {
    std::vector<std::string> fields;
    size_t line = 0; // where the record starts, 1-based
};

class CsvCursor {
  public:
    CsvCursor(std::string_view text, size_t pos, size_t line)
        : text_(text), pos_(pos), line_(line) {}
    bool atEnd() const { return pos_ >= text_.size(); }
    size_t line() const { return line_; }
    std::string_view restOfLine() const {
        const size_t end = text_.find('\n', pos_);
        return text_.substr(pos_,
                            end == std::string_view::npos ? std::string_view::npos : end - pos_);
    }
    void skipLine() {
        const size_t end = text_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? text_.size() : end + 1;
        ++line_;
    }
    // Reads one record; false with error set on a malformed one.
    bool read(Record& r, std::string& error) {
        r.fields.clear();
        r.line = line_;
        std::string field;
        while (true) {
            if (pos_ < text_.size() && text_[pos_] == '"') {
                ++pos_;
                while (true) {
                    if (pos_ >= text_.size()) {
                        error = "line " + std::to_string(r.line) +
                                ": truncated: the file ends inside a quoted field";
                        return false;
                    }
                    const char c = text_[pos_++];
                    if (c == '"') {
                        if (pos_ < text_.size() && text_[pos_] == '"') {
                            field += '"';
                            ++pos_;
                        } else {
                            break;
                        }
                    } else {
                        if (c == '\n') ++line_;
                        field += c;
                    }
                }
                if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
                    text_[pos_] != '\r') {
                    error = "line " + std::to_string(line_) + ": text after a closing quote";
                    return false;
                }
            } else {
                while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
                       text_[pos_] != '\r') {
                    if (text_[pos_] == '"') {
                        error =
                            "line " + std::to_string(line_) + ": a quote inside an unquoted field";
                        return false;
                    }
                    field += text_[pos_++];
                }
            }
            r.fields.push_back(std::move(field));
            field.clear();
            if (pos_ >= text_.size()) return true;
            const char c = text_[pos_++];
            if (c == ',') continue;
            if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
            ++line_;
            return true;
        }
    }

  private:
    std::string_view text_;
    size_t pos_;
    size_t line_;
};

bool isBlank(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

bool isHeaderLine(std::string_view line) {
    return line.rfind("\"ID\",", 0) == 0 || line.rfind("ID,", 0) == 0;
}

// ---------------------------------------------------------------------------------------------

struct Cell {
    uint32_t kernel, metric;
    double value;
    uint32_t text;
    int8_t decimals;
};

// Columns that identify a launch or annotate a details line; everything else on the raw page is a
// metric.
constexpr std::array<std::string_view, 21> kIdentityColumns = {
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
};

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}
    NcuParseResult run();

  private:
    bool fail(size_t line, const std::string& what) {
        error_ = line ? "line " + std::to_string(line) + ": " + what : what;
        return false;
    }
    int col(std::string_view name) const {
        for (size_t i = 0; i < header_.size(); ++i)
            if (header_[i] == name) return static_cast<int>(i);
        return -1;
    }
    std::string_view field(const Record& r, int c) const {
        return c >= 0 && static_cast<size_t>(c) < r.fields.size() ? std::string_view(r.fields[c])
                                                                  : std::string_view();
    }
    bool readHeader(const Record& r);
    bool kernelOf(const Record& r, uint32_t& kernel);
    bool detailsRow(const Record& r);
    bool rawRow(const Record& r);
    uint32_t intern(std::string_view s);
    void addCell(uint32_t kernel, uint32_t metric, std::string_view value, std::string_view unit,
                 size_t line);
    NcuCsv finish();

    std::string_view text_;
    std::string error_;
    NcuCsv out_;
    std::vector<std::string> header_;
    size_t minFields_ = 0;
    int cId_ = -1, cPid_ = -1, cProcess_ = -1, cHost_ = -1, cName_ = -1, cContext_ = -1,
        cStream_ = -1;
    int cBlock_ = -1, cGrid_ = -1, cDevice_ = -1, cCc_ = -1, cSection_ = -1, cMetric_ = -1,
        cUnit_ = -1, cValue_ = -1;
    std::vector<int> rawColumns_; // raw page: metric index → column
    bool sawRawUnits_ = false, sawRawRow_ = false;
    std::unordered_map<uint64_t, uint32_t> kernelById_;
    std::unordered_map<std::string, uint32_t> metricByKey_;
    std::unordered_map<std::string, uint32_t> textIds_;
    std::vector<Cell> cells_;
    std::vector<uint8_t> unitWarned_;
};

bool Parser::readHeader(const Record& r) {
    header_ = r.fields;
    while (!header_.empty() && header_.back().empty()) header_.pop_back();
    cId_ = col("ID");
    cName_ = col("Kernel Name");
    if (cName_ < 0)
        return fail(r.line,
                    "the header has no \"Kernel Name\" column; is this `ncu --csv` output?");
    cPid_ = col("Process ID");
    cProcess_ = col("Process Name");
    cHost_ = col("Host Name");
    cContext_ = col("Context");
    cStream_ = col("Stream");
    cBlock_ = col("Block Size");
    cGrid_ = col("Grid Size");
    cDevice_ = col("Device");
    cCc_ = col("CC");
    cSection_ = col("Section Name");
    cMetric_ = col("Metric Name");
    cUnit_ = col("Metric Unit");
    cValue_ = col("Metric Value");
    if ((cMetric_ >= 0) != (cValue_ >= 0))
        return fail(r.line,
                    "the header has one of \"Metric Name\" and \"Metric Value\" but not the other");
    out_.page = cMetric_ >= 0 ? NcuPage::Details : NcuPage::Raw;
    for (int c : {cId_, cPid_, cName_, cContext_, cStream_, cBlock_, cGrid_, cDevice_, cSection_,
                  cMetric_, cUnit_, cValue_})
        minFields_ = std::max(minFields_, static_cast<size_t>(c + 1));
    if (out_.page == NcuPage::Raw) {
        for (size_t c = 0; c < header_.size(); ++c) {
            if (std::find(kIdentityColumns.begin(), kIdentityColumns.end(), header_[c]) !=
                kIdentityColumns.end())
                continue;
            if (header_[c].empty())
                return fail(r.line,
                            "column " + std::to_string(c + 1) + " of the header has no name");
            metricByKey_.emplace(header_[c], static_cast<uint32_t>(out_.metrics.size()));
            out_.metrics.push_back(NcuMetricInfo{std::string(), header_[c], std::string()});
            rawColumns_.push_back(static_cast<int>(c));
        }
        if (out_.metrics.empty())
            return fail(r.line, "the header names no metric columns and no \"Metric Name\"");
    }
    return true;
}

uint32_t Parser::intern(std::string_view s) {
    auto [it, added] =
        textIds_.try_emplace(std::string(s), static_cast<uint32_t>(out_.textPool.size()));
    if (added) out_.textPool.emplace_back(s);
    return it->second;
}

bool Parser::kernelOf(const Record& r, uint32_t& kernel) {
    const auto id = parseUnsigned<uint64_t>(field(r, cId_));
    if (!id) return fail(r.line, "the ID \"" + std::string(field(r, cId_)) + "\" is not a number");
    const std::string_view name = field(r, cName_);
    if (auto it = kernelById_.find(*id); it != kernelById_.end()) {
        kernel = it->second;
        if (out_.kernels[kernel].name != name)
            return fail(
                r.line,
                "ID " + std::to_string(*id) +
                    " appears again with another kernel name (several reports in one file?)");
        return true;
    }
    NcuKernel k;
    k.id = *id;
    k.name = std::string(name);
    k.pid = parseUnsigned<uint32_t>(field(r, cPid_)).value_or(0);
    k.processName = std::string(field(r, cProcess_));
    k.hostName = std::string(field(r, cHost_));
    k.context = parseUnsigned<uint32_t>(field(r, cContext_)).value_or(0);
    k.stream = parseUnsigned<uint32_t>(field(r, cStream_)).value_or(0);
    if (auto d = parseUnsigned<uint32_t>(field(r, cDevice_))) k.device = static_cast<int>(*d);
    k.cc = std::string(field(r, cCc_));
    const auto grid = parseNcuDim3(field(r, cGrid_)), block = parseNcuDim3(field(r, cBlock_));
    if (grid && block) {
        k.grid = *grid;
        k.block = *block;
        k.hasDims = true;
    }
    kernel = static_cast<uint32_t>(out_.kernels.size());
    kernelById_.emplace(*id, kernel);
    out_.kernels.push_back(std::move(k));
    return true;
}

void Parser::addCell(uint32_t kernel, uint32_t metric, std::string_view value,
                     std::string_view unit, size_t line) {
    Cell c{kernel, metric, NAN, 0, -1};
    if (auto v = parseNcuNumber(value)) {
        c.value = *v;
        c.decimals = decimalsOf(value);
        const std::string& want = out_.metrics[metric].unit;
        if (unit != want) {
            const UnitScale *from = unitScale(unit), *to = unitScale(want);
            if (from && to && from->family == to->family) {
                c.value = *v * from->factor / to->factor;
                c.decimals = -1;
            } else {
                c.value = NAN;
                c.text = intern(std::string(value) + " " + std::string(unit));
                if (unitWarned_.size() <= metric) unitWarned_.resize(metric + 1);
                if (!unitWarned_[metric]++)
                    out_.warnings.push_back("line " + std::to_string(line) + ": " +
                                            out_.columnName(metric) + " is in \"" +
                                            std::string(unit) + "\" here; kept as text");
            }
        }
    } else if (!value.empty()) {
        c.text = intern(value);
    }
    cells_.push_back(c);
}

bool Parser::detailsRow(const Record& r) {
    uint32_t kernel = 0;
    if (!kernelOf(r, kernel)) return false;
    const std::string_view name = field(r, cMetric_);
    if (name.empty()) { // a rule (advice) line
        ++out_.ruleRows;
        return true;
    }
    const std::string_view section = field(r, cSection_), unit = field(r, cUnit_);
    std::string key = std::string(section) + '\x1f' + std::string(name);
    auto [it, added] =
        metricByKey_.try_emplace(std::move(key), static_cast<uint32_t>(out_.metrics.size()));
    if (added)
        out_.metrics.push_back(
            NcuMetricInfo{std::string(section), std::string(name), std::string(unit)});
    addCell(kernel, it->second, field(r, cValue_), unit, r.line);
    return true;
}

bool Parser::rawRow(const Record& r) {
    if (r.fields.size() != header_.size() &&
        !(r.fields.size() == header_.size() + 1 && r.fields.back().empty()))
        return fail(r.line,
                    std::to_string(r.fields.size()) + " fields where the header has " +
                        std::to_string(header_.size()) +
                        (r.fields.size() < header_.size()
                             ? " (truncated, or details-page lines under a raw-page header?)"
                             : ""));
    if (field(r, cId_).empty()) { // the units line under the header
        if (sawRawUnits_ || sawRawRow_) return fail(r.line, "a line without an ID");
        sawRawUnits_ = true;
        for (size_t m = 0; m < rawColumns_.size(); ++m)
            out_.metrics[m].unit = r.fields[rawColumns_[m]];
        return true;
    }
    sawRawRow_ = true;
    uint32_t kernel = 0;
    if (!kernelOf(r, kernel)) return false;
    for (uint32_t m = 0; m < rawColumns_.size(); ++m)
        addCell(kernel, m, r.fields[rawColumns_[m]], out_.metrics[m].unit, r.line);
    return true;
}

NcuCsv Parser::finish() {
    NcuCsv& o = out_;
    // Kernels in ID order; cells follow their kernels.
    std::vector<uint32_t> order(o.kernels.size()), rank(o.kernels.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return o.kernels[a].id < o.kernels[b].id; });
    std::vector<NcuKernel> sorted;
    sorted.reserve(order.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
        rank[order[i]] = i;
        sorted.push_back(std::move(o.kernels[order[i]]));
    }
    o.kernels = std::move(sorted);
    const size_t n = o.kernels.size() * o.metrics.size();
    o.values.assign(n, NAN);
    o.texts.assign(n, 0);
    o.present.assign(n, 0);
    o.decimals.assign(n, -1);
    size_t duplicates = 0;
    for (const Cell& c : cells_) {
        const size_t i = o.index(rank[c.kernel], c.metric);
        if (o.present[i]) {
            ++duplicates;
            continue;
        }
        o.present[i] = 1;
        o.values[i] = c.value;
        o.texts[i] = c.text;
        o.decimals[i] = c.decimals;
    }
    if (duplicates)
        o.warnings.push_back(std::to_string(duplicates) +
                             " repeated (kernel, metric) lines; the first of each kept");
    if (o.page == NcuPage::Details && !o.kernels.empty()) {
        // A details table cut between two lines leaves its last kernel with fewer metrics.
        size_t most = 0;
        std::vector<size_t> per(o.kernels.size());
        for (size_t k = 0; k < o.kernels.size(); ++k) {
            per[k] = static_cast<size_t>(std::count(
                o.present.begin() + static_cast<ptrdiff_t>(k * o.metrics.size()),
                o.present.begin() + static_cast<ptrdiff_t>((k + 1) * o.metrics.size()), 1));
            most = std::max(most, per[k]);
        }
        for (size_t k = 0; k < o.kernels.size(); ++k)
            if (per[k] < most)
                o.warnings.push_back("kernel ID " + std::to_string(o.kernels[k].id) + " has " +
                                     std::to_string(per[k]) + " of " + std::to_string(most) +
                                     " metrics");
    }
    return std::move(o);
}

NcuParseResult Parser::run() {
    NcuParseResult result;
    if (text_.rfind("\xEF\xBB\xBF", 0) == 0) text_.remove_prefix(3);
    if (std::all_of(text_.begin(), text_.end(),
                    [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; })) {
        result.error = "the file is empty";
        return result;
    }
    // The header is the first line starting with "ID",: the program's own output comes before it.
    size_t pos = 0, line = 1;
    while (pos < text_.size()) {
        size_t end = text_.find('\n', pos);
        if (end == std::string_view::npos) end = text_.size();
        if (isHeaderLine(text_.substr(pos, end - pos))) break;
        pos = end + 1;
        ++line;
    }
    if (pos >= text_.size()) {
        result.error = "no Nsight Compute CSV header (a line starting with \"ID\",\"Process ID\"); "
                       "is this `ncu --csv` output?";
        return result;
    }
    out_.skippedLines = line - 1;
    CsvCursor cursor(text_, pos, line);
    Record r;
    if (!cursor.read(r, error_) || !readHeader(r)) {
        result.error = error_;
        return result;
    }
    const NcuPage page = out_.page;
    while (!cursor.atEnd()) {
        const std::string_view rest = cursor.restOfLine();
        if (isBlank(rest) ||
            rest.rfind("==", 0) == 0) { // blank, or ncu's own ==PROF== / ==WARNING== lines
            cursor.skipLine();
            continue;
        }
        if (!cursor.read(r, error_)) {
            result.error = error_;
            return result;
        }
        if (!r.fields.empty() && r.fields[0] == "ID" && r.fields.size() > 1 &&
            r.fields[1] == "Process ID") {
            const bool details =
                std::find(r.fields.begin(), r.fields.end(), "Metric Name") != r.fields.end();
            const bool same = details == (page == NcuPage::Details);
            fail(r.line, same ? "a second header: several ncu reports in one file; split them"
                              : std::string("a ") + (details ? "details" : "raw") +
                                    "-page header after a " + std::string(ncuPageName(page)) +
                                    "-page table: mixed pages; split them");
            result.error = error_;
            return result;
        }
        bool ok = true;
        if (page == NcuPage::Details) {
            if (r.fields.size() < minFields_) {
                ok = fail(r.line, std::to_string(r.fields.size()) +
                                      " fields where a details line has at least " +
                                      std::to_string(minFields_) +
                                      (cursor.atEnd() ? " (truncated?)" : ""));
            } else if (r.fields.size() > header_.size() + 1 ||
                       (r.fields.size() == header_.size() + 1 && !r.fields.back().empty())) {
                ok =
                    fail(r.line, std::to_string(r.fields.size()) + " fields where the header has " +
                                     std::to_string(header_.size()) +
                                     " (raw-page lines under a details-page header?)");
            } else {
                ok = detailsRow(r);
            }
        } else {
            ok = rawRow(r);
        }
        if (!ok) {
            result.error = error_;
            return result;
        }
    }
    if (out_.kernels.empty()) {
        result.error = "the header is followed by no kernel lines";
        return result;
    }
    result.csv = finish();
    return result;
}

} // namespace

std::string_view ncuPageName(NcuPage p) { return p == NcuPage::Details ? "details" : "raw"; }

double NcuCsv::knownValue(size_t kernel, NcuKnownMetric which) const {
    const auto m = known(which);
    if (!m) return NAN;
    const double v = value(kernel, *m);
    if (which == NcuKnownMetric::Duration) {
        const UnitScale* u = unitScale(metrics[*m].unit);
        if (!u || u->family != 0) return NAN;
        return v * u->factor;
    }
    return v;
}

NcuParseResult parseNcuCsv(std::string_view text) { return Parser(text).run(); }

NcuParseResult readNcuCsvFile(const std::string& path) {
    NcuParseResult r;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        r.error = "no such file";
        return r;
    }
    if (std::filesystem::is_directory(path, ec)) {
        r.error = "is a directory";
        return r;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        r.error = "cannot be read";
        return r;
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        r.error = "cannot be read";
        return r;
    }
    return parseNcuCsv(buf.str());
}

} // namespace ls
