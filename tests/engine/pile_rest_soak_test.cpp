// The 100,000-ball pile scene (quadbin-perf pile's default) comes to rest
// within 2 s of the bound that free fall sets (docs/perf.md, "Piles"): its
// top falls 168 units, which takes at least 5.75 s from 1 unit/s downward,
// so it must rest by 7.75 s. Label "soak": about 30 s on two cores in an
// optimised build, so CI runs it with the Release tests only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <quadbin/engine/world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

namespace {

using namespace quadbin;

constexpr float kDt = 1.0f / 60.0f;

// The first time from which the kinetic energy stays below 1e-3 of its
// peak to the end of the run (the pile command's "rest at"), or -1.
double restTime(std::uint32_t balls, std::uint64_t seed, double seconds) {
  const auto scene = scenes::generate(scenes::SceneKind::Pile, balls, seed);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Pile);
  def.threadCount = 2;
  def.logLevel = LogLevel::Off;
  World w = scenes::makeWorld(scene, def);
  std::vector<double> energy;
  const auto steps = static_cast<std::size_t>(std::lround(seconds / kDt));
  for (std::size_t s = 0; s < steps; ++s) {
    w.step(kDt);
    energy.push_back(w.kineticEnergy());
  }
  const double peak = *std::max_element(energy.begin(), energy.end());
  std::size_t rest = energy.size();
  while (rest > 0 && energy[rest - 1] < 1e-3 * peak) --rest;
  if (rest == energy.size()) return -1.0;
  return static_cast<double>(rest + 1) * kDt;
}

// Seed 42 rested at 8.72 s while the shock pass's impulses were warm
// started (the landed pile's top rose again for a second); 6.93 s since.
TEST(PileRest, TheHundredThousandBallPileRestsWithinTwoSecondsOfFreeFall) {
  const double rest = restTime(100000, 42, 9.0);
  ASSERT_GT(rest, 0.0) << "not at rest by 9 s";
  EXPECT_GE(rest, 5.75) << "faster than free fall: the scene or the measure changed";
  EXPECT_LE(rest, 7.75);
}

}  // namespace
