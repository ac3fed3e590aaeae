// The per-frame region trees (leaf quadtree, dynamic-centre quadtree,
// nona-tree, diagonal BSP) beyond the conformance suite: options, the seed
// pattern of LeafQuadtree, the owner rule under heavy ties with deep trees,
// the outside list, the bounded-work guards, ray walks and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <quadbin/broadphase.hpp>
#include <quadbin/error.hpp>
#include <random>
#include <string>

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"

using namespace quadbin;

namespace {

// A region tree with small leaves and deep splits, so that the owner rule
// is exercised on many cuts.
struct Maker {
  std::string name;
  std::function<std::unique_ptr<BroadPhase>()> make;
};

std::vector<Maker> deepTrees() {
  return {
      {"leaf-quadtree",
       [] {
         return std::make_unique<LeafQuadtree>(LeafQuadtreeOptions{1, 12});
       }},
      {"dynamic-centre-quadtree",
       [] {
         return std::make_unique<DynamicCentreQuadtree>(DynamicCentreQuadtreeOptions{1, 12});
       }},
      {"dynamic-centre-quadtree sampled",
       [] {
         return std::make_unique<DynamicCentreQuadtree>(DynamicCentreQuadtreeOptions{2, 12, 5});
       }},
      {"nona-tree",
       [] {
         return std::make_unique<NonaTree>(NonaTreeOptions{1, 8});
       }},
      {"diagonal-bsp",
       [] {
         return std::make_unique<DiagonalBsp>(DiagonalBspOptions{1, 24});
       }},
  };
}

std::vector<Maker> defaultTrees() {
  return {
      {"leaf-quadtree", [] { return std::make_unique<LeafQuadtree>(); }},
      {"dynamic-centre-quadtree", [] { return std::make_unique<DynamicCentreQuadtree>(); }},
      {"nona-tree", [] { return std::make_unique<NonaTree>(); }},
      {"diagonal-bsp", [] { return std::make_unique<DiagonalBsp>(); }},
  };
}

RegionTreeStats statsOf(const BroadPhase& bp) {
  if (auto* t = dynamic_cast<const LeafQuadtree*>(&bp)) return t->stats();
  if (auto* t = dynamic_cast<const DynamicCentreQuadtree*>(&bp)) return t->stats();
  if (auto* t = dynamic_cast<const NonaTree*>(&bp)) return t->stats();
  if (auto* t = dynamic_cast<const DiagonalBsp*>(&bp)) return t->stats();
  ADD_FAILURE() << "not a region tree";
  return {};
}

// Boxes whose edges sit on a coarse lattice: many exact ties between box
// edges, cut lines (halves, thirds rounded, diagonals) and each other.
std::vector<AABB> latticeBoxes(std::mt19937& rng, int count, float step, int cells) {
  std::uniform_int_distribution<int> at(0, cells), len(0, 3);
  std::vector<AABB> boxes;
  for (int i = 0; i < count; ++i) {
    const float x = step * static_cast<float>(at(rng)), y = step * static_cast<float>(at(rng));
    boxes.push_back(
        {{x, y},
         {x + step * static_cast<float>(len(rng)), y + step * static_cast<float>(len(rng))}});
  }
  return boxes;
}

}  // namespace

TEST(RegionTrees, OptionsAreValidated) {
  EXPECT_THROW(LeafQuadtree(LeafQuadtreeOptions{0, 8}), Error);
  EXPECT_THROW(LeafQuadtree(LeafQuadtreeOptions{16, 33}), Error);
  EXPECT_THROW(NonaTree(NonaTreeOptions{16, 8, 0.5f}), Error);
  EXPECT_THROW(DiagonalBsp(DiagonalBspOptions{16, 65}), Error);
  EXPECT_THROW(DynamicCentreQuadtree(DynamicCentreQuadtreeOptions{16, 8, 0, std::nanf("")}), Error);
  try {
    LeafQuadtree bad(LeafQuadtreeOptions{16, 40});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("LeafQuadtreeOptions.maxDepth = 40"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(DiagonalBsp(DiagonalBspOptions{1, 64, 1.0f}));
  EXPECT_EQ(NonaTree().options().threshold, 16u);
  // maxSplitGrowth is a four-way split's growth: at most 4, the limit named.
  EXPECT_NO_THROW(LeafQuadtree(LeafQuadtreeOptions{16, 8, 4.0f}));
  try {
    DynamicCentreQuadtree bad(DynamicCentreQuadtreeOptions{16, 15, 0, 4.07f});
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("maxSplitGrowth = 4.07"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[1, 4]"), std::string::npos) << e.what();
  }
}

// Issue 12: growth 4 (valid) used to copy world-sized boxes into every cell
// down to the depth limit: 20 boxes took over 3 GiB (bad_alloc). The trees'
// budgets keep them within 8n leaf entries and 8n + 1 nodes.
TEST(RegionTrees, MemoryStaysLinearAtTheLargestGrowth) {
  std::vector<std::unique_ptr<BroadPhase>> trees;
  trees.push_back(std::make_unique<LeafQuadtree>(LeafQuadtreeOptions{16, 12, 4.0f}));
  trees.push_back(std::make_unique<LeafQuadtree>(LeafQuadtreeOptions{1, 32, 4.0f}));
  trees.push_back(std::make_unique<NonaTree>(NonaTreeOptions{16, 8, 4.0f}));
  trees.push_back(std::make_unique<NonaTree>(NonaTreeOptions{1, 32, 4.0f}));
  trees.push_back(
      std::make_unique<DynamicCentreQuadtree>(DynamicCentreQuadtreeOptions{16, 15, 0, 4.0f}));
  trees.push_back(std::make_unique<DiagonalBsp>(DiagonalBspOptions{1, 64, 4.0f}));
  for (const std::uint32_t n : {18u, 20u, 200u}) {
    std::vector<AABB> boxes;
    for (std::uint32_t i = 0; i < n; ++i) {  // world-sized, centres spread a little
      const auto d = static_cast<float>(i);
      boxes.push_back({{-1000 + d, -1000 + d}, {1000 + d, 1000 + d}});
    }
    for (auto& tree : trees) {
      tree->setBounds({{0, 0}, {100, 100}});
      tree->update(boxes);
      std::vector<Pair> pairs;
      tree->findPairs(pairs);
      EXPECT_EQ(pairs.size(), std::size_t{n} * (n - 1) / 2);
      EXPECT_LE(tree->memoryBytes(), (std::size_t{1} << 20) + 4096 * std::size_t{n})
          << toString(tree->type()) << " n=" << n;
      RegionTreeStats stats{};
      if (auto* t = dynamic_cast<LeafQuadtree*>(tree.get())) stats = t->stats();
      if (auto* t = dynamic_cast<NonaTree*>(tree.get())) stats = t->stats();
      if (auto* t = dynamic_cast<DynamicCentreQuadtree*>(tree.get())) stats = t->stats();
      if (auto* t = dynamic_cast<DiagonalBsp*>(tree.get())) stats = t->stats();
      EXPECT_LE(stats.leafEntries, 8 * n) << toString(tree->type());
      EXPECT_LE(stats.nodes, 8 * n + 1) << toString(tree->type());
    }
  }
}

TEST(RegionTrees, ExactOnLatticeBoxesWithDeepTrees) {
  for (const auto& maker : deepTrees()) {
    std::mt19937 rng(3);
    for (int round = 0; round < 6; ++round) {
      // Lattice steps that are and are not powers of two, worlds that are
      // and are not square, hints that do and do not match the boxes.
      const float step = round % 2 ? 0.5f : 1.0f / 3.0f;
      auto boxes = latticeBoxes(rng, 600, step, 40);
      for (int z = 0; z < 60; ++z) {  // zero-size boxes on the lattice too
        const float x = step * static_cast<float>(rng() % 41),
                    y = step * static_cast<float>(rng() % 41);
        boxes.push_back({{x, y}, {x, y}});
      }
      auto bp = maker.make();
      if (round >= 2) bp->setBounds({{0, 0}, {step * 40, step * (round >= 4 ? 13 : 40)}});
      EXPECT_EQ(test::sorted(test::pairsOf(*bp, boxes)), test::bruteForcePairs(boxes))
          << maker.name << " round " << round;
    }
  }
}

TEST(RegionTrees, QueriesAndRaysOnLatticeBoxes) {
  for (const auto& maker : deepTrees()) {
    std::mt19937 rng(8);
    auto boxes = latticeBoxes(rng, 800, 0.5f, 40);
    auto bp = maker.make();
    bp->setBounds({{0, 0}, {20, 20}});
    bp->update(boxes);
    std::uniform_int_distribution<int> at(-4, 44), len(0, 6);
    for (int q = 0; q < 300; ++q) {
      const Vec2 p{0.5f * static_cast<float>(at(rng)), 0.5f * static_cast<float>(at(rng))};
      const AABB box{p,
                     p + 0.5f * Vec2{static_cast<float>(len(rng)), static_cast<float>(len(rng))}};
      std::vector<std::uint32_t> got, want;
      bp->query(box, got);
      for (std::uint32_t i = 0; i < boxes.size(); ++i) {
        if (touches(boxes[i], box)) want.push_back(i);
      }
      ASSERT_EQ(got, want) << maker.name << " query " << q;
      // Rays along the lattice lines, the diagonals and at random.
      const Vec2 dirs[] = {{1, 0}, {0, 1}, {1, 1}, {-1, 1}, {0.3f, -0.7f}};
      const Ray ray{p, dirs[q % 5] * static_cast<float>(1 + len(rng)) * 3.0f, 1.0f};
      std::vector<std::uint32_t> hits, exact;
      bp->queryRay(ray, hits);
      for (std::uint32_t i = 0; i < boxes.size(); ++i) {
        if (raycast(ray, boxes[i])) exact.push_back(i);
      }
      ASSERT_EQ(hits, exact) << maker.name << " ray " << q;
    }
  }
}

TEST(RegionTrees, RandomScenesAgainstNaive) {
  for (const auto& maker : defaultTrees()) {
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> pos(0, 300), size(0, 12);
    auto bp = maker.make();
    std::vector<AABB> boxes;
    for (int frame = 0; frame < 10; ++frame) {
      boxes.resize(1500);
      for (auto& b : boxes) {
        const Vec2 p{pos(rng), pos(rng)};
        b = {p, p + Vec2{size(rng), size(rng)}};
      }
      if (frame == 5) bp->setBounds({{100, 100}, {200, 200}});  // most boxes outside
      ASSERT_EQ(test::sorted(test::pairsOf(*bp, boxes)), test::bruteForcePairs(boxes))
          << maker.name << " frame " << frame;
    }
  }
}

TEST(RegionTrees, PairOrderIsDeterministic) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> pos(0, 100), size(0, 6);
  std::vector<AABB> boxes(3000);
  for (auto& b : boxes) {
    const Vec2 p{pos(rng), pos(rng)};
    b = {p, p + Vec2{size(rng), size(rng)}};
  }
  for (const auto& maker : deepTrees()) {
    auto a = maker.make();
    auto b = maker.make();
    std::vector<Pair> pa, pb, again;
    a->update(boxes);
    a->findPairs(pa);
    b->update(boxes);
    b->findPairs(pb);
    a->findPairs(again);  // twice on one build: the same again
    EXPECT_EQ(pa, pb) << maker.name;
    EXPECT_EQ(pa, again) << maker.name;
  }
}

TEST(RegionTrees, OutsideListAndGrownRoot) {
  for (const auto& maker : defaultTrees()) {
    auto bp = maker.make();
    bp->setBounds({{0, 0}, {100, 100}});
    std::vector<AABB> boxes;
    for (int i = 0; i < 200; ++i) {
      const float x = static_cast<float>(i % 20) * 4.5f, y = static_cast<float>(i / 20) * 10;
      boxes.push_back({{x, y}, {x + 6, y + 6}});
    }
    boxes.push_back({{-50, -50}, {-40, -40}});  // outside
    boxes.push_back({{-45, -45}, {3, 3}});      // reaching in: pairs inside and outside
    EXPECT_EQ(test::sorted(test::pairsOf(*bp, boxes)), test::bruteForcePairs(boxes)) << maker.name;
    EXPECT_EQ(statsOf(*bp).outside, 2u) << maker.name;
    // Thousands outside: the root grows to hold them instead.
    for (int i = 0; i < 3000; ++i) {
      const float x = 200 + static_cast<float>(i % 60) * 7, y = static_cast<float>(i / 60) * 7;
      boxes.push_back({{x, y}, {x + 8, y + 8}});
    }
    EXPECT_EQ(test::sorted(test::pairsOf(*bp, boxes)), test::bruteForcePairs(boxes)) << maker.name;
    EXPECT_EQ(statsOf(*bp).outside, 0u) << maker.name;
  }
}

TEST(RegionTrees, WorkIsBoundedForDegenerateInput) {
  for (const auto& maker : defaultTrees()) {
    auto bp = maker.make();
    bp->setBounds({{0, 0}, {100, 100}});
    // 10,000 zero-size boxes at one point: each lands in exactly one leaf.
    std::vector<AABB> points(10000, AABB{{50, 50}, {50, 50}});
    bp->update(points);
    auto s = statsOf(*bp);
    EXPECT_EQ(s.leafEntries, 10000u) << maker.name;
    EXPECT_LE(s.nodes, 1000u) << maker.name;
    // 2,000 boxes covering the whole world: splitting would copy each into
    // every child, so the root stays a leaf.
    std::vector<AABB> huge(2000, AABB{{-10, -10}, {110, 110}});
    huge.push_back({{20, 20}, {30, 30}});
    std::vector<Pair> pairs;
    bp->update(huge);
    bp->findPairs(pairs);
    EXPECT_EQ(pairs.size(), 2001u * 2000u / 2u) << maker.name;
    s = statsOf(*bp);
    EXPECT_LE(s.leafEntries, 2u * 2001u) << maker.name;
  }
}

TEST(RegionTrees, DynamicCentreSplitsAtTheMeanAndStopsOnEqualCentres) {
  // Centres all at one point but boxes of different sizes: no cut separates
  // them, so the root stays a leaf.
  std::vector<AABB> same;
  for (int i = 0; i < 100; ++i) {
    const float h = 1.0f + static_cast<float>(i % 7);
    same.push_back({{10 - h, 10 - h}, {10 + h, 10 + h}});
  }
  DynamicCentreQuadtree tree;
  tree.setBounds({{0, 0}, {100, 100}});
  EXPECT_EQ(test::sorted(test::pairsOf(tree, same)), test::bruteForcePairs(same));
  EXPECT_EQ(tree.stats().nodes, 1u);
  // Two tight clusters far apart in one corner: the mean cut separates them
  // at once, where the middle cut needs several levels.
  std::vector<AABB> clusters;
  for (int i = 0; i < 40; ++i) {
    const float d = 0.01f * static_cast<float>(i);
    clusters.push_back({{1 + d, 1 + d}, {1.5f + d, 1.5f + d}});
    clusters.push_back({{9 + d, 9 + d}, {9.5f + d, 9.5f + d}});
  }
  DynamicCentreQuadtree dynamic(DynamicCentreQuadtreeOptions{40, 8});
  LeafQuadtree middle(LeafQuadtreeOptions{40, 8});
  dynamic.setBounds({{0, 0}, {100, 100}});
  middle.setBounds({{0, 0}, {100, 100}});
  EXPECT_EQ(test::sorted(test::pairsOf(dynamic, clusters)), test::bruteForcePairs(clusters));
  EXPECT_EQ(test::sorted(test::pairsOf(middle, clusters)), test::bruteForcePairs(clusters));
  EXPECT_EQ(dynamic.stats().depth, 1u);
  EXPECT_GT(middle.stats().depth, 1u);
}

TEST(LeafQuadtree, SeedPatternClearInsertRetrieve) {
  LeafQuadtree tree(LeafQuadtreeOptions{2, 6});
  tree.setBounds({{0, 0}, {64, 64}});
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> pos(0, 60), size(0.5f, 5);
  for (int frame = 0; frame < 5; ++frame) {
    tree.clear();
    std::vector<AABB> boxes;
    std::vector<std::uint32_t> ids;
    for (std::uint32_t i = 0; i < 300; ++i) {
      const Vec2 p{pos(rng), pos(rng)};
      boxes.emplace_back(p, p + Vec2{size(rng), size(rng)});
      ids.push_back(1000 + 7 * i);  // indices of the caller's own
      tree.insert(ids.back(), boxes.back());
    }
    EXPECT_EQ(tree.size(), boxes.size());
    // A const query before anything builds the tree still sees every box.
    std::vector<std::uint32_t> scanned;
    tree.query(boxes[0], scanned);
    EXPECT_TRUE(std::binary_search(scanned.begin(), scanned.end(), ids[0]));
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      std::vector<std::uint32_t> candidates, exact;
      tree.retrieve(boxes[i], candidates);
      tree.query(boxes[i], exact);
      EXPECT_TRUE(std::is_sorted(candidates.begin(), candidates.end()));
      EXPECT_TRUE(std::includes(candidates.begin(), candidates.end(), exact.begin(), exact.end()));
      for (std::uint32_t j = 0; j < boxes.size(); ++j) {
        const bool listed = std::binary_search(exact.begin(), exact.end(), ids[j]);
        ASSERT_EQ(listed, touches(boxes[i], boxes[j])) << "frame " << frame << " box " << i;
      }
    }
    std::vector<Pair> pairs;
    tree.findPairs(pairs);
    std::vector<Pair> want;
    for (const Pair& p : test::bruteForcePairs(boxes)) want.push_back({ids[p.a], ids[p.b]});
    std::sort(pairs.begin(), pairs.end());
    EXPECT_EQ(pairs, want) << "frame " << frame;
  }
}

TEST(RegionTrees, NoGrowthOnceWarm) {
  for (const auto& maker : defaultTrees()) {
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> pos(0, 200), size(0.5f, 4), step(-1, 1);
    std::vector<AABB> boxes(4000);
    for (auto& b : boxes) {
      const Vec2 p{pos(rng), pos(rng)};
      b = {p, p + Vec2{size(rng), size(rng)}};
    }
    auto bp = maker.make();
    bp->setBounds({{0, 0}, {204, 204}});
    std::vector<Pair> pairs;
    std::size_t warm = 0;
    for (int frame = 0; frame < 30; ++frame) {
      for (auto& b : boxes) {
        const Vec2 d{step(rng), step(rng)};
        b = {b.min + d, b.max + d};
      }
      bp->update(boxes);
      pairs.clear();
      bp->findPairs(pairs);
      if (frame == 10) warm = bp->memoryBytes();
    }
    // Small moves change leaf sizes a little; no growth beyond that.
    EXPECT_LE(bp->memoryBytes(), warm + warm / 4) << maker.name;
  }
}
