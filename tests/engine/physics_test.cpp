// The solver against textbook elastic collisions and conservation laws.
#include <gtest/gtest.h>

#include <cmath>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

WorldDef openWorld() {
  WorldDef def;
  def.boundary = Boundary::Open;
  def.bounds = {{-1000, -1000}, {1000, 1000}};
  def.logLevel = LogLevel::Off;
  return def;
}

BodyId ballWithMass(World& w, Vec2 p, float r, Vec2 v, float m) {
  BodyDef d = BodyDef::ball(p, r, v);
  d.mass = m;
  return w.createBody(d);
}

void stepFor(World& w, int steps) {
  for (int i = 0; i < steps; ++i) w.step(kDt);
}

}  // namespace

TEST(Elastic, HeadOnEqualBallsSwapVelocities) {
  World w(openWorld());
  const BodyId a = w.createBody(BodyDef::ball({0, 0}, 1, {5, 0}));
  const BodyId b = w.createBody(BodyDef::ball({10, 0}, 1, {-3, 0}));
  stepFor(w, 120);
  EXPECT_NEAR(w.velocity(a).x, -3.0f, 1e-5f);
  EXPECT_NEAR(w.velocity(b).x, 5.0f, 1e-5f);
  EXPECT_EQ(w.velocity(a).y, 0.0f);
  EXPECT_EQ(w.velocity(b).y, 0.0f);
}

TEST(Elastic, UnequalMassesMatchTheOneDimensionalFormula) {
  const float m1 = 3, m2 = 1, u1 = 4, u2 = -2;
  World w(openWorld());
  const BodyId a = ballWithMass(w, {0, 0}, 1, {u1, 0}, m1);
  const BodyId b = ballWithMass(w, {6, 0}, 1, {u2, 0}, m2);
  stepFor(w, 120);
  const float v1 = ((m1 - m2) * u1 + 2 * m2 * u2) / (m1 + m2);
  const float v2 = ((m2 - m1) * u2 + 2 * m1 * u1) / (m1 + m2);
  EXPECT_NEAR(w.velocity(a).x, v1, 1e-5f);
  EXPECT_NEAR(w.velocity(b).x, v2, 1e-5f);
}

TEST(Elastic, ObliqueCollisionMatchesTheTwoDimensionalFormula) {
  // a moves along x and meets b, at rest at (5, 1.2), when their centres
  // are 2 apart: a at (3.4, 0), normal (0.8, 0.6).
  const float m1 = 2, m2 = 5;
  World w(openWorld());
  const BodyId a = ballWithMass(w, {0, 0}, 1, {6, 0}, m1);
  const BodyId b = ballWithMass(w, {5, 1.2f}, 1, {0, 0}, m2);
  stepFor(w, 60);
  const Vec2 n{0.8f, 0.6f};
  const Vec2 u1{6, 0};
  // v1' = u1 - 2 m2/(m1+m2) <u1 - u2, n> n ; v2' = u2 + 2 m1/(m1+m2) <u1 - u2, n> n
  const float k = dot(u1, n);
  const Vec2 v1 = u1 - n * (2 * m2 / (m1 + m2) * k);
  const Vec2 v2 = n * (2 * m1 / (m1 + m2) * k);
  EXPECT_NEAR(w.velocity(a).x, v1.x, 1e-4f);
  EXPECT_NEAR(w.velocity(a).y, v1.y, 1e-4f);
  EXPECT_NEAR(w.velocity(b).x, v2.x, 1e-4f);
  EXPECT_NEAR(w.velocity(b).y, v2.y, 1e-4f);
  // And b left from where it was struck: its path goes through (5, 1.2).
  const Vec2 pb = w.position(b);
  EXPECT_NEAR(cross(pb - Vec2{5, 1.2f}, n), 0.0f, 1e-3f);
}

TEST(Elastic, RestitutionScalesTheSeparationSpeed) {
  WorldDef def = openWorld();
  def.restitution = 0.5f;
  World w(def);
  const BodyId a = w.createBody(BodyDef::ball({0, 0}, 1, {4, 0}));
  const BodyId b = w.createBody(BodyDef::ball({5, 0}, 1, {0, 0}));
  stepFor(w, 120);
  EXPECT_NEAR(w.velocity(b).x - w.velocity(a).x, 0.5f * 4.0f, 1e-5f);
  EXPECT_NEAR(w.velocity(a).x + w.velocity(b).x, 4.0f, 1e-5f);  // momentum, equal masses
}

TEST(Elastic, NewtonsCradlePassesMomentumAlongTheChain) {
  World w(openWorld());
  const BodyId striker = w.createBody(BodyDef::ball({-5, 0}, 1, {10, 0}));
  std::vector<BodyId> chain;
  for (int i = 0; i < 4; ++i) {
    chain.push_back(w.createBody(BodyDef::ball({2.0f * static_cast<float>(i), 0}, 1)));
  }
  stepFor(w, 60);
  EXPECT_NEAR(w.velocity(striker).x, 0.0f, 1e-4f);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(w.velocity(chain[i]).x, 0.0f, 1e-4f);
  EXPECT_NEAR(w.velocity(chain[3]).x, 10.0f, 1e-4f);
}

TEST(Elastic, BallBouncesOffAStaticBoxAndTheWalls) {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  World w(def);
  w.createBody(BodyDef::staticBox({{60, 0}, {70, 100}}));
  const BodyId a = w.createBody(BodyDef::ball({50, 50}, 1, {30, 0}));
  stepFor(w, 30);  // hits the box face at x = 59 after 0.3 s
  EXPECT_FLOAT_EQ(w.velocity(a).x, -30.0f);
  stepFor(w, 120);  // back across to the wall at x = 1 (58 units at 30/s)
  EXPECT_FLOAT_EQ(w.velocity(a).x, 30.0f);
  EXPECT_GE(w.position(a).x, 1.0f);
}

TEST(Conservation, MomentumWithoutWalls) {
  World w(openWorld());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> pos(-60, 60), vel(-20, 20), rad(0.5f, 2.0f);
  for (int i = 0; i < 400; ++i) {
    BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng) + 5, vel(rng) - 3});
    w.createBody(d);
  }
  const Vec2 p0 = w.momentum();
  std::uint32_t impulses = 0;
  for (int i = 0; i < 300; ++i) {
    w.step(kDt);
    impulses += w.stats().impulses;
  }
  EXPECT_GT(impulses, 100u);  // the scene really collides
  const Vec2 p1 = w.momentum();
  EXPECT_LT(length(p1 - p0) / length(p0), 1e-5f) << "p0 = " << p0.x << ", " << p0.y;
}

TEST(Conservation, KineticEnergyOfTheUniformScene) {
  // docs/benchmarks.md's uniform scene, 1,000 balls, e = 1, closed world.
  const auto scene = scenes::generate(scenes::SceneKind::Uniform, 1000);
  WorldDef def;
  def.logLevel = LogLevel::Off;
  World w = scenes::makeWorld(scene, def);
  const double e0 = w.kineticEnergy();
  const AABB bounds = w.def().bounds;
  std::uint64_t impulses = 0;
  for (int step = 0; step < 600; ++step) {
    w.step(kDt);
    impulses += w.stats().impulses;
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      const Vec2 p = w.position(id);
      const float r = w.radius(id);
      ASSERT_TRUE(p.x - r >= bounds.min.x && p.x + r <= bounds.max.x && p.y - r >= bounds.min.y &&
                  p.y + r <= bounds.max.y)
          << "ball " << i << " outside the closed world at step " << step;
    }
  }
  const double drift = std::abs(w.kineticEnergy() - e0) / e0;
  RecordProperty("energy_drift", std::to_string(drift));
  std::printf("kinetic energy drift after 600 steps: %.3e (%llu impulses)\n", drift,
              static_cast<unsigned long long>(impulses));
  EXPECT_LT(drift, 1e-3);
  EXPECT_GT(impulses, 1000u);
}

TEST(PositionCorrection, SeparatesOverlapsWithoutAddingEnergy) {
  World w(openWorld());
  const BodyId a = w.createBody(BodyDef::ball({0, 0}, 1));
  const BodyId b = w.createBody(BodyDef::ball({1, 0}, 1));  // half overlapping, at rest
  w.step(kDt);
  EXPECT_EQ(w.kineticEnergy(), 0.0);
  EXPECT_GE(length(w.position(b) - w.position(a)), 2.0f - 1e-5f);
  EXPECT_NEAR(w.position(a).x + w.position(b).x, 1.0f, 1e-5f);  // centre of mass stays
}

TEST(PositionCorrection, PileUnderGravityDoesNotSink) {
  WorldDef def;
  def.bounds = {{0, 0}, {20, 60}};
  def.gravity = {0, -10};
  def.restitution = 0.2f;
  def.logLevel = LogLevel::Off;
  World w(def);
  w.createBody(BodyDef::staticBox({{5, 0}, {15, 2}}));  // a step on the floor
  std::vector<BodyId> balls;
  for (int i = 0; i < 60; ++i) {
    const float x = 1.5f + static_cast<float>(i % 8) * 2.3f;
    const float y = 5.0f + static_cast<float>(i / 8) * 2.5f;
    balls.push_back(w.createBody(BodyDef::ball({x, y}, 1)));
  }
  stepFor(w, 900);
  float worst = 0.0f;
  for (std::size_t i = 0; i < balls.size(); ++i) {
    const Vec2 p = w.position(balls[i]);
    EXPECT_GE(p.y, 1.0f - 1e-4f);
    if (p.x > 5 && p.x < 15) {
      EXPECT_GE(p.y, 3.0f - 0.05f) << "ball sank into the step";
    }
    for (std::size_t j = i + 1; j < balls.size(); ++j) {
      worst = std::max(worst, 2.0f - length(w.position(balls[j]) - p));
    }
  }
  EXPECT_LT(worst, 0.05f) << "deepest overlap in the pile";
}
