// Friction and spin: a sliding ball comes to roll as the textbook says, a
// contact conserves momentum and angular momentum, piles with friction come
// to rest and sleep, results do not depend on the thread count, and a world
// without friction never spins a ball.
#include <gtest/gtest.h>

#include <cmath>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;
constexpr float kG = 9.8f;

WorldDef floorWorld() {
  WorldDef def;
  def.bounds = {{0, 0}, {1000, 100}};
  def.gravity = {0, -kG};
  def.restitution = 0.0f;
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  def.threadCount = 1;
  return def;
}

BodyId ballOnFloor(World& w, float x, Vec2 v, float friction) {
  BodyDef def = BodyDef::ball({x, 1.0f}, 1.0f, v);
  def.friction = friction;
  return w.createBody(def);
}

// Angular momentum about the origin: sum of m (x cross v) + I w.
double angularMomentum(const World& w) {
  double l = 0.0;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    const Vec2 p = w.position(id), v = w.velocity(id);
    const double m = w.mass(id), r = w.radius(id);
    l += m * (double{p.x} * v.y - double{p.y} * v.x) + 0.5 * m * r * r * w.angularVelocity(id);
  }
  return l;
}

}  // namespace

// A ball launched sliding along the floor: friction mu g slows it while the
// spin builds up, until the contact point stops (rolling without slipping)
// at t = v0 / (3 mu g) with v = 2/3 v0 (a solid disc); then it rolls on at
// that speed, keeping its kinetic energy.
TEST(Friction, SlidingBallComesToRollAsTheTextbookSays) {
  World w(floorWorld());
  const float v0 = 6.0f;
  const BodyId ball = ballOnFloor(w, 100.0f, {v0, 0.0f}, 0.5f);
  const float mu = std::sqrt(0.5f * w.def().wallFriction);
  const float tRoll = v0 / (3.0f * mu * kG);
  ASSERT_GT(tRoll, 0.25f);
  // While it slides: v = v0 - mu g t.
  for (int s = 0; s < 12; ++s) w.step(kDt);
  const float t = 12 * kDt;
  ASSERT_LT(t, tRoll);
  EXPECT_NEAR(w.velocity(ball).x, v0 - mu * kG * t, 0.02f * v0);
  EXPECT_LT(w.angularVelocity(ball), 0.0f);  // rolling to +x turns clockwise
  // Rolling: v = 2/3 v0 and v = -w r, then constant.
  for (int s = 0; s < 60; ++s) w.step(kDt);
  const Vec2 v = w.velocity(ball);
  EXPECT_NEAR(v.x, 2.0f / 3.0f * v0, 0.01f * v0);
  EXPECT_NEAR(v.x, -w.angularVelocity(ball) * 1.0f, 1e-3f * v0);
  EXPECT_NEAR(w.position(ball).y, 1.0f, 0.01f);
  const double rolling = w.kineticEnergy();
  for (int s = 0; s < 60; ++s) w.step(kDt);
  EXPECT_NEAR(w.kineticEnergy(), rolling, 1e-3 * rolling);
  EXPECT_NEAR(w.velocity(ball).x, 2.0f / 3.0f * v0, 0.01f * v0);
}

// A ball spun in place on the floor: friction drives it until it rolls, at
// v = -w0 r / 3 (angular momentum about the contact point is kept).
TEST(Friction, SpinningBallSetsOffRolling) {
  World w(floorWorld());
  const BodyId ball = ballOnFloor(w, 100.0f, {}, 0.5f);
  const float w0 = 9.0f;
  w.setAngularVelocity(ball, w0);
  for (int s = 0; s < 120; ++s) w.step(kDt);
  EXPECT_NEAR(w.velocity(ball).x, -w0 / 3.0f, 0.01f * w0);
  EXPECT_NEAR(w.angularVelocity(ball), w0 / 3.0f, 0.01f * w0);
}

// Two balls pressed together slowly in zero gravity, sliding past each
// other: the friction impulse at their contact point keeps the momentum
// and the angular momentum (orbital plus spin) and slows the sliding.
TEST(Friction, ContactKeepsMomentumAndAngularMomentum) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.restitution = 0.0f;
  def.restitutionThreshold = 10.0f;  // every touching contact is resting
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  World w(def);
  BodyDef a = BodyDef::ball({49.0f, 50.0f}, 1.0f, {0.2f, 1.0f});
  BodyDef b = BodyDef::ball({51.0f, 50.0f}, 1.0f, {-0.2f, -1.0f});
  a.friction = b.friction = 0.5f;
  const BodyId ia = w.createBody(a), ib = w.createBody(b);
  const double l0 = angularMomentum(w);
  const Vec2 p0 = w.momentum();
  w.step(kDt);
  EXPECT_NEAR(angularMomentum(w), l0, 1e-4 * std::abs(l0) + 1e-4);
  EXPECT_NEAR(w.momentum().x, p0.x, 1e-4f);
  EXPECT_NEAR(w.momentum().y, p0.y, 1e-4f);
  // Sliding slowed: the balls' relative tangential speed dropped, and both
  // turn the same way (like meshed gears they would turn opposite ways; a
  // shear along their contact turns both clockwise here).
  const float slide = w.velocity(ia).y - w.velocity(ib).y;
  EXPECT_LT(slide, 2.0f);
  EXPECT_LT(w.angularVelocity(ia), 0.0f);
  EXPECT_LT(w.angularVelocity(ib), 0.0f);
}

// The pile scene (friction 0.5, rolling resistance 0.1) comes to rest and
// falls asleep.
TEST(Friction, PileComesToRestAndSleeps) {
  const scenes::Scene scene = scenes::generate(scenes::SceneKind::Pile, 300);
  ASSERT_EQ(scene.friction, 0.5f);
  ASSERT_EQ(scene.rollingResistance, 0.1f);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Pile);
  def.logLevel = LogLevel::Off;
  World w = scenes::makeWorld(scene, def);
  double peak = 0.0;
  int restStep = -1;
  for (int s = 0; s < 8 * 60; ++s) {
    w.step(kDt);
    const double e = w.kineticEnergy();
    peak = std::max(peak, e);
    if (e >= 1e-3 * peak) restStep = -1;
    if (e < 1e-3 * peak && restStep < 0) restStep = s;
  }
  ASSERT_GE(restStep, 0);
  // 300 balls rest (for good) at 5.65 s: small slips of the settling pile
  // lift the kinetic energy above 1e-3 of its peak now and then.
  EXPECT_LT(restStep, 6 * 60) << "the pile came to rest after 6 s";
  EXPECT_EQ(w.stats().awakeBodies, 0u) << "the pile is not asleep after 8 s";
}

// Friction does not depend on the thread count: bit-identical positions,
// velocities and spins.
TEST(Friction, SameResultsForAnyThreadCount) {
  const scenes::Scene scene = scenes::generate(scenes::SceneKind::Pile, 2000);
  auto run = [&](std::uint32_t threads) {
    WorldDef def = scenes::worldDefFor(scenes::SceneKind::Pile);
    def.threadCount = threads;
    def.logLevel = LogLevel::Off;
    World w = scenes::makeWorld(scene, def);
    for (int s = 0; s < 120; ++s) w.step(kDt);
    std::vector<float> state;
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      state.insert(state.end(), {w.position(id).x, w.position(id).y, w.velocity(id).x,
                                 w.velocity(id).y, w.angularVelocity(id), w.angle(id)});
    }
    return state;
  };
  const std::vector<float> one = run(1);
  for (const std::uint32_t threads : {2u, 3u, 8u}) {
    EXPECT_EQ(run(threads), one) << threads << " threads";
  }
}

// Without friction nothing spins; a spin given by hand turns the ball
// freely (its angle advances) and changes nothing else.
TEST(Friction, FrictionlessWorldsNeverSpin) {
  World w(floorWorld());
  const BodyId a = ballOnFloor(w, 100.0f, {6.0f, 0.0f}, 0.0f);
  const BodyId b = ballOnFloor(w, 300.0f, {}, 0.0f);
  w.setAngularVelocity(b, 1.0f);
  for (int s = 0; s < 60; ++s) w.step(kDt);
  EXPECT_EQ(w.angularVelocity(a), 0.0f);
  EXPECT_EQ(w.angle(a), 0.0f);
  EXPECT_NEAR(w.velocity(a).x, 6.0f, 1e-5f);
  EXPECT_EQ(w.angularVelocity(b), 1.0f);
  EXPECT_NEAR(w.angle(b), 1.0f, 1e-4f);
  EXPECT_EQ(w.velocity(b).x, 0.0f);
}

TEST(Friction, RefusesBadInput) {
  World w(floorWorld());
  const BodyId ball = ballOnFloor(w, 100.0f, {}, 0.5f);
  const BodyId box = w.createBody(BodyDef::staticBox({{10, 10}, {20, 20}}));
  BodyDef bad = BodyDef::ball({50, 50}, 1.0f);
  for (const float f : {-0.1f, limits::kMaxFriction * 2.0f, NAN, INFINITY}) {
    bad.friction = f;
    EXPECT_THROW((void)w.createBody(bad), Error) << f;
    EXPECT_THROW(w.setFriction(ball, f), Error) << f;
  }
  EXPECT_EQ(w.bodyCount(), 2u);
  EXPECT_EQ(w.friction(ball), 0.5f);
  EXPECT_THROW(w.setAngularVelocity(box, 1.0f), Error);
  EXPECT_THROW(w.setAngularVelocity(ball, NAN), Error);
  EXPECT_THROW(w.setAngularVelocity(ball, limits::kMaxSpeed * 2.0f), Error);
  EXPECT_EQ(w.angularVelocity(ball), 0.0f);
  WorldDef def = floorWorld();
  def.wallFriction = -1.0f;
  EXPECT_THROW(World{def}, Error);
  w.setFriction(ball, 0.0f);
  EXPECT_EQ(w.friction(ball), 0.0f);
}

// Rolling resistance: a ball rolling on the floor slows down and stops
// (without it, it rolls on forever, as the first test shows). The torque
// rho r m g against the spin, with friction keeping it rolling, gives a
// solid disc the deceleration a = rho g r^2 / (r^2 + I/m) = rho g / 1.5.
TEST(Friction, RollingResistanceStopsARollingBall) {
  World w(floorWorld());
  BodyDef def = BodyDef::ball({100.0f, 1.0f}, 1.0f, {2.0f, 0.0f});
  def.friction = 0.5f;
  def.rollingResistance = 0.1f;
  const BodyId ball = w.createBody(def);
  w.setAngularVelocity(ball, -2.0f);  // already rolling: v = -w r
  const float a = 0.1f * kG / 1.5f;
  for (int s = 0; s < 120; ++s) w.step(kDt);
  EXPECT_NEAR(w.velocity(ball).x, 2.0f - a * 120 * kDt, 0.01f);
  EXPECT_NEAR(w.velocity(ball).x, -w.angularVelocity(ball), 1e-3f);
  for (int s = 0; s < 120; ++s) w.step(kDt);  // 4 s: stopped after 3.06 s
  EXPECT_NEAR(w.velocity(ball).x, 0.0f, 1e-4f);
  EXPECT_NEAR(w.angularVelocity(ball), 0.0f, 1e-4f);
}

// ---- friction at impacts -----------------------------------------------

namespace {

// A world without gravity, elastic, so that one impact is all that happens.
WorldDef impactWorld() {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.restitution = 1.0f;
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  def.threadCount = 1;
  return def;
}

}  // namespace

// A spinning ball dropped straight onto the floor (e = 1): with enough
// friction its contact point stops sliding in the bounce. A solid disc
// (I = m r^2 / 2) with spin w0 and no sideways speed leaves with
// vx = -w0 r / 3 and w = w0 / 3 (angular momentum about the contact point
// kept), its vertical speed reversed.
TEST(ImpactFriction, ASpinningBallBouncesOffTheFloor) {
  WorldDef def = impactWorld();
  def.wallFriction = 1.0f;
  World w(def);
  BodyDef d = BodyDef::ball({50, 1.5f}, 1.0f, {0, -6});
  d.friction = 1.0f;  // mu = sqrt(1 * 1): the Coulomb limit 6 * 2 m is not reached
  const BodyId ball = w.createBody(d);
  const float w0 = 9.0f;
  w.setAngularVelocity(ball, w0);
  for (int k = 0; k < 10 && w.velocity(ball).y < 0.0f; ++k) w.step(kDt);
  const Vec2 v = w.velocity(ball);
  EXPECT_NEAR(v.y, 6.0f, 1e-4f);
  EXPECT_NEAR(v.x, -w0 * 1.0f / 3.0f, 1e-4f);
  EXPECT_NEAR(w.angularVelocity(ball), w0 / 3.0f, 1e-4f);
  // The contact point (the ball's bottom) no longer slides: vx + w r = 0.
  EXPECT_NEAR(v.x + w.angularVelocity(ball) * 1.0f, 0.0f, 1e-4f);
}

// With little friction the sliding does not stop: the tangent impulse is
// the Coulomb limit, mu times the normal one (a velocity change of
// mu * 2 vn), and the spin changes by 2 / (m r) of it.
TEST(ImpactFriction, ASlidingImpactTakesTheCoulombLimit) {
  WorldDef def = impactWorld();
  def.wallFriction = 0.01f;
  World w(def);
  BodyDef d = BodyDef::ball({50, 1.5f}, 1.0f, {0, -6});
  d.friction = 1.0f;  // mu = sqrt(0.01 * 1) = 0.1
  const BodyId ball = w.createBody(d);
  w.setAngularVelocity(ball, 9.0f);
  for (int k = 0; k < 10 && w.velocity(ball).y < 0.0f; ++k) w.step(kDt);
  const float dv = 0.1f * 2.0f * 6.0f;  // mu times the normal velocity change
  EXPECT_NEAR(w.velocity(ball).x, -dv, 1e-4f);
  EXPECT_NEAR(w.angularVelocity(ball), 9.0f - 2.0f * dv / 1.0f, 1e-3f);
}

// A ball dropped onto a paddle that moves sideways at u leaves with u / 3
// sideways (it was 0 when impacts were frictionless) and the spin 2 u / (3 r)
// that makes its bottom move with the paddle.
TEST(ImpactFriction, ABallHittingAMovingPaddleIsCarriedAlong) {
  World w(impactWorld());
  BodyDef paddle = BodyDef::kinematicBox({{30, 10}, {70, 12}}, {3, 0});
  paddle.friction = 1.0f;
  w.createBody(paddle);
  BodyDef d = BodyDef::ball({50, 13.2f}, 1.0f, {0, -6});
  d.friction = 1.0f;
  const BodyId ball = w.createBody(d);
  for (int k = 0; k < 10 && w.velocity(ball).y < 0.0f; ++k) w.step(kDt);
  EXPECT_NEAR(w.velocity(ball).y, 6.0f, 1e-3f);
  EXPECT_NEAR(w.velocity(ball).x, 1.0f, 1e-3f);  // u / 3
  EXPECT_NEAR(w.angularVelocity(ball), 2.0f,
              1e-3f);  // its bottom moves with the paddle: vx + w r = u
}

// Two balls, one spinning, meet head on: linear momentum and angular
// momentum about the origin are kept through the impact's friction.
TEST(ImpactFriction, BallsKeepMomentumAndAngularMomentum) {
  World w(impactWorld());
  BodyDef a = BodyDef::ball({40, 50}, 1.0f, {8, 0.5f});
  a.friction = 0.8f;
  BodyDef b = BodyDef::ball({44, 50.3f}, 1.5f, {-3, 0});
  b.friction = 0.8f;
  const BodyId ia = w.createBody(a);
  w.createBody(b);
  w.setAngularVelocity(ia, 5.0f);
  const Vec2 p0 = w.momentum();
  const double l0 = angularMomentum(w);
  for (int s = 0; s < 20; ++s) w.step(kDt);
  EXPECT_NEAR(w.momentum().x, p0.x, 1e-3f);
  EXPECT_NEAR(w.momentum().y, p0.y, 1e-3f);
  EXPECT_NEAR(angularMomentum(w), l0, 1e-3 * std::abs(l0) + 1e-3);
  EXPECT_NE(w.angularVelocity(w.bodyAt(1)), 0.0f) << "the impact turned nothing";
}

// Frictionless balls stay frictionless at impacts: no spin appears.
TEST(ImpactFriction, FrictionlessImpactsTurnNothing) {
  World w(impactWorld());
  const BodyId a = w.createBody(BodyDef::ball({40, 50}, 1.0f, {8, 0.5f}));
  w.createBody(BodyDef::ball({44, 50.3f}, 1.5f, {-3, 0}));
  for (int s = 0; s < 20; ++s) w.step(kDt);
  EXPECT_EQ(w.angularVelocity(a), 0.0f);
}
