// The tests' own helpers, which every golden comparison relies on: the RFC 4180 parser and the
// line diff printed on a golden mismatch.
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

namespace {

using ls::test::CsvTable;
using ls::test::lineDiff;
using ls::test::parseCsv;

TEST(TestCsvParser, HandlesCrlfQuotesAndMissingFinalLineBreak) {
    std::string error;
    EXPECT_EQ(parseCsv("a,b\r\n\"c\"\"d\",\"e\nf\"\r\ng,", &error),
              (CsvTable{{"a", "b"}, {"c\"d", "e\nf"}, {"g", ""}}));
    EXPECT_EQ(error, "");
    EXPECT_EQ(parseCsv("", &error), CsvTable{});
    EXPECT_EQ(parseCsv("x\n\n", &error), (CsvTable{{"x"}, {""}}));
}

TEST(TestCsvParser, RejectsMalformedQuoting) {
    for (const char* bad : {"a,\"unterminated\n", "a,b\"c\n", "\"closed\"junk,x\n"}) {
        std::string error;
        parseCsv(bad, &error);
        EXPECT_NE(error, "") << bad;
    }
}

TEST(TestCsvParser, FormatCsvRowRoundTrips) {
    const std::vector<std::string> row = {"plain", "with, comma", "with \"quote\"", "line\nbreak",
                                          ""};
    EXPECT_EQ(parseCsv(ls::test::formatCsvRow(row) + "\n"), CsvTable{row});
}

TEST(TestLineDiff, EqualTextsHaveNoDiff) { EXPECT_EQ(lineDiff("a\nb\n", "a\nb\n"), ""); }

TEST(TestLineDiff, ShowsRemovedAndAddedLinesWithContext) {
    const std::string d =
        lineDiff("h\n1\n2\n3\n4\n5\n6\n7\n", "h\n1\n2\n3\nfour\n5\n6\n7\nextra\n");
    EXPECT_NE(d.find("\n-4\n+four\n"), std::string::npos) << d;
    EXPECT_NE(d.find("\n+extra\n"), std::string::npos) << d;
    EXPECT_NE(d.find(" 3\n"), std::string::npos) << "context before the change:\n" << d;
    EXPECT_EQ(d.find(" 1\n"), std::string::npos) << "no context far from changes:\n" << d;
}

} // namespace
