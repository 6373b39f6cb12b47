#include "core/reports/table_writer.h"

#include <algorithm>
#include <ostream>

namespace ls {

std::optional<TableFormat> parseTableFormat(std::string_view s) {
    if (s == "csv") return TableFormat::Csv;
    if (s == "tsv") return TableFormat::Tsv;
    if (s == "table") return TableFormat::Text;
    return std::nullopt;
}

std::string csvField(std::string_view f) {
    if (f.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(f);
    std::string out = "\"";
    for (char c : f) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

namespace {
// TSV has no quoting; tabs and line breaks inside a field become spaces.
std::string tsvField(std::string_view f) {
    std::string out(f);
    std::replace_if(out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
    return out;
}
} // namespace

TableWriter::~TableWriter() { finish(); }

void TableWriter::setLeadingColumns(std::vector<std::string> names, std::vector<std::string> values) {
    leadingNames_ = std::move(names);
    leadingValues_ = std::move(values);
}

void TableWriter::header(std::vector<std::string> columns) {
    if (headerWritten_) return;
    headerWritten_ = true;
    columns.insert(columns.begin(), leadingNames_.begin(), leadingNames_.end());
    if (format_ == TableFormat::Text) buffered_.push_back(std::move(columns));
    else writeLine(columns);
}

void TableWriter::row(std::vector<std::string> fields) {
    if (!leadingValues_.empty()) fields.insert(fields.begin(), leadingValues_.begin(), leadingValues_.end());
    if (format_ == TableFormat::Text) buffered_.push_back(std::move(fields));
    else writeLine(fields);
}

void TableWriter::writeLine(const std::vector<std::string>& fields) {
    for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out_ << (format_ == TableFormat::Tsv ? '\t' : ',');
        const std::string& f = fields[i];
        // Most fields need no quoting: write them as they are (per-event reports have millions).
        if (format_ == TableFormat::Tsv) out_ << tsvField(f);
        else if (f.find_first_of(",\"\r\n") == std::string::npos) out_ << f;
        else out_ << csvField(f);
    }
    out_ << '\n';
}

void TableWriter::finish() {
    if (finished_) return;
    finished_ = true;
    if (format_ != TableFormat::Text) {
        out_.flush();
        return;
    }
    std::vector<size_t> width;
    for (const auto& r : buffered_)
        for (size_t i = 0; i < r.size(); ++i) {
            if (width.size() <= i) width.push_back(0);
            width[i] = std::max(width[i], std::min<size_t>(r[i].size(), 120));
        }
    for (size_t n = 0; n < buffered_.size(); ++n) {
        const auto& r = buffered_[n];
        std::string line;
        for (size_t i = 0; i < r.size(); ++i) {
            std::string cell = tsvField(r[i]);
            if (i + 1 < r.size()) cell.resize(std::max(cell.size(), width[i]), ' ');
            line += cell;
            if (i + 1 < r.size()) line += "  ";
        }
        out_ << line << '\n';
        if (n == 0) out_ << std::string(line.size(), '-') << '\n';
    }
    out_.flush();
}

} // namespace ls
