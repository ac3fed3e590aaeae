// How far the position correction spreads a packed crowd: the clustered
// scene (20,000 balls, 16 clusters packed far too tight) must end 70 steps
// (the perf suite's Workload B: 10 warm-up and 60 timed) with fewer
// overlapping pairs than a bound measured on the solver of issue 10, with
// margin. An overlap is counted as perf/quality.cpp counts it: centre
// distance below 0.999 of the summed radii. 20,000 balls run in optimised
// builds only, as the golden hashes' do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

namespace {

using namespace quadbin;

constexpr std::uint32_t kBalls = 20000;
constexpr int kSteps = 70;
// Measured in docs/perf.md (issue 10): 579 pairs once the shift passes
// had their clearance (566 before it), 1 since balls in a crowd get
// contacts with the neighbours the shift passes can push them into
// (2026-11-26). The bound leaves room for small changes, not for losing
// the crowd contacts.
constexpr std::uint32_t kBound = 64;

std::uint64_t overlappingPairs(const World& w) {
  const std::uint32_t n = w.bodyCount();
  std::vector<double> x(n), y(n), r(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const BodyId id = w.bodyAt(i);
    x[i] = w.position(id).x;
    y[i] = w.position(id).y;
    r[i] = w.radius(id);
  }
  std::uint64_t count = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      const double d = std::hypot(x[j] - x[i], y[j] - y[i]);
      count += d < (r[i] + r[j]) * (1.0 - 1e-3) ? 1u : 0u;
    }
  }
  return count;
}

TEST(GoldenOverlap, ClusteredSceneSpreadsWithinBound) {
#if !defined(NDEBUG) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "20,000 balls run in optimised builds only";
#endif
  const auto scene = scenes::generate(scenes::SceneKind::Clustered, kBalls);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Clustered);
  def.logLevel = LogLevel::Error;
  World w = scenes::makeWorld(scene, def);
  const std::uint64_t before = overlappingPairs(w);
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  for (int s = 0; s < kSteps; ++s) w.step(dt);
  const std::uint64_t after = overlappingPairs(w);
  EXPECT_GT(before, 10u * kBound) << "the scene is no longer packed: the bound says nothing";
  EXPECT_LT(after, kBound) << before << " overlapping pairs at the start";
}

}  // namespace
