// Settings that change after creation: setGravity and setRadius, each
// with createBody's refusals and the world unchanged when refused.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <quadbin/quadbin.hpp>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

WorldDef quiet() {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  return def;
}

}  // namespace

TEST(Settings, SetGravityTakesEffectAtTheNextStep) {
  World w(quiet());
  EXPECT_EQ(w.gravity(), (Vec2{0, 0}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 50}, 1.0f));
  w.step(kDt);
  EXPECT_EQ(w.velocity(ball), (Vec2{0, 0}));
  w.setGravity({3, -10});
  EXPECT_EQ(w.gravity(), (Vec2{3, -10}));
  EXPECT_EQ(w.def().gravity, (Vec2{3, -10}));
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.velocity(ball).x, 3.0f * kDt);
  EXPECT_FLOAT_EQ(w.velocity(ball).y, -10.0f * kDt);
  const auto before = w.snapshot();
  EXPECT_THROW(w.setGravity({2e7f, 0}), Error);
  EXPECT_THROW(w.setGravity({std::nanf(""), 0}), Error);
  EXPECT_EQ(w.snapshot(), before);
}

// A pile asleep under gravity wakes when the gravity turns sideways, and
// slides.
TEST(Settings, SetGravityWakesWhatSleeps) {
  WorldDef def = quiet();
  def.gravity = {0, -10};
  def.timeToSleep = 0.2f;
  def.restitution = 0.0f;
  World w(def);
  std::vector<BodyId> balls;
  for (int i = 0; i < 10; ++i) {
    balls.push_back(w.createBody(BodyDef::ball({5.0f + 2.0f * static_cast<float>(i), 1}, 1.0f)));
  }
  for (int s = 0; s < 120; ++s) w.step(kDt);
  ASSERT_FALSE(w.isAwake(balls[3]));
  w.setGravity({10, 0});
  EXPECT_TRUE(w.isAwake(balls[3]));
  const float x = w.position(balls[0]).x;
  for (int s = 0; s < 30; ++s) w.step(kDt);
  EXPECT_GT(w.position(balls[0]).x, x + 1.0f);
}

TEST(Settings, SetRadiusKeepsTheDensity) {
  World w(quiet());
  const BodyId ball = w.createBody(BodyDef::ball({50, 50}, 1.0f));
  EXPECT_FLOAT_EQ(w.mass(ball), std::numbers::pi_v<float>);
  w.setRadius(ball, 2.0f);
  EXPECT_EQ(w.radius(ball), 2.0f);
  EXPECT_FLOAT_EQ(w.mass(ball), 4.0f * std::numbers::pi_v<float>);
  EXPECT_EQ(w.bounds(ball), (AABB{{48, 48}, {52, 52}}));
  // What it now overlaps is pushed out; the world snapshots and restores.
  const BodyId other = w.createBody(BodyDef::ball({53.5f, 50}, 1.0f));
  for (int s = 0; s < 30; ++s) w.step(kDt);
  EXPECT_GE(length(w.position(other) - w.position(ball)), 3.0f - 0.01f);
  World copy(quiet());
  copy.restore(w.snapshot());
  EXPECT_EQ(copy.snapshot(), w.snapshot());
  // A kinematic ball changes too (it has no mass to keep).
  const BodyId k = w.createBody(BodyDef::kinematicBall({20, 20}, 1.0f));
  w.setRadius(k, 0.5f);
  EXPECT_EQ(w.radius(k), 0.5f);
}

TEST(Settings, SetRadiusRefusesWhatCreateBodyRefuses) {
  WorldDef def = quiet();
  def.bounds = {{0, 0}, {100, 100}};
  World w(def);
  const BodyId ball = w.createBody(BodyDef::ball({5, 50}, 1.0f));
  const BodyId box = w.createBody(BodyDef::staticBox({{20, 20}, {30, 30}}));
  const auto before = w.snapshot();
  EXPECT_THROW(w.setRadius(ball, 0.0f), Error);
  EXPECT_THROW(w.setRadius(ball, -1.0f), Error);
  EXPECT_THROW(w.setRadius(ball, std::nanf("")), Error);
  EXPECT_THROW(w.setRadius(ball, 2e7f), Error);  // past kMaxSize
  EXPECT_THROW(w.setRadius(ball, 6.0f), Error);  // no longer fits inside the walls
  EXPECT_THROW(w.setRadius(box, 2.0f), Error);   // a box has half extents
  EXPECT_EQ(w.snapshot(), before);
  EXPECT_NO_THROW(w.setRadius(ball, 5.0f));  // touching the wall exactly
}

// A ball feels gravityScale times the world's gravity: 0 floats, 2 falls
// twice as fast, -1 rises; the rest fall as before.
TEST(Settings, GravityScaleScalesEachBallsGravity) {
  WorldDef def = quiet();
  def.gravity = {0, -10};
  World w(def);
  auto ballWith = [&](float x, float scale) {
    BodyDef d = BodyDef::ball({x, 50}, 1.0f);
    d.gravityScale = scale;
    return w.createBody(d);
  };
  const BodyId plain = ballWith(10, 1.0f), floating = ballWith(20, 0.0f),
               heavy = ballWith(30, 2.0f), rising = ballWith(40, -1.0f);
  EXPECT_EQ(w.gravityScale(heavy), 2.0f);
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.velocity(plain).y, -10.0f * kDt);
  EXPECT_EQ(w.velocity(floating).y, 0.0f);
  EXPECT_FLOAT_EQ(w.velocity(heavy).y, -20.0f * kDt);
  EXPECT_FLOAT_EQ(w.velocity(rising).y, 10.0f * kDt);
  w.setGravityScale(floating, 1.0f);
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.velocity(floating).y, -10.0f * kDt);
  // A snapshot keeps the scales.
  World copy(quiet());
  copy.restore(w.snapshot());
  EXPECT_EQ(copy.gravityScale(copy.bodyAt(2)), 2.0f);
  EXPECT_EQ(copy.snapshot(), w.snapshot());
}

// |scale| |gravity| is held within kMaxGravity wherever either changes.
TEST(Settings, GravityScaleKeepsTheGravityLimit) {
  WorldDef def = quiet();
  def.gravity = {0, -1e6f};
  World w(def);
  BodyDef d = BodyDef::ball({50, 50}, 1.0f);
  d.gravityScale = 20.0f;  // 2e7 > 1e7
  EXPECT_THROW(w.createBody(d), Error);
  d.gravityScale = 10.0f;
  const BodyId ball = w.createBody(d);
  const auto before = w.snapshot();
  EXPECT_THROW(w.setGravityScale(ball, 11.0f), Error);
  EXPECT_THROW(w.setGravityScale(ball, std::nanf("")), Error);
  EXPECT_THROW(w.setGravity({0, -2e6f}), Error);  // the ball would feel 2e7
  EXPECT_EQ(w.snapshot(), before);
  EXPECT_NO_THROW(w.setGravity({0, -5e5f}));
  EXPECT_NO_THROW(w.setGravityScale(ball, 20.0f));
}
