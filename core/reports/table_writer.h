#pragma once
// Writes rows as RFC 4180 CSV, TSV, or an aligned text table. CSV quotes fields holding commas,
// quotes or line breaks (demangled kernel names hold all of them).
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ls {

enum class TableFormat { Csv, Tsv, Text };
std::optional<TableFormat> parseTableFormat(std::string_view s);

std::string csvField(std::string_view field);

class TableWriter {
public:
    TableWriter(std::ostream& out, TableFormat format) : out_(out), format_(format) {}
    ~TableWriter();
    void header(std::vector<std::string> columns);
    void row(std::vector<std::string> fields);
    // The same without copies, for reports of millions of rows.
    void row(std::span<const std::string_view> fields);
    // Text tables are aligned, so they are buffered until finish() (or destruction).
    void finish();
    // Several traces in one table: rows from now on start with `values`, the header with
    // `names`; a header after the first is dropped.
    void setLeadingColumns(std::vector<std::string> names, std::vector<std::string> values);

private:
    void writeLine(const std::vector<std::string>& fields);
    void appendField(size_t column, std::string_view field);
    void flushLine();
    std::ostream& out_;
    TableFormat format_;
    std::vector<std::vector<std::string>> buffered_;
    std::string line_; // reused for each line
    bool finished_ = false;
    bool headerWritten_ = false;
    std::vector<std::string> leadingNames_, leadingValues_;
};

} // namespace ls
