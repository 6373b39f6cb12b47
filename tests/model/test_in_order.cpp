// makeInOrder (core/model/in_order.h): pieces made on helper threads in any order are used in
// order, each once, never more than the window ahead; an exception from a piece or from its use
// reaches the caller and the helpers stop.
#include "core/model/in_order.h"

#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(MakeInOrder, PiecesMadeInAnyOrderAreUsedInOrderWithinTheWindow) {
    for (unsigned threads : {1u, 2u, 4u})
        for (size_t window : {size_t(1), size_t(3)}) {
            std::atomic<size_t> ahead{0}, mostAhead{0};
            std::vector<size_t> used;
            ls::makeInOrder<std::string>(
                200, threads, window,
                [&](size_t i, std::string& piece) {
                    // Later pieces often finish first.
                    std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 300));
                    piece = std::to_string(i);
                    const size_t now = ++ahead;
                    for (size_t m = mostAhead;
                         now > m && !mostAhead.compare_exchange_weak(m, now);) {
                    }
                },
                [&](const std::string& piece) {
                    --ahead;
                    used.push_back(std::stoul(piece));
                });
            ASSERT_EQ(used.size(), 200u);
            for (size_t i = 0; i < used.size(); ++i)
                ASSERT_EQ(used[i], i) << threads << " threads, window " << window;
            // One more while a used piece's place is taken before its use has started.
            EXPECT_LE(mostAhead.load(), window + 1) << "pieces made and not yet used";
        }
}

TEST(MakeInOrder, UsedPiecesAreHandedBackToMake) {
    std::vector<std::string> used;
    std::atomic<size_t> reused{0};
    ls::makeInOrder<std::string>(
        50, 2, 2,
        [&](size_t i, std::string& piece) {
            reused += !piece.empty(); // a used piece comes back with its old contents
            piece.clear();
            piece += std::to_string(i);
        },
        [&](const std::string& piece) { used.push_back(piece); });
    ASSERT_EQ(used.size(), 50u);
    for (size_t i = 0; i < used.size(); ++i) EXPECT_EQ(used[i], std::to_string(i));
    // At most 2 pieces wait and 2 are being made: of 50, most must be used ones again.
    EXPECT_GE(reused.load(), 40u);
}

TEST(MakeInOrder, AFailingPieceThrowsToTheCallerAfterThePiecesBeforeIt) {
    struct Broken {};
    std::vector<size_t> used;
    EXPECT_THROW(ls::makeInOrder<size_t>(
                     1000, 2, 4,
                     [](size_t i, size_t& piece) {
                         if (i == 40) throw Broken{};
                         piece = i;
                     },
                     [&](size_t piece) { used.push_back(piece); }),
                 Broken);
    ASSERT_LE(used.size(), 40u);
    for (size_t i = 0; i < used.size(); ++i) EXPECT_EQ(used[i], i);
}

TEST(MakeInOrder, AFailingUseStopsTheHelpers) {
    struct Full {};
    std::atomic<size_t> made{0};
    EXPECT_THROW(ls::makeInOrder<size_t>(
                     100000, 2, 2, [&](size_t i, size_t& piece) { piece = i, ++made; },
                     [](size_t piece) {
                         if (piece == 10) throw Full{};
                     }),
                 Full);
    EXPECT_LT(made.load(), size_t(20)) << "helpers went on after the failure";
}

} // namespace
