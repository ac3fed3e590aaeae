// Resting contact and sleeping: piles settle without jitter, fall asleep,
// and wake when something touches them, pushes them, moves them or removes
// what they rest on.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

// n balls of radius 1 on a grid above the floor of a closed box, a little
// jitter so that they do not stack in perfect columns.
World makePile(std::uint32_t n, bool sleep, std::vector<BodyId>& balls, float restitution = 0.5f) {
  const auto across = static_cast<std::uint32_t>(std::ceil(std::sqrt(static_cast<float>(n))));
  const float width = static_cast<float>(across) * 2.2f + 2.0f;
  WorldDef def;
  def.bounds = {{0, 0}, {width, static_cast<float>(n / across + 2) * 2.5f + 10.0f}};
  def.gravity = {0, -9.8f};
  def.restitution = restitution;
  def.enableSleep = sleep;
  def.logLevel = LogLevel::Off;
  World w(def);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.05f, 0.05f), speed(-1.0f, 1.0f);
  for (std::uint32_t i = 0; i < n; ++i) {
    const float x = 2.1f + static_cast<float>(i % across) * 2.2f + jitter(rng);
    const float y = 2.0f + static_cast<float>(i / across) * 2.3f;
    balls.push_back(w.createBody(BodyDef::ball({x, y}, 1.0f, {speed(rng), speed(rng)})));
  }
  return w;
}

float deepestOverlap(const World& w, const std::vector<BodyId>& balls) {
  float worst = 0.0f;
  for (std::size_t i = 0; i < balls.size(); ++i) {
    for (std::size_t j = i + 1; j < balls.size(); ++j) {
      const float gap = length(w.position(balls[j]) - w.position(balls[i])) - w.radius(balls[i]) -
                        w.radius(balls[j]);
      worst = std::max(worst, -gap);
    }
  }
  return worst;
}

std::uint32_t awakeCount(const World& w, const std::vector<BodyId>& balls) {
  return static_cast<std::uint32_t>(
      std::count_if(balls.begin(), balls.end(), [&](BodyId b) { return w.isAwake(b); }));
}

}  // namespace

TEST(Resting, PileSettles) {
  // Sleeping off: the pile itself must come to rest. Frictionless balls
  // slosh before they settle (measured: 1e-3 of the peak energy at about
  // 6 s for this pile, 2e-7 at 20 s; other seeds of the same pile keep up
  // to 5e-4 after 20 s with late avalanches, with this solver and the
  // previous one alike; docs/perf.md has the pile scene).
  std::vector<BodyId> balls;
  World w = makePile(300, false, balls);
  double peak = 0.0;
  for (int s = 0; s < 600; ++s) {
    w.step(kDt);
    peak = std::max(peak, w.kineticEnergy());
  }
  EXPECT_LT(w.kineticEnergy(), 1e-3 * peak) << "the pile still moves after 10 s";
  for (int s = 0; s < 600; ++s) w.step(kDt);
  EXPECT_LT(w.kineticEnergy(), 1e-6 * peak) << "the pile still moves after 20 s";
  EXPECT_LT(deepestOverlap(w, balls), 0.02f);
}

TEST(Resting, StackOfBallsStandsStill) {
  WorldDef def;
  def.bounds = {{0, 0}, {10, 40}};
  def.gravity = {0, -10};
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  World w(def);
  std::vector<BodyId> stack;
  for (int i = 0; i < 8; ++i) {
    stack.push_back(w.createBody(BodyDef::ball({5, 1.0f + 2.0f * static_cast<float>(i)}, 1)));
  }
  for (int s = 0; s < 600; ++s) w.step(kDt);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(w.position(stack[i]).y, 1.0f + 2.0f * static_cast<float>(i), 2e-3f);
    EXPECT_NEAR(w.position(stack[i]).x, 5.0f, 1e-5f);
    EXPECT_LT(length(w.velocity(stack[i])), 1e-3f);
  }
}

TEST(Sleep, PileFallsAsleepAndCostsNothing) {
  std::vector<BodyId> balls;
  World w = makePile(300, true, balls);
  int asleepAt = -1;
  for (int s = 0; s < 1200 && asleepAt < 0; ++s) {
    w.step(kDt);
    if (w.stats().awakeBodies == 0) asleepAt = s;
  }
  ASSERT_GE(asleepAt, 0) << "the pile never fell asleep in 20 s";
  EXPECT_EQ(awakeCount(w, balls), 0u);
  EXPECT_EQ(w.kineticEnergy(), 0.0);
  const std::uint32_t touching = w.stats().contacts;
  EXPECT_GT(touching, 100u);
  std::vector<Vec2> before;
  for (BodyId b : balls) before.push_back(w.position(b));
  for (int s = 0; s < 60; ++s) w.step(kDt);
  for (std::size_t i = 0; i < balls.size(); ++i) {
    EXPECT_EQ(w.position(balls[i]), before[i]) << "a sleeping ball moved";
  }
  // A sleeping world is not even handed to the broad phase.
  EXPECT_EQ(w.stats().awakeBodies, 0u);
  EXPECT_EQ(w.stats().candidatePairs, 0u);
  EXPECT_EQ(w.stats().contacts, touching);
  EXPECT_TRUE(w.contactBeginEvents().empty());
  EXPECT_TRUE(w.contactEndEvents().empty()) << "falling asleep ends no contact";
}

namespace {
// A settled, sleeping pile of 100 balls.
World sleepingPile(std::vector<BodyId>& balls) {
  World w = makePile(100, true, balls, 0.2f);
  for (int s = 0; s < 1200 && awakeCount(w, balls) > 0; ++s) w.step(kDt);
  return w;
}
}  // namespace

TEST(Sleep, ABallDroppedOnThePileWakesIt) {
  std::vector<BodyId> balls;
  World w = sleepingPile(balls);
  ASSERT_EQ(awakeCount(w, balls), 0u);
  float top = 0.0f;
  for (BodyId b : balls) top = std::max(top, w.position(b).y);
  const BodyId dropped = w.createBody(BodyDef::ball({w.position(balls[55]).x, top + 5.0f}, 1.0f));
  int steps = 0;
  while (awakeCount(w, balls) == 0 && steps < 120) {
    w.step(kDt);
    ++steps;
  }
  EXPECT_GT(awakeCount(w, balls), 0u) << "the pile slept through the impact";
  EXPECT_TRUE(w.isAwake(dropped) || w.position(dropped).y < top + 2.0f);
}

TEST(Sleep, SetVelocityWakesTheIsland) {
  std::vector<BodyId> balls;
  World w = sleepingPile(balls);
  ASSERT_FALSE(w.isAwake(balls[50]));
  w.setVelocity(balls[50], {0, 5});
  EXPECT_TRUE(w.isAwake(balls[50]));
  EXPECT_GT(awakeCount(w, balls), 1u) << "its neighbours in the pile wake too";
  w.step(kDt);
  EXPECT_GT(w.position(balls[50]).y, 0.0f);
  EXPECT_GT(w.stats().awakeBodies, 0u);
}

TEST(Sleep, TeleportWakes) {
  std::vector<BodyId> balls;
  World w = sleepingPile(balls);
  const Vec2 before = w.position(balls[10]);
  w.setPosition(balls[10], before + Vec2{0, 30});
  EXPECT_TRUE(w.isAwake(balls[10]));
  for (int s = 0; s < 30; ++s) w.step(kDt);
  EXPECT_LT(w.position(balls[10]).y, before.y + 30.0f) << "it falls again";
}

TEST(Sleep, DestroyingASupportWakesWhatRestsOnIt) {
  std::vector<BodyId> balls;
  World w = sleepingPile(balls);
  // The lowest ball of the pile holds others up.
  std::size_t lowest = 0;
  for (std::size_t i = 1; i < balls.size(); ++i) {
    if (w.position(balls[i]).y < w.position(balls[lowest]).y) lowest = i;
  }
  w.destroyBody(balls[lowest]);
  balls.erase(balls.begin() + static_cast<std::ptrdiff_t>(lowest));
  EXPECT_GT(awakeCount(w, balls), 0u);
  w.step(kDt);
  EXPECT_GT(w.stats().awakeBodies, 0u);
}

TEST(Sleep, SetAwakeAndDisabledSleep) {
  std::vector<BodyId> balls;
  World w = sleepingPile(balls);
  w.setAwake(balls[3], true);
  EXPECT_TRUE(w.isAwake(balls[3]));
  std::vector<BodyId> more;
  World awake = makePile(100, false, more);
  for (int s = 0; s < 600; ++s) awake.step(kDt);
  EXPECT_EQ(awakeCount(awake, more), 100u) << "enableSleep = false: nothing sleeps";
}

TEST(Overlap, ClusteredSceneOverlapsDecreaseUntilResolved) {
  const auto scene = scenes::generate(scenes::SceneKind::Clustered, 2000);
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.enableSleep = false;
  World w = scenes::makeWorld(scene, def);
  auto overlaps = [&] {
    std::uint32_t count = 0;
    const std::uint32_t n = w.bodyCount();
    std::vector<Vec2> p(n);
    for (std::uint32_t i = 0; i < n; ++i) p[i] = w.position(w.bodyAt(i));
    for (std::uint32_t i = 0; i < n; ++i) {
      // Overlaps deeper than 1 % of the radius (collisions leave shallower
      // ones for a step now and then).
      for (std::uint32_t j = i + 1; j < n; ++j) count += length(p[j] - p[i]) < 2.0f - 0.01f;
    }
    return count;
  };
  // Monotonic while the packed clusters come apart; once they have, a
  // collision that the bounded impact passes leave for the next step may
  // show as a single overlap for a step.
  std::uint32_t last = overlaps();
  const std::uint32_t first = last;
  bool resolved = false;
  for (int s = 0; s < 100; ++s) {
    w.step(kDt);
    const std::uint32_t now = overlaps();
    if (resolved) {
      EXPECT_LE(now, 2u) << "step " << s;
    } else {
      EXPECT_LE(now, last) << "step " << s;
    }
    resolved = resolved || now == 0;
    last = now;
  }
  EXPECT_GT(first, 100u) << "the scene starts packed";
  EXPECT_TRUE(resolved) << last << " overlaps left after 100 steps";
}

namespace {

// 1,000 balls of radius 1 created in a 0.37 x 0.27 patch, or all on one
// point, with sleeping on (the default) and no gravity: the position
// correction moves them apart with zero velocity, which is not rest.
World crowd(bool onePoint, std::vector<BodyId>& balls) {
  WorldDef def;
  def.bounds = {{0, 0}, {200, 200}};
  def.logLevel = LogLevel::Off;
  World w(def);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> x(0.0f, 0.37f), y(0.0f, 0.27f);
  for (int i = 0; i < 1000; ++i) {
    const Vec2 at = onePoint ? Vec2{100.0f, 100.0f} : Vec2{100.0f + x(rng), 100.0f + y(rng)};
    balls.push_back(w.createBody(BodyDef::ball(at, 1.0f)));
  }
  return w;
}

// Steps the crowd until every ball sleeps (at most `seconds`), then 1 s more
// asleep, and checks that no pair is left deeper than the touching slop
// (0.005 of the radius).
void expectSeparatedThenAsleep(bool onePoint, float seconds) {
  std::vector<BodyId> balls;
  World w = crowd(onePoint, balls);
  EXPECT_GT(deepestOverlap(w, balls), 1.0f) << "the crowd starts packed";
  int steps = 0;
  while (awakeCount(w, balls) > 0 && static_cast<float>(steps) * kDt < seconds) {
    w.step(kDt);
    ++steps;
  }
  EXPECT_EQ(awakeCount(w, balls), 0u) << "still awake after " << seconds << " s";
  EXPECT_LT(deepestOverlap(w, balls), 0.005f) << "asleep after " << steps << " steps";
  for (int s = 0; s < 60; ++s) w.step(kDt);
  EXPECT_EQ(awakeCount(w, balls), 0u) << "woke again with nothing touching it";
  EXPECT_LT(deepestOverlap(w, balls), 0.005f);
}

}  // namespace

// A ball the position correction still pushes has zero velocity but is not
// at rest: the crowd must not fall asleep while it overlaps (it did, with
// 507 pairs overlapping for good).
TEST(Sleep, ACrowdInAPatchSeparatesBeforeItSleeps) {
  expectSeparatedThenAsleep(false, 5.0f);  // measured: asleep at 3.0 s
}

// Coincident centres part along a direction that is a function of the pair,
// spread over the circle: one direction for every pair lined the crowd up
// along the x axis, 2,000 units long in a 200-unit world, and it never
// separated.
TEST(Sleep, ACrowdOnOnePointSeparatesBeforeItSleeps) {
  expectSeparatedThenAsleep(true, 4.0f);  // measured: asleep at 1.5 s
}

// The direction is a function of the state: two runs, and 1 or 2 threads,
// give the same bits.
TEST(Sleep, ACrowdOnOnePointPartsTheSameWayEveryRun) {
  auto run = [](std::uint32_t threads) {
    WorldDef def;
    def.logLevel = LogLevel::Off;
    def.threadCount = threads;
    World w(def);
    for (int i = 0; i < 50; ++i) w.createBody(BodyDef::ball({50, 50}, 1.0f));
    for (int s = 0; s < 30; ++s) w.step(kDt);
    std::vector<Vec2> at(w.positions().begin(), w.positions().end());
    return at;
  };
  const auto one = run(1);
  const auto again = run(1);
  const auto two = run(2);
  ASSERT_EQ(one.size(), 50u);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(one[i]), std::bit_cast<std::uint64_t>(again[i])) << i;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(one[i]), std::bit_cast<std::uint64_t>(two[i])) << i;
  }
  float spreadX = 0.0f, spreadY = 0.0f;
  for (const Vec2 p : one) {
    spreadX = std::max(spreadX, std::abs(p.x - 50.0f));
    spreadY = std::max(spreadY, std::abs(p.y - 50.0f));
  }
  EXPECT_GT(spreadY, 2.0f) << "it spread along x only";
  EXPECT_GT(spreadX, 2.0f);
}
