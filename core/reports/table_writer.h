#pragma once
// Writes rows as RFC 4180 CSV, TSV, or an aligned text table. CSV quotes fields holding commas,
// quotes or line breaks (demangled kernel names hold all of them).
#include <cstddef>
#include <functional>
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
    TableWriter(std::ostream& out, TableFormat format) : out_(&out), format_(format) {}
    ~TableWriter();
    void header(std::vector<std::string> columns);
    void row(std::vector<std::string> fields);
    // The same without copies, for reports of millions of rows.
    void row(std::span<const std::string_view> fields);
    // Rows [0, rows) made by make(from, to, into) in chunks of `chunk` rows on `threads` threads,
    // each chunk into a writer of its own, and written here in order: for reports of millions of
    // rows whose making (texts read back, numbers formatted) would otherwise hold one core. At
    // most 2 × threads + 2 chunks are in memory at a time. Text tables make theirs here, on the
    // calling thread.
    void rowsInChunks(size_t rows, size_t chunk, unsigned threads,
                      const std::function<void(size_t, size_t, TableWriter&)>& make);
    // Text tables are aligned, so they are buffered until finish() (or destruction).
    void finish();
    // Several traces in one table: rows from now on start with `values`, the header with
    // `names`; a header after the first is dropped.
    void setLeadingColumns(std::vector<std::string> names, std::vector<std::string> values);

  private:
    // A chunk's writer (rowsInChunks): lines are appended to `lines`.
    TableWriter(std::string& lines, TableFormat format) : sink_(&lines), format_(format) {}
    std::string& line() { return sink_ ? *sink_ : line_; }
    void writeLine(const std::vector<std::string>& fields);
    void appendField(size_t column, std::string_view field);
    void flushLine();
    std::ostream* out_ = nullptr;
    std::string* sink_ = nullptr; // set instead of out_ in a chunk's writer
    TableFormat format_;
    std::vector<std::vector<std::string>> buffered_;
    std::string line_; // reused for each line
    bool finished_ = false;
    bool headerWritten_ = false;
    std::vector<std::string> leadingNames_, leadingValues_;
};

} // namespace ls
