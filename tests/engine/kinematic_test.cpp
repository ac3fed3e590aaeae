// Kinematic bodies: balls and boxes moved by the game's velocity, infinite
// mass, struck continuously by balls (no tunnelling at 10 radii per step),
// bit-identical for every thread count and broad phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <quadbin/quadbin.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/state_hash.hpp"

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;
constexpr float kRadius = 0.5f;
constexpr float kFast = 10.0f * kRadius / kDt;  // 10 radii per step

WorldDef quietDef() {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.threadCount = 1;
  return def;
}

}  // namespace

TEST(Kinematic, CreatedAsBallOrBoxWithInfiniteMass) {
  World w(quietDef());
  const BodyId ball = w.createBody(BodyDef::kinematicBall({20, 20}, 2.0f, {3, 0}));
  const BodyId box = w.createBody(BodyDef::kinematicBox({{40, 40}, {44, 42}}, {0, -1}));
  const BodyId plain =
      w.createBody(BodyDef{.type = BodyType::Kinematic, .position = {60, 60}, .radius = 0.0f});
  EXPECT_EQ(w.type(ball), BodyType::Kinematic);
  EXPECT_EQ(w.type(box), BodyType::Kinematic);
  EXPECT_EQ(w.radius(ball), 2.0f);
  EXPECT_EQ(w.radius(box), 0.0f);
  EXPECT_EQ(w.mass(ball), std::numeric_limits<float>::infinity());
  EXPECT_EQ(w.mass(box), std::numeric_limits<float>::infinity());
  EXPECT_EQ(w.velocity(ball), (Vec2{3, 0}));
  EXPECT_EQ(w.velocity(box), (Vec2{0, -1}));
  EXPECT_EQ(w.bounds(box), (AABB{{40, 40}, {44, 42}}));
  EXPECT_EQ(w.bounds(plain), (AABB{{59, 59}, {61, 61}}));  // default half extents
  EXPECT_EQ(w.kineticEnergy(), 0.0);
  EXPECT_EQ(w.momentum(), (Vec2{}));
}

TEST(Kinematic, BadDefinitionsAreRefusedAndChangeNothing) {
  World w(quietDef());
  auto refused = [&w](const BodyDef& d) {
    EXPECT_THROW(w.createBody(d), Error);
    EXPECT_EQ(w.bodyCount(), 0u);
  };
  refused(BodyDef::kinematicBall({10, 10}, -1.0f));
  refused(BodyDef::kinematicBall({10, 10}, std::nanf("")));
  refused(BodyDef::kinematicBall({10, 10}, 1.0f, {2e8f, 0}));
  refused(BodyDef::kinematicBox({{10, 10}, {12, 12}}, {0, std::numeric_limits<float>::infinity()}));
  BodyDef inverted = BodyDef::kinematicBox({{10, 10}, {12, 12}});
  inverted.halfExtents = {-1, 1};
  refused(inverted);
  BodyDef far = BodyDef::kinematicBox({{10, 10}, {12, 12}});
  far.position = {2e9f, 0};
  refused(far);
  // A kinematic body may start outside a closed world (it is not walled in).
  EXPECT_NO_THROW(w.createBody(BodyDef::kinematicBall({-50, 50}, 1.0f, {1, 0})));
}

// A raw def says ball (radius > 0) and box (half extents set) at once:
// refused as ambiguous, where it silently made a kinematic ball.
TEST(Kinematic, ARadiusBesideHalfExtentsIsAmbiguous) {
  World w(quietDef());
  BodyDef d;
  d.type = BodyType::Kinematic;
  d.position = {20, 20};
  d.halfExtents = {3, 1};
  try {
    w.createBody(d);
    ADD_FAILURE() << "a kinematic def with a radius and half extents was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ambiguous"), std::string::npos) << e.what();
  }
  EXPECT_EQ(w.bodyCount(), 0u);
  d.radius = 0.0f;  // the box it meant
  EXPECT_EQ(w.radius(w.createBody(d)), 0.0f);
  d.radius = 2.0f;
  d.halfExtents = BodyDef{}.halfExtents;  // the ball a raw def with defaults makes
  EXPECT_EQ(w.radius(w.createBody(d)), 2.0f);
}

TEST(Kinematic, SetVelocityAcceptsKinematicButNotStaticBodies) {
  World w(quietDef());
  const BodyId k = w.createBody(BodyDef::kinematicBox({{10, 10}, {12, 12}}));
  const BodyId s = w.createBody(BodyDef::staticBox({{30, 30}, {32, 32}}));
  w.setVelocity(k, {5, -2});
  EXPECT_EQ(w.velocity(k), (Vec2{5, -2}));
  EXPECT_THROW(w.setVelocity(s, {1, 0}), Error);
  EXPECT_THROW(w.setVelocity(k, {std::nanf(""), 0}), Error);
  EXPECT_EQ(w.velocity(k), (Vec2{5, -2}));
}

TEST(Kinematic, MovesAtItsVelocityThroughStaticAndKinematicBodiesAndWalls) {
  WorldDef def = quietDef();
  def.gravity = {0, -10};
  World w(def);
  w.createBody(BodyDef::staticBox({{30, 0}, {31, 100}}));
  const BodyId a = w.createBody(BodyDef::kinematicBox({{10, 40}, {12, 44}}, {60, 0}));
  const BodyId b = w.createBody(BodyDef::kinematicBall({60, 42}, 1.0f, {-60, 0}));
  for (int i = 0; i < 120; ++i) w.step(kDt);  // 2 s: through the box, each other and a wall
  EXPECT_NEAR(w.position(a).x, 11 + 120.0f, 1e-2f);
  EXPECT_EQ(w.position(a).y, 42.0f);  // no gravity
  EXPECT_NEAR(w.position(b).x, 60 - 120.0f, 1e-2f);
  EXPECT_EQ(w.position(b).y, 42.0f);
  EXPECT_EQ(w.velocity(a), (Vec2{60, 0}));
  EXPECT_EQ(w.velocity(b), (Vec2{-60, 0}));
  EXPECT_GE(w.stats().bodiesOutside, 2u);
}

TEST(Kinematic, SetPositionTeleportsWithoutStriking) {
  World w(quietDef());
  const BodyId k = w.createBody(BodyDef::kinematicBox({{10, 40}, {12, 60}}));
  const BodyId ball = w.createBody(BodyDef::ball({20, 50}, kRadius));
  w.setPosition(k, {30, 50});  // jumps over the ball, no sweep
  w.step(kDt);
  EXPECT_EQ(w.position(k), (Vec2{30, 50}));
  EXPECT_EQ(w.velocity(ball), (Vec2{}));
  EXPECT_EQ(w.position(ball), (Vec2{20, 50}));
}

TEST(Kinematic, BallIsStruckWithTheReflectedRelativeVelocity) {
  for (const bool round : {false, true}) {
    World w(quietDef());
    const float u = 30.0f;
    const BodyId k = w.createBody(round ? BodyDef::kinematicBall({10, 50}, 2.0f, {u, 0})
                                        : BodyDef::kinematicBox({{8, 40}, {12, 60}}, {u, 0}));
    const Vec2 v0{-4, 0};
    const BodyId ball = w.createBody(BodyDef::ball({20, 50}, kRadius, v0));
    for (int i = 0; i < 30 && w.velocity(ball).x < 0.0f; ++i) w.step(kDt);
    // v' = v - (1 + e)((v - vk) . n) n with e = 1, n = (1, 0): 2u - v.
    EXPECT_NEAR(w.velocity(ball).x, 2 * u - v0.x, 1e-3f) << (round ? "ball" : "box");
    EXPECT_NEAR(w.velocity(ball).y, 0.0f, 1e-4f);
    EXPECT_EQ(w.velocity(k), (Vec2{u, 0}));  // not moved by the collision
    const float front = round ? w.position(k).x + 2.0f : w.bounds(k).max.x;
    EXPECT_GE(w.position(ball).x - kRadius, front - 1e-3f);
  }
}

TEST(Kinematic, InelasticWorldCarriesTheBallAtThePaddlesSpeed) {
  WorldDef def = quietDef();
  def.restitution = 0.0f;
  World w(def);
  const BodyId k = w.createBody(BodyDef::kinematicBox({{8, 40}, {12, 60}}, {20, 0}));
  const BodyId ball = w.createBody(BodyDef::ball({20, 50}, kRadius));
  for (int i = 0; i < 60; ++i) w.step(kDt);
  EXPECT_NEAR(w.velocity(ball).x, 20.0f, 1e-3f);
  EXPECT_NEAR(w.position(ball).x - kRadius, w.bounds(k).max.x, 1e-2f);
}

// A paddle sweeping a crowd at up to 10 radii per step: no ball ever gets
// into or behind it, for boxes and balls and every broad phase.
struct SweepCase {
  BroadPhaseType broad;
  bool round;
  float speed;
};

class KinematicSweep : public ::testing::TestWithParam<SweepCase> {};

namespace {

World makeSweepWorld(const SweepCase& c, std::uint32_t threads, BodyId& paddle) {
  WorldDef def = quietDef();
  def.boundary = Boundary::Open;
  def.bounds = {{0, 0}, {200, 100}};
  def.broadPhase = c.broad;
  def.threadCount = threads;
  World w(def);
  paddle = w.createBody(c.round ? BodyDef::kinematicBall({10, 50}, 6.0f, {c.speed, 0})
                                : BodyDef::kinematicBox({{9.9f, 20}, {10, 80}}, {c.speed, 0}));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.2f, 0.2f), vel(-3.0f, 3.0f);
  std::vector<BodyDef> defs;
  for (int i = 0; i < 12; ++i) {
    for (int j = 0; j < 20; ++j) {
      const auto ix = static_cast<float>(i), iy = static_cast<float>(j);
      defs.push_back(BodyDef::ball({20 + 1.5f * ix + jitter(rng), 36 + 1.5f * iy + jitter(rng)},
                                   kRadius, {vel(rng), vel(rng)}));
    }
  }
  w.createBodies(defs);
  return w;
}

}  // namespace

TEST_P(KinematicSweep, NoBallPassesThroughThePaddle) {
  const SweepCase c = GetParam();
  BodyId paddle;
  World w = makeSweepWorld(c, 1, paddle);
  const float inner = kRadius * 0.99f;  // grazing is not entering
  std::vector<Vec2> before(w.bodyCount());
  std::uint32_t struck = 0;
  for (int step = 0; step < 40; ++step) {
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) before[i] = w.position(w.bodyAt(i));
    const AABB box0 = w.bounds(paddle);
    w.step(kDt);
    const Vec2 k = w.position(paddle);
    const Vec2 moved = k - before[0];
    ASSERT_NEAR(moved.x, c.speed * kDt, 1e-3f);
    for (std::uint32_t i = 1; i < w.bodyCount(); ++i) {
      const BodyId b = w.bodyAt(i);
      const Vec2 p = w.position(b);
      // In the paddle's frame, the ball's way from its start to its end of
      // the step does not enter the paddle (where it started).
      const Vec2 q0 = before[i], q1 = p - moved;
      if (c.round) {
        ASSERT_GE(length(p - k), 6.0f + inner) << "ball " << i << " inside at step " << step;
        const Vec2 d = q1 - q0, o = before[0] - q0;
        const float t =
            lengthSquared(d) > 0 ? std::clamp(dot(o, d) / lengthSquared(d), 0.0f, 1.0f) : 0.0f;
        ASSERT_GE(length(q0 + d * t - before[0]), 6.0f + inner)
            << "ball " << i << " went through at step " << step;
      } else {
        ASSERT_FALSE(raycastRounded(Ray{q0, q1 - q0, 1.0f}, box0, inner).has_value())
            << "ball " << i << " went into the paddle at step " << step;
        if (p.y > 20 - kRadius && p.y < 80 + kRadius) {
          ASSERT_GE(p.x, k.x + 0.05f + inner)
              << "ball " << i << " behind or in the paddle at step " << step;
        }
      }
      struck += w.velocity(b).x > c.speed * 0.9f ? 1u : 0u;
    }
  }
  EXPECT_GT(struck, 0u);  // the paddle did hit balls
}

TEST_P(KinematicSweep, BitIdenticalFor1And2And8Threads) {
  const SweepCase c = GetParam();
  std::vector<std::uint64_t> hashes;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    BodyId paddle;
    World w = makeSweepWorld(c, threads, paddle);
    for (int step = 0; step < 30; ++step) w.step(kDt);
    hashes.push_back(test::hashState(w));
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(hashes[0], hashes[2]);
}

namespace {
std::vector<SweepCase> sweepCases() {
  std::vector<SweepCase> out;
  for (const BroadPhaseType t : allBroadPhaseTypes()) {
    for (const bool round : {false, true}) {
      out.push_back({t, round, kFast});
    }
  }
  out.push_back({BroadPhaseType::Auto, false, kFast * 0.5f});
  out.push_back({BroadPhaseType::Auto, true, kFast * 0.25f});
  return out;
}
std::string sweepName(const ::testing::TestParamInfo<SweepCase>& info) {
  std::string name(toString(info.param.broad));
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name + (info.param.round ? "_ball_" : "_box_") +
         std::to_string(std::lround(info.param.speed * kDt / kRadius)) + "r";
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(BroadPhases, KinematicSweep, ::testing::ValuesIn(sweepCases()), sweepName);

TEST(Kinematic, ContactEventsBeginAndEnd) {
  World w(quietDef());
  const BodyId k = w.createBody(BodyDef::kinematicBox({{8, 40}, {12, 60}}, {30, 0}));
  const BodyId ball = w.createBody(BodyDef::ball({20, 50}, kRadius));
  bool began = false, ended = false;
  for (int i = 0; i < 60; ++i) {
    w.step(kDt);
    for (const ContactEvent& e : w.contactBeginEvents()) {
      began |= (e.a == k && e.b == ball) || (e.a == ball && e.b == k);
    }
    for (const ContactEvent& e : w.contactEndEvents()) {
      ended |= (e.a == k && e.b == ball) || (e.a == ball && e.b == k);
    }
  }
  EXPECT_TRUE(began);
  EXPECT_TRUE(ended);  // struck at 2u, the ball leaves the paddle
}

TEST(Kinematic, MovingBodyWakesSleepingBallsAndKeepsThemAwake) {
  WorldDef def = quietDef();
  def.gravity = {0, -10};
  World w(def);
  const BodyId lift = w.createBody(BodyDef::kinematicBox({{40, 10}, {60, 12}}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 12 + kRadius}, kRadius));
  for (int i = 0; i < 120; ++i) w.step(kDt);
  ASSERT_FALSE(w.isAwake(ball));  // resting on the still lift
  // A still kinematic body costs nothing: the world sleeps whole.
  w.step(kDt);
  EXPECT_EQ(w.stats().awakeBodies, 0u);
  w.setVelocity(lift, {0, 0.02f});  // slower than the sleep threshold
  EXPECT_FALSE(w.isAwake(ball));    // setVelocity alone wakes nothing
  for (int i = 0; i < 200; ++i) {
    w.step(kDt);
    ASSERT_TRUE(w.isAwake(ball)) << "step " << i;
  }
  EXPECT_NEAR(w.position(ball).y - kRadius, w.bounds(lift).max.y, 2e-2f);
  // A sleeping ball in the way of a moving paddle wakes when it is reached.
  World v(quietDef());
  const BodyId sleeper = v.createBody(BodyDef::ball({50, 50}, kRadius));
  v.setAwake(sleeper, false);
  v.createBody(BodyDef::kinematicBox({{30, 40}, {32, 60}}, {60, 0}));
  for (int i = 0; i < 30; ++i) v.step(kDt);
  EXPECT_GT(v.velocity(sleeper).x, 60.0f);
}

TEST(Kinematic, SnapshotRestoresBitIdentically) {
  const SweepCase c{BroadPhaseType::Auto, false, kFast};
  BodyId paddle;
  World a = makeSweepWorld(c, 2, paddle);
  for (int i = 0; i < 10; ++i) a.step(kDt);
  const std::vector<std::byte> snap = a.snapshot();
  World b(quietDef());
  b.restore(snap);
  EXPECT_EQ(b.type(b.bodyAt(0)), BodyType::Kinematic);
  for (int i = 0; i < 20; ++i) {
    a.step(kDt);
    b.step(kDt);
  }
  EXPECT_EQ(test::hashState(a), test::hashState(b));
}

TEST(Kinematic, QueriesSeeAKinematicBoxAsABox) {
  World w(quietDef());
  const BodyId k = w.createBody(BodyDef::kinematicBox({{10, 10}, {20, 12}}));
  std::vector<BodyId> found;
  w.queryBox({{18, 11.5f}, {19, 11.8f}}, found);  // inside the box, far from its centre
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], k);
  const auto hit = w.raycast(Ray{{18, 0}, {0, 1}, 100});
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->t, 10.0f, 1e-5f);
}

// The documented limit: a ball pinned between a kinematic paddle and a wall
// of a closed world stays inside the world (the wall wins) and ends up
// overlapping the paddle; nothing becomes NaN, and once the paddle has gone
// past it is left behind it, untouched.
TEST(Kinematic, PinnedBallBetweenPaddleAndWallStaysInTheWorld) {
  World w(quietDef());
  const BodyId paddle = w.createBody(BodyDef::kinematicBox({{80, 40}, {82, 60}}, {30, 0}));
  const BodyId ball = w.createBody(BodyDef::ball({95, 50}, kRadius));
  float deepest = 0.0f;
  for (int i = 0; i < 120; ++i) {
    w.step(kDt);
    const Vec2 p = w.position(ball);
    ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(w.velocity(ball).x));
    ASSERT_LE(p.x, 100 - kRadius) << "step " << i;
    ASSERT_GE(p.x, kRadius) << "step " << i;
    deepest = std::max(deepest, p.x + kRadius - w.bounds(paddle).min.x);
  }
  EXPECT_GT(w.bounds(paddle).min.x, 100.0f);  // the paddle left through the wall
  EXPECT_GT(deepest, 0.0f);                   // it did pin the ball on the way
}

// Big enough (4,200 balls, more than a parallel range of bodies) that the
// step's body loops split across threads: still bit-identical.
TEST(Kinematic, LargeCrowdBitIdenticalFor1And2And8Threads) {
  std::vector<std::uint64_t> hashes;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    WorldDef def = quietDef();
    def.bounds = {{0, 0}, {160, 140}};
    def.threadCount = threads;
    World w(def);
    w.createBody(BodyDef::kinematicBox({{2, 20}, {3, 120}}, {kFast * 0.2f, 0}));
    w.createBody(BodyDef::kinematicBall({80, 2}, 5.0f, {0, kFast * 0.2f}));
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> jitter(-0.15f, 0.15f), vel(-5.0f, 5.0f);
    std::vector<BodyDef> defs;
    for (int i = 0; i < 70; ++i) {
      for (int j = 0; j < 60; ++j) {
        const auto ix = static_cast<float>(i), iy = static_cast<float>(j);
        defs.push_back(BodyDef::ball({8 + 2.0f * ix + jitter(rng), 12 + 2.0f * iy + jitter(rng)},
                                     kRadius, {vel(rng), vel(rng)}));
      }
    }
    w.createBodies(defs);
    for (int step = 0; step < 10; ++step) w.step(kDt);
    hashes.push_back(test::hashState(w));
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(hashes[0], hashes[2]);
}
