// World API: creation, handles, validation at the boundary, events.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <quadbin/quadbin.hpp>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Snapshot {
  std::vector<BodyId> ids;
  std::vector<Vec2> pos, vel;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot snapshot(const World& w) {
  Snapshot s;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    s.ids.push_back(id);
    s.pos.push_back(w.position(id));
    s.vel.push_back(w.velocity(id));
  }
  return s;
}

using test::QuietLog;

using WorldApi = QuietLog;
using BadInput = QuietLog;

}  // namespace

TEST_F(WorldApi, CreateReadAndSet) {
  World world;
  const BodyId ball = world.createBody(BodyDef::ball({10, 20}, 2, {1, -1}));
  EXPECT_TRUE(world.isValid(ball));
  EXPECT_EQ(world.type(ball), BodyType::Ball);
  EXPECT_EQ(world.position(ball), (Vec2{10, 20}));
  EXPECT_EQ(world.velocity(ball), (Vec2{1, -1}));
  EXPECT_FLOAT_EQ(world.radius(ball), 2.0f);
  EXPECT_FLOAT_EQ(world.mass(ball), 3.14159265f * 4.0f);  // density 1 * area
  EXPECT_EQ(world.bounds(ball), (AABB{{8, 18}, {12, 22}}));
  world.setPosition(ball, {50, 50});
  world.setVelocity(ball, {0, 3});
  EXPECT_EQ(world.position(ball), (Vec2{50, 50}));
  EXPECT_EQ(world.velocity(ball), (Vec2{0, 3}));

  BodyDef heavy = BodyDef::ball({30, 30}, 1);
  heavy.mass = 7.0f;
  EXPECT_FLOAT_EQ(world.mass(world.createBody(heavy)), 7.0f);

  const BodyId wall = world.createBody(BodyDef::staticBox({{40, 0}, {42, 100}}));
  EXPECT_EQ(world.type(wall), BodyType::StaticBox);
  EXPECT_EQ(world.bounds(wall), (AABB{{40, 0}, {42, 100}}));
  EXPECT_TRUE(std::isinf(world.mass(wall)));
  EXPECT_EQ(world.bodyCount(), 3u);
}

TEST_F(WorldApi, DestroyedAndForeignHandlesAreRefused) {
  World world;
  const BodyId a = world.createBody(BodyDef::ball({10, 10}, 1));
  const BodyId b = world.createBody(BodyDef::ball({20, 10}, 1));
  const BodyId c = world.createBody(BodyDef::ball({30, 10}, 1));
  world.destroyBody(a);
  EXPECT_FALSE(world.isValid(a));
  EXPECT_THROW((void)world.position(a), Error);
  EXPECT_THROW(world.destroyBody(a), Error);
  // The others survive the swap-removal with their data.
  EXPECT_EQ(world.position(b), (Vec2{20, 10}));
  EXPECT_EQ(world.position(c), (Vec2{30, 10}));
  // The slot is reused with a new generation: the old id stays stale.
  const BodyId d = world.createBody(BodyDef::ball({40, 10}, 1));
  EXPECT_EQ(d.index, a.index);
  EXPECT_NE(d.generation, a.generation);
  EXPECT_FALSE(world.isValid(a));
  EXPECT_THROW(world.setVelocity(a, {1, 1}), Error);
  EXPECT_THROW((void)world.position(BodyId{}), Error);
  EXPECT_THROW((void)world.position(BodyId{99, 0}), Error);
  EXPECT_THROW((void)world.bodyAt(3), Error);
  try {
    (void)world.velocity(a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stale"), std::string::npos) << e.what();
  }
}

TEST_F(BadInput, RefusedCallsLeaveTheWorldUnchanged) {
  World world;
  const BodyId ball = world.createBody(BodyDef::ball({10, 10}, 1, {2, 0}));
  const BodyId wall = world.createBody(BodyDef::staticBox({{50, 50}, {60, 60}}));
  world.step(1.0f / 60.0f);
  const Snapshot before = snapshot(world);

  auto expectRefused = [&](auto&& call, const char* mentions) {
    try {
      call();
      ADD_FAILURE() << "accepted input that should be refused (" << mentions << ")";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos)
          << "message '" << e.what() << "' does not name " << mentions;
    }
    EXPECT_EQ(snapshot(world), before) << mentions;
  };

  expectRefused([&] { world.createBody(BodyDef::ball({kNaN, 10}, 1)); }, "position.x");
  expectRefused([&] { world.createBody(BodyDef::ball({10, kInf}, 1)); }, "position.y");
  expectRefused([&] { world.createBody(BodyDef::ball({10, 10}, 1, {kNaN, 0})); }, "velocity.x");
  expectRefused([&] { world.createBody(BodyDef::ball({10, 10}, 1, {0, -kInf})); }, "velocity.y");
  expectRefused([&] { world.createBody(BodyDef::ball({10, 10}, 0)); }, "radius = 0");
  expectRefused([&] { world.createBody(BodyDef::ball({10, 10}, -1)); }, "radius = -1");
  expectRefused([&] { world.createBody(BodyDef::ball({10, 10}, kNaN)); }, "radius");
  expectRefused([&] { world.createBody(BodyDef::ball({10, 10}, kInf)); }, "radius");
  expectRefused([&] { world.createBody(BodyDef::ball({150, 10}, 1)); }, "closed world");
  expectRefused(
      [&] {
        BodyDef d = BodyDef::ball({10, 10}, 1);
        d.density = 0;
        world.createBody(d);
      },
      "density = 0");
  expectRefused(
      [&] {
        BodyDef d = BodyDef::ball({10, 10}, 1);
        d.mass = -2;
        world.createBody(d);
      },
      "mass = -2");
  expectRefused(
      [&] {
        BodyDef d = BodyDef::staticBox({{0, 0}, {1, 1}});
        d.velocity = {1, 0};
        world.createBody(d);
      },
      "static box");
  expectRefused(
      [&] {
        BodyDef d = BodyDef::staticBox({{0, 0}, {1, 1}});
        d.halfExtents = {-1, 1};
        world.createBody(d);
      },
      "halfExtents");
  expectRefused([&] { world.step(0.0f); }, "dt = 0");
  expectRefused([&] { world.step(-0.1f); }, "dt = -0.1");
  expectRefused([&] { world.step(kNaN); }, "dt = nan");
  expectRefused([&] { world.step(kInf); }, "dt = inf");
  expectRefused([&] { world.setPosition(ball, {kNaN, 1}); }, "position.x");
  expectRefused([&] { world.setPosition(ball, {99.5f, 50}); }, "closed world");
  expectRefused([&] { world.setVelocity(ball, {1, kInf}); }, "velocity.y");
  expectRefused([&] { world.setVelocity(wall, {1, 0}); }, "static box");
}

TEST_F(BadInput, WorldDefIsValidated) {
  auto refused = [](const WorldDef& def, const char* mentions) {
    try {
      World w(def);
      ADD_FAILURE() << "accepted " << mentions;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
  };
  WorldDef def;
  def.bounds = {{0, 0}, {0, 10}};
  refused(def, "min < max");
  def.bounds = {{5, 0}, {1, 10}};
  refused(def, "min < max");
  def.bounds = {{0, 0}, {kNaN, 10}};
  refused(def, "bounds");
  def = {};
  def.restitution = 1.5f;
  refused(def, "restitution = 1.5");
  def = {};
  def.gravity = {0, kNaN};
  refused(def, "gravity");
}

TEST_F(WorldApi, OpenWorldLetsBodiesLeaveAndStillCollides) {
  WorldDef def;
  def.boundary = Boundary::Open;
  World world(def);
  const BodyId a = world.createBody(BodyDef::ball({95, 50}, 1, {600, 0}));
  const BodyId b = world.createBody(BodyDef::ball({130, 50}, 1, {}));  // created outside
  for (int i = 0; i < 10; ++i) world.step(1.0f / 60.0f);
  // a crossed x = 100 (no wall), hit b outside the bounds and stopped.
  EXPECT_NEAR(world.velocity(a).x, 0.0f, 1e-3f);
  EXPECT_NEAR(world.velocity(b).x, 600.0f, 1e-2f);
  EXPECT_EQ(world.stats().bodiesOutside, 2u);
}

TEST_F(WorldApi, ContactBeginAndEndEvents) {
  WorldDef def;
  def.boundary = Boundary::Open;
  World world(def);
  const BodyId a = world.createBody(BodyDef::ball({10, 50}, 1, {60, 0}));
  const BodyId b = world.createBody(BodyDef::ball({14, 50}, 1, {}));
  // a closes the gap of 2 at 1 per step, hits b, stops; b leaves.
  std::vector<ContactEvent> begins, ends;
  for (int step = 0; step < 12; ++step) {
    world.step(1.0f / 60.0f);
    for (auto e : world.contactBeginEvents()) begins.push_back(e);
    for (auto e : world.contactEndEvents()) ends.push_back(e);
    if (step == 0) {
      EXPECT_TRUE(world.contactBeginEvents().empty());
    }
  }
  ASSERT_EQ(begins.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  const BodyId lo = a.index < b.index ? a : b, hi = a.index < b.index ? b : a;
  EXPECT_EQ(begins[0].a, lo);
  EXPECT_EQ(begins[0].b, hi);
  EXPECT_EQ(ends[0].a, lo);
  EXPECT_EQ(ends[0].b, hi);
}

TEST_F(WorldApi, StatsAreFilled) {
  World world;
  for (int i = 0; i < 20; ++i) {
    world.createBody(BodyDef::ball({5.0f + 2.5f * static_cast<float>(i), 50}, 1, {30, 0}));
  }
  world.step(1.0f / 60.0f);
  EXPECT_GE(world.stats().totalMs, 0.0);
  EXPECT_GT(world.stats().candidatePairs, 0u);
  EXPECT_EQ(world.broadPhase().type(), BroadPhaseType::Auto);
}

// Each stage of the step has its own timer; positionMs is the sum of the
// three position stages.
TEST_F(WorldApi, StepStatsTimeEachStage) {
  World world;
  for (int i = 0; i < 20; ++i) {
    world.createBody(BodyDef::ball({5.0f + 2.5f * static_cast<float>(i), 50}, 1, {30, 0}));
  }
  world.createBody(BodyDef::staticBox(AABB{{40, 18}, {60, 22}}));
  world.step(1.0f / 60.0f);
  const StepStats& st = world.stats();
  const double stages[] = {st.integrateMs,
                           st.sweptBoxesMs,
                           st.broadPhaseMs,
                           st.contactsMs,
                           st.solverMs,
                           st.integratePositionsMs,
                           st.positionCorrectionMs,
                           st.wallClampMs,
                           st.sleepMs,
                           st.eventsMs};
  double sum = 0.0;
  for (const double ms : stages) {
    EXPECT_GE(ms, 0.0);
    sum += ms;
  }
  EXPECT_GT(st.totalMs, 0.0);
  EXPECT_LE(sum, st.totalMs);
  EXPECT_EQ(st.positionMs, st.integratePositionsMs + st.positionCorrectionMs + st.wallClampMs);
  EXPECT_GT(st.integrateMs + st.sweptBoxesMs + st.broadPhaseMs + st.contactsMs + st.solverMs +
                st.integratePositionsMs + st.positionCorrectionMs + st.wallClampMs,
            0.0);

  // A world whose balls all sleep runs only the events stage.
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) world.setAwake(world.bodyAt(i), false);
  world.step(1.0f / 60.0f);
  EXPECT_EQ(world.stats().integrateMs, 0.0);
  EXPECT_EQ(world.stats().sweptBoxesMs, 0.0);
  EXPECT_EQ(world.stats().contactsMs, 0.0);
  EXPECT_EQ(world.stats().wallClampMs, 0.0);
  EXPECT_EQ(world.stats().positionMs, 0.0);
  EXPECT_GE(world.stats().eventsMs, 0.0);
}
