#include "core/reports/table_writer.h"

#include "core/model/in_order.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <ostream>

namespace ls {

std::optional<TableFormat> parseTableFormat(std::string_view s) {
    if (s == "csv") return TableFormat::Csv;
    if (s == "tsv") return TableFormat::Tsv;
    if (s == "table") return TableFormat::Text;
    return std::nullopt;
}

namespace {

// True for the bytes that make a CSV field need quotes. A table, not find_first_of: that calls
// memchr once per byte of the field, and reports write millions of long kernel names.
constexpr auto kCsvSpecial = [] {
    std::array<bool, 256> special{};
    for (unsigned char c : {',', '"', '\r', '\n'}) special[c] = true;
    return special;
}();

// Eight bytes at a time (SWAR): w ^ (c in every byte) has a zero byte exactly where w holds c.
bool needsQuotes(std::string_view f) {
    constexpr uint64_t kOnes = 0x0101010101010101u, kHighs = 0x8080808080808080u;
    auto hasByte = [](uint64_t w, unsigned char c) {
        const uint64_t v = w ^ (kOnes * c);
        return ((v - kOnes) & ~v & kHighs) != 0;
    };
    size_t i = 0;
    for (; i + 8 <= f.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, f.data() + i, 8);
        if (hasByte(w, ',') || hasByte(w, '"') || hasByte(w, '\r') || hasByte(w, '\n')) return true;
    }
    return std::any_of(f.begin() + static_cast<std::ptrdiff_t>(i), f.end(),
                       [](char c) { return kCsvSpecial[static_cast<unsigned char>(c)]; });
}

// Appends f quoted, each quote doubled.
template <typename Out> void appendQuoted(Out& out, std::string_view f) {
    out += '"';
    for (size_t from = 0;;) {
        const size_t quote = f.find('"', from);
        out += f.substr(from, quote == std::string_view::npos ? std::string_view::npos
                                                              : quote + 1 - from);
        if (quote == std::string_view::npos) break;
        out += '"';
        from = quote + 1;
    }
    out += '"';
}

} // namespace

std::string csvField(std::string_view f) {
    if (!needsQuotes(f)) return std::string(f);
    std::string out;
    out.reserve(f.size() + 2);
    appendQuoted(out, f);
    return out;
}

namespace {
// TSV has no quoting; tabs and line breaks inside a field become spaces.
std::string tsvField(std::string_view f) {
    std::string out(f);
    std::replace_if(
        out.begin(), out.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
    return out;
}
} // namespace

TableWriter::~TableWriter() { finish(); }

void TableWriter::setLeadingColumns(std::vector<std::string> names,
                                    std::vector<std::string> values) {
    leadingNames_ = std::move(names);
    leadingValues_ = std::move(values);
}

void TableWriter::header(std::vector<std::string> columns) {
    if (headerWritten_) return;
    headerWritten_ = true;
    columns.insert(columns.begin(), leadingNames_.begin(), leadingNames_.end());
    if (format_ == TableFormat::Text)
        buffered_.push_back(std::move(columns));
    else
        writeLine(columns);
}

void TableWriter::row(std::vector<std::string> fields) {
    if (!leadingValues_.empty())
        fields.insert(fields.begin(), leadingValues_.begin(), leadingValues_.end());
    if (format_ == TableFormat::Text)
        buffered_.push_back(std::move(fields));
    else
        writeLine(fields);
}

void TableWriter::row(std::span<const std::string_view> fields) {
    if (format_ == TableFormat::Text || !leadingValues_.empty())
        return row(std::vector<std::string>(fields.begin(), fields.end()));
    if (!sink_) line_.clear();
    for (size_t i = 0; i < fields.size(); ++i) appendField(i, fields[i]);
    flushLine();
}

void TableWriter::rowsInChunks(size_t rows, size_t chunk, unsigned threads,
                               const std::function<void(size_t, size_t, TableWriter&)>& make) {
    chunk = std::max<size_t>(chunk, 1);
    const size_t chunks = (rows + chunk - 1) / chunk;
    if (format_ == TableFormat::Text || threads < 2 || chunks < 2) return make(0, rows, *this);
    makeInOrder<std::string>(
        chunks, threads, size_t(threads) + 2, // at most 2 × threads + 2 chunks in memory
        [&](size_t c, std::string& lines) {
            lines.clear();
            TableWriter into(lines, format_);
            into.headerWritten_ = true;
            into.leadingValues_ = leadingValues_;
            make(c * chunk, std::min(rows, (c + 1) * chunk), into);
        },
        [&](const std::string& lines) {
            out_->write(lines.data(), static_cast<std::streamsize>(lines.size()));
        });
}

void TableWriter::writeLine(const std::vector<std::string>& fields) {
    if (!sink_) line_.clear();
    for (size_t i = 0; i < fields.size(); ++i) appendField(i, fields[i]);
    flushLine();
}

void TableWriter::appendField(size_t column, std::string_view f) {
    std::string& out = line();
    if (column) out += format_ == TableFormat::Tsv ? '\t' : ',';
    if (format_ == TableFormat::Tsv)
        out += tsvField(f);
    else if (!needsQuotes(f))
        out += f;
    else
        appendQuoted(out, f);
}

void TableWriter::flushLine() {
    // One line is put together and written at once (per-event reports have millions).
    line() += '\n';
    if (!sink_) out_->write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

void TableWriter::finish() {
    if (finished_) return;
    finished_ = true;
    if (format_ != TableFormat::Text) {
        if (out_) out_->flush();
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
        *out_ << line << '\n';
        if (n == 0) *out_ << std::string(line.size(), '-') << '\n';
    }
    out_->flush();
}

} // namespace ls
