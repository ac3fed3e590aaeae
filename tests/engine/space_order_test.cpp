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
