// The world's settings room (engine/src/world/settings.hpp): what the
// setters change, what a restore takes from a snapshot and what it keeps,
// and the warnings logged once.
#include <gtest/gtest.h>

#include <quadbin/engine/world_def.hpp>

#include "world/settings.hpp"

namespace quadbin {
namespace {

using Warning = WorldSettings::Warning;

TEST(WorldSettings, SettersChangeTheirFieldOnly) {
  WorldDef d;
  d.gravity = {0, -10};
  d.threadCount = 4;
  WorldSettings s(d);
  s.setGravity({1, 2});
  EXPECT_EQ(s.def().gravity, (Vec2{1, 2}));
  EXPECT_EQ(s.def().threadCount, 4u);
  s.setThreadCount(2);
  EXPECT_EQ(s.def().threadCount, 2u);
  EXPECT_EQ(s.def().taskSystem, nullptr);
  s.setBroadPhase(BroadPhaseType::Quadtree);
  EXPECT_EQ(s.def().broadPhase, BroadPhaseType::Quadtree);
  EXPECT_EQ(s.def().gravity, (Vec2{1, 2}));
}

TEST(WorldSettings, ARestoreKeepsWhatBelongsToTheProcess) {
  WorldDef mine;
  mine.threadCount = 3;
  mine.logLevel = LogLevel::Debug;
  mine.broadPhaseOptions.binGrid.cellSize = 7.0f;
  WorldDef snapshot;
  snapshot.threadCount = 8;
  snapshot.gravity = {0, -3};
  snapshot.restitution = 0.25f;
  snapshot.broadPhase = BroadPhaseType::SweepAndPrune;
  WorldSettings s(mine);
  WorldDef next = s.restoredFrom(snapshot);
  EXPECT_EQ(next.threadCount, 3u);
  EXPECT_EQ(next.logLevel, LogLevel::Debug);
  EXPECT_EQ(next.broadPhaseOptions.binGrid.cellSize, 7.0f);
  EXPECT_EQ(next.gravity, (Vec2{0, -3}));
  EXPECT_EQ(next.restitution, 0.25f);
  EXPECT_EQ(next.broadPhase, BroadPhaseType::SweepAndPrune);
  s.replace(std::move(next));
  EXPECT_EQ(s.def().restitution, 0.25f);
}

TEST(WorldSettings, WarningsOnceEachUntilTheBroadPhaseChanges) {
  WorldSettings s(WorldDef{});
  EXPECT_TRUE(s.warnOnce(Warning::BruteForce));
  EXPECT_FALSE(s.warnOnce(Warning::BruteForce));
  EXPECT_TRUE(s.warnOnce(Warning::Outside));
  EXPECT_FALSE(s.warnOnce(Warning::Outside));
  s.setBroadPhase(BroadPhaseType::BruteForce);
  EXPECT_TRUE(s.warnOnce(Warning::BruteForce));
  EXPECT_FALSE(s.warnOnce(Warning::Outside));  // once per world
  s.replace(WorldDef{});
  EXPECT_TRUE(s.warnOnce(Warning::BruteForce));
  s.stepping(0.25f);
  EXPECT_EQ(s.stepDt(), 0.25f);
}

}  // namespace
}  // namespace quadbin
