// Materials, damping, forces and impulses (docs/physics.md, "Materials,
// damping and forces"): per-body restitution combined by max, Box2D's
// damping against its closed form and the exponential, constant forces
// against x0 + a t^2 / 2, impulses, explode against a brute-force sum, the
// refused inputs (world unchanged), snapshots and thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <quadbin/quadbin.hpp>
#include <random>
#include <tuple>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

WorldDef emptyWorld(float restitution = 1.0f) {
  WorldDef def;
  def.bounds = {{0, 0}, {1000, 1000}};
  def.restitution = restitution;
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  def.threadCount = 1;
  return def;
}

BodyId ball(World& w, Vec2 p, Vec2 v, float mass, std::optional<float> e = std::nullopt) {
  BodyDef def = BodyDef::ball(p, 1.0f, v);
  def.mass = mass;
  def.restitution = e;
  return w.createBody(def);
}

// Head-on collision of two balls on the x axis, long after they met.
struct Outgoing {
  float va, vb;
};
Outgoing collide(std::optional<float> ea, std::optional<float> eb, float world) {
  World w(emptyWorld(world));
  const BodyId a = ball(w, {440, 500}, {5, 0}, 1.0f, ea);
  const BodyId b = ball(w, {460, 500}, {-3, 0}, 2.0f, eb);
  for (int k = 0; k < 200; ++k) w.step(kDt);  // they meet at t = 18 / 8 = 2.25 s
  EXPECT_EQ(w.velocity(a).y, 0.0f);
  return {w.velocity(a).x, w.velocity(b).x};
}

// Textbook outgoing speeds for masses 1 and 2 at 5 and -3 with restitution e.
Outgoing textbook(float e) {
  const float ma = 1.0f, mb = 2.0f, va = 5.0f, vb = -3.0f;
  const float p = ma * va + mb * vb;
  return {(p - mb * e * (va - vb)) / (ma + mb), (p + ma * e * (va - vb)) / (ma + mb)};
}

void expectOutgoing(Outgoing got, float e) {
  const Outgoing want = textbook(e);
  EXPECT_NEAR(got.va, want.va, 1e-4f) << "e = " << e;
  EXPECT_NEAR(got.vb, want.vb, 1e-4f) << "e = " << e;
}

}  // namespace

TEST(Restitution, UnsetIsTheWorldsAndSetOverrides) {
  World w(emptyWorld(0.25f));
  const BodyId unset = ball(w, {10, 10}, {}, 1.0f);
  const BodyId set = ball(w, {20, 10}, {}, 1.0f, 0.75f);
  const BodyId box = w.createBody(BodyDef::staticBox({{50, 50}, {60, 60}}));
  EXPECT_EQ(w.restitution(unset), 0.25f);
  EXPECT_EQ(w.restitution(set), 0.75f);
  EXPECT_EQ(w.restitution(box), 0.25f);
  w.setRestitution(unset, 0.5f);
  EXPECT_EQ(w.restitution(unset), 0.5f);
}

// Box2D's rule: a pair bounces with max(e_a, e_b), whichever body has it.
TEST(Restitution, TwoBallsCombineByMax) {
  expectOutgoing(collide(0.2f, 0.8f, 0.0f), 0.8f);
  expectOutgoing(collide(0.8f, 0.2f, 0.0f), 0.8f);
  expectOutgoing(collide(0.2f, 0.2f, 1.0f), 0.2f);  // the world's is only the walls'
  expectOutgoing(collide(std::nullopt, 0.5f, 0.1f), 0.5f);
  expectOutgoing(collide(std::nullopt, std::nullopt, 0.3f), 0.3f);
  expectOutgoing(collide(0.0f, 0.0f, 1.0f), 0.0f);
}

TEST(Restitution, SetRestitutionTakesEffect) {
  World w(emptyWorld(0.0f));
  const BodyId a = ball(w, {440, 500}, {5, 0}, 1.0f);
  const BodyId b = ball(w, {460, 500}, {-3, 0}, 2.0f);
  w.setRestitution(b, 0.6f);
  for (int k = 0; k < 200; ++k) w.step(kDt);
  expectOutgoing({w.velocity(a).x, w.velocity(b).x}, 0.6f);
}

// Walls have the world's restitution, combined with the ball's by max.
TEST(Restitution, WallsUseTheWorlds) {
  for (const auto& [world, own, want] : {std::tuple{0.0f, 0.5f, 0.5f}, std::tuple{1.0f, 0.0f, 1.0f},
                                         std::tuple{0.25f, 0.0f, 0.25f}}) {
    World w(emptyWorld(world));
    const BodyId a = ball(w, {990, 500}, {30, 0}, 1.0f, own);
    for (int k = 0; k < 60; ++k) w.step(kDt);
    EXPECT_NEAR(w.velocity(a).x, -30.0f * want, 1e-4f) << world << " " << own;
  }
}

// A static box's own restitution counts as a ball's would.
TEST(Restitution, StaticBoxesCombineByMax) {
  WorldDef def = emptyWorld(0.0f);
  World w(def);
  BodyDef boxDef = BodyDef::staticBox({{600, 400}, {700, 600}});
  boxDef.restitution = 0.5f;
  w.createBody(boxDef);
  const BodyId a = ball(w, {590, 500}, {20, 0}, 1.0f);
  for (int k = 0; k < 60; ++k) w.step(kDt);
  EXPECT_NEAR(w.velocity(a).x, -10.0f, 1e-4f);
}

// Bodies that set the world's restitution explicitly step bit-identically
// to bodies that leave it unset (the unset value is the world's).
TEST(Restitution, ExplicitWorldValueChangesNothing) {
  auto run = [](bool explicitValue) {
    WorldDef def = emptyWorld(0.7f);
    def.bounds = {{0, 0}, {100, 100}};
    def.gravity = {0, -9.8f};
    World w(def);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> pos(2, 98), vel(-20, 20);
    for (int k = 0; k < 300; ++k) {
      BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, 0.8f, {vel(rng), vel(rng)});
      if (explicitValue) d.restitution = 0.7f;
      w.createBody(d);
    }
    for (int k = 0; k < 30; ++k) w.step(kDt);
    return std::vector<Vec2>(w.positions().begin(), w.positions().end());
  };
  const auto a = run(false), b = run(true);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].x, b[i].x);
    EXPECT_EQ(a[i].y, b[i].y);
  }
}

// Box2D's damping: v_n = v0 q^n with q = 1 / (1 + dt c), and the position
// the sum of those velocities times dt; close to v0 exp(-c t), within the
// first-order error n (c dt)^2 / 2 of the rule.
TEST(Damping, LinearDecayMatchesTheAnalyticRule) {
  World w(emptyWorld());
  BodyDef d = BodyDef::ball({100, 500}, 1.0f, {10, 0});
  d.linearDamping = 0.5f;
  const BodyId a = w.createBody(d);
  EXPECT_EQ(w.linearDamping(a), 0.5f);
  const int n = 120;
  for (int k = 0; k < n; ++k) w.step(kDt);
  const double c = 0.5, q = 1.0 / (1.0 + double{kDt} * c);
  const double v = 10.0 * std::pow(q, n);
  EXPECT_NEAR(w.velocity(a).x, v, 1e-4 * v);
  EXPECT_EQ(w.velocity(a).y, 0.0f);
  const double x = 100.0 + 10.0 * double{kDt} * q * (1.0 - std::pow(q, n)) / (1.0 - q);
  EXPECT_NEAR(w.position(a).x, x, 1e-3);
  const double t = n * double{kDt};
  const double exact = 10.0 * std::exp(-c * t);
  EXPECT_NEAR(w.velocity(a).x, exact, 10.0 * n * (c * kDt) * (c * kDt) / 2 + 1e-4);
  EXPECT_GT(std::abs(w.velocity(a).x - exact), 1e-6);  // it is the rule, not exp
}

TEST(Damping, AngularDecayMatchesTheAnalyticRuleWithAndWithoutFriction) {
  for (const float mu : {0.0f, 0.5f}) {
    World w(emptyWorld());
    BodyDef d = BodyDef::ball({500, 500}, 1.0f);
    d.friction = mu;
    d.angularDamping = 2.0f;
    const BodyId a = w.createBody(d);
    w.setAngularVelocity(a, 3.0f);
    const int n = 60;
    for (int k = 0; k < n; ++k) w.step(kDt);
    const double want = 3.0 * std::pow(1.0 / (1.0 + double{kDt} * 2.0), n);
    EXPECT_NEAR(w.angularVelocity(a), want, 1e-4 * want) << "friction " << mu;
    EXPECT_EQ(w.velocity(a).x, 0.0f);
  }
}

// Gravity with damping: Box2D's v = v q + dt g tends to the terminal
// speed g / c.
TEST(Damping, FallReachesTerminalSpeed) {
  WorldDef def = emptyWorld();
  def.gravity = {0, -10};
  World w(def);
  BodyDef d = BodyDef::ball({500, 990}, 1.0f);
  d.linearDamping = 5.0f;
  const BodyId a = w.createBody(d);
  for (int k = 0; k < 300; ++k) w.step(kDt);
  // Fixed point of v = v / (1 + dt c) + dt g: v = g (1 + dt c) / c.
  EXPECT_NEAR(w.velocity(a).y, -10.0f * (1.0f + kDt * 5.0f) / 5.0f, 1e-3f);
}

// A ball without damping steps bit-identically whether another, far away,
// has damping or not (the integrate stage takes the plain path per ball).
TEST(Damping, UndampedBallsAreUntouched) {
  auto run = [](float damping) {
    WorldDef def = emptyWorld();
    def.gravity = {0.5f, -9.8f};
    World w(def);
    const BodyId a = ball(w, {100, 900}, {3.25f, -1.5f}, 1.0f);
    BodyDef d = BodyDef::ball({900, 900}, 1.0f, {-2, 0});
    d.linearDamping = damping;
    w.createBody(d);
    for (int k = 0; k < 100; ++k) w.step(kDt);
    return std::pair{w.position(a), w.velocity(a)};
  };
  const auto plain = run(0.0f), damped = run(3.0f);
  EXPECT_EQ(plain.first.x, damped.first.x);
  EXPECT_EQ(plain.first.y, damped.first.y);
  EXPECT_EQ(plain.second.x, damped.second.x);
  EXPECT_EQ(plain.second.y, damped.second.y);
}

// A constant force re-applied before every step: symplectic Euler gives
// v_n = n a dt and x_n = x0 + a dt^2 n (n + 1) / 2, that is x0 + a t^2 / 2
// plus the integrator's known lead a t dt / 2.
TEST(Force, ConstantForceMatchesUniformAcceleration) {
  World w(emptyWorld());
  const BodyId a = ball(w, {100, 500}, {}, 2.0f);
  const Vec2 f{4.0f, -1.0f};
  const float ax = 2.0f, ay = -0.5f;
  const int n = 60;
  for (int k = 0; k < n; ++k) {
    w.applyForce(a, f);
    EXPECT_EQ(w.force(a), f);
    w.step(kDt);
    EXPECT_EQ(w.force(a), Vec2{});  // cleared by the step
  }
  const double t = n * double{kDt};
  EXPECT_NEAR(w.velocity(a).x, ax * t, 1e-4);
  EXPECT_NEAR(w.velocity(a).y, ay * t, 1e-4);
  const double steps = 0.5 * double{kDt} * kDt * n * (n + 1);
  EXPECT_NEAR(w.position(a).x, 100.0 + ax * steps, 1e-3);
  EXPECT_NEAR(w.position(a).y, 500.0 + ay * steps, 1e-3);
  const double lead = 0.5 * ax * t * kDt;
  EXPECT_NEAR(w.position(a).x, 100.0 + 0.5 * ax * t * t, lead + 1e-3);
  // Without a new force the speed stays.
  const Vec2 v = w.velocity(a);
  w.step(kDt);
  EXPECT_EQ(w.velocity(a), v);
}

TEST(Force, AccumulatesUntilTheStepAndWakes) {
  WorldDef def = emptyWorld();
  def.enableSleep = true;
  World w(def);
  const BodyId a = ball(w, {500, 500}, {}, 4.0f);
  w.setAwake(a, false);
  w.applyForce(a, {6, 0});
  w.applyForce(a, {2, 8});
  EXPECT_TRUE(w.isAwake(a));
  EXPECT_EQ(w.force(a), (Vec2{8, 8}));
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.velocity(a).x, 2.0f * kDt);
  EXPECT_FLOAT_EQ(w.velocity(a).y, 2.0f * kDt);
}

TEST(Impulse, LinearImpulseChangesVelocityByImpulseOverMass) {
  WorldDef def = emptyWorld();
  def.enableSleep = true;
  World w(def);
  BodyDef d = BodyDef::ball({500, 500}, 2.0f, {1, 0});
  d.density = 3.0f;  // mass = density pi r^2: the world's own mass is used
  const BodyId a = w.createBody(d);
  const float m = w.mass(a);
  EXPECT_NEAR(m, 3.0f * std::numbers::pi_v<float> * 4.0f, 1e-4f);
  w.setAwake(a, false);
  w.applyLinearImpulse(a, {3, 4});
  EXPECT_TRUE(w.isAwake(a));
  EXPECT_FLOAT_EQ(w.velocity(a).x, 3.0f / m);  // asleep: velocity was zeroed
  EXPECT_FLOAT_EQ(w.velocity(a).y, 4.0f / m);
  w.applyLinearImpulse(a, {-3, 0});
  EXPECT_NEAR(w.velocity(a).x, 0.0f, 1e-7f);
}

TEST(Impulse, AngularImpulseChangesSpinByImpulseOverInertia) {
  World w(emptyWorld());
  const BodyId a = ball(w, {500, 500}, {}, 2.0f);  // r = 1: I = m r^2 / 2 = 1
  w.applyAngularImpulse(a, 0.5f);
  EXPECT_FLOAT_EQ(w.angularVelocity(a), 0.5f);
  w.applyAngularImpulse(a, -2.0f);
  EXPECT_FLOAT_EQ(w.angularVelocity(a), -1.5f);
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.angle(a), -1.5f * kDt);  // it turns, without friction too
}

namespace {

// Balls and boxes scattered in a world, for explode.
World scatteredWorld(BroadPhaseType type, std::uint32_t threads) {
  WorldDef def = emptyWorld();
  def.bounds = {{0, 0}, {200, 200}};
  def.broadPhase = type;
  def.threadCount = threads;
  def.enableSleep = true;
  World w(def);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> pos(5, 195), vel(-3, 3), rad(0.3f, 2.0f);
  for (int k = 0; k < 400; ++k) {
    BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)});
    d.density = 0.5f + static_cast<float>(k % 5);
    w.createBody(d);
  }
  for (int k = 0; k < 10; ++k) {
    const Vec2 c{pos(rng), pos(rng)};
    w.createBody(BodyDef::staticBox({c - Vec2{2, 2}, c + Vec2{2, 2}}));
  }
  w.setAwake(w.bodyAt(3), false);
  return w;
}

}  // namespace

// explode against a brute-force pass over every body with the documented
// falloff: impulse (1 - d / radius) away from the centre, d the distance to
// the ball's surface.
TEST(Explode, MatchesBruteForce) {
  for (const BroadPhaseType type :
       {BroadPhaseType::BruteForce, BroadPhaseType::Quadtree, BroadPhaseType::DynamicAabbTree}) {
    World w = scatteredWorld(type, 1);
    const Vec2 center{90, 110};
    const float radius = 40.0f, impulse = 25.0f;
    std::vector<Vec2> want(w.bodyCount());
    std::vector<bool> awake(w.bodyCount());
    std::uint32_t hit = 0;
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      want[i] = w.velocity(id);
      awake[i] = w.isAwake(id);
      if (w.type(id) != BodyType::Ball) continue;
      const Vec2 delta = w.position(id) - center;
      const float dist = length(delta);
      const float d = std::max(0.0f, dist - w.radius(id));
      if (d >= radius || dist == 0.0f) continue;
      want[i] += delta / dist * (impulse * (1.0f - d / radius) / w.mass(id));
      awake[i] = true;
      ++hit;
    }
    ASSERT_GT(hit, 20u);
    w.explode(center, radius, impulse);
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      EXPECT_NEAR(w.velocity(id).x, want[i].x, 1e-5f * (1 + std::abs(want[i].x))) << i;
      EXPECT_NEAR(w.velocity(id).y, want[i].y, 1e-5f * (1 + std::abs(want[i].y))) << i;
      EXPECT_EQ(w.isAwake(id), awake[i]) << i;
    }
  }
}

TEST(Explode, BallAtTheCentreGetsNothingAndFarBallsAreUntouched) {
  World w(emptyWorld());
  const BodyId at = ball(w, {500, 500}, {1, 2}, 1.0f);
  const BodyId edge = ball(w, {520, 500}, {}, 1.0f);    // surface at 19
  const BodyId far = ball(w, {521.5f, 500}, {}, 1.0f);  // surface at 20.5
  w.explode({500, 500}, 20.0f, 10.0f);
  EXPECT_EQ(w.velocity(at), (Vec2{1, 2}));
  EXPECT_NEAR(w.velocity(edge).x, 10.0f * (1.0f - 19.0f / 20.0f), 1e-5f);
  EXPECT_EQ(w.velocity(edge).y, 0.0f);
  EXPECT_EQ(w.velocity(far), Vec2{});
}

// Per-body restitution, damping, forces and explosions in a busy world:
// the same bits for 1, 2 and 8 threads.
TEST(MaterialsDeterminism, SameBitsForAnyThreadCount) {
  auto run = [](std::uint32_t threads) {
    WorldDef def = emptyWorld(0.4f);
    def.bounds = {{0, 0}, {500, 500}};
    def.gravity = {0, -9.8f};
    def.threadCount = threads;
    def.enableSleep = true;
    World w(def);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> pos(3, 497), vel(-10, 10), unit(0, 1);
    std::vector<BodyDef> defs;
    for (int k = 0; k < 10000; ++k) {  // more than one range of bodies per thread
      BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, 0.5f + unit(rng), {vel(rng), vel(rng)});
      if (k % 3 == 0) d.restitution = unit(rng);
      if (k % 4 == 0) d.linearDamping = 2.0f * unit(rng);
      if (k % 5 == 0) d.friction = 0.5f;
      if (k % 7 == 0) d.angularDamping = unit(rng);
      defs.push_back(d);
    }
    const std::vector<BodyId> ids = w.createBodies(defs);
    for (int step = 0; step < 20; ++step) {
      for (std::size_t k = 0; k < ids.size(); k += 11) w.applyForce(ids[k], {5.0f, 20.0f});
      if (step % 7 == 0) w.explode({250, 100}, 80.0f, 30.0f);
      w.applyLinearImpulse(ids[step], {1.0f, 2.0f});
      w.step(kDt);
    }
    return w.snapshot();
  };
  const auto one = run(1);
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(run(8), one);
}

// A snapshot carries restitution, damping and the accumulated force: the
// restored world continues bit-identically.
TEST(MaterialsSnapshot, CarriesMaterialsDampingAndForce) {
  WorldDef def = emptyWorld(0.3f);
  def.bounds = {{0, 0}, {100, 100}};
  def.gravity = {0, -9.8f};
  World a(def);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(3, 97), vel(-10, 10), unit(0, 1);
  std::vector<BodyId> ids;
  for (int k = 0; k < 200; ++k) {
    BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, 0.7f, {vel(rng), vel(rng)});
    d.restitution = unit(rng);
    d.linearDamping = unit(rng);
    d.angularDamping = unit(rng);
    d.friction = 0.3f;
    ids.push_back(a.createBody(d));
  }
  for (int k = 0; k < 10; ++k) a.step(kDt);
  a.applyForce(ids[5], {100, 50});
  a.setRestitution(ids[6], 0.9f);
  const auto saved = a.snapshot();
  World b(emptyWorld());
  b.restore(saved);
  const BodyId five{ids[5].index, ids[5].generation, b.id()};
  const BodyId six{ids[6].index, ids[6].generation, b.id()};
  EXPECT_EQ(b.force(five), (Vec2{100, 50}));
  EXPECT_EQ(b.restitution(six), 0.9f);
  EXPECT_EQ(b.linearDamping(five), a.linearDamping(ids[5]));
  EXPECT_EQ(b.angularDamping(five), a.angularDamping(ids[5]));
  for (int k = 0; k < 30; ++k) {
    a.step(kDt);
    b.step(kDt);
  }
  EXPECT_EQ(a.snapshot(), b.snapshot());
}

using MaterialsRefusal = test::QuietLog;

// Bad input throws Error and leaves the world as it was (same snapshot).
TEST_F(MaterialsRefusal, BadInputIsRefusedWithTheWorldUnchanged) {
  World w(emptyWorld());
  const BodyId a = ball(w, {500, 500}, {1, 0}, 1.0f);
  const BodyId box = w.createBody(BodyDef::staticBox({{10, 10}, {20, 20}}));
  w.applyForce(a, {1, 1});
  const auto before = w.snapshot();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto refused = [&](auto call, const char* what) {
    EXPECT_THROW(call(), Error) << what;
    EXPECT_EQ(w.snapshot(), before) << what;
  };
  refused([&] { w.setRestitution(a, 1.5f); }, "restitution > 1");
  refused([&] { w.setRestitution(a, -0.1f); }, "restitution < 0");
  refused([&] { w.setRestitution(a, nan); }, "restitution NaN");
  refused([&] { w.setLinearDamping(a, -1.0f); }, "negative damping");
  refused([&] { w.setLinearDamping(a, inf); }, "infinite damping");
  refused([&] { w.setAngularDamping(a, nan); }, "NaN angular damping");
  refused([&] { w.setLinearDamping(box, 1.0f); }, "damping a static box");
  refused([&] { w.applyForce(a, {nan, 0}); }, "NaN force");
  refused([&] { w.applyForce(a, {0, inf}); }, "infinite force");
  refused([&] { w.applyForce(a, {2e7f, 0}); }, "force over the acceleration limit");
  refused([&] { w.applyForce(box, {1, 0}); }, "force on a static box");
  refused([&] { w.applyLinearImpulse(a, {inf, 0}); }, "infinite impulse");
  refused([&] { w.applyLinearImpulse(a, {2e8f, 0}); }, "impulse past kMaxSpeed");
  refused([&] { w.applyLinearImpulse(box, {1, 0}); }, "impulse on a static box");
  refused([&] { w.applyAngularImpulse(a, nan); }, "NaN angular impulse");
  refused([&] { w.applyAngularImpulse(a, 1e9f); }, "spin past kMaxSpeed");
  refused([&] { w.applyAngularImpulse(box, 1.0f); }, "angular impulse on a static box");
  refused([&] { w.explode({nan, 0}, 10, 1); }, "NaN centre");
  refused([&] { w.explode({500, 500}, 0, 1); }, "zero radius");
  refused([&] { w.explode({500, 500}, -1, 1); }, "negative radius");
  refused([&] { w.explode({500, 500}, inf, 1); }, "infinite radius");
  refused([&] { w.explode({500, 500}, 10, -1); }, "negative impulse");
  refused([&] { w.explode({500, 500}, 10, nan); }, "NaN impulse");
  refused([&] { w.explode({502, 500}, 10, 1e9f); }, "explosion past kMaxSpeed");
  refused([&] { w.applyForce(BodyId{}, {1, 0}); }, "null id");

  BodyDef d = BodyDef::ball({50, 50}, 1.0f);
  d.restitution = 2.0f;
  refused([&] { w.createBody(d); }, "BodyDef.restitution");
  d.restitution = std::nullopt;
  d.linearDamping = nan;
  refused([&] { w.createBody(d); }, "BodyDef.linearDamping");
  d.linearDamping = 0.0f;
  d.angularDamping = -2.0f;
  refused([&] { w.createBody(d); }, "BodyDef.angularDamping");
  std::vector<BodyDef> defs{BodyDef::ball({60, 60}, 1.0f), d};
  refused([&] { w.createBodies(defs); }, "createBodies");
}
