// WorldDef::autoLayout: the world keeps its bodies in space order by
// itself. A step after one whose contacts joined bodies far apart in memory
// starts with World::optimizeLayout's renumbering, bit for bit as if the
// game had called it; worlds whose contacts are near in memory keep their
// dense order; a restored world renumbers at the same steps; every thread
// count gives the same bits; a gas in space order stays in it for long.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

// Everything a game reads of a world, in dense order, bit for bit: ids,
// positions, velocities, spins, and this step's begin and end events.
std::vector<std::uint32_t> seen(const World& w) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    out.push_back(id.index);
    out.push_back(id.generation);
    const Vec2 p = w.positions()[i], v = w.velocities()[i];
    for (const float f : {p.x, p.y, v.x, v.y, w.angularVelocity(id)}) {
      out.push_back(std::bit_cast<std::uint32_t>(f));
    }
  }
  for (const auto events : {w.contactBeginEvents(), w.contactEndEvents()}) {
    out.push_back(0xffffffffu);
    for (const ContactEvent& e : events) {
      out.push_back(e.a.index);
      out.push_back(e.b.index);
    }
  }
  return out;
}

std::vector<BodyId> denseOrder(const World& w) {
  std::vector<BodyId> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) out.push_back(w.bodyAt(i));
  return out;
}

// The distance from each body to the next in dense order, summed.
double walk(const World& w) {
  double sum = 0.0;
  const auto p = w.positions();
  for (std::size_t i = 1; i < p.size(); ++i) sum += length(p[i] - p[i - 1]);
  return sum;
}

World sceneWorld(scenes::SceneKind kind, std::uint32_t n, bool autoLayout,
                 std::uint32_t threads = 1) {
  WorldDef def = scenes::worldDefFor(kind);
  def.autoLayout = autoLayout;
  def.threadCount = threads;
  def.logLevel = LogLevel::Off;
  return scenes::makeWorld(scenes::generate(kind, n), def);
}

}  // namespace

// A crowd created in random order: its first step finds the contacts far
// apart in memory, so the second starts with the renumbering; the world
// then steps as a twin that called optimizeLayout() before that step, bit
// for bit, events included, and keeps that order.
TEST(SpaceOrder, RenumbersAsOptimizeLayoutWouldAndKeepsTheOrder) {
  World w = sceneWorld(scenes::SceneKind::Clustered, 6000, true);
  World twin = sceneWorld(scenes::SceneKind::Clustered, 6000, false);
  const double created = walk(w);
  w.step(kDt);
  twin.step(kDt);
  ASSERT_EQ(seen(w), seen(twin)) << "nothing to go by before the first step";
  EXPECT_EQ(w.stats().layoutMs, 0.0);
  w.step(kDt);
  twin.optimizeLayout();
  twin.step(kDt);
  EXPECT_GT(w.stats().layoutMs, 0.0);
  EXPECT_EQ(twin.stats().layoutMs, 0.0);
  ASSERT_EQ(seen(w), seen(twin));
  EXPECT_LT(walk(w), created / 5.0) << "neighbours in space are neighbours in memory";
  for (int s = 0; s < 30; ++s) {
    w.step(kDt);
    twin.step(kDt);
    ASSERT_EQ(seen(w), seen(twin)) << "step " << s << " after the renumbering";
    EXPECT_EQ(w.stats().layoutMs, 0.0) << "step " << s;
  }
}

// Balls created row by row are in space order already, and a world told not
// to renumber keeps whatever order it was given: neither dense order
// changes.
TEST(SpaceOrder, KeepsTheDenseOrderWhereContactsAreNearOrWhenToldTo) {
  WorldDef def;
  def.bounds = {{0, 0}, {300, 300}};
  def.logLevel = LogLevel::Off;
  World rows(def);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> speed(-8.0f, 8.0f);
  for (int i = 0; i < 10000; ++i) {
    const Vec2 at{2.0f + static_cast<float>(i % 100) * 2.5f,
                  2.0f + static_cast<float>(i / 100) * 2.5f};
    rows.createBody(BodyDef::ball(at, 1.0f, {speed(rng), speed(rng)}));
  }
  World scattered = sceneWorld(scenes::SceneKind::Uniform, 10000, false);
  for (World* w : {&rows, &scattered}) {
    const std::vector<BodyId> created = denseOrder(*w);
    for (int s = 0; s < 40; ++s) {
      w->step(kDt);
      EXPECT_EQ(w->stats().layoutMs, 0.0);
    }
    EXPECT_GT(w->stats().contacts, 100u);
    EXPECT_EQ(denseOrder(*w), created);
  }
}

// The decision reads what a snapshot holds: a world restored from a
// snapshot taken before its renumbering step renumbers at the same step and
// continues bit for bit.
TEST(SpaceOrder, ARestoredWorldRenumbersAtTheSameStep) {
  World w = sceneWorld(scenes::SceneKind::Mixed, 6000, true);
  w.step(kDt);
  const std::vector<std::byte> saved = w.snapshot();
  World restored = sceneWorld(scenes::SceneKind::Mixed, 10, true);
  restored.restore(saved);
  const std::vector<BodyId> created = denseOrder(w);
  for (int s = 0; s < 20; ++s) {
    w.step(kDt);
    restored.step(kDt);
    std::vector<std::uint32_t> a = seen(w), b = seen(restored);
    ASSERT_EQ(a, b) << "step " << s;
  }
  EXPECT_NE(denseOrder(w), created) << "renumbered";
}

// The renumbering is the same on every thread count, and so is every step.
TEST(SpaceOrder, TheSameOnEveryThreadCount) {
  std::vector<std::vector<std::uint32_t>> runs;
  for (const std::uint32_t threads : {1u, 2u, 3u, 8u}) {
    World w = sceneWorld(scenes::SceneKind::Uniform, 8000, true, threads);
    const std::vector<BodyId> created = denseOrder(w);
    for (int s = 0; s < 25; ++s) w.step(kDt);
    EXPECT_NE(denseOrder(w), created) << threads << " threads: renumbered";
    runs.push_back(seen(w));
  }
  for (std::size_t k = 1; k < runs.size(); ++k) EXPECT_TRUE(runs[k] == runs[0]) << "run " << k;
}

// A gas of 20,000 balls in random order is renumbered once, at its second
// step, and its balls' wandering does not scatter the order again within
// two seconds.
TEST(SpaceOrder, AGasIsRenumberedSeldom) {
  World w = sceneWorld(scenes::SceneKind::Uniform, 20000, true);
  int renumbered = 0;
  for (int s = 0; s < 120; ++s) {
    w.step(kDt);
    if (w.stats().layoutMs > 0.0) {
      ++renumbered;
      EXPECT_EQ(s, 1) << "renumbered again";
    }
  }
  EXPECT_EQ(renumbered, 1);
}

namespace {

// A game's world of 4,000 balls created in random order, with what can
// ride along a renumbering: gravity and sleep, friction and spin, custom
// filters and user data, static boxes, a segment and a turned box, a
// kinematic paddle and a kinematic ball, a sensor, disabled balls and a
// force pending for the next step.
World gameWorld(bool autoLayout, std::vector<BodyId>& ids) {
  WorldDef def;
  def.bounds = {{0, 0}, {320, 320}};
  def.gravity = {0, -6.0f};
  def.restitution = 0.4f;
  def.timeToSleep = 0.2f;
  def.sleepThreshold = 0.5f;
  def.autoLayout = autoLayout;
  def.logLevel = LogLevel::Off;
  World w(def);
  ids.push_back(w.createBody(BodyDef::staticBox({{20, 20}, {300, 24}})));
  ids.push_back(w.createBody(BodyDef::staticSegment({10, 120}, {150, 90})));
  ids.push_back(w.createBody(BodyDef::staticBox({240, 140}, {20, 3}, 0.4f)));
  const Vec2 paddle[] = {{100, 40}, {140, 40}, {140, 44}, {100, 44}};
  ids.push_back(w.createBody(BodyDef::kinematicPolygon(paddle, {6, 0})));
  ids.push_back(w.createBody(BodyDef::kinematicBall({200, 60}, 6.0f, {0, 2})));
  BodyDef sensor = BodyDef::ball({160, 200}, 25.0f);
  sensor.isSensor = true;
  ids.push_back(w.createBody(sensor));
  // A row at rest on the floor box, far from the paddle: it falls asleep
  // before the crowd arrives, and wakes when it does.
  for (int i = 0; i < 60; ++i) {
    ids.push_back(
        w.createBody(BodyDef::ball({152.0f + 2.4f * static_cast<float>(i), 25.0f}, 1.0f)));
  }
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> x(10.0f, 310.0f), y(60.0f, 310.0f), unit(0.0f, 1.0f);
  for (int i = 0; i < 4000; ++i) {
    BodyDef d = BodyDef::ball({x(rng), y(rng)}, 0.8f + 0.6f * unit(rng),
                              {8.0f * unit(rng) - 4.0f, 8.0f * unit(rng) - 4.0f});
    d.friction = unit(rng) < 0.5f ? 0.4f : 0.0f;
    d.rollingResistance = unit(rng) < 0.2f ? 0.05f : 0.0f;
    d.userData = static_cast<std::uint64_t>(i) * 31u;
    if (i % 7 == 0) d.filter = {2, ~std::uint64_t{2}, 0};
    ids.push_back(w.createBody(d));
  }
  for (std::size_t k = 6; k < ids.size(); k += 97) w.setEnabled(ids[k], false);
  w.applyForce(ids[50], {40.0f, 0.0f});
  return w;
}

// Begin, end, hit and sensor events by id, in the order the world lists them.
std::vector<std::uint32_t> eventsOf(const World& w) {
  std::vector<std::uint32_t> out;
  for (const auto list : {w.contactBeginEvents(), w.contactEndEvents()}) {
    out.push_back(0xffffffffu);
    for (const ContactEvent& e : list) out.insert(out.end(), {e.a.index, e.b.index});
  }
  out.push_back(0xffffffffu);
  for (const ContactHitEvent& e : w.contactHitEvents()) {
    out.insert(out.end(), {e.a.index, e.b.index, std::bit_cast<std::uint32_t>(e.approachSpeed)});
  }
  for (const auto list : {w.sensorBeginEvents(), w.sensorEndEvents()}) {
    out.push_back(0xffffffffu);
    for (const SensorEvent& e : list) out.insert(out.end(), {e.sensor.index, e.visitor.index});
  }
  return out;
}

std::vector<std::uint32_t> slotsInOrder(const World& w) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) out.push_back(w.bodyAt(i).index);
  return out;
}

// Each body by id: position, velocity, spin, angle, awake, enabled, user data.
std::vector<std::uint32_t> bodiesOf(const World& w, const std::vector<BodyId>& ids) {
  std::vector<std::uint32_t> out;
  for (const BodyId id : ids) {
    const Vec2 p = w.position(id), v = w.velocity(id);
    for (const float f : {p.x, p.y, v.x, v.y, w.angularVelocity(id), w.angle(id)}) {
      out.push_back(std::bit_cast<std::uint32_t>(f));
    }
    out.push_back((w.isAwake(id) ? 1u : 0u) | (w.isEnabled(id) ? 2u : 0u));
    out.push_back(static_cast<std::uint32_t>(w.userData(id)));
  }
  return out;
}

}  // namespace

// Everything a game's world holds rides along the renumbering: the world
// that renumbers by itself steps, wakes, sleeps and reports events exactly
// as its twin that calls optimizeLayout() before the same step, for two
// seconds.
TEST(SpaceOrder, AGameWorldStepsAsWithOptimizeLayout) {
  std::vector<BodyId> ids, twinIds;
  World w = gameWorld(true, ids);
  World twin = gameWorld(false, twinIds);
  ASSERT_EQ(ids.size(), twinIds.size());
  ASSERT_GT(ids.size(), 3000u);
  const std::vector<BodyId> created = denseOrder(w);
  int renumbered = 0;
  std::uint32_t mostAsleep = 0;
  for (int s = 0; s < 120; ++s) {
    w.step(kDt);
    if (w.stats().layoutMs > 0.0) {  // the twin renumbers before the same step
      ++renumbered;
      EXPECT_TRUE(s == 1 || renumbered > 1) << "first renumbered at step " << s;
      twin.optimizeLayout();
    }
    twin.step(kDt);
    if (s == 0) {
      ASSERT_EQ(denseOrder(w), created) << "nothing to go by before the first step";
    }
    ASSERT_EQ(slotsInOrder(w), slotsInOrder(twin)) << "step " << s;
    ASSERT_EQ(bodiesOf(w, ids), bodiesOf(twin, twinIds)) << "step " << s;
    ASSERT_EQ(eventsOf(w), eventsOf(twin)) << "step " << s;
    std::uint32_t asleep = 0;
    for (const BodyId id : ids) {
      asleep += w.type(id) == BodyType::Ball && w.isEnabled(id) && !w.isAwake(id) ? 1u : 0u;
    }
    mostAsleep = std::max(mostAsleep, asleep);
  }
  EXPECT_GE(renumbered, 1);
  EXPECT_GE(mostAsleep, 40u) << "the row on the floor fell asleep";
}
