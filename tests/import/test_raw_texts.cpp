// RawTexts (core/import/common/raw_text.h): the raw NVTX texts of many ranges at once equal the
// export's own text column (SQL by rowid) and RawTextReader's one-by-one answers, whether they are
// read in one pass or row by row, and only what the parsed marker fields do not say is held. A file
// gone since the load leaves the normalized names. forEachRawText hands the same texts over in
// the export's row order.
#include "core/import/common/raw_text.h"
#include "core/load/load.h"
#include "tests/support/test_support.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdexcept>

namespace {

using namespace ls::test;

std::shared_ptr<const ls::Trace> loadSample(const fs::path& file) {
    auto r = ls::loadTrace(file.string());
    EXPECT_TRUE(r.ok());
    return r.trace;
}

std::vector<ls::RangeId> everyNth(const ls::Trace& t, uint32_t step) {
    std::vector<ls::RangeId> out;
    for (uint32_t i = 0; i < t.ranges.size(); i += step) out.emplace_back(i);
    return out;
}

// The export's text of each range (the sample has no domains and inline texts only).
void expectExportTexts(const ls::Trace& t, const std::vector<ls::RangeId>& ranges,
                       const ls::RawTexts& texts) {
    SqlReader sql(t.path);
    ASSERT_TRUE(sql.ok());
    std::string buffer;
    size_t markers = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
        std::string expected;
        sql.each("SELECT text FROM NVTX_EVENTS WHERE rowid = " +
                     std::to_string(t.rangeSourceRows.at(ranges[i].value)),
                 [&](sqlite3_stmt* st) { expected = SqlReader::text(st, 0); });
        markers += (t.ranges.flags[ranges[i].value] & ls::kPytorchMarker) != 0;
        ASSERT_EQ(texts.text(i, buffer), expected) << "range " << ranges[i].value;
    }
    EXPECT_GT(markers, ranges.size() / 2) << "the sample's ranges are mostly PyTorch markers";
}

TEST(RawTexts, EveryRangeOfTheSampleReadInOnePassEqualsTheExportsText) {
    const auto t = loadSample(sampleTrace());
    ASSERT_TRUE(t);
    const auto all = everyNth(*t, 1);
    const ls::RawTexts texts(*t, all, 2);
    ASSERT_EQ(texts.size(), all.size());
    expectExportTexts(*t, all, texts);
    ls::RawTextReader one(*t);
    std::string buffer;
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(texts.text(i, buffer), one.text(all[i])) << i;
}

TEST(RawTexts, AFewRangesReadRowByRowEqualTheExportsText) {
    const auto t = loadSample(sampleTrace());
    ASSERT_TRUE(t);
    const auto some = everyNth(*t, 97); // sparse: one b-tree lookup per row
    expectExportTexts(*t, some, ls::RawTexts(*t, some, 1));
}

TEST(RawTexts, OnlyWhatTheMarkerFieldsDoNotSayIsHeld) {
    const auto t = loadSample(sampleTrace());
    ASSERT_TRUE(t);
    const auto all = everyNth(*t, 1);
    const ls::RawTexts texts(*t, all, 1);
    size_t markerBytes = 0;
    std::string buffer;
    for (size_t i = 0; i < all.size(); ++i)
        if (t->ranges.flags[all[i].value] & ls::kPytorchMarker)
            markerBytes += texts.text(i, buffer).size();
    ASSERT_GT(markerBytes, 0u);
    // Held: input_op_ids mostly. The name, seq, op_id and sizes are rebuilt from the model.
    EXPECT_LT(texts.keptBytes(), markerBytes / 2) << texts.keptBytes() << " of " << markerBytes;
}

// The sample loaded from a copy that is then deleted.
std::shared_ptr<const ls::Trace> loadedThenGone(const TempDir& dir) {
    const fs::path copy = dir / "gone.sqlite";
    fs::copy_file(sampleTrace(), copy);
    auto t = loadSample(copy);
    fs::remove(copy);
    return t;
}

TEST(RawTexts, AFileGoneSinceTheLoadLeavesTheNormalizedNames) {
    TempDir dir;
    const auto t = loadedThenGone(dir);
    ASSERT_TRUE(t);
    const auto all = everyNth(*t, 1);
    const ls::RawTexts texts(*t, all, 2);
    std::string buffer;
    for (size_t i = 0; i < all.size(); ++i)
        EXPECT_EQ(texts.text(i, buffer), t->str(t->ranges.name[all[i].value])) << i;
}

// The ranges ordered by their rows in the export (descending: the wrong way round).
void byRow(const ls::Trace& t, std::vector<ls::RangeId>& ranges, bool descending = false) {
    std::sort(ranges.begin(), ranges.end(), [&](ls::RangeId a, ls::RangeId b) {
        const uint32_t x = t.rangeSourceRows.at(a.value), y = t.rangeSourceRows.at(b.value);
        return descending ? x > y : x < y;
    });
}

// Ranges by source row (as nvtx_gpu_proj writes them), every second one or every one: each text
// handed over once, in order, equal to RawTexts' answer. Out of row order is refused.
TEST(ForEachRawText, RangesInRowOrderGetTheirTextsInThatOrder) {
    const auto t = loadSample(sampleTrace());
    ASSERT_TRUE(t);
    for (uint32_t step : {1u, 2u, 97u}) {
        auto ranges = everyNth(*t, step);
        byRow(*t, ranges);
        const ls::RawTexts expected(*t, ranges, 1, true);
        std::string buffer;
        size_t next = 0;
        ls::forEachRawText(*t, ranges, [&](size_t i, std::string_view text) {
            ASSERT_EQ(i, next++);
            EXPECT_EQ(text, expected.text(i, buffer)) << "range " << ranges[i].value;
        });
        EXPECT_EQ(next, ranges.size()) << "every " << step;
    }
    auto reversed = everyNth(*t, 5);
    byRow(*t, reversed, true);
    EXPECT_THROW(ls::forEachRawText(*t, reversed, [](size_t, std::string_view) {}),
                 std::invalid_argument);
    // A row asked for twice is handed over twice.
    const std::vector<ls::RangeId> twice = {ls::RangeId(3), ls::RangeId(3)};
    std::vector<std::string> texts;
    ls::forEachRawText(*t, twice, [&](size_t, std::string_view text) { texts.emplace_back(text); });
    ASSERT_EQ(texts.size(), 2u);
    EXPECT_EQ(texts[0], texts[1]);
}

TEST(ForEachRawText, AFileGoneSinceTheLoadGivesTheNormalizedNames) {
    TempDir dir;
    const auto t = loadedThenGone(dir);
    ASSERT_TRUE(t);
    auto all = everyNth(*t, 1);
    byRow(*t, all);
    size_t seen = 0;
    ls::forEachRawText(*t, all, [&](size_t i, std::string_view text) {
        ++seen;
        EXPECT_EQ(text, t->str(t->ranges.name[all[i].value])) << i;
    });
    EXPECT_EQ(seen, all.size());
}

// A trace loaded without names (nvtx_gpu_proj's load) gives a row without text the empty name a
// full load gives it, in an export without a StringIds table too; only a row that cannot be read
// again is an error there.
TEST(ForEachRawText, RowsWithoutTextGiveTheEmptyNameOfAFullLoadWhenNamesWereNotLoaded) {
    TempDir dir;
    const fs::path copy = dir / "no_text.sqlite";
    fs::copy_file(sampleTrace(), copy);
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(copy.string().c_str(), &db), SQLITE_OK);
        const char* sql =
            "UPDATE NVTX_EVENTS SET text = NULL, textId = NULL WHERE rowid IN "
            "(SELECT rowid FROM NVTX_EVENTS WHERE eventType != 75 ORDER BY rowid LIMIT 5);"
            "DROP TABLE IF EXISTS StringIds;";
        EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK)
            << sqlite3_errmsg(db);
        sqlite3_close(db);
    }
    ls::LoadOptions bareOptions;
    bareOptions.parts = ls::kLoadNvtx;
    const auto full = ls::loadTrace(copy.string()).trace,
               bare = ls::loadTrace(copy.string(), bareOptions).trace;
    ASSERT_TRUE(full && bare);
    ASSERT_FALSE(bare->parts & ls::kLoadNvtxNames);
    auto all = everyNth(*full, 1);
    byRow(*full, all);
    std::vector<std::string> fromFull, fromBare;
    ls::forEachRawText(*full, all,
                       [&](size_t, std::string_view text) { fromFull.emplace_back(text); });
    ASSERT_NO_THROW(ls::forEachRawText(
        *bare, all, [&](size_t, std::string_view text) { fromBare.emplace_back(text); }));
    EXPECT_EQ(fromBare, fromFull);
    EXPECT_EQ(std::count(fromFull.begin(), fromFull.end(), std::string()), 5)
        << "the five rows without text";
}

// A slice of a text, taken from its pieces without building it, equals the same bytes of the
// whole text, from every 16th byte and from odd ones, past its end too; its size is the text's
// where the text ends within the slice, and past the slice where it does not.
TEST(RawTexts, SlicesEqualTheWholeTextsBytes) {
    const auto t = loadSample(sampleTrace());
    ASSERT_TRUE(t);
    const auto all = everyNth(*t, 1);
    const ls::RawTexts texts(*t, all, 1);
    std::string buffer;
    size_t rebuilt = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string whole(texts.text(i, buffer));
        std::string fields;
        ls::appendMarkerFields(*t, all[i], fields);
        rebuilt +=
            (t->ranges.flags[all[i].value] & ls::kPytorchMarker) && whole.starts_with(fields);
        for (size_t from : {size_t(0), size_t(3), size_t(16), size_t(17), size_t(32), size_t(48),
                            whole.size() - 1, whole.size(), whole.size() + 16}) {
            char out[16];
            size_t size = 0;
            const size_t got = texts.slice(i, from, out, sizeof out, size);
            if (whole.size() <= from + sizeof out)
                ASSERT_EQ(size, whole.size()) << "range " << all[i].value << " from " << from;
            else
                ASSERT_GT(size, from + sizeof out) << "range " << all[i].value << " from " << from;
            ASSERT_EQ(std::string(out, got),
                      from < whole.size() ? whole.substr(from, 16) : std::string())
                << "range " << all[i].value << " from " << from;
        }
    }
    EXPECT_GT(rebuilt, all.size() / 2)
        << "most of the sample's texts are rebuilt from their fields";
}

} // namespace
