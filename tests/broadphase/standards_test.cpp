// The two "field standard" broad phases beyond the conformance suite:
// the dynamic AABB tree's invariants (balance under churn and identical
// boxes, fat boxes filtered out, resting bodies free) and sweep and prune's
// incremental sort (same result as a full sort, fallbacks taken).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <quadbin/broadphase.hpp>
#include <quadbin/error.hpp>
#include <random>

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"

using namespace quadbin;

namespace {

using test::bruteForcePairs;
using test::pairsOf;
using test::sorted;

// AVL bound: a tree of n leaves is at most 1.44 log2(n + 2) tall.
int avlHeightBound(std::size_t n) {
  return static_cast<int>(std::floor(1.4405 * std::log2(static_cast<double>(n) + 2.0)));
}

std::vector<AABB> randomBoxes(std::mt19937& rng, std::size_t n, float world, float maxSize) {
  std::uniform_real_distribution<float> pos(0, world), size(0, maxSize);
  std::vector<AABB> boxes(n);
  for (auto& b : boxes) {
    const Vec2 p{pos(rng), pos(rng)};
    b = {p, p + Vec2{size(rng), size(rng)}};
  }
  return boxes;
}

}  // namespace

// --- DynamicAabbTree ------------------------------------------------------

TEST(DynamicAabbTree, RefusesBadOptions) {
  DynamicAabbTreeOptions o;
  o.margin = -1;
  EXPECT_THROW(DynamicAabbTree{o}, Error);
  o = {};
  o.absoluteMargin = std::nanf("");
  EXPECT_THROW(DynamicAabbTree{o}, Error);
  o = {};
  o.rebuildFraction = 1.5f;
  EXPECT_THROW(DynamicAabbTree{o}, Error);
  try {
    o = {};
    o.margin = -2;
    DynamicAabbTree tree(o);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("margin"), std::string::npos);
  }
}

TEST(DynamicAabbTree, IdenticalBoxesAddedOneBatchAtATimeStayBalanced) {
  // Insertion by SAH alone would chain identical boxes into a list; the
  // rotations must keep the AVL bound. rebuildFraction 1: no rebuild
  // after the first frame, every newcomer goes through insertLeaf.
  DynamicAabbTreeOptions o;
  o.rebuildFraction = 1.0f;
  DynamicAabbTree tree(o);
  std::vector<AABB> boxes;
  for (const AABB shape : {AABB{{5, 5}, {6, 6}}, AABB{{5, 5}, {5, 5}}}) {
    boxes.clear();
    tree.update(boxes);
    while (boxes.size() < 10000) {
      boxes.resize(boxes.size() + 1 + boxes.size() / 20, shape);
      tree.update(boxes);
      ASSERT_LE(tree.height(), avlHeightBound(boxes.size())) << boxes.size() << " boxes";
    }
    EXPECT_EQ(tree.rebuilds(), 1u + (shape.min == shape.max ? 1u : 0u));
    EXPECT_TRUE(tree.isValid());
  }
}

TEST(DynamicAabbTree, ChurnKeepsTheTreeValidBalancedAndExact) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> step(-1.5f, 1.5f);
  DynamicAabbTreeOptions o;
  o.rebuildFraction = 1.0f;  // exercise re-insertion and removal only
  DynamicAabbTree tree(o);
  auto boxes = randomBoxes(rng, 500, 100, 5);
  for (int frame = 0; frame < 80; ++frame) {
    for (auto& b : boxes) {
      if (rng() % 4 == 0) {
        const Vec2 d{step(rng), step(rng)};
        b = {b.min + d, b.max + d};
      }
    }
    // Remove some at the end, add some: the count drifts.
    boxes.resize(boxes.size() - rng() % 20);
    const auto extra = randomBoxes(rng, rng() % 25, 100, 5);
    boxes.insert(boxes.end(), extra.begin(), extra.end());
    const auto got = sorted(pairsOf(tree, boxes));
    ASSERT_EQ(got, bruteForcePairs(boxes)) << "frame " << frame;
    ASSERT_TRUE(tree.isValid()) << "frame " << frame;
    ASSERT_LE(tree.height(), avlHeightBound(boxes.size())) << "frame " << frame;
  }
  EXPECT_EQ(tree.rebuilds(), 1u);
  EXPECT_GT(tree.reinsertions(), 1000u);
}

TEST(DynamicAabbTree, FatBoxesAreFilteredOutAndRestingCostsNothing) {
  // Two unit boxes 0.2 apart: their fat boxes (margin 0.25 of the size)
  // overlap, their tight boxes do not.
  DynamicAabbTree tree;
  std::vector<AABB> boxes = {{{0, 0}, {1, 1}}, {{1.2f, 0}, {2.2f, 1}}};
  EXPECT_TRUE(pairsOf(tree, boxes).empty());
  EXPECT_TRUE(overlaps(tree.fatBox(0), tree.fatBox(1)));
  EXPECT_TRUE(contains(tree.fatBox(0), boxes[0]));
  // Move within the fat boxes until they overlap: no re-insertion, and the
  // pair appears from the tight boxes alone.
  boxes[0] = {{0.15f, 0}, {1.15f, 1}};
  boxes[1] = {{1.05f, 0}, {2.05f, 1}};
  const std::vector<Pair> expected = {{0, 1}};
  EXPECT_EQ(pairsOf(tree, boxes), expected);
  // Touching is not overlapping.
  boxes[1] = {{1.15f, 0}, {2.15f, 1}};
  EXPECT_TRUE(pairsOf(tree, boxes).empty());
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(pairsOf(tree, boxes).empty());  // at rest
  EXPECT_EQ(tree.rebuilds(), 1u);
  EXPECT_EQ(tree.reinsertions(), 0u);
  // Queries answer on the tight boxes, closed.
  std::vector<std::uint32_t> hits;
  tree.query({{1.16f, 0.5f}, {1.16f, 0.5f}}, hits);
  EXPECT_EQ(hits, std::vector<std::uint32_t>{1});
  hits.clear();
  tree.query({{1.15f, 2}, {1.15f, 3}}, hits);  // above both
  EXPECT_TRUE(hits.empty());
  hits.clear();
  tree.query({{1.15f, 1}, {1.15f, 3}}, hits);  // touches both corners
  std::sort(hits.begin(), hits.end());
  EXPECT_EQ(hits, (std::vector<std::uint32_t>{0, 1}));
}

TEST(DynamicAabbTree, ShrunkBoxGetsAFreshFatBox) {
  DynamicAabbTree tree;
  std::vector<AABB> boxes = {{{0, 0}, {100, 100}}, {{200, 200}, {201, 201}}};
  tree.update(boxes);
  boxes[0] = {{50, 50}, {51, 51}};  // inside the old fat box, but tiny now
  tree.update(boxes);
  EXPECT_LT(tree.fatBox(0).width(), 10.0f);
  EXPECT_TRUE(tree.isValid());
}

TEST(DynamicAabbTree, RayQueryIsExactAndWalksOnlyCrossedNodes) {
  std::mt19937 rng(17);
  const auto boxes = randomBoxes(rng, 3000, 200, 4);
  DynamicAabbTree tree;
  tree.update(boxes);
  std::uniform_real_distribution<float> pos(-20, 220), dir(-150, 150);
  for (int q = 0; q < 100; ++q) {
    const Ray ray{{pos(rng), pos(rng)}, {dir(rng), dir(rng)}, 1.0f};
    std::vector<std::uint32_t> got, want;
    tree.queryRay(ray, got);
    std::sort(got.begin(), got.end());
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (raycast(ray, boxes[i])) want.push_back(i);
    }
    ASSERT_EQ(got, want) << "ray " << q;
  }
}

TEST(DynamicAabbTree, SameInputsSameOrder) {
  std::mt19937 rng(8);
  auto boxes = randomBoxes(rng, 2000, 150, 4);
  DynamicAabbTree a, b;
  std::uniform_real_distribution<float> step(-0.3f, 0.3f);
  for (int frame = 0; frame < 20; ++frame) {
    for (auto& box : boxes) {
      const Vec2 d{step(rng), step(rng)};
      box = {box.min + d, box.max + d};
    }
    ASSERT_EQ(pairsOf(a, boxes), pairsOf(b, boxes)) << "frame " << frame;
  }
  EXPECT_GT(a.reinsertions() + a.rebuilds(), 1u);
}

TEST(DynamicAabbTree, MemoryStaysBoundedAcrossRebuilds) {
  std::mt19937 rng(2);
  DynamicAabbTree tree;
  auto boxes = randomBoxes(rng, 5000, 300, 3);
  tree.update(boxes);
  const std::size_t first = tree.memoryBytes();
  for (int frame = 0; frame < 10; ++frame) {
    boxes = randomBoxes(rng, 5000, 300, 3);  // everything moves: rebuilds
    tree.update(boxes);
  }
  EXPECT_GE(tree.rebuilds(), 10u);
  EXPECT_LE(tree.memoryBytes(), first * 2);
}

// --- SweepAndPrune --------------------------------------------------------

TEST(SweepAndPrune, RefusesBadOptions) {
  SweepAndPruneOptions o;
  o.maxShiftsPerProxy = 0;
  EXPECT_THROW(SweepAndPrune{o}, Error);
  o = {};
  o.fullSortFraction = -0.5f;
  EXPECT_THROW(SweepAndPrune{o}, Error);
}

TEST(SweepAndPrune, IncrementalRepairEqualsAFullSort) {
  // After small motions the insertion sort repairs the order; the result,
  // order included, must be what a fresh structure (full sort) reports.
  std::mt19937 rng(21);
  auto boxes = randomBoxes(rng, 1500, 150, 4);
  std::uniform_real_distribution<float> step(-0.4f, 0.4f);
  SweepAndPrune incremental;
  for (int frame = 0; frame < 40; ++frame) {
    for (auto& b : boxes) {
      const Vec2 d{step(rng), step(rng)};
      b = {b.min + d, b.max + d};
    }
    if (frame % 5 == 4) {  // a few newcomers, and a few leave
      boxes.resize(boxes.size() - 7);
      const auto extra = randomBoxes(rng, 12, 150, 4);
      boxes.insert(boxes.end(), extra.begin(), extra.end());
    }
    SweepAndPrune fresh;
    const auto got = pairsOf(incremental, boxes);
    ASSERT_EQ(got, pairsOf(fresh, boxes)) << "frame " << frame;
    ASSERT_EQ(sorted(got), bruteForcePairs(boxes)) << "frame " << frame;
  }
  EXPECT_EQ(incremental.fullSorts(), 1u);
  EXPECT_EQ(incremental.incrementalSorts(), 39u);
}

TEST(SweepAndPrune, BrokenOrderAndBigChangesFallBackToAFullSort) {
  std::mt19937 rng(4);
  auto boxes = randomBoxes(rng, 2000, 100, 3);
  SweepAndPrune sap;
  sap.update(boxes);
  EXPECT_EQ(sap.fullSorts(), 1u);
  std::shuffle(boxes.begin(), boxes.end(), rng);  // every proxy jumps
  EXPECT_EQ(sorted(pairsOf(sap, boxes)), bruteForcePairs(boxes));
  EXPECT_EQ(sap.fullSorts(), 2u);
  boxes.resize(1000);  // half of them leave
  EXPECT_EQ(sorted(pairsOf(sap, boxes)), bruteForcePairs(boxes));
  EXPECT_EQ(sap.fullSorts(), 3u);
  EXPECT_EQ(sap.incrementalSorts(), 0u);
}

TEST(SweepAndPrune, PicksTheAxisOfLargerSpread) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> along(0, 1000), across(0, 10);
  std::vector<AABB> tall(500);
  for (auto& b : tall) {
    const Vec2 p{across(rng), along(rng)};
    b = {p, p + Vec2{2, 2}};
  }
  SweepAndPrune automatic;
  EXPECT_EQ(sorted(pairsOf(automatic, tall)), bruteForcePairs(tall));
  EXPECT_EQ(automatic.sortAxis(), 1);
  SweepAndPruneOptions o;
  o.axis = SweepAndPruneOptions::Axis::X;
  SweepAndPrune forced(o);
  EXPECT_EQ(sorted(pairsOf(forced, tall)), bruteForcePairs(tall));
  EXPECT_EQ(forced.sortAxis(), 0);
}

TEST(SweepAndPrune, TiesAndSignedZerosAreDeterministic) {
  // Equal mins (and -0 against +0) are ordered by proxy index, so the pair
  // order is the same whichever way the proxies arrived.
  std::vector<AABB> boxes = {
      {{0.0f, 0}, {1, 1}}, {{-0.0f, 0}, {1, 1}}, {{0, 0.5f}, {0, 0.7f}}, {{0.0f, 0.2f}, {2, 3}}};
  SweepAndPrune sap;
  const auto pairs = pairsOf(sap, boxes);
  EXPECT_EQ(sorted(pairs), bruteForcePairs(boxes));
  const std::vector<Pair> expected = {{0, 1}, {0, 3}, {1, 3}};
  EXPECT_EQ(pairs, expected);
  std::vector<std::uint32_t> hits;
  sap.query({{0, 0.6f}, {0, 0.6f}}, hits);  // the zero-width box touches it
  std::sort(hits.begin(), hits.end());
  EXPECT_EQ(hits, (std::vector<std::uint32_t>{0, 1, 2, 3}));
}
