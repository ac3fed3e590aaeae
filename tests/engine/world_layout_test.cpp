// World::optimizeLayout: the bodies renumbered in space order. Everything a
// game can read of a body stays as it was, only bodyAt() and the bulk
// arrays change order (and follow each other); steps after it are the same
// on every thread count; sleeping islands stay asleep and wake whole; a
// touching pair gives no begin or end event; the contacts keep their warm
// start.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <set>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

// Balls in random order over a closed world, with every kind of per-body
// setting a game can give, a few static boxes and a sensor; some stepping.
World mixedWorld(std::vector<BodyId>& ids) {
  WorldDef def;
  def.bounds = {{0, 0}, {400, 400}};
  def.gravity = {0, -2.0f};
  def.logLevel = LogLevel::Off;
  World w(def);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> at(20.0f, 380.0f), speed(-5.0f, 5.0f), unit(0.0f, 1.0f);
  for (int i = 0; i < 1500; ++i) {
    BodyDef d = BodyDef::ball({at(rng), at(rng)}, 0.5f + unit(rng), {speed(rng), speed(rng)});
    d.friction = unit(rng) < 0.3f ? 0.4f : 0.0f;
    d.restitution = unit(rng) < 0.5f ? std::optional<float>{unit(rng)} : std::nullopt;
    d.linearDamping = unit(rng) < 0.2f ? 0.1f : 0.0f;
    d.userData = static_cast<std::uint64_t>(i) * 7919u;
    if (i % 5 == 0) d.filter = {2, ~std::uint64_t{2}, 0};  // never with each other
    ids.push_back(w.createBody(d));
  }
  for (int i = 0; i < 6; ++i) {
    const Vec2 c{at(rng), at(rng)};
    ids.push_back(w.createBody(BodyDef::staticBox({c - Vec2{6.0f, 2.0f}, c + Vec2{6.0f, 2.0f}})));
  }
  BodyDef sensor = BodyDef::ball({200, 200}, 20.0f);
  sensor.isSensor = true;
  ids.push_back(w.createBody(sensor));
  for (int s = 0; s < 20; ++s) w.step(kDt);
  w.applyForce(ids[3], {10.0f, 0.0f});  // pending for the next step
  return w;
}

struct Seen {
  BodyType type;
  Vec2 p, v, force;
  float radius, mass, w, angle, friction, restitution, damping;
  std::uint64_t user;
  Filter filter;
  bool awake, sensor;
  AABB box;
};

Seen see(const World& w, BodyId id) {
  return {w.type(id),     w.position(id),    w.velocity(id),        w.force(id),
          w.radius(id),   w.mass(id),        w.angularVelocity(id), w.angle(id),
          w.friction(id), w.restitution(id), w.linearDamping(id),   w.userData(id),
          w.filter(id),   w.isAwake(id),     w.isSensor(id),        w.bounds(id)};
}

void expectSame(const Seen& a, const Seen& b) {
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.p, b.p);
  EXPECT_EQ(a.v, b.v);
  EXPECT_EQ(a.force, b.force);
  EXPECT_EQ(a.radius, b.radius);
  EXPECT_EQ(a.mass, b.mass);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(a.angle, b.angle);
  EXPECT_EQ(a.friction, b.friction);
  EXPECT_EQ(a.restitution, b.restitution);
  EXPECT_EQ(a.damping, b.damping);
  EXPECT_EQ(a.user, b.user);
  EXPECT_EQ(a.filter, b.filter);
  EXPECT_EQ(a.awake, b.awake);
  EXPECT_EQ(a.sensor, b.sensor);
  EXPECT_EQ(a.box.min, b.box.min);
  EXPECT_EQ(a.box.max, b.box.max);
}

// The distance from each body to the next in dense order, summed.
double walk(const World& w) {
  double sum = 0.0;
  const auto p = w.positions();
  for (std::size_t i = 1; i < p.size(); ++i) sum += length(p[i] - p[i - 1]);
  return sum;
}

std::set<std::uint64_t> keysOf(const std::vector<BodyId>& ids) {
  std::set<std::uint64_t> out;
  for (BodyId id : ids) out.insert(std::uint64_t{id.index} << 32 | id.generation);
  return out;
}

}  // namespace

TEST(Layout, KeepsEveryBodyAsItWasAndOrdersThemInSpace) {
  std::vector<BodyId> ids;
  World w = mixedWorld(ids);
  std::vector<Seen> before;
  for (BodyId id : ids) before.push_back(see(w, id));
  std::vector<BodyId> denseBefore;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) denseBefore.push_back(w.bodyAt(i));
  std::vector<BodyId> found;
  w.queryBox({{100, 100}, {180, 150}}, found);
  const auto inBoxBefore = keysOf(found);
  const double walkBefore = walk(w);

  w.optimizeLayout();

  ASSERT_EQ(w.bodyCount(), ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    ASSERT_TRUE(w.isValid(ids[k]));
    expectSame(see(w, ids[k]), before[k]);
  }
  std::vector<BodyId> denseAfter;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) denseAfter.push_back(w.bodyAt(i));
  EXPECT_EQ(keysOf(denseAfter), keysOf(denseBefore)) << "the same bodies, renumbered";
  EXPECT_NE(denseAfter, denseBefore);
  const auto p = w.positions();
  const auto v = w.velocities();
  const auto r = w.radii();
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    EXPECT_EQ(p[i], w.position(w.bodyAt(i)));
    EXPECT_EQ(v[i], w.velocity(w.bodyAt(i)));
    EXPECT_EQ(r[i], w.radius(w.bodyAt(i)));
  }
  EXPECT_LT(walk(w), walkBefore / 5.0) << "neighbours in space are neighbours in memory";
  found.clear();
  w.queryBox({{100, 100}, {180, 150}}, found);
  EXPECT_EQ(keysOf(found), inBoxBefore);

  // A second call finds them in order and changes nothing.
  w.optimizeLayout();
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) EXPECT_EQ(w.bodyAt(i), denseAfter[i]);

  // The world steps on; ids stay valid.
  for (int s = 0; s < 30; ++s) w.step(kDt);
  for (BodyId id : ids) EXPECT_TRUE(w.isValid(id));
  EXPECT_EQ(w.userData(ids[10]), 10u * 7919u);
}

TEST(Layout, StepsAreTheSameOnEveryThreadCount) {
  const auto scene = scenes::generate(scenes::SceneKind::Clustered, 3000);
  std::vector<std::vector<std::uint32_t>> runs;
  for (std::uint32_t threads : {1u, 2u, 3u, 8u}) {
    WorldDef def = scenes::worldDefFor(scenes::SceneKind::Clustered);
    def.threadCount = threads;
    def.autoLayout = false;  // renumbered by the call below only
    def.logLevel = LogLevel::Off;
    World w = scenes::makeWorld(scene, def);
    for (int s = 0; s < 5; ++s) w.step(kDt);
    const BodyId first = w.bodyAt(0);
    w.optimizeLayout();
    EXPECT_NE(w.bodyAt(0), first) << "renumbered";
    const double energyBefore = w.kineticEnergy();
    for (int s = 0; s < 40; ++s) w.step(kDt);
    const double energyAfter = w.kineticEnergy();
    EXPECT_NEAR(energyAfter, energyBefore, 1e-4 * energyBefore) << "e = 1 stays elastic";
    std::vector<std::uint32_t> bits;
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      bits.push_back(id.index);
      for (float f : {w.position(id).x, w.position(id).y, w.velocity(id).x, w.velocity(id).y}) {
        bits.push_back(std::bit_cast<std::uint32_t>(f));
      }
    }
    runs.push_back(bits);
  }
  for (std::size_t k = 1; k < runs.size(); ++k) {
    EXPECT_TRUE(runs[k] == runs[0]) << "thread count " << k << " differs";
  }
}

namespace {
// Two settled, sleeping piles of 50 balls of radius 1, one each side of a
// static wall in a closed box, created row by row in shuffled order: the
// first 50 ids are the left pile.
World sleepingPiles(std::vector<BodyId>& balls) {
  WorldDef def;
  def.bounds = {{0, 0}, {26, 60}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.2f;
  def.enableSleep = true;
  def.logLevel = LogLevel::Off;
  World w(def);
  w.createBody(BodyDef::staticBox({{12, 0}, {14, 60}}));
  std::vector<std::uint32_t> order(100);
  for (std::uint32_t i = 0; i < 100; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(5));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> jitter(-0.05f, 0.05f);
  balls.resize(100);
  for (const std::uint32_t i : order) {
    const std::uint32_t j = i % 50;
    const float left = i < 50 ? 1.2f : 15.2f;
    const float x = left + static_cast<float>(j % 5) * 2.2f + jitter(rng);
    const float y = 2.0f + static_cast<float>(j / 5) * 2.3f;
    balls[i] = w.createBody(BodyDef::ball({x, y}, 1.0f));
  }
  for (int s = 0; s < 1200 && (s == 0 || w.stats().awakeBodies > 0); ++s) w.step(kDt);
  return w;
}

std::vector<bool> awake(const World& w, const std::vector<BodyId>& balls) {
  std::vector<bool> out;
  for (BodyId b : balls) out.push_back(w.isAwake(b));
  return out;
}
}  // namespace

TEST(Layout, SleepingIslandsStayAsleepAndWakeWhole) {
  std::vector<BodyId> balls, twinBalls;
  World w = sleepingPiles(balls);
  World twin = sleepingPiles(twinBalls);
  ASSERT_EQ(awake(w, balls), std::vector<bool>(balls.size(), false)) << "they never fell asleep";
  w.optimizeLayout();
  EXPECT_EQ(awake(w, balls), std::vector<bool>(balls.size(), false));
  // Waking a ball of the left pile wakes the same balls as in the world not
  // renumbered: some of the left pile, none of the right one.
  w.setVelocity(balls[20], {0, 3});
  twin.setVelocity(twinBalls[20], {0, 3});
  const std::vector<bool> woken = awake(w, balls);
  EXPECT_GT(std::count(woken.begin(), woken.begin() + 50, true), 1);
  EXPECT_EQ(std::count(woken.begin() + 50, woken.end(), true), 0);
  EXPECT_EQ(woken, awake(twin, twinBalls));
  w.step(kDt);
  const std::vector<bool> after = awake(w, balls);
  EXPECT_EQ(std::count(after.begin() + 50, after.end(), true), 0) << "the right pile slept on";
}

TEST(Layout, TouchingPairsGiveNoEvents) {
  WorldDef def;
  def.bounds = {{0, 0}, {20, 20}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.0f;
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  World w(def);
  // Created top first: Morton order puts the lower ball first.
  const BodyId top = w.createBody(BodyDef::ball({10, 3}, 1.0f));
  const BodyId bottom = w.createBody(BodyDef::ball({10, 1}, 1.0f));
  for (int s = 0; s < 120; ++s) w.step(kDt);
  ASSERT_TRUE(w.contactBeginEvents().empty());
  w.optimizeLayout();
  ASSERT_EQ(w.bodyAt(0), bottom);
  for (int s = 0; s < 60; ++s) {
    w.step(kDt);
    EXPECT_TRUE(w.contactBeginEvents().empty()) << "step " << s;
    EXPECT_TRUE(w.contactEndEvents().empty()) << "step " << s;
  }
  EXPECT_NEAR(w.position(top).y, 3.0f, 0.05f) << "the stack still stands";
}

namespace {
// The largest difference in velocity between the same bodies of two worlds.
float largestVelocityGap(const World& w, const std::vector<BodyId>& ids, const World& other,
                         const std::vector<BodyId>& otherIds) {
  float most = 0.0f;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    most = std::max(most, length(w.velocity(ids[k]) - other.velocity(otherIds[k])));
  }
  return most;
}
}  // namespace

// The contacts keep their impulses and colours under the new numbering
// (balls whose order flips swap ends): a pile with friction and rolling
// resistance, and a packed elastic crowd, take their next step as their
// twins not renumbered do, but for the last bits (ties in the shock pass
// and new contacts' colours follow the numbering): under 1e-4 in velocity,
// where the same worlds with their contacts forgotten (as a renumbering
// that dropped them would leave them) differed by 0.2 (the pile) and 16
// (the crowd) when measured.
TEST(Layout, ContactsKeepTheirWarmStart) {
  auto pile = [](std::vector<BodyId>& ids) {
    WorldDef def;
    def.bounds = {{0, 0}, {30, 60}};
    def.gravity = {0, -9.8f};
    def.restitution = 0.3f;
    def.enableSleep = false;
    def.logLevel = LogLevel::Off;
    World w(def);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> x(1.5f, 28.5f), y(1.5f, 58.5f);
    for (int i = 0; i < 300; ++i) {
      BodyDef d = BodyDef::ball({x(rng), y(rng)}, 0.6f + 0.1f * static_cast<float>(i % 5));
      d.friction = 0.5f;
      d.rollingResistance = i % 3 == 0 ? 0.1f : 0.0f;
      ids.push_back(w.createBody(d));
    }
    for (int s = 0; s < 240; ++s) w.step(kDt);
    return w;
  };
  auto crowd = [](std::vector<BodyId>& ids) {
    const auto scene = scenes::generate(scenes::SceneKind::Clustered, 3000);
    WorldDef def = scenes::worldDefFor(scenes::SceneKind::Clustered);
    def.autoLayout = false;  // the twin keeps the order it was created in
    def.logLevel = LogLevel::Off;
    World w = scenes::makeWorld(scene, def);
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) ids.push_back(w.bodyAt(i));
    for (int s = 0; s < 10; ++s) w.step(kDt);
    return w;
  };
  for (auto make : {+pile, +crowd}) {
    std::vector<BodyId> ids, twinIds;
    World w = make(ids);
    World twin = make(twinIds);
    ASSERT_EQ(largestVelocityGap(w, ids, twin, twinIds), 0.0f);
    w.optimizeLayout();
    ASSERT_NE(w.bodyAt(0), twin.bodyAt(0)) << "renumbered";
    for (World* world : {&w, &twin}) world->step(kDt);
    EXPECT_LT(largestVelocityGap(w, ids, twin, twinIds), 1e-4f);
  }
}

// World::setBodyOrder(at, bodies), the moved bodies alone: the same world,
// to the byte, as the full order that puts them there; a list that is not
// the bodies now at `at`, each once, is refused with the world unchanged.
TEST(Layout, SetBodyOrderOfTheMovedBodiesEqualsTheFullOrder) {
  std::vector<BodyId> ids;
  World sparse = mixedWorld(ids);
  std::vector<BodyId> twinIds;
  World full = mixedWorld(twinIds);
  ASSERT_EQ(sparse.snapshot(), full.snapshot());
  const auto n = static_cast<std::uint32_t>(ids.size());
  // A cycle of three, a swap, and the last ten reversed.
  std::vector<std::uint32_t> at{3, 40, 77, 5, 9};
  std::vector<std::uint32_t> from{40, 77, 3, 9, 5};
  for (std::uint32_t k = 0; k < 10; ++k) {
    at.push_back(n - 10 + k);
    from.push_back(n - 1 - k);
  }
  std::vector<BodyId> bodies;
  for (const std::uint32_t f : from) bodies.push_back(sparse.bodyAt(f));
  std::vector<BodyId> order;
  for (std::uint32_t k = 0; k < n; ++k) order.push_back(full.bodyAt(k));
  for (std::size_t j = 0; j < at.size(); ++j) order[at[j]] = full.bodyAt(from[j]);
  sparse.setBodyOrder(at, bodies);
  full.setBodyOrder(order);
  EXPECT_EQ(sparse.snapshot(), full.snapshot());
  for (int s = 0; s < 10; ++s) {
    sparse.step(kDt);
    full.step(kDt);
  }
  EXPECT_EQ(sparse.snapshot(), full.snapshot());

  const std::vector<std::byte> placed = sparse.snapshot();
  std::vector<std::uint32_t> places{0, 1};
  const std::vector<BodyId> swapped{sparse.bodyAt(1), sparse.bodyAt(0)};
  EXPECT_THROW(sparse.setBodyOrder(std::span(places).first(1), swapped), Error);  // sizes
  places = {0, n};
  EXPECT_THROW(sparse.setBodyOrder(places, swapped), Error);  // past the last body
  places = {0, 0};
  EXPECT_THROW(sparse.setBodyOrder(places, swapped), Error);  // an index twice
  places = {0, 2};
  EXPECT_THROW(sparse.setBodyOrder(places, swapped), Error);  // body 1 is not at 0 or 2
  places = {0, 1};
  const std::vector<BodyId> twice{sparse.bodyAt(0), sparse.bodyAt(0)};
  EXPECT_THROW(sparse.setBodyOrder(places, twice), Error);  // a body twice
  const std::vector<BodyId> stale{sparse.bodyAt(1), BodyId{}};
  EXPECT_THROW(sparse.setBodyOrder(places, stale), Error);
  EXPECT_EQ(sparse.snapshot(), placed);
  sparse.setBodyOrder(places, swapped);
  EXPECT_EQ(sparse.bodyAt(0), swapped[0]);
  EXPECT_EQ(sparse.bodyAt(1), swapped[1]);
}

// The same with sleeping islands: the moved bodies' island links (and
// those pointing at them) follow them, every ring still whole; then both
// wake and step alike.
TEST(Layout, SetBodyOrderOfSleepingBodiesEqualsTheFullOrder) {
  auto pile = [] {
    WorldDef def;
    def.bounds = {{0, 0}, {60, 60}};
    def.gravity = {0, -10.0f};
    def.restitution = 0.2f;
    def.logLevel = LogLevel::Off;
    World w(def);
    for (int i = 0; i < 240; ++i) {
      const auto col = static_cast<float>(i % 40), row = static_cast<float>(i / 40);
      w.createBody(BodyDef::ball({5.0f + col * 1.2f, 0.6f + row * 1.2f}, 0.55f));
    }
    for (int s = 0; s < 900; ++s) w.step(kDt);
    return w;
  };
  World sparse = pile();
  World full = pile();
  const auto n = static_cast<std::uint32_t>(sparse.bodyCount());
  std::vector<std::uint32_t> asleep;
  for (std::uint32_t i = 0; i < n && asleep.size() < 24; ++i) {
    if (!sparse.isAwake(sparse.bodyAt(i))) asleep.push_back(i);
  }
  ASSERT_EQ(asleep.size(), 24u) << "the pile sleeps";
  // The sleeping bodies rotated by seven places among themselves.
  std::vector<std::uint32_t> from;
  for (std::size_t k = 0; k < asleep.size(); ++k) from.push_back(asleep[(k + 7) % asleep.size()]);
  std::vector<BodyId> bodies, order;
  for (const std::uint32_t f : from) bodies.push_back(sparse.bodyAt(f));
  for (std::uint32_t k = 0; k < n; ++k) order.push_back(full.bodyAt(k));
  for (std::size_t j = 0; j < asleep.size(); ++j) order[asleep[j]] = full.bodyAt(from[j]);
  sparse.setBodyOrder(asleep, bodies);
  full.setBodyOrder(order);
  EXPECT_EQ(sparse.snapshot(), full.snapshot());
  // Both renumberings move few bodies, so both take the link-by-link way:
  // the restore's check of every island ring (each member's next's prev
  // is itself) is what proves the links right.
  World copy(WorldDef{});
  EXPECT_NO_THROW(copy.restore(sparse.snapshot()));
  for (World* w : {&sparse, &full}) {
    w->applyLinearImpulse(w->bodyAt(asleep[0]), {0.0f, 2.0f});  // wakes its island
    for (int s = 0; s < 30; ++s) w->step(kDt);
  }
  EXPECT_EQ(sparse.snapshot(), full.snapshot());
}

// World::setBodyOrder: the dense order asked for, everything else as
// optimizeLayout() keeps it; the order in place changes nothing; a list
// that is not every body once is refused with the world unchanged; two
// worlds given the same relative order step to the same bits.
TEST(Layout, SetBodyOrderPutsTheBodiesInTheOrderAsked) {
  std::vector<BodyId> ids;
  World w = mixedWorld(ids);
  std::vector<Seen> before;
  for (const BodyId id : ids) before.push_back(see(w, id));
  std::vector<BodyId> order = ids;
  std::reverse(order.begin(), order.end());
  std::rotate(order.begin(), order.begin() + 100, order.end());
  w.setBodyOrder(order);
  ASSERT_EQ(w.bodyCount(), order.size());
  for (std::uint32_t k = 0; k < w.bodyCount(); ++k) ASSERT_EQ(w.bodyAt(k), order[k]);
  for (std::size_t i = 0; i < ids.size(); ++i) expectSame(see(w, ids[i]), before[i]);
  const std::vector<std::byte> placed = w.snapshot();
  w.setBodyOrder(order);  // already in place
  EXPECT_EQ(w.snapshot(), placed);

  std::vector<BodyId> shorter(order.begin(), order.end() - 1);
  EXPECT_THROW(w.setBodyOrder(shorter), Error);
  std::vector<BodyId> repeated = order;
  repeated.back() = repeated.front();
  EXPECT_THROW(w.setBodyOrder(repeated), Error);
  std::vector<BodyId> stale = order;
  stale[5] = BodyId{};
  EXPECT_THROW(w.setBodyOrder(stale), Error);
  EXPECT_EQ(w.snapshot(), placed);
  for (std::uint32_t k = 0; k < w.bodyCount(); ++k) ASSERT_EQ(w.bodyAt(k), order[k]);

  // A twin put in the same order steps to the same bits.
  std::vector<BodyId> twinIds;
  World twin = mixedWorld(twinIds);
  std::vector<BodyId> twinOrder;
  for (const BodyId id : order) {
    twinOrder.push_back(twinIds[std::find(ids.begin(), ids.end(), id) - ids.begin()]);
  }
  twin.setBodyOrder(twinOrder);
  for (int s = 0; s < 30; ++s) {
    w.step(kDt);
    twin.step(kDt);
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(w.position(ids[i]), twin.position(twinIds[i])) << "body " << i;
    ASSERT_EQ(w.velocity(ids[i]), twin.velocity(twinIds[i])) << "body " << i;
  }
}
