// csvField and TableWriter: RFC 4180 CSV (demangled kernel names hold commas, quotes and line
// breaks), TSV without quoting, and aligned text tables. CSV output is read back with the
// tests' own RFC 4180 parser.
#include "core/reports/table_writer.h"
#include "tests/support/test_support.h"

#include <gtest/gtest.h>
#include <sstream>

namespace {

using ls::csvField;
using ls::TableFormat;
using ls::TableWriter;

TEST(CsvField, PlainFieldsAreNotQuoted) {
    EXPECT_EQ(csvField("cudaLaunchKernel"), "cudaLaunchKernel");
    EXPECT_EQ(csvField(""), "");
    EXPECT_EQ(csvField("  64   50    1"), "  64   50    1") << "spaces alone need no quotes";
    EXPECT_EQ(csvField("a;b\tc"), "a;b\tc");
}

TEST(CsvField, CommasQuotesAndLineBreaksAreQuoted) {
    EXPECT_EQ(csvField("void f<float, 4>(int)"), "\"void f<float, 4>(int)\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("\""), "\"\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csvField("cr\rhere"), "\"cr\rhere\"");
}

// The check for bytes that need quotes looks at eight bytes at a time: each special byte at every
// place of fields of every length up to 40 is found, and no other byte (neighbours of the special
// ones, high bytes of UTF-8 text) makes a field quoted.
TEST(CsvField, EverySpecialByteIsFoundWhereverItIs) {
    const std::string others = "+-./\x0b\x0c\x0e\x21\x23\x80\xc3\xa9\xff a";
    for (size_t size = 1; size <= 40; ++size)
        for (size_t at = 0; at < size; ++at) {
            std::string plain(size, 'x');
            for (size_t i = 0; i < size; ++i) plain[i] = others[(i + at) % others.size()];
            EXPECT_EQ(csvField(plain), plain) << "size " << size;
            for (char special : {',', '"', '\r', '\n'}) {
                std::string f = plain;
                f[at] = special;
                const std::string got = csvField(f);
                ASSERT_TRUE(got.size() > f.size() && got.front() == '"' && got.back() == '"')
                    << "byte " << int(special) << " at " << at << " of " << size;
            }
        }
}

TEST(TableWriter, CsvRoundTripsThroughAnRfc4180Parser) {
    const std::vector<std::string> header = {"Name", "Value"};
    const std::vector<std::vector<std::string>> rows = {
        {"void at::native::<unnamed>::kernel<float, (int)4>(T1, T2)", "1"},
        {"quote \"inside\", and comma", ""},
        {"line\nbreak", "\"\""},
        {"", "trailing,"},
    };
    std::ostringstream out;
    {
        TableWriter w(out, TableFormat::Csv);
        w.header(header);
        for (const auto& r : rows) w.row(r);
    }
    std::string error;
    const auto parsed = ls::test::parseCsv(out.str(), &error);
    ASSERT_EQ(error, "") << out.str();
    ASSERT_EQ(parsed.size(), rows.size() + 1);
    EXPECT_EQ(parsed[0], header);
    for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(parsed[i + 1], rows[i]) << "row " << i;
}

TEST(TableWriter, CsvLinesEndWithLfAndFieldsAreSeparatedByCommas) {
    std::ostringstream out;
    TableWriter w(out, TableFormat::Csv);
    w.row({"a", "b,c", "d"});
    w.finish();
    EXPECT_EQ(out.str(), "a,\"b,c\",d\n");
}

TEST(TableWriter, TsvReplacesTabsAndLineBreaksInsideFields) {
    std::ostringstream out;
    TableWriter w(out, TableFormat::Tsv);
    w.row({"x\ty", "line\nbreak\r", "plain, \"quoted\""});
    w.finish();
    EXPECT_EQ(out.str(), "x y\tline break \tplain, \"quoted\"\n");
}

TEST(TableWriter, TextTableIsAlignedWithARuleUnderTheHeader) {
    std::ostringstream out;
    {
        TableWriter w(out, TableFormat::Text);
        w.header({"id", "name"});
        w.row({"1", "short"});
        w.row({"100", "a longer name"});
        EXPECT_EQ(out.str(), "") << "buffered until finish";
    }
    EXPECT_EQ(out.str(), "id   name\n"
                         "---------\n"
                         "1    short\n"
                         "100  a longer name\n");
}

TEST(TableWriter, FinishTwiceWritesOnce) {
    std::ostringstream out;
    TableWriter w(out, TableFormat::Text);
    w.row({"a"});
    w.finish();
    w.finish();
    EXPECT_EQ(out.str(), "a\n-\n");
}

// Rows of views (reports of millions of rows) come out byte for byte as rows of strings, in
// every format and with leading columns.
TEST(TableWriter, RowsOfViewsAreWrittenAsRowsOfStrings) {
    const std::vector<std::string> row = {"void k<float, 4>(int)", "say \"hi\"", "line\nbreak",
                                          "tab\there", ""};
    const std::vector<std::string_view> views(row.begin(), row.end());
    for (TableFormat format : {TableFormat::Csv, TableFormat::Tsv, TableFormat::Text})
        for (bool leading : {false, true}) {
            std::ostringstream strings, viewed;
            {
                TableWriter a(strings, format), b(viewed, format);
                if (leading) {
                    a.setLeadingColumns({"file"}, {"a,b.sqlite"});
                    b.setLeadingColumns({"file"}, {"a,b.sqlite"});
                }
                a.header({"h1", "h2", "h3", "h4", "h5"});
                b.header({"h1", "h2", "h3", "h4", "h5"});
                a.row(row);
                b.row(std::span<const std::string_view>(views));
            }
            EXPECT_EQ(viewed.str(), strings.str())
                << "format " << static_cast<int>(format) << ", leading " << leading;
            EXPECT_NE(viewed.str().find("say"), std::string::npos);
        }
}

TEST(TableFormat, ParsesTheCliNames) {
    EXPECT_EQ(ls::parseTableFormat("csv"), TableFormat::Csv);
    EXPECT_EQ(ls::parseTableFormat("tsv"), TableFormat::Tsv);
    EXPECT_EQ(ls::parseTableFormat("table"), TableFormat::Text);
    EXPECT_FALSE(ls::parseTableFormat("CSV").has_value());
    EXPECT_FALSE(ls::parseTableFormat("").has_value());
}

// Rows made in chunks on several threads come out as one writer making them in order would write
// them: CSV with fields that need quotes, TSV, leading columns of a session; row counts that do
// and do not divide into chunks.
TEST(TableWriterChunks, RowsMadeInChunksEqualRowsWrittenInOrder) {
    auto field = [](size_t row, size_t col) {
        return col == 0 ? "void f<float, " + std::to_string(row) + ">(int)"
                        : std::to_string(row * 31 + col);
    };
    auto make = [&](size_t from, size_t to, TableWriter& w) {
        for (size_t r = from; r < to; ++r)
            w.row(std::vector<std::string>{field(r, 0), field(r, 1), field(r, 2)});
    };
    for (TableFormat format : {TableFormat::Csv, TableFormat::Tsv})
        for (bool leading : {false, true})
            for (size_t rows : {size_t(0), size_t(1), size_t(10), size_t(1000), size_t(1001)})
                for (size_t chunk : {size_t(1), size_t(3), size_t(100), size_t(5000)}) {
                    std::ostringstream serial, chunked;
                    {
                        TableWriter w(serial, format);
                        if (leading) w.setLeadingColumns({"rank"}, {"3"});
                        w.header({"name", "a", "b"});
                        make(0, rows, w);
                    }
                    {
                        TableWriter w(chunked, format);
                        if (leading) w.setLeadingColumns({"rank"}, {"3"});
                        w.header({"name", "a", "b"});
                        w.rowsInChunks(rows, chunk, 3, make);
                    }
                    ASSERT_EQ(chunked.str(), serial.str()) << rows << " rows in chunks of " << chunk
                                                           << (leading ? ", leading column" : "");
                }
}

// Text tables are aligned over all rows: their chunks are made on the calling thread, into the
// one table.
TEST(TableWriterChunks, TextTablesStayAligned) {
    std::ostringstream out;
    {
        TableWriter w(out, TableFormat::Text);
        w.header({"name", "value"});
        w.rowsInChunks(4, 1, 2, [](size_t from, size_t to, TableWriter& into) {
            for (size_t r = from; r < to; ++r)
                into.row(std::vector<std::string>{std::string(r + 1, 'x'), std::to_string(r)});
        });
    }
    EXPECT_EQ(out.str(), "name  value\n-----------\nx     0\nxx    1\nxxx   2\nxxxx  3\n");
}

// A chunk that fails gives its exception to the caller, and the helpers stop.
TEST(TableWriterChunks, AFailingChunkThrowsToTheCaller) {
    std::ostringstream out;
    TableWriter w(out, TableFormat::Csv);
    struct Broken {};
    EXPECT_THROW(w.rowsInChunks(1000, 10, 2,
                                [](size_t from, size_t to, TableWriter& into) {
                                    if (from == 500) throw Broken{};
                                    for (size_t r = from; r < to; ++r)
                                        into.row(std::vector<std::string>{std::to_string(r)});
                                }),
                 Broken);
    EXPECT_EQ(out.str().substr(0, 4), "0\n1\n") << "chunks before the failing one were written";
}

} // namespace
