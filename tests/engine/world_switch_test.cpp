// World::setBroadPhase and World::setThreadCount: switching structure or
// threads between steps keeps the bodies, the physics and the queries.
#include <gtest/gtest.h>

#include <quadbin/error.hpp>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

namespace {

using namespace quadbin;

WorldDef quietDef(BroadPhaseType type, std::uint32_t threads = 1) {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.broadPhase = type;
  def.threadCount = threads;
  return def;
}

std::vector<Vec2> positions(const World& w) {
  std::vector<Vec2> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) out.push_back(w.position(w.bodyAt(i)));
  return out;
}

TEST(WorldSwitch, SwitchingBeforeTheFirstStepEqualsStartingWithTheStructure) {
  const auto scene = scenes::generate(scenes::SceneKind::Uniform, 800);
  World direct = scenes::makeWorld(scene, quietDef(BroadPhaseType::SweepAndPrune));
  World switched = scenes::makeWorld(scene, quietDef(BroadPhaseType::BinGrid));
  switched.setBroadPhase(BroadPhaseType::SweepAndPrune);
  EXPECT_EQ(switched.def().broadPhase, BroadPhaseType::SweepAndPrune);
  EXPECT_EQ(switched.broadPhase().type(), BroadPhaseType::SweepAndPrune);
  for (int s = 0; s < 20; ++s) {
    direct.step(1.0f / 60.0f);
    switched.step(1.0f / 60.0f);
  }
  EXPECT_EQ(positions(direct), positions(switched));
}

TEST(WorldSwitch, EveryStructureTakesOverMidSimulation) {
  const auto scene = scenes::generate(scenes::SceneKind::Clustered, 1000);
  World w = scenes::makeWorld(scene, quietDef(BroadPhaseType::Quadtree));
  const std::uint32_t bodies = w.bodyCount();
  const double energy = w.kineticEnergy();
  for (BroadPhaseType type : allBroadPhaseTypes()) {
    SCOPED_TRACE(std::string(toString(type)));
    w.setBroadPhase(type);
    // Queries right after the switch see every body (the index is rebuilt).
    std::vector<BodyId> all;
    w.queryBox(w.def().bounds, all);
    EXPECT_EQ(all.size(), bodies);
    for (int s = 0; s < 5; ++s) w.step(1.0f / 60.0f);
    EXPECT_EQ(w.broadPhase().type(), type);
    EXPECT_EQ(w.bodyCount(), bodies);
    EXPECT_GT(w.stats().candidatePairs, 0u);
    EXPECT_NEAR(w.kineticEnergy(), energy, 1e-3 * energy);  // elastic and closed
  }
}

TEST(WorldSwitch, ThreadCountChangesKeepResultsBitIdentical) {
  const auto scene = scenes::generate(scenes::SceneKind::Uniform, 1500);
  World serial = scenes::makeWorld(scene, quietDef(BroadPhaseType::LeafQuadtree, 1));
  World changing = scenes::makeWorld(scene, quietDef(BroadPhaseType::LeafQuadtree, 1));
  const std::uint32_t counts[] = {2, 4, 1, 3};
  for (int s = 0; s < 12; ++s) {
    if (s % 3 == 0) {
      const std::uint32_t threads = counts[s / 3];
      changing.setThreadCount(threads);
      EXPECT_EQ(changing.def().threadCount, threads);
      EXPECT_EQ(changing.taskSystem().threadCount(), threads);
    }
    serial.step(1.0f / 60.0f);
    changing.step(1.0f / 60.0f);
  }
  EXPECT_EQ(positions(serial), positions(changing));
}

TEST(WorldSwitch, TooManyThreadsAreRefused) {
  World w(quietDef(BroadPhaseType::BinGrid));
  EXPECT_THROW(w.setThreadCount(1025), Error);
  EXPECT_EQ(w.def().threadCount, 1u);
}

}  // namespace
