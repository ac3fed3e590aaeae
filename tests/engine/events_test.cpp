// Sensors and the pre-solve hook: against analytic cases and a brute-force
// overlap scan, the same for every thread count and broad phase, and
// through snapshots (contact and hit events: contact_events_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <quadbin/quadbin.hpp>
#include <random>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

using Events = test::QuietLog;

WorldDef quietWorld(std::uint32_t threads = 1) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.threadCount = threads;
  return def;
}

// ---- sensors -----------------------------------------------------------------

BodyDef sensorBall(Vec2 p, float r, Vec2 v = {}) {
  BodyDef d = BodyDef::ball(p, r, v);
  d.isSensor = true;
  return d;
}
BodyDef sensorBox(const AABB& box) {
  BodyDef d = BodyDef::staticBox(box);
  d.isSensor = true;
  return d;
}

TEST_F(Events, StaticSensorBoxDetectsABallPassingThrough) {
  World w(quietWorld());
  const BodyId zone = w.createBody(sensorBox({{40, 40}, {60, 60}}));
  const BodyId ball = w.createBody(BodyDef::ball({20, 50}, 1, {10, 0}));
  EXPECT_TRUE(w.isSensor(zone));
  EXPECT_FALSE(w.isSensor(ball));
  int beginStep = -1, endStep = -1;
  for (int s = 0; s < 400; ++s) {
    w.step(kDt);
    const float x = w.position(ball).x;
    for (const SensorEvent& e : w.sensorBeginEvents()) {
      EXPECT_EQ(e.sensor, zone);
      EXPECT_EQ(e.visitor, ball);
      EXPECT_EQ(beginStep, -1);
      beginStep = s;
      EXPECT_GT(x, 39.0f);
      EXPECT_LT(x, 39.0f + 10 * kDt + 1e-3f);
    }
    for (const SensorEvent& e : w.sensorEndEvents()) {
      EXPECT_EQ(e.sensor, zone);
      EXPECT_EQ(e.visitor, ball);
      EXPECT_EQ(endStep, -1);
      endStep = s;
      EXPECT_GE(x, 61.0f);
    }
    EXPECT_TRUE(w.contactBeginEvents().empty()) << "a sensor makes no contact";
    EXPECT_EQ(w.velocity(ball).x, 10.0f) << "no collision response";
    EXPECT_EQ(w.velocity(ball).y, 0.0f);
  }
  EXPECT_GE(beginStep, 0);
  EXPECT_GT(endStep, beginStep);
}

TEST_F(Events, SensorBallPassesThroughBallsAndBouncesOffWalls) {
  World w(quietWorld());
  const BodyId sensor = w.createBody(sensorBall({10, 50}, 2, {20, 0}));
  const BodyId still = w.createBody(BodyDef::ball({50, 50}, 1));
  const BodyId box = w.createBody(BodyDef::staticBox({{70, 45}, {75, 55}}));
  std::vector<SensorEvent> begins, ends;
  bool bounced = false;
  for (int s = 0; s < 480; ++s) {
    w.step(kDt);
    begins.insert(begins.end(), w.sensorBeginEvents().begin(), w.sensorBeginEvents().end());
    ends.insert(ends.end(), w.sensorEndEvents().begin(), w.sensorEndEvents().end());
    EXPECT_EQ(w.velocity(still).x, 0.0f);
    EXPECT_EQ(w.position(still).x, 50.0f);
    if (w.velocity(sensor).x < 0.0f) bounced = true;
  }
  EXPECT_TRUE(bounced) << "the max-x wall turns the sensor ball back";
  EXPECT_GE(w.position(sensor).x, 2.0f);
  EXPECT_LE(w.position(sensor).x, 98.0f);
  // It crossed the still ball at least twice (there and back), never the box
  // (static boxes are not visitors).
  ASSERT_GE(begins.size(), 2u);
  for (const SensorEvent& e : begins) {
    EXPECT_EQ(e.sensor, sensor);
    EXPECT_EQ(e.visitor, still);
  }
  EXPECT_GE(ends.size(), 2u);
  (void)box;
}

// A moving kinematic sensor sweeps over a pile whose every ball sleeps: the
// sensor sees the sleeping balls it passes (and does not wake them).
TEST_F(Events, MovingKinematicSensorSeesSleepingBalls) {
  WorldDef def = quietWorld();
  def.gravity = {0, -10};
  World w(def);
  w.createBody(BodyDef::staticBox({{0, 0}, {100, 10}}));
  const BodyId a = w.createBody(BodyDef::ball({40, 11.0f}, 1));
  const BodyId b = w.createBody(BodyDef::ball({60, 11.0f}, 1));
  BodyDef zone = BodyDef::kinematicBox({{0, 10}, {4, 20}}, {6, 0});
  zone.isSensor = true;
  const BodyId sensor = w.createBody(zone);
  for (int s = 0; s < 120; ++s) w.step(kDt);
  ASSERT_FALSE(w.isAwake(a));
  ASSERT_FALSE(w.isAwake(b));
  ASSERT_LT(w.position(sensor).x, 30.0f);
  std::vector<BodyId> begun, ended;
  for (int s = 0; s < 900; ++s) {
    w.step(kDt);
    for (const SensorEvent& e : w.sensorBeginEvents()) {
      EXPECT_EQ(e.sensor, sensor);
      begun.push_back(e.visitor);
    }
    for (const SensorEvent& e : w.sensorEndEvents()) {
      EXPECT_EQ(e.sensor, sensor);
      ended.push_back(e.visitor);
    }
  }
  EXPECT_EQ(begun, (std::vector<BodyId>{a, b}));
  EXPECT_EQ(ended, (std::vector<BodyId>{a, b}));
  EXPECT_FALSE(w.isAwake(a)) << "a sensor does not wake what it sees";
  EXPECT_FALSE(w.isAwake(b));
}

TEST_F(Events, SensorsDoNotDetectSensors) {
  World w(quietWorld());
  w.createBody(sensorBall({40, 50}, 2, {5, 0}));
  w.createBody(sensorBall({60, 50}, 2, {-5, 0}));
  w.createBody(sensorBox({{45, 40}, {55, 60}}));
  for (int s = 0; s < 200; ++s) {
    w.step(kDt);
    EXPECT_TRUE(w.sensorBeginEvents().empty());
    EXPECT_TRUE(w.contactBeginEvents().empty());
  }
}

TEST_F(Events, DestroyingASensorOrVisitorEndsItsOverlaps) {
  World w(quietWorld());
  const BodyId zone = w.createBody(sensorBox({{40, 40}, {60, 60}}));
  const BodyId a = w.createBody(BodyDef::ball({50, 50}, 1, {0.1f, 0}));
  const BodyId b = w.createBody(BodyDef::ball({45, 45}, 1, {0.1f, 0}));
  w.step(kDt);
  ASSERT_EQ(w.sensorBeginEvents().size(), 2u);
  EXPECT_EQ(w.sensorBeginEvents()[0].visitor, a);
  EXPECT_EQ(w.sensorBeginEvents()[1].visitor, b);
  w.destroyBody(b);
  w.step(kDt);
  ASSERT_EQ(w.sensorEndEvents().size(), 1u);
  EXPECT_EQ(w.sensorEndEvents()[0].visitor, b);
  w.destroyBody(zone);
  w.step(kDt);
  ASSERT_EQ(w.sensorEndEvents().size(), 1u);
  EXPECT_EQ(w.sensorEndEvents()[0].sensor, zone);
  EXPECT_EQ(w.sensorEndEvents()[0].visitor, a);
  w.step(kDt);
  EXPECT_TRUE(w.sensorEndEvents().empty());
}

// A busy world: balls under gravity with sensor balls and boxes among them.
void buildBusy(World& w, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(5.0f, 95.0f), vel(-15.0f, 15.0f), rad(0.4f, 1.5f);
  std::vector<BodyDef> defs;
  for (int i = 0; i < 6; ++i) {
    const float x = pos(rng), y = pos(rng);
    defs.push_back(sensorBox({{x - 4, y - 3}, {x + 4, y + 3}}));
  }
  for (int i = 0; i < 300; ++i) {
    BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)});
    d.isSensor = i % 15 == 0;
    if (i % 15 == 0) d.radius = 4.0f;
    d.position.x = std::clamp(d.position.x, d.radius, 100.0f - d.radius);
    d.position.y = std::clamp(d.position.y, d.radius, 100.0f - d.radius);
    defs.push_back(d);
  }
  w.createBodies(defs);
}

using Overlap = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;

std::set<Overlap> bruteForceOverlaps(const World& w) {
  std::set<Overlap> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId s = w.bodyAt(i);
    if (!w.isSensor(s)) continue;
    for (std::uint32_t j = 0; j < w.bodyCount(); ++j) {
      const BodyId v = w.bodyAt(j);
      if (w.isSensor(v) || w.type(v) != BodyType::Ball) continue;
      const Vec2 c = w.position(v);
      const float r = w.radius(v);
      bool hit = false;
      if (w.type(s) == BodyType::Ball) {
        const float reach = r + w.radius(s);
        hit = lengthSquared(w.position(s) - c) < reach * reach;
      } else {
        hit = lengthSquared(c - closestPoint(w.bounds(s), c)) < r * r;
      }
      if (hit) out.insert({s.index, s.generation, v.index, v.generation});
    }
  }
  return out;
}

struct Trace {
  std::vector<std::uint32_t> values;
  friend bool operator==(const Trace&, const Trace&) = default;
};

// Runs the busy world, checking the overlap set the events build against a
// brute-force scan after every step; returns every event in order.
Trace runBusy(std::uint32_t threads, BroadPhaseType type, int steps) {
  WorldDef def = quietWorld(threads);
  def.gravity = {0, -9.8f};
  def.broadPhase = type;
  World w(def);
  buildBusy(w, 7);
  Trace t;
  std::set<Overlap> live;
  for (int s = 0; s < steps; ++s) {
    w.step(kDt);
    std::vector<Overlap> begins, ends;
    for (const SensorEvent& e : w.sensorBeginEvents()) {
      begins.emplace_back(e.sensor.index, e.sensor.generation, e.visitor.index,
                          e.visitor.generation);
    }
    for (const SensorEvent& e : w.sensorEndEvents())
      ends.emplace_back(e.sensor.index, e.sensor.generation, e.visitor.index, e.visitor.generation);
    EXPECT_TRUE(std::is_sorted(begins.begin(), begins.end()));
    EXPECT_TRUE(std::is_sorted(ends.begin(), ends.end()));
    // Begins first: a ball that crosses a sensor within one step begins and
    // ends in the same step.
    for (const Overlap& o : begins) EXPECT_TRUE(live.insert(o).second);
    for (const Overlap& o : ends) EXPECT_EQ(live.erase(o), 1u);
    EXPECT_EQ(live, bruteForceOverlaps(w)) << "step " << s;
    t.values.push_back(0xB0B0B0B0u);
    for (const Overlap& o : begins)
      t.values.insert(t.values.end(), {std::get<0>(o), std::get<2>(o)});
    t.values.push_back(0xE0E0E0E0u);
    for (const Overlap& o : ends) t.values.insert(t.values.end(), {std::get<0>(o), std::get<2>(o)});
    for (const ContactEvent& e : w.contactBeginEvents()) {
      t.values.insert(t.values.end(),
                      {e.a.index, e.b.index, std::bit_cast<std::uint32_t>(e.point.x),
                       std::bit_cast<std::uint32_t>(e.normal.y),
                       std::bit_cast<std::uint32_t>(e.approachSpeed)});
    }
    for (const ContactHitEvent& h : w.contactHitEvents()) {
      t.values.insert(t.values.end(), {h.a.index, h.b.index, static_cast<std::uint32_t>(h.wall),
                                       std::bit_cast<std::uint32_t>(h.approachSpeed)});
    }
  }
  EXPECT_GT(t.values.size(), static_cast<std::size_t>(steps) * 2) << "the scene makes events";
  return t;
}

TEST_F(Events, SensorOverlapsMatchBruteForceForEveryThreadCount) {
  const Trace one = runBusy(1, BroadPhaseType::BinGrid, 120);
  EXPECT_EQ(runBusy(2, BroadPhaseType::BinGrid, 120), one);
  EXPECT_EQ(runBusy(8, BroadPhaseType::BinGrid, 120), one);
}

TEST_F(Events, SensorEventsAreTheSameForEveryBroadPhase) {
  for (const BroadPhaseType type : allBroadPhaseTypes()) {
    SCOPED_TRACE(std::string(toString(type)));
    // Sensor events only depend on pairs, not on the order they come in;
    // the motion may differ in the last bits, so each is checked against
    // brute force rather than compared.
    runBusy(2, type, 40);
  }
}

// ---- pre-solve ---------------------------------------------------------------

TEST_F(Events, OneWayPlatformLetsBallsUpAndHoldsThemOnTop) {
  WorldDef def = quietWorld(2);
  def.gravity = {0, -10};
  def.restitution = 0.0f;
  World w(def);
  const BodyId platform = w.createBody(BodyDef::staticBox({{30, 40}, {70, 41}}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 30}, 1, {0, 20}));
  // A pure function of its arguments: contacts with the platform only when
  // the ball is above it (the normal from ball to platform points down).
  w.setPreSolve(
      [platform](BodyId, BodyId b, Vec2 normal) { return !(b == platform) || normal.y < -0.5f; });
  float highest = 0.0f;
  for (int s = 0; s < 600; ++s) {
    w.step(kDt);
    highest = std::max(highest, w.position(ball).y);
  }
  EXPECT_GT(highest, 45.0f) << "went up through the platform";
  EXPECT_NEAR(w.position(ball).y, 42.0f, 0.05f) << "and came to rest on top of it";
  EXPECT_NEAR(w.velocity(ball).y, 0.0f, 0.5f);
  // Without the hook the platform is solid from below too.
  World solid(def);
  solid.createBody(BodyDef::staticBox({{30, 40}, {70, 41}}));
  const BodyId under = solid.createBody(BodyDef::ball({50, 30}, 1, {0, 20}));
  float top = 0.0f;
  for (int s = 0; s < 120; ++s) {
    solid.step(kDt);
    top = std::max(top, solid.position(under).y);
  }
  EXPECT_LT(top, 39.01f);
}

TEST_F(Events, PreSolveGetsBallFirstAndCanBeRemoved) {
  World w(quietWorld(8));
  const BodyId a = w.createBody(BodyDef::ball({40, 50}, 1, {5, 0}));
  const BodyId b = w.createBody(BodyDef::ball({60, 50}, 1, {-5, 0}));
  std::atomic<int> calls{0};
  w.setPreSolve([&](BodyId x, BodyId y, Vec2 normal) {
    calls.fetch_add(1);
    // Two balls: the first made is a (dense order); the normal is along x,
    // from a to b (which flips once they have passed each other).
    EXPECT_TRUE(x == a && y == b && std::abs(normal.x) > 0.99f);
    return false;  // they pass through each other
  });
  for (int s = 0; s < 150; ++s) w.step(kDt);
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(w.velocity(a).x, 5.0f);
  EXPECT_GT(w.position(a).x, w.position(b).x) << "passed through";
  w.setPreSolve({});
  World fresh(quietWorld());
  const BodyId fa = fresh.createBody(BodyDef::ball({40, 50}, 1, {5, 0}));
  fresh.createBody(BodyDef::ball({60, 50}, 1, {-5, 0}));
  for (int s = 0; s < 150; ++s) fresh.step(kDt);
  EXPECT_LT(fresh.velocity(fa).x, 0.0f) << "no hook: they bounce";
}

// Many balls falling through one-way platforms: the same bits for every
// thread count.
std::vector<std::uint32_t> oneWayRun(std::uint32_t threads) {
  WorldDef def = quietWorld(threads);
  def.gravity = {0, -9.8f};
  World w(def);
  std::vector<BodyDef> defs;
  for (int k = 0; k < 4; ++k) {
    const float y = 15.0f + 20.0f * static_cast<float>(k);
    defs.push_back(BodyDef::staticBox({{10, y}, {90, y + 0.5f}}));
  }
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(2.0f, 98.0f), vel(-20.0f, 20.0f);
  for (int i = 0; i < 400; ++i) {
    defs.push_back(BodyDef::ball({pos(rng), pos(rng)}, 0.6f, {vel(rng), vel(rng)}));
  }
  const std::vector<BodyId> ids = w.createBodies(defs);
  const std::vector<BodyId> platforms(ids.begin(), ids.begin() + 4);
  w.setPreSolve([platforms](BodyId, BodyId b, Vec2 normal) {
    const bool platform = std::find(platforms.begin(), platforms.end(), b) != platforms.end();
    return !platform || normal.y < -0.5f;
  });
  std::vector<std::uint32_t> bits;
  for (int s = 0; s < 150; ++s) {
    w.step(kDt);
    for (const ContactEvent& e : w.contactBeginEvents()) bits.push_back(e.a.index ^ e.b.index);
  }
  for (const Vec2 p : w.positions()) {
    bits.push_back(std::bit_cast<std::uint32_t>(p.x));
    bits.push_back(std::bit_cast<std::uint32_t>(p.y));
  }
  return bits;
}

TEST_F(Events, PreSolveIsDeterministicForEveryThreadCount) {
  const auto one = oneWayRun(1);
  EXPECT_EQ(oneWayRun(2), one);
  EXPECT_EQ(oneWayRun(8), one);
}

// ---- snapshots -----------------------------------------------------------------

TEST_F(Events, SnapshotCarriesSensorsOverlapsAndPendingEnds) {
  WorldDef def = quietWorld(2);
  def.gravity = {0, -9.8f};
  def.hitEventThreshold = 2.5f;
  World w(def);
  buildBusy(w, 3);
  for (int s = 0; s < 30 || w.contactBeginEvents().empty(); ++s) w.step(kDt);
  w.destroyBody(w.contactBeginEvents()[0].b);  // contact ends pending
  w.destroyBody(w.bodyAt(3));                  // a sensor box
  const auto bytes = w.snapshot();
  World copy(quietWorld(1));
  copy.restore(bytes);
  EXPECT_EQ(copy.def().hitEventThreshold, 2.5f);
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    EXPECT_EQ(copy.isSensor(copy.bodyAt(i)), w.isSensor(w.bodyAt(i)));
  }
  for (int s = 0; s < 30; ++s) {
    w.step(kDt);
    copy.step(kDt);
    auto same = [&](auto l, auto r, auto key) {
      ASSERT_EQ(l.size(), r.size()) << "step " << s;
      for (std::size_t k = 0; k < l.size(); ++k) EXPECT_EQ(key(l[k]), key(r[k]));
    };
    auto sensorKey = [](const SensorEvent& e) {
      return std::pair{e.sensor.index, e.visitor.index};
    };
    auto contactKey = [](const ContactEvent& e) {
      return std::tuple{e.a.index, e.b.index, e.point.x, e.normal.y, e.approachSpeed};
    };
    same(w.sensorBeginEvents(), copy.sensorBeginEvents(), sensorKey);
    same(w.sensorEndEvents(), copy.sensorEndEvents(), sensorKey);
    same(w.contactBeginEvents(), copy.contactBeginEvents(), contactKey);
    same(w.contactEndEvents(), copy.contactEndEvents(), contactKey);
    same(w.contactHitEvents(), copy.contactHitEvents(), [](const ContactHitEvent& h) {
      return std::tuple{h.a.index, h.b.index, h.wall, h.approachSpeed};
    });
    if (s == 0) {
      EXPECT_FALSE(w.contactEndEvents().empty()) << "the pending ends came";
    }
  }
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    EXPECT_EQ(w.positions()[i].x, copy.positions()[i].x);
  }
}

}  // namespace
