// sortByText (core/model/text_sort.h): the order equals std::sort over the strings' bytes and the
// "equal to the one before" flags equal a direct comparison, on texts built to hit every case:
// long shared prefixes, strings that are prefixes of others, duplicates, NUL and high bytes,
// runs larger than the parallel threshold, one thread and several; strings given whole or as
// slices of 16 bytes (sortBySlices).
#include "core/model/text_sort.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

std::vector<std::string> markerLikeTexts(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    const std::vector<std::string> names = {
        "aten::add", "aten::add_", "aten::addmm", "aten::linear", "layer0", "a", ""};
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
        std::string s = names[rng() % names.size()];
        switch (rng() % 6) {
        case 0:
            break; // the bare name: a prefix of the longer texts of that name
        case 1:
            s += ", seq = " + std::to_string(rng() % 50) +
                 ", op_id = " + std::to_string(rng() % 100000);
            break;
        case 2:
            s += ", op_id = " + std::to_string(rng() % 1000) + ", sizes = [[8, 768], [768, 3072]]";
            break;
        case 3:
            s += std::string(1, '\0') + std::to_string(rng() % 10);
            break; // NUL sorts below every byte
        case 4:
            s += "\xC3\xA9" + std::to_string(rng() % 10);
            break; // high bytes sort above ASCII
        default:
            s += std::string(rng() % 40, 'x');
            break; // long runs of one byte
        }
        out.push_back(std::move(s));
    }
    return out;
}

void expectSortedLikeStdSort(const std::vector<std::string>& texts, unsigned threads,
                             bool bySlices = false) {
    std::vector<uint32_t> order(texts.size());
    std::iota(order.begin(), order.end(), 0u);
    // Views into a per-thread buffer, as RawTexts gives them: the sort must use a view before it
    // asks for the next one. Or slices of the texts, as RawTexts::slice gives them.
    const auto same = bySlices ? ls::sortBySlices(
                                     order,
                                     [&](uint32_t i, size_t from, char* out) {
                                         const std::string_view text = texts[i];
                                         const std::string_view bytes = text.substr(
                                             std::min(from, text.size()), ls::kTextSortSlice);
                                         std::copy(bytes.begin(), bytes.end(), out);
                                         return std::pair(bytes.size(), text.size());
                                     },
                                     threads)
                               : ls::sortByText(
                                     order,
                                     [&](uint32_t i) {
                                         thread_local std::string buffer;
                                         buffer = texts[i];
                                         return std::string_view(buffer);
                                     },
                                     threads);
    std::vector<std::string> expected = texts;
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(order.size(), texts.size());
    ASSERT_EQ(same.size(), texts.size());
    for (size_t i = 0; i < order.size(); ++i) {
        ASSERT_EQ(texts[order[i]], expected[i])
            << "position " << i << " with " << threads << " threads";
        const bool equalToPrevious = i > 0 && texts[order[i]] == texts[order[i - 1]];
        ASSERT_EQ(same[i] != 0, equalToPrevious) << "position " << i;
    }
    std::vector<uint32_t> seen = order;
    std::sort(seen.begin(), seen.end());
    for (uint32_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], i) << "a permutation";
}

TEST(TextSort, SmallInputsSortAsStdSortDoes) {
    expectSortedLikeStdSort({}, 2);
    expectSortedLikeStdSort({"b"}, 2);
    expectSortedLikeStdSort({"b", "a", "b", "", "ab", "a"}, 1);
    expectSortedLikeStdSort({std::string(40, 'q'), std::string(39, 'q'), std::string(40, 'q') + "a",
                             std::string(17, 'q')},
                            2);
}

TEST(TextSort, TextsSharingLongPrefixesSortAsStdSortDoesOnOneThreadAndTwo) {
    const auto texts = markerLikeTexts(5000, 7);
    expectSortedLikeStdSort(texts, 1);
    expectSortedLikeStdSort(texts, 2);
}

TEST(TextSort, StringsGivenBySlicesSortAsStdSortDoes) {
    expectSortedLikeStdSort({"b", "a", "b", "", "ab", "a"}, 1, true);
    expectSortedLikeStdSort(markerLikeTexts(5000, 5), 2, true);
    expectSortedLikeStdSort(markerLikeTexts(150000, 17), 2, true);
}

TEST(TextSort, InputsAboveTheParallelThresholdSortAsStdSortDoes) {
    expectSortedLikeStdSort(markerLikeTexts(150000, 11), 2);
    expectSortedLikeStdSort(markerLikeTexts(150000, 13), 3);
}

} // namespace
