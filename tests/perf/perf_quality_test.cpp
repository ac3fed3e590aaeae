// perf::measureQuality (the overlaps of a world's state, perf/quality.hpp)
// against a brute force over all pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <quadbin/quadbin.hpp>
#include <random>
#include <vector>

#include "quality.hpp"

using quadbin::perf::measureQuality;
using quadbin::perf::Quality;

namespace {

struct Balls {
  std::vector<double> x, y, r;
  void add(double px, double py, double pr) {
    x.push_back(px);
    y.push_back(py);
    r.push_back(pr);
  }
};

// Every pair, with the definition of docs/perf-cli.md.
Quality bruteForce(const Balls& b) {
  Quality q;
  for (std::size_t i = 0; i < b.x.size(); ++i) {
    for (std::size_t j = i + 1; j < b.x.size(); ++j) {
      const double dx = b.x[i] - b.x[j], dy = b.y[i] - b.y[j];
      const double sum = b.r[i] + b.r[j];
      const double d = std::sqrt(dx * dx + dy * dy);
      if (d < sum * (1.0 - 1e-3)) ++q.overlaps;
      if (d < sum)
        q.maxPenetration = std::max(q.maxPenetration, (sum - d) / std::min(b.r[i], b.r[j]));
    }
  }
  return q;
}

void expectSame(const Balls& b, const char* what) {
  const Quality expected = bruteForce(b);
  const Quality got = measureQuality(b.x, b.y, b.r);
  EXPECT_EQ(got.overlaps, expected.overlaps) << what;
  EXPECT_EQ(got.maxPenetration, expected.maxPenetration) << what;
}

}  // namespace

TEST(PerfQuality, NothingToMeasure) {
  Balls b;
  EXPECT_EQ(measureQuality(b.x, b.y, b.r).overlaps, 0u);
  b.add(1, 1, 1);
  const Quality one = measureQuality(b.x, b.y, b.r);
  EXPECT_EQ(one.overlaps, 0u);
  EXPECT_EQ(one.maxPenetration, 0.0);
}

TEST(PerfQuality, TouchingIsNotOverlapping) {
  Balls b;
  b.add(0, 0, 1);
  b.add(2, 0, 1);  // exactly touching: d = ra + rb
  b.add(10, 10, 0.5);
  b.add(10, 11.5, 1);  // touching, mixed radii
  const Quality q = measureQuality(b.x, b.y, b.r);
  EXPECT_EQ(q.overlaps, 0u);
  EXPECT_EQ(q.maxPenetration, 0.0);
}

TEST(PerfQuality, ToleranceAndPenetration) {
  Balls within;  // 0.05 % of the summed radii: contact, not an overlap
  within.add(0, 0, 1);
  within.add(2.0 - 0.001, 0, 1);
  Quality q = measureQuality(within.x, within.y, within.r);
  EXPECT_EQ(q.overlaps, 0u);
  EXPECT_NEAR(q.maxPenetration, 0.001, 1e-12);

  Balls just;  // 0.15 %: just beyond the tolerance of 0.1 %
  just.add(0, 0, 1);
  just.add(0, 2.0 * (1 - 1.5e-3), 1);
  q = measureQuality(just.x, just.y, just.r);
  EXPECT_EQ(q.overlaps, 1u);
  EXPECT_NEAR(q.maxPenetration, 0.003, 1e-12);

  Balls beyond;  // 0.5 %: an overlap; penetration over the smaller radius
  beyond.add(0, 0, 3);
  beyond.add(0, 3.98, 1);
  q = measureQuality(beyond.x, beyond.y, beyond.r);
  EXPECT_EQ(q.overlaps, 1u);
  EXPECT_NEAR(q.maxPenetration, 0.02, 1e-12);

  Balls nested;  // a small ball inside a big one, and two at the same place
  nested.add(5, 5, 4);
  nested.add(6, 5, 0.5);
  nested.add(20, 20, 1);
  nested.add(20, 20, 1);
  q = measureQuality(nested.x, nested.y, nested.r);
  EXPECT_EQ(q.overlaps, 2u);
  EXPECT_NEAR(q.maxPenetration, 7.0, 1e-12);  // (4 + 0.5 - 1) / 0.5
  expectSame(nested, "nested");
}

TEST(PerfQuality, MatchesBruteForceOnRandomBalls) {
  std::mt19937_64 rng(3);
  using U = std::uniform_real_distribution<double>;
  for (int round = 0; round < 20; ++round) {
    Balls b;
    const int n = 200 + 20 * round;
    const double size = 20.0 + 4.0 * round;
    for (int i = 0; i < n; ++i) {
      // Mixed radii, log-uniform over two decades.
      const double r = std::exp(U(std::log(0.1), std::log(10.0))(rng)) * (round % 3 ? 1.0 : 0.2);
      const double x = U(0, size)(rng), y = U(0, size)(rng);  // in this order on every compiler
      b.add(x, y, r);
    }
    // Exactly touching pairs (along an axis, so d is exact), pairs within
    // and beyond the tolerance, and a duplicate.
    for (int k = 0; k < 10; ++k) {
      const double px = U(0, size)(rng), py = U(0, size)(rng), r = 0.25 * (k + 1);
      b.add(px, py, r);
      b.add(px + 2 * r, py, r);
      b.add(px, py + r + 0.5, 0.5);
      b.add(px - r - 0.5 * (1 - 2e-4), py, 0.5);
      b.add(px - r * (1 - 4e-3), py - r, 0.5);
    }
    b.add(b.x[0], b.y[0], b.r[0]);
    const Quality expected = bruteForce(b);
    EXPECT_GT(expected.overlaps, 0u);
    expectSame(b, ("round " + std::to_string(round)).c_str());
  }
}

TEST(PerfQuality, SpreadOutAndThinArrangements) {
  Balls line;  // a long thin row: the grid's cells widen, pairs stay exact
  for (int i = 0; i < 300; ++i) line.add(1.9 * i, 0.001 * (i % 7), 1.0);
  expectSame(line, "row");
  Balls far;  // two clusters far apart, big and small balls
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(0, 5);
  for (int i = 0; i < 200; ++i) {
    const double x = u(rng) + (i % 2 ? 1e6 : 0), y = u(rng);
    far.add(x, y, i % 10 ? 0.2 : 3.0);
  }
  expectSame(far, "far");
}

TEST(PerfQuality, LeavesOutNonFiniteBalls) {
  Balls b;
  b.add(0, 0, 1);
  b.add(NAN, 0, 1);
  b.add(0.5, 0, 1);
  b.add(0, INFINITY, 1);
  const Quality q = measureQuality(b.x, b.y, b.r);
  EXPECT_EQ(q.overlaps, 1u);
  EXPECT_NEAR(q.maxPenetration, 1.5, 1e-12);
}

TEST(PerfQuality, OfAWorld) {
  quadbin::World world;
  (void)world.createBody(quadbin::BodyDef::ball({10, 10}, 1.0f));
  (void)world.createBody(quadbin::BodyDef::ball({11.5f, 10}, 1.0f));
  (void)world.createBody(quadbin::BodyDef::staticBox({{30, 30}, {40, 40}}));
  (void)world.createBody(quadbin::BodyDef::ball({35, 35}, 2.0f));  // inside the box: not counted
  const Quality q = measureQuality(world);
  EXPECT_EQ(q.overlaps, 1u);
  EXPECT_NEAR(q.maxPenetration, 0.5, 1e-6);
}
