// BroadPhaseOptions: makeBroadPhase(type, options) makes each structure with
// its own member (and Auto's picks with theirs), refuses options out of
// range, and a World takes them through WorldDef::broadPhaseOptions for
// its structure, every setBroadPhase and every restore, with results
// unchanged (the contact list is canonical whatever the structure).
#include <gtest/gtest.h>

#include <cstring>
#include <quadbin/broadphase.hpp>
#include <quadbin/error.hpp>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"

namespace {

using namespace quadbin;

// Options far from the defaults, each within range.
BroadPhaseOptions unusual() {
  BroadPhaseOptions o;
  o.quadtree.threshold = 3;
  o.quadtree.maxDepth = 12;
  o.quadtree.looseness = 1.5f;
  o.leafQuadtree.threshold = 2;
  o.leafQuadtree.maxDepth = 14;
  o.dynamicCentreQuadtree.threshold = 3;
  o.dynamicCentreQuadtree.sampleSize = 7;
  o.nonaTree.threshold = 5;
  o.nonaTree.maxDepth = 5;
  o.diagonalBsp.threshold = 4;
  o.diagonalBsp.maxDepth = 20;
  o.binGrid.cellSize = 2.5f;
  o.sweepAndPrune.axis = SweepAndPruneOptions::Axis::Y;
  o.dynamicAabbTree.margin = 0.5f;
  o.autoSelect.smallBelow = 10;
  o.autoSelect.mediumBelow = 100;
  o.autoSelect.large = BroadPhaseType::Quadtree;
  return o;
}

std::vector<AABB> boxes(std::uint32_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(0.0f, 100.0f), size(0.2f, 4.0f);
  std::vector<AABB> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    const float x = pos(rng), y = pos(rng), w = size(rng), h = size(rng);
    out.push_back({{x, y}, {x + w, y + h}});
  }
  return out;
}

TEST(BroadPhaseOptions, EveryStructureWithUnusualOptionsFindsTheBruteForcePairs) {
  const std::vector<AABB> b = boxes(3000, 5);
  const std::vector<Pair> want = test::bruteForcePairs(b);
  for (BroadPhaseType type : allBroadPhaseTypes()) {
    auto bp = makeBroadPhase(type, unusual());
    bp->setBounds({{0, 0}, {100, 100}});
    const std::vector<Pair> got = test::sorted(test::pairsOf(*bp, b));
    EXPECT_EQ(got, want) << toString(type) << ": " << test::describePairDifference(got, want);
  }
}

TEST(BroadPhaseOptions, EachStructureReadsItsOwnMember) {
  BroadPhaseOptions o;
  o.binGrid.cellSize = 2.5f;
  auto grid = makeBroadPhase(BroadPhaseType::BinGrid, o);
  grid->setBounds({{0, 0}, {100, 100}});
  grid->update(boxes(100, 1));
  EXPECT_EQ(static_cast<const BinGrid&>(*grid).cellSize(), 2.5f);
  // Options of other structures are not read: out of range, they refuse
  // nothing here.
  o.quadtree.threshold = 0;
  EXPECT_NO_THROW((void)makeBroadPhase(BroadPhaseType::BinGrid, o));
  EXPECT_THROW((void)makeBroadPhase(BroadPhaseType::Quadtree, o), Error);
  // The one-argument form is the defaults.
  auto plain = makeBroadPhase(BroadPhaseType::BinGrid);
  plain->setBounds({{0, 0}, {100, 100}});
  plain->update(boxes(100, 1));
  EXPECT_NE(static_cast<const BinGrid&>(*plain).cellSize(), 2.5f);
}

TEST(BroadPhaseOptions, AutoChecksThePicksOptionsWhenMade) {
  BroadPhaseOptions o;
  o.binGrid.cellSize = -1.0f;  // Auto's default large pick is the bin grid
  EXPECT_THROW((void)makeBroadPhase(BroadPhaseType::Auto, o), Error);
  o.autoSelect.large = BroadPhaseType::SweepAndPrune;  // no bin grid among the picks
  EXPECT_NO_THROW((void)makeBroadPhase(BroadPhaseType::Auto, o));
  o.autoSelect.hysteresis = 2.0f;
  EXPECT_THROW((void)makeBroadPhase(BroadPhaseType::Auto, o), Error);
}

TEST(BroadPhaseOptions, AutoMakesItsPicksWithTheirOptions) {
  BroadPhaseOptions o;
  o.autoSelect.smallBelow = 4;
  o.autoSelect.mediumBelow = 8;  // large (the bin grid) from 8 boxes
  o.binGrid.cellSize = 3.0f;
  AutoBroadPhase autoBp(o);
  autoBp.setBounds({{0, 0}, {100, 100}});
  autoBp.update(boxes(50, 2));
  ASSERT_EQ(autoBp.active(), BroadPhaseType::BinGrid);
  std::vector<Pair> pairs;
  autoBp.findPairs(pairs);
  EXPECT_EQ(test::sorted(pairs), test::bruteForcePairs(boxes(50, 2)));
}

WorldDef quietDef(BroadPhaseType type) {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.broadPhase = type;
  def.threadCount = 1;
  return def;
}

std::vector<float> state(const World& w) {
  std::vector<float> out;
  for (const Vec2 p : w.positions()) out.insert(out.end(), {p.x, p.y});
  for (const Vec2 v : w.velocities()) out.insert(out.end(), {v.x, v.y});
  return out;
}

TEST(BroadPhaseOptions, AWorldStepsTheSameWithAnyOptions) {
  const auto scene = scenes::generate(scenes::SceneKind::Clustered, 2000);
  for (BroadPhaseType type : {BroadPhaseType::Quadtree, BroadPhaseType::LeafQuadtree,
                              BroadPhaseType::BinGrid, BroadPhaseType::Auto}) {
    World plain = scenes::makeWorld(scene, quietDef(type));
    WorldDef def = quietDef(type);
    def.broadPhaseOptions = unusual();
    World tuned = scenes::makeWorld(scene, def);
    for (int s = 0; s < 30; ++s) {
      plain.step(1.0f / 60.0f);
      tuned.step(1.0f / 60.0f);
    }
    EXPECT_EQ(state(plain), state(tuned)) << toString(type);
  }
}

TEST(BroadPhaseOptions, AWorldRefusesOptionsOutOfRangeNamingThem) {
  WorldDef def = quietDef(BroadPhaseType::Quadtree);
  def.broadPhaseOptions.quadtree.maxDepth = 1000;
  try {
    World w(def);
    FAIL() << "accepted a quadtree of depth 1000";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("WorldDef.broadPhaseOptions"), std::string::npos)
        << e.what();
  }
  // The options of a structure the world does not use are checked when
  // it switches to it: refused, the world unchanged.
  def.broadPhase = BroadPhaseType::BinGrid;
  World w(def);
  w.createBody(BodyDef::ball({50, 50}, 1.0f, {1, 0}));
  EXPECT_THROW(w.setBroadPhase(BroadPhaseType::Quadtree), Error);
  EXPECT_EQ(w.def().broadPhase, BroadPhaseType::BinGrid);
  EXPECT_EQ(w.broadPhase().type(), BroadPhaseType::BinGrid);
  w.step(1.0f / 60.0f);
  w.setBroadPhase(BroadPhaseType::LeafQuadtree);
  EXPECT_EQ(w.broadPhase().type(), BroadPhaseType::LeafQuadtree);
}

TEST(BroadPhaseOptions, SetBroadPhaseAndRestoreKeepTheWorldsOptions) {
  WorldDef def = quietDef(BroadPhaseType::SweepAndPrune);
  def.broadPhaseOptions.binGrid.cellSize = 4.0f;
  World w(def);
  for (int i = 0; i < 30; ++i) {
    w.createBody(BodyDef::ball({10.0f + 2.5f * static_cast<float>(i), 50}, 1.0f, {3, 1}));
  }
  w.setBroadPhase(BroadPhaseType::BinGrid);
  w.step(1.0f / 60.0f);
  EXPECT_EQ(static_cast<const BinGrid&>(w.broadPhase()).cellSize(), 4.0f);
  // A snapshot of a default world, restored here: this world's options.
  World other(quietDef(BroadPhaseType::BinGrid));
  other.createBody(BodyDef::ball({20, 20}, 1.0f));
  w.restore(other.snapshot());
  EXPECT_EQ(w.def().broadPhaseOptions.binGrid.cellSize, 4.0f);
  w.step(1.0f / 60.0f);
  EXPECT_EQ(static_cast<const BinGrid&>(w.broadPhase()).cellSize(), 4.0f);
}

}  // namespace
