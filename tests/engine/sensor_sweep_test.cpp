// Sensors see fast visitors: a ball whose path of one step crosses a thin
// sensor box or a small sensor ball (or a fast kinematic sensor that sweeps
// over a ball) begins and ends in that step. Checked on hand-made crossings
// and near misses, and on a crowd of fast balls against a brute-force
// reference that solves the same swept test, for every broad phase and for
// 1, 2 and 8 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <quadbin/quadbin.hpp>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

using SensorSweep = test::QuietLog;

BodyDef asSensor(BodyDef d) {
  d.isSensor = true;
  return d;
}

using Key = std::tuple<std::uint32_t, std::uint32_t>;  // (sensor slot, visitor slot)

struct Trace {
  std::vector<std::uint32_t> values;
  friend bool operator==(const Trace&, const Trace&) = default;
};

void record(const World& w, Trace& t) {
  t.values.push_back(0xB0B0B0B0u);
  for (const SensorEvent& e : w.sensorBeginEvents())
    t.values.insert(t.values.end(), {e.sensor.index, e.visitor.index});
  t.values.push_back(0xE0E0E0E0u);
  for (const SensorEvent& e : w.sensorEndEvents())
    t.values.insert(t.values.end(), {e.sensor.index, e.visitor.index});
}

// ---- hand-made crossings --------------------------------------------------------

struct Crossings {
  BodyId thinBox, smallBall, movingBox;  // crossed in one step
  BodyId missedBox, missedBall;          // passed at 0.05 from touching
  BodyId crossesBox, crossesBall, crossedByBox, passesBox, passesBall;
};

// Balls of radius 0.5 at 300 units/s (5 units, 10 radii, per step); every
// crossing happens in step 9 (x from 50 to 55, or the box from 55 to 50),
// where neither end of the step overlaps.
Crossings buildCrossings(World& w) {
  Crossings c;
  const Vec2 fast{300, 0};
  c.thinBox = w.createBody(asSensor(BodyDef::staticBox({{52.45f, 15}, {52.55f, 25}})));
  c.crossesBox = w.createBody(BodyDef::ball({10, 20}, 0.5f, fast));
  c.missedBox = w.createBody(asSensor(BodyDef::staticBox({{52.45f, 30}, {52.55f, 34.45f}})));
  c.passesBox = w.createBody(BodyDef::ball({10, 35}, 0.5f, fast));  // 0.55 above its top
  c.smallBall = w.createBody(asSensor(BodyDef::ball({52.5f, 50}, 0.2f)));
  c.crossesBall = w.createBody(BodyDef::ball({10, 50}, 0.5f, fast));
  c.missedBall = w.createBody(asSensor(BodyDef::ball({52.5f, 64.25f}, 0.2f)));
  c.passesBall = w.createBody(BodyDef::ball({10, 65}, 0.5f, fast));  // 0.75 from its centre
  c.movingBox =
      w.createBody(asSensor(BodyDef::kinematicBox({{94.95f, 75}, {95.05f, 85}}, Vec2{-300, 0})));
  c.crossedByBox = w.createBody(BodyDef::ball({52.5f, 80}, 0.5f));
  return c;
}

Trace runCrossings(std::uint32_t threads, BroadPhaseType type) {
  WorldDef def;
  def.bounds = {{0, 0}, {200, 100}};
  def.threadCount = threads;
  def.broadPhase = type;
  World w(def);
  const Crossings c = buildCrossings(w);
  Trace t;
  for (int s = 0; s < 12; ++s) {
    w.step(kDt);
    record(w, t);
    std::vector<std::pair<BodyId, BodyId>> begins, ends;
    for (const SensorEvent& e : w.sensorBeginEvents()) begins.emplace_back(e.sensor, e.visitor);
    for (const SensorEvent& e : w.sensorEndEvents()) ends.emplace_back(e.sensor, e.visitor);
    if (s != 8) {
      EXPECT_TRUE(begins.empty()) << "step " << s;
      EXPECT_TRUE(ends.empty()) << "step " << s;
      continue;
    }
    const std::vector<std::pair<BodyId, BodyId>> expected = {
        {c.thinBox, c.crossesBox}, {c.smallBall, c.crossesBall}, {c.movingBox, c.crossedByBox}};
    EXPECT_EQ(begins, expected);
    EXPECT_EQ(ends, expected) << "no overlap at the end of the step: ends in it too";
  }
  EXPECT_EQ(w.position(c.crossesBox).x, 10.0f + 12 * 5.0f) << "sensors never push";
  EXPECT_EQ(w.velocity(c.crossedByBox).x, 0.0f);
  return t;
}

TEST_F(SensorSweep, FastCrossingsBeginAndEndInOneStepNearMissesDoNot) {
  for (const BroadPhaseType type : allBroadPhaseTypes()) {
    SCOPED_TRACE(std::string(toString(type)));
    const Trace one = runCrossings(1, type);
    EXPECT_EQ(runCrossings(2, type), one);
    EXPECT_EQ(runCrossings(8, type), one);
  }
}

TEST_F(SensorSweep, SlowBallStillBeginsAndEndsInSeparateSteps) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  World w(def);
  const BodyId zone = w.createBody(asSensor(BodyDef::staticBox({{50, 40}, {50.1f, 60}})));
  const BodyId ball = w.createBody(BodyDef::ball({45, 50}, 1, {60, 0}));  // 1 unit per step
  int begins = 0, ends = 0, both = 0;
  for (int s = 0; s < 12; ++s) {
    w.step(kDt);
    begins += static_cast<int>(w.sensorBeginEvents().size());
    ends += static_cast<int>(w.sensorEndEvents().size());
    both += !w.sensorBeginEvents().empty() && !w.sensorEndEvents().empty() ? 1 : 0;
  }
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(both, 0) << "it overlapped at the end of some step";
  (void)zone;
  (void)ball;
}

// ---- a crowd of fast balls against a brute-force reference ------------------------

// Visitors collide with the walls only (not with each other), so each one's
// path is the straight way the step's swept boxes cover.
constexpr Filter kVisitor{.categoryBits = 1, .maskBits = 2};
constexpr Filter kSensor{.categoryBits = 2, .maskBits = 1};

void buildCrowd(World& w, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> x(5, 195), y(5, 95), unit(-1, 1), rad(0.3f, 0.6f);
  std::vector<BodyDef> defs;
  for (int i = 0; i < 10; ++i) {  // thin boxes, across and along
    const Vec2 c{x(rng), y(rng)};
    const Vec2 half = i % 2 == 0 ? Vec2{0.05f, 8} : Vec2{8, 0.05f};
    BodyDef d = asSensor(BodyDef::staticBox({c - half, c + half}));
    d.filter = kSensor;
    defs.push_back(d);
  }
  for (int i = 0; i < 10; ++i) {  // small sensor balls, still
    BodyDef d = asSensor(BodyDef::ball({x(rng), y(rng)}, 0.2f));
    d.filter = kSensor;
    defs.push_back(d);
  }
  for (int i = 0; i < 2; ++i) {  // fast kinematic sensors
    BodyDef box = asSensor(BodyDef::kinematicBox({{20, 10}, {20.1f, 30}}, {350, 20}));
    BodyDef ball = asSensor(
        BodyDef::kinematicBall({180, 80.0f - 50.0f * static_cast<float>(i)}, 0.3f, {-400, 10}));
    box.filter = ball.filter = kSensor;
    defs.push_back(box);
    defs.push_back(ball);
  }
  for (int i = 0; i < 150; ++i) {
    const float r = rad(rng);
    const float speed = 10 * r / kDt * (1 + unit(rng) * 0.5f + 0.5f);  // 10 to 20 radii per step
    const float a = unit(rng) * 3.14159f;
    BodyDef d = BodyDef::ball({x(rng), y(rng)}, r, {speed * std::cos(a), speed * std::sin(a)});
    d.filter = kVisitor;
    defs.push_back(d);
  }
  w.createBodies(defs);
}

struct Body {
  BodyId id;
  BodyType type;
  bool sensor;
  float radius;
  Vec2 p;
  AABB box;
};

std::vector<Body> bodiesOf(const World& w) {
  std::vector<Body> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    out.push_back({id, w.type(id), w.isSensor(id), w.radius(id), w.position(id), w.bounds(id)});
  }
  return out;
}

// The nearest the segment a -> b comes to the sensor shape at its end of
// step place, in double, by golden-section search on the convex distance.
double nearest(const Body& s, Vec2 a, Vec2 b) {
  auto at = [&](double t) {
    const double px = a.x + (double{b.x} - a.x) * t, py = a.y + (double{b.y} - a.y) * t;
    if (s.radius > 0.0f) return std::hypot(px - s.p.x, py - s.p.y) - s.radius;
    const double dx = std::max({double{s.box.min.x} - px, 0.0, px - s.box.max.x});
    const double dy = std::max({double{s.box.min.y} - py, 0.0, py - s.box.max.y});
    return std::hypot(dx, dy);
  };
  double lo = 0, hi = 1;
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int k = 0; k < 200 && hi - lo > 1e-12; ++k) {
    const double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
    if (at(m1) < at(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return std::min({at(0), at(1), at((lo + hi) / 2)});
}

struct Stats {
  int crossings = 0;  // begin and end in one step
  int checked = 0;
};

// Far apart: the box around the path is farther than `reach` from the shape.
bool farApart(const Body& s, Vec2 a, Vec2 b, float reach) {
  const AABB path{{std::min(a.x, b.x), std::min(a.y, b.y)},
                  {std::max(a.x, b.x), std::max(a.y, b.y)}};
  const AABB shape = s.box;  // a ball's bounds are its tight box
  const float dx = std::max({shape.min.x - path.max.x, 0.0f, path.min.x - shape.max.x});
  const float dy = std::max({shape.min.y - path.max.y, 0.0f, path.min.y - shape.max.y});
  return dx > reach + 1 || dy > reach + 1;
}

// With check, every step's events are compared with the brute-force
// reference (the 2 and 8 thread runs are compared with the first's trace).
Trace runCrowd(std::uint32_t threads, BroadPhaseType type, int steps, Stats& stats, bool check) {
  WorldDef def;
  def.bounds = {{0, 0}, {200, 100}};
  def.threadCount = threads;
  def.broadPhase = type;
  World w(def);
  buildCrowd(w, 11);
  Trace t;
  std::set<Key> live;
  for (int step = 0; step < steps; ++step) {
    const std::vector<Body> before = bodiesOf(w);
    w.step(kDt);
    record(w, t);
    if (!check) continue;
    const std::vector<Body> after = bodiesOf(w);
    std::set<Key> begins, ends;
    for (const SensorEvent& e : w.sensorBeginEvents())
      begins.insert({e.sensor.index, e.visitor.index});
    for (const SensorEvent& e : w.sensorEndEvents()) {
      ends.insert({e.sensor.index, e.visitor.index});
      if (begins.contains({e.sensor.index, e.visitor.index})) ++stats.crossings;
    }
    std::set<Key> atEnd;
    for (std::size_t i = 0; i < after.size(); ++i) {
      const Body& s = after[i];
      if (!s.sensor) continue;
      for (std::size_t j = 0; j < after.size(); ++j) {
        const Body& v = after[j];
        if (v.sensor || v.type != BodyType::Ball) continue;
        const Key key{s.id.index, v.id.index};
        // The visitor's path in the sensor's frame, against the sensor at its end.
        const Vec2 from = before[j].p + (s.p - before[i].p);
        if (farApart(s, from, v.p, v.radius)) {
          EXPECT_FALSE(begins.contains(key) || live.contains(key)) << "step " << step;
          continue;
        }
        const double gap = nearest(s, from, v.p) - v.radius;
        const double band = 1e-4 * (v.radius + s.radius);
        const bool end =
            s.radius > 0.0f
                ? lengthSquared(s.p - v.p) < (s.radius + v.radius) * (s.radius + v.radius)
                : lengthSquared(v.p - closestPoint(s.box, v.p)) < v.radius * v.radius;
        if (end) atEnd.insert(key);
        if (live.contains(key)) {
          EXPECT_FALSE(begins.contains(key)) << "step " << step;
          continue;
        }
        ++stats.checked;
        if (gap < -band) {
          EXPECT_TRUE(begins.contains(key)) << "step " << step << " gap " << gap;
        } else if (gap > band) {
          EXPECT_FALSE(begins.contains(key)) << "step " << step << " gap " << gap;
        }
      }
    }
    // Ends: what overlapped or touched and no longer overlaps.
    std::set<Key> expectedEnds;
    for (const Key& k : live)
      if (!atEnd.contains(k)) expectedEnds.insert(k);
    for (const Key& k : begins)
      if (!atEnd.contains(k)) expectedEnds.insert(k);
    EXPECT_EQ(ends, expectedEnds) << "step " << step;
    live = atEnd;
  }
  return t;
}

TEST_F(SensorSweep, CrowdMatchesBruteForceForEveryBroadPhaseAndThreadCount) {
  for (const BroadPhaseType type : allBroadPhaseTypes()) {
    SCOPED_TRACE(std::string(toString(type)));
    Stats stats;
    const Trace one = runCrowd(1, type, 60, stats, true);
    EXPECT_GT(stats.crossings, 20) << "the scene crosses sensors within steps";
    EXPECT_GT(stats.checked, 500);
    Stats more;
    EXPECT_EQ(runCrowd(2, type, 60, more, false), one);
    EXPECT_EQ(runCrowd(8, type, 60, more, false), one);
  }
}

}  // namespace
