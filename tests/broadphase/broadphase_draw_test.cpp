// BroadPhase::draw (quadbin/broadphase/debug_draw.hpp): what each structure
// shows of itself is consistent with the boxes it holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <quadbin/broadphase.hpp>
#include <random>
#include <string>
#include <vector>

using namespace quadbin;

namespace {

struct Recorded {
  AABB box;
  std::vector<Vec2> corners;  // polygons only
  std::uint32_t depth = 0;
  std::uint32_t count = 0;
  bool leaf = false;
};

// Keeps every callback.
struct Recorder final : BroadPhaseDraw {
  std::vector<Recorded> cells, polygons, treeBoxes;
  std::vector<Recorded> intervals;  // box.min.x = lo, box.max.x = hi, count = rank, depth = axis

  void cell(const AABB& box, std::uint32_t depth, std::uint32_t count) override {
    cells.push_back({box, {}, depth, count, false});
  }
  void polygon(std::span<const Vec2> corners, std::uint32_t depth, std::uint32_t count) override {
    Recorded r;
    r.corners.assign(corners.begin(), corners.end());
    r.depth = depth;
    r.count = count;
    polygons.push_back(r);
  }
  void treeBox(const AABB& box, std::uint32_t depth, bool leaf) override {
    treeBoxes.push_back({box, {}, depth, 0, leaf});
  }
  void interval(std::uint32_t axis, float lo, float hi, std::uint32_t rank) override {
    intervals.push_back({{{lo, 0.0f}, {hi, 0.0f}}, {}, axis, rank, false});
  }
  [[nodiscard]] std::size_t total() const noexcept {
    return cells.size() + polygons.size() + treeBoxes.size() + intervals.size();
  }
};

const AABB kWorld{{0.0f, 0.0f}, {100.0f, 100.0f}};

std::vector<AABB> randomBoxes(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(2.0f, 98.0f), half(0.1f, 1.0f);
  std::vector<AABB> boxes(n);
  for (AABB& b : boxes) {
    const Vec2 c{pos(rng), pos(rng)};
    const float h = half(rng);
    b = {{c.x - h, c.y - h}, {c.x + h, c.y + h}};
  }
  return boxes;
}

Recorder drawn(BroadPhase& bp, std::span<const AABB> boxes) {
  bp.setBounds(kWorld);
  bp.update(boxes);
  std::vector<Pair> pairs;
  bp.findPairs(pairs);
  Recorder r;
  bp.draw(r);
  return r;
}

float area(const AABB& b) { return (b.max.x - b.min.x) * (b.max.y - b.min.y); }

float polygonArea(const std::vector<Vec2>& p) {
  float twice = 0.0f;
  for (std::size_t i = 0; i < p.size(); ++i) twice += cross(p[i], p[(i + 1) % p.size()]);
  return std::abs(twice) * 0.5f;
}

}  // namespace

TEST(BroadPhaseDraw, EveryStructureDrawsEmptyAndFullWithoutFailing) {
  const auto boxes = randomBoxes(500, 1);
  for (BroadPhaseType type : allBroadPhaseTypes()) {
    SCOPED_TRACE(std::string(toString(type)));
    auto bp = makeBroadPhase(type);
    Recorder fresh;
    bp->draw(fresh);  // before any update
    EXPECT_EQ(fresh.total(), 0u);
    const Recorder full = drawn(*bp, boxes);
    if (type == BroadPhaseType::BruteForce) {
      EXPECT_EQ(full.total(), 0u);
    } else {
      EXPECT_GT(full.total(), 0u);
    }
    bp->update({});
    Recorder empty;
    bp->draw(empty);  // no boxes: nothing to hold, and no failure
    for (const Recorded& c : empty.cells) EXPECT_EQ(c.count, 0u);
  }
}

TEST(BroadPhaseDraw, QuadtreeNodesCoverTheBoundsAndHoldEveryBoxOnce) {
  const auto boxes = randomBoxes(3000, 2);
  QuadtreeBroadPhase tree;
  const Recorder r = drawn(tree, boxes);
  ASSERT_FALSE(r.cells.empty());
  ASSERT_EQ(r.cells.front().depth, 0u);
  const AABB root = r.cells.front().box;
  std::uint64_t held = 0;
  float depthOneArea = 0.0f;
  for (const Recorded& c : r.cells) {
    EXPECT_TRUE(contains(root, c.box));
    held += c.count;
    if (c.depth == 1) depthOneArea += area(c.box);
  }
  for (const AABB& b : boxes) EXPECT_TRUE(contains(root, b));
  EXPECT_EQ(held + tree.outsideCount(), boxes.size());  // a box lives in one node
  EXPECT_NEAR(depthOneArea, area(root), 1e-3f * area(root));
  EXPECT_EQ(r.cells.size(), tree.nodeCount());
}

TEST(BroadPhaseDraw, RectangularRegionTreeLeavesPartitionTheRoot) {
  const auto boxes = randomBoxes(3000, 3);
  std::vector<std::unique_ptr<BroadPhase>> trees;
  trees.push_back(std::make_unique<LeafQuadtree>());
  trees.push_back(std::make_unique<DynamicCentreQuadtree>());
  trees.push_back(std::make_unique<NonaTree>());
  for (auto& tree : trees) {
    SCOPED_TRACE(std::string(toString(tree->type())));
    const Recorder r = drawn(*tree, boxes);
    ASSERT_GT(r.cells.size(), 1u);
    EXPECT_TRUE(r.polygons.empty());
    std::uint64_t held = 0;
    float leafArea = 0.0f;
    for (const Recorded& c : r.cells) {
      EXPECT_TRUE(contains(kWorld, c.box));
      EXPECT_GT(c.depth, 0u);
      held += c.count;
      leafArea += area(c.box);
    }
    EXPECT_NEAR(leafArea, area(kWorld), 1e-3f * area(kWorld));
    EXPECT_GE(held, boxes.size());  // boxes on a cut are in several leaves
    // Every box's centre lies in a leaf.
    for (const AABB& b : boxes) {
      const Vec2 c = b.center();
      EXPECT_TRUE(std::any_of(r.cells.begin(), r.cells.end(), [&](const Recorded& cell) {
        return contains(cell.box, AABB{c, c}) && cell.count > 0;
      }));
    }
  }
}

TEST(BroadPhaseDraw, DiagonalBspTrianglesPartitionTheRoot) {
  const auto boxes = randomBoxes(3000, 4);
  DiagonalBsp bsp;
  const Recorder r = drawn(bsp, boxes);
  ASSERT_GT(r.polygons.size(), 2u);
  EXPECT_TRUE(r.cells.empty());
  std::uint64_t held = 0;
  float total = 0.0f;
  for (const Recorded& p : r.polygons) {
    EXPECT_EQ(p.corners.size(), 3u);
    held += p.count;
    total += polygonArea(p.corners);
  }
  EXPECT_NEAR(total, area(kWorld), 1e-3f * area(kWorld));
  EXPECT_GE(held, boxes.size());
}

TEST(BroadPhaseDraw, BinGridCellsHoldEachBoxOnceByItsMinimumCorner) {
  const auto boxes = randomBoxes(2000, 5);
  BinGridOptions options;
  options.cellSize = 4.0f;
  options.multiLevel = false;
  BinGrid grid(options);
  const Recorder r = drawn(grid, boxes);
  const float side = grid.cellSize();  // 4, or larger to fit the largest box
  EXPECT_GE(side, 4.0f);
  std::uint64_t held = 0;
  std::map<std::pair<float, float>, std::uint32_t> counts;
  for (const Recorded& c : r.cells) {
    EXPECT_EQ(c.depth, 0u);
    EXPECT_GT(c.count, 0u);
    EXPECT_FLOAT_EQ(c.box.max.x - c.box.min.x, side);
    held += c.count;
    counts[{c.box.min.x, c.box.min.y}] += c.count;
  }
  EXPECT_EQ(held, boxes.size());
  // Each cell is drawn once, and holds the boxes whose minimum corner is in it.
  EXPECT_EQ(counts.size(), r.cells.size());
  std::map<std::pair<float, float>, std::uint32_t> expected;
  for (const AABB& b : boxes) {
    const auto cx = static_cast<float>(std::floor(static_cast<double>(b.min.x) / side) * side);
    const auto cy = static_cast<float>(std::floor(static_cast<double>(b.min.y) / side) * side);
    ++expected[{cx, cy}];
  }
  EXPECT_EQ(counts, expected);
}

TEST(BroadPhaseDraw, MultiLevelBinGridHoldsEveryBox) {
  auto boxes = randomBoxes(2000, 6);
  boxes.push_back({{10.0f, 10.0f}, {60.0f, 60.0f}});  // a big one on a coarse level
  BinGrid grid;
  const Recorder r = drawn(grid, boxes);
  std::uint64_t held = 0;
  std::uint32_t deepest = 0;
  for (const Recorded& c : r.cells) {
    held += c.count;
    deepest = std::max(deepest, c.depth);
  }
  EXPECT_GE(held, boxes.size());
  EXPECT_GT(deepest, 0u);
}

TEST(BroadPhaseDraw, AabbTreeRootContainsEveryBoxAndLeavesAreTheProxies) {
  const auto boxes = randomBoxes(2000, 7);
  DynamicAabbTree tree;
  const Recorder r = drawn(tree, boxes);
  std::size_t roots = 0, leaves = 0;
  AABB root{};
  for (const Recorded& t : r.treeBoxes) {
    if (t.depth == 0) {
      ++roots;
      root = t.box;
    }
    leaves += t.leaf ? 1u : 0u;
  }
  ASSERT_EQ(roots, 1u);
  EXPECT_EQ(leaves, boxes.size());
  EXPECT_EQ(r.treeBoxes.size(), 2 * boxes.size() - 1);
  for (const AABB& b : boxes) EXPECT_TRUE(contains(root, b));
  for (const Recorded& t : r.treeBoxes) EXPECT_TRUE(contains(root, t.box));
}

TEST(BroadPhaseDraw, SweepAndPruneIntervalsAreTheSortedBoxes) {
  const auto boxes = randomBoxes(2000, 8);
  SweepAndPrune sap;
  const Recorder r = drawn(sap, boxes);
  ASSERT_EQ(r.intervals.size(), boxes.size());
  const std::uint32_t axis = r.intervals.front().depth;
  std::vector<float> los;
  for (std::uint32_t k = 0; k < r.intervals.size(); ++k) {
    EXPECT_EQ(r.intervals[k].count, k);
    EXPECT_EQ(r.intervals[k].depth, axis);
    if (k > 0) {
      EXPECT_LE(r.intervals[k - 1].box.min.x, r.intervals[k].box.min.x);
    }
    los.push_back(r.intervals[k].box.min.x);
  }
  std::vector<float> mins;
  for (const AABB& b : boxes) mins.push_back(axis == 0 ? b.min.x : b.min.y);
  std::sort(mins.begin(), mins.end());
  EXPECT_EQ(los, mins);
}

TEST(BroadPhaseDraw, AutoDrawsTheStructureItPicked) {
  const auto boxes = randomBoxes(2000, 9);
  AutoBroadPhase autoBp;
  const Recorder r = drawn(autoBp, boxes);
  auto picked = makeBroadPhase(autoBp.active());
  const Recorder direct = drawn(*picked, boxes);
  EXPECT_EQ(r.cells.size(), direct.cells.size());
  EXPECT_EQ(r.polygons.size(), direct.polygons.size());
  EXPECT_EQ(r.treeBoxes.size(), direct.treeBoxes.size());
  EXPECT_EQ(r.intervals.size(), direct.intervals.size());
  EXPECT_GT(r.total(), 0u);
}
