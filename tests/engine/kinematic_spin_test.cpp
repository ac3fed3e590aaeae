// Spinning kinematic balls: World::setAngularVelocity on a kinematic ball
// gives it a spin that collisions never change; with friction its surface
// drives the balls that touch it (a conveyor wheel), as the analytic
// sliding-to-rolling case predicts. Bit-identical for 1, 2 and 8 threads and
// through a snapshot.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <quadbin/quadbin.hpp>
#include <vector>

#include "support/state_hash.hpp"

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

WorldDef wheelWorld(std::uint32_t threads = 1) {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.threadCount = threads;
  def.bounds = {{-100, -100}, {100, 100}};
  def.gravity = {0, -10};
  return def;
}

// A wheel of radius 50 at the origin, surface speed 1 (w = 0.02 rad/s,
// counter-clockwise: its top moves to -x), and a ball of radius 1 resting
// on its top, both with friction mu.
struct Wheel {
  BodyId wheel, ball;
};
Wheel buildWheel(World& w, float mu, float spin) {
  BodyDef wheel = BodyDef::kinematicBall({0, 0}, 50);
  wheel.friction = mu;
  BodyDef ball = BodyDef::ball({0, 51}, 1);
  ball.friction = mu;
  Wheel out{w.createBody(wheel), w.createBody(ball)};
  w.setAngularVelocity(out.wheel, spin);
  return out;
}

// Friction mu g drags the ball's contact point towards the wheel's surface
// speed u = -w R; the linear impulse J gives dv = J / m and the spin
// J r / I = 2 J / (m r), so the contact point closes at 3 J / m and stops
// sliding when v = u / 3 and w_ball r = 2 u / 3 (after u / (3 mu g) = 1/30 s).
TEST(KinematicSpin, BallOnSpinningWheelGainsTheSpeedFrictionPredicts) {
  World w(wheelWorld());
  const Wheel s = buildWheel(w, 1.0f, 0.02f);
  for (int k = 0; k < 12; ++k) w.step(kDt);
  const float u = -0.02f * 50.0f;
  const Vec2 v = w.velocity(s.ball);
  const float spin = w.angularVelocity(s.ball);
  EXPECT_NEAR(v.x, u / 3, 0.01f * std::abs(u));
  EXPECT_NEAR(spin * 1.0f, 2 * u / 3, 0.01f * std::abs(u));
  EXPECT_NEAR(v.x + spin * 1.0f, u, 0.005f * std::abs(u)) << "rolls without sliding";
  EXPECT_NEAR(v.y, 0.0f, 0.01f) << "still resting on the wheel";
  EXPECT_EQ(w.angularVelocity(s.wheel), 0.02f) << "collisions never change a kinematic spin";
  EXPECT_EQ(w.position(s.wheel).x, 0.0f);
  EXPECT_NEAR(w.angle(s.wheel), 0.02f * 12 * kDt, 1e-6f) << "the wheel turns";
}

TEST(KinematicSpin, SlidingPhaseIsBoundByTheFrictionCone) {
  // Surface speed 10: sliding lasts 10 / (3 mu g) = 1/3 s; during it the ball
  // gains mu g per second.
  World w(wheelWorld());
  const Wheel s = buildWheel(w, 1.0f, 0.2f);
  for (int k = 0; k < 6; ++k) w.step(kDt);
  EXPECT_NEAR(w.velocity(s.ball).x, -10.0f * 6 * kDt, 0.1f * 10.0f * 6 * kDt);
  EXPECT_NEAR(w.angularVelocity(s.ball), 2 * w.velocity(s.ball).x, 0.01f);
}

TEST(KinematicSpin, FrictionlessOrStillWheelLeavesTheBallAlone) {
  for (const auto& [mu, spin] : {std::pair{0.0f, 0.02f}, std::pair{1.0f, 0.0f}}) {
    World w(wheelWorld());
    const Wheel s = buildWheel(w, mu, spin);
    for (int k = 0; k < 12; ++k) w.step(kDt);
    EXPECT_EQ(w.velocity(s.ball).x, 0.0f) << mu << " " << spin;
    EXPECT_EQ(w.angularVelocity(s.ball), 0.0f);
    EXPECT_EQ(w.angularVelocity(s.wheel), spin);
  }
}

TEST(KinematicSpin, SpinningUpWakesTheBallAsleepOnTheWheel) {
  World w(wheelWorld());
  const Wheel s = buildWheel(w, 1.0f, 0.0f);
  for (int k = 0; k < 600 && w.isAwake(s.ball); ++k) w.step(kDt);
  ASSERT_FALSE(w.isAwake(s.ball));
  w.setAngularVelocity(s.wheel, 0.02f);
  for (int k = 0; k < 30; ++k) w.step(kDt);
  EXPECT_TRUE(w.isAwake(s.ball)) << "a spinning wheel keeps what it drives awake";
  EXPECT_NEAR(w.velocity(s.ball).x, -1.0f / 3, 0.03f);
}

TEST(KinematicSpin, BoxesCannotTurnAndTheWorldIsUnchanged) {
  World w(wheelWorld());
  const BodyId box = w.createBody(BodyDef::kinematicBox({{-5, -5}, {5, 5}}));
  const BodyId wall = w.createBody(BodyDef::staticBox({{20, -5}, {30, 5}}));
  const BodyId wheel = w.createBody(BodyDef::kinematicBall({0, 50}, 2));
  EXPECT_THROW(w.setAngularVelocity(box, 1.0f), Error);
  EXPECT_THROW(w.setAngularVelocity(wall, 1.0f), Error);
  EXPECT_THROW(w.setAngularVelocity(wheel, 1e9f), Error) << "surface faster than kMaxSpeed";
  EXPECT_EQ(w.angularVelocity(box), 0.0f);
  EXPECT_EQ(w.angularVelocity(wheel), 0.0f);
  w.setAngularVelocity(wheel, -3.0f);
  EXPECT_EQ(w.angularVelocity(wheel), -3.0f);
}

// Balls with friction rain onto three spinning wheels and a floor.
void buildMill(World& w) {
  std::vector<BodyDef> defs;
  for (int k = 0; k < 3; ++k) {
    BodyDef d = BodyDef::kinematicBall({-50.0f + 50.0f * static_cast<float>(k), -20}, 12);
    d.friction = 0.8f;
    defs.push_back(d);
  }
  for (int i = 0; i < 400; ++i) {
    BodyDef d = BodyDef::ball(
        {-90.0f + 4.5f * static_cast<float>(i % 40), 10.0f + 4.0f * static_cast<float>(i / 40)},
        1.2f);
    d.friction = 0.5f;
    d.rollingResistance = 0.05f;
    defs.push_back(d);
  }
  const std::vector<BodyId> ids = w.createBodies(defs);
  for (int k = 0; k < 3; ++k) w.setAngularVelocity(ids[k], k == 1 ? -2.0f : 1.5f);
}

std::uint64_t runMill(std::uint32_t threads, int steps) {
  World w(wheelWorld(threads));
  buildMill(w);
  for (int k = 0; k < steps; ++k) w.step(kDt);
  return test::hashState(w, true);
}

TEST(KinematicSpin, MillIsBitIdenticalForEveryThreadCountAndThroughASnapshot) {
  const std::uint64_t one = runMill(1, 240);
  EXPECT_EQ(runMill(2, 240), one);
  EXPECT_EQ(runMill(8, 240), one);
  World w(wheelWorld(2));
  buildMill(w);
  for (int k = 0; k < 120; ++k) w.step(kDt);
  World copy(wheelWorld(8));
  copy.restore(w.snapshot());
  for (int k = 0; k < 120; ++k) {
    w.step(kDt);
    copy.step(kDt);
  }
  EXPECT_EQ(test::hashState(copy, true), test::hashState(w, true));
  EXPECT_EQ(test::hashState(w, true), one);
}

}  // namespace
