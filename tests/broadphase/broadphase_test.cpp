#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <quadbin/broadphase.hpp>
#include <quadbin/error.hpp>
#include <random>

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"

using namespace quadbin;

TEST(BroadPhaseNames, RoundTrip) {
  for (auto type : allBroadPhaseTypes()) {
    auto parsed = parseBroadPhaseType(toString(type));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, type);
    EXPECT_EQ(makeBroadPhase(type)->type(), type);
  }
  EXPECT_FALSE(parseBroadPhaseType("no-such-structure"));
}

TEST(BruteForce, ReportsEachStrictOverlapOnceInOrder) {
  const std::vector<AABB> boxes = {
      {{0, 0}, {2, 2}},           {{1, 1}, {3, 3}},
      {{2, 0}, {4, 1}},            // 0-1 overlap; 0-2, 1-2 touch only
      {{10, 10}, {10, 10}},        // zero size, alone
      {{-100, -100}, {100, 100}},  // huge: overlaps everything
  };
  BruteForce bf;
  const auto pairs = test::pairsOf(bf, boxes);
  const std::vector<Pair> expected = {{0, 1}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
  EXPECT_EQ(pairs, expected);
  EXPECT_EQ(bf.size(), boxes.size());
  EXPECT_GE(bf.memoryBytes(), boxes.size() * 16);
}

// The box check every update makes (vectorised, two boxes at a time):
// each kind of refused box is found at every index of arrays of 1 to 7
// boxes, its index named, and the extremes of what is accepted pass.
TEST(BoxCheck, RefusesEachBadBoxAtEveryIndex) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kMax = std::numeric_limits<float>::max();
  const AABB bad[] = {{{kNaN, 0}, {1, 1}}, {{0, kNaN}, {1, 1}},    {{0, 0}, {kNaN, 1}},
                      {{0, 0}, {1, kNaN}}, {{-kInf, 0}, {1, 1}},   {{0, -kInf}, {1, 1}},
                      {{0, 0}, {kInf, 1}}, {{0, 0}, {1, kInf}},    {{2, 0}, {1, 1}},
                      {{0, 2}, {1, 1}},    {{kInf, 0}, {kInf, 1}}, {{0, 0}, {-kInf, 1}}};
  const AABB edge[] = {{{-kMax, -kMax}, {kMax, kMax}},
                       {{-0.0f, 0.0f}, {0.0f, -0.0f}},
                       {{kMax, kMax}, {kMax, kMax}},
                       {{-kMax, 3}, {-kMax, 3}}};
  for (std::size_t size = 1; size <= 7; ++size) {
    std::vector<AABB> boxes(size);
    for (std::size_t i = 0; i < size; ++i) boxes[i] = edge[i % std::size(edge)];
    BruteForce ok;
    EXPECT_NO_THROW(ok.update(boxes)) << size << " accepted boxes";
    for (std::size_t at = 0; at < size; ++at) {
      for (const AABB& b : bad) {
        std::vector<AABB> with = boxes;
        with[at] = b;
        BruteForce bf;
        try {
          bf.update(with);
          ADD_FAILURE() << "accepted a bad box at " << at << " of " << size;
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("boxes[" + std::to_string(at) + "]"),
                    std::string::npos)
              << e.what();
        }
        EXPECT_EQ(bf.size(), 0u);
      }
    }
  }
}

// The bin grid checks its boxes in chunks of 16,384 (on its task system):
// a bad box on either side of a chunk's edge is found and named, and a
// refused update leaves the grid as it was.
TEST(BoxCheck, ChunkedCheckFindsABadBoxInAnyChunk) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  std::vector<AABB> boxes(40000);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const auto x = static_cast<float>(i % 200) * 3.0f, y = static_cast<float>(i / 200) * 3.0f;
    boxes[i] = {{x, y}, {x + 2.0f, y + 2.0f}};
  }
  BinGrid grid;
  grid.update(boxes);
  std::vector<Pair> before;
  grid.findPairs(before);
  for (const std::size_t at : {std::size_t{0}, std::size_t{16383}, std::size_t{16384},
                               std::size_t{32768}, boxes.size() - 1}) {
    std::vector<AABB> with = boxes;
    with[at].max.y = kNaN;
    try {
      grid.update(with);
      ADD_FAILURE() << "accepted a bad box at " << at;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("boxes[" + std::to_string(at) + "]"), std::string::npos)
          << e.what();
    }
    std::vector<Pair> after;
    grid.findPairs(after);
    EXPECT_EQ(after, before) << "changed by a refused update";
  }
}

TEST(BruteForce, MatchesNaiveOnRandomBoxesAcrossFrames) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(-50, 150), size(0, 8);
  BruteForce bf;
  std::vector<AABB> boxes;
  for (int frame = 0; frame < 20; ++frame) {
    boxes.resize(200 + frame * 10);  // proxies appear between frames
    for (auto& b : boxes) {
      const Vec2 p{pos(rng), pos(rng)};
      b = {p, p + Vec2{size(rng), size(rng)}};
    }
    EXPECT_EQ(test::pairsOf(bf, boxes), test::bruteForcePairs(boxes));
  }
  boxes.resize(5);  // and disappear
  EXPECT_EQ(test::pairsOf(bf, boxes), test::bruteForcePairs(boxes));
}

TEST(BruteForce, AllAtOnePoint) {
  std::vector<AABB> boxes(300, AABB{{1, 1}, {2, 2}});
  BruteForce bf;
  EXPECT_EQ(test::pairsOf(bf, boxes).size(), 300u * 299u / 2u);
}

TEST(BruteForce, QueryTouchingBoxes) {
  const std::vector<AABB> boxes = {{{0, 0}, {1, 1}}, {{5, 5}, {6, 6}}, {{1, 0}, {2, 1}}};
  BruteForce bf;
  bf.update(boxes);
  std::vector<std::uint32_t> out;
  bf.query(AABB{{0.5f, 0.5f}, {1, 1}}, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{0, 2}));
}

TEST(Auto, FollowsTheCountWithHysteresis) {
  AutoBroadPhase bp;
  auto boxesOf = [](std::size_t n) {
    std::vector<AABB> boxes;
    for (std::size_t i = 0; i < n; ++i) {
      const float x = static_cast<float>(i % 100) * 3, y = static_cast<float>(i / 100) * 3;
      boxes.push_back({{x, y}, {x + 4, y + 1}});
    }
    return boxes;
  };
  bp.update(boxesOf(20));
  EXPECT_EQ(bp.active(), BroadPhaseType::BruteForce);
  bp.update(boxesOf(500));
  EXPECT_EQ(bp.active(), BroadPhaseType::SweepAndPrune);
  bp.update(boxesOf(30));  // just below 32: stays (hysteresis)
  EXPECT_EQ(bp.active(), BroadPhaseType::SweepAndPrune);
  bp.update(boxesOf(20));
  EXPECT_EQ(bp.active(), BroadPhaseType::BruteForce);
  EXPECT_EQ(bp.choose(200000), BroadPhaseType::BinGrid);
  bp.update(boxesOf(100000));
  EXPECT_EQ(bp.active(), BroadPhaseType::BinGrid);
  bp.update(boxesOf(18000));  // within the hysteresis band below 20,000
  EXPECT_EQ(bp.active(), BroadPhaseType::BinGrid);
  std::vector<Pair> pairs;
  bp.findPairs(pairs);
  EXPECT_FALSE(pairs.empty());
  AutoOptions bad;
  bad.smallBelow = 2000;
  bad.mediumBelow = 1000;
  EXPECT_THROW(AutoBroadPhase{bad}, Error);
  bad = {};
  bad.large = BroadPhaseType::Auto;
  EXPECT_THROW(AutoBroadPhase{bad}, Error);
}
