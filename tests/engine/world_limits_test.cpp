// Every argument checked at the World boundary: enums, query shapes, ranges
// with a physical meaning (docs/limits.md). A refused call changes nothing.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <limits>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;
using namespace quadbin::limits;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using test::QuietLog;

using Limits = QuietLog;

struct State {
  std::vector<BodyId> ids;
  std::vector<Vec2> pos, vel;
  std::vector<float> mass;
  BroadPhaseType broad{};
  std::uint32_t threads = 0;
  friend bool operator==(const State&, const State&) = default;
};

State state(const World& w) {
  State s;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    s.ids.push_back(id);
    s.pos.push_back(w.position(id));
    s.vel.push_back(w.velocity(id));
    s.mass.push_back(w.mass(id));
  }
  s.broad = w.def().broadPhase;
  s.threads = w.taskSystem().threadCount();
  return s;
}

// `call` must throw an Error whose message holds `mentions`, and leave `w`
// as it was.
void expectRefused(World& w, const std::function<void()>& call, const std::string& mentions) {
  const State before = state(w);
  try {
    call();
    ADD_FAILURE() << "accepted: " << mentions;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << mentions << "'";
  }
  EXPECT_EQ(state(w), before) << mentions;
}

void expectDefRefused(const WorldDef& def, const std::string& mentions) {
  try {
    World w(def);
    ADD_FAILURE() << "accepted: " << mentions;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  }
}

BodyDef ballWith(auto&& change) {
  BodyDef d = BodyDef::ball({50, 50}, 1, {1, 0});
  change(d);
  return d;
}

// A world with a ball and a box, stepped once.
struct Scene {
  World w;
  BodyId ball, box;
  explicit Scene(const WorldDef& def = {}) : w(def) {
    ball = w.createBody(BodyDef::ball({20, 20}, 1, {3, 1}));
    box = w.createBody(BodyDef::staticBox({{60, 60}, {70, 70}}));
    w.step(1.0f / 60.0f);
  }
};

}  // namespace

TEST_F(Limits, EnumValuesOutsideTheirEnumeratorsAreRefused) {
  WorldDef def;
  def.broadPhase = static_cast<BroadPhaseType>(200);
  expectDefRefused(def, "WorldDef.broadPhase = 200");
  def = {};
  def.boundary = static_cast<Boundary>(2);
  expectDefRefused(def, "WorldDef.boundary = 2");
  def = {};
  def.logLevel = static_cast<LogLevel>(6);
  expectDefRefused(def, "WorldDef.logLevel = 6");
  def.logLevel = static_cast<LogLevel>(-1);
  expectDefRefused(def, "WorldDef.logLevel = -1");

  Scene s;
  expectRefused(
      s.w, [&] { s.w.createBody(ballWith([](BodyDef& d) { d.type = static_cast<BodyType>(7); })); },
      "BodyDef.type = 7");
  expectRefused(
      s.w, [&] { s.w.setBroadPhase(static_cast<BroadPhaseType>(10)); }, "setBroadPhase type = 10");
}

TEST_F(Limits, ARefusedWorldDefLeavesTheLogLevelAlone) {
  setLogLevel(LogLevel::Error);
  WorldDef def;
  def.logLevel = LogLevel::Trace;
  def.bounds = {{0, 0}, {0, 0}};
  EXPECT_THROW(World{def}, Error);
  EXPECT_EQ(logLevel(), LogLevel::Error);
  def.bounds = WorldDef{}.bounds;
  def.logLevel = LogLevel::Off;
  World ok(def);
  EXPECT_EQ(logLevel(), LogLevel::Off);
}

TEST_F(Limits, WorldDefOptionsHaveUpperBounds) {
  auto with = [](auto&& change) {
    WorldDef def;
    change(def);
    return def;
  };
  expectDefRefused(with([](WorldDef& d) {
                     d.bounds = {{0, 0}, {2e7f, 10}};
                   }),
                   "WorldDef.bounds.max.x = 20000000 is outside [-1e+07, 1e+07]");
  expectDefRefused(with([](WorldDef& d) {
                     d.bounds = {{-FLT_MAX, 0}, {10, 10}};
                   }),
                   "WorldDef.bounds.min.x");
  expectDefRefused(with([](WorldDef& d) { d.gravity = {0, -2e7f}; }), "WorldDef.gravity");
  expectDefRefused(with([](WorldDef& d) { d.restitutionThreshold = 1e30f; }),
                   "WorldDef.restitutionThreshold = 1e+30 is outside [0, 1e+08]");
  expectDefRefused(with([](WorldDef& d) { d.sleepThreshold = 1e9f; }), "WorldDef.sleepThreshold");
  expectDefRefused(with([](WorldDef& d) { d.timeToSleep = 1e6f; }), "WorldDef.timeToSleep");
  expectDefRefused(with([](WorldDef& d) { d.timeToSleep = 0.0f; }), "WorldDef.timeToSleep = 0");
  expectDefRefused(with([](WorldDef& d) { d.threadCount = 1025; }),
                   "WorldDef.threadCount = 1025 is outside [0, 1024]");
  expectDefRefused(with([](WorldDef& d) { d.velocityIterations = 257; }),
                   "WorldDef.velocityIterations = 257");
  expectDefRefused(with([](WorldDef& d) { d.solverPasses = 0; }), "WorldDef.solverPasses = 0");
  expectDefRefused(with([](WorldDef& d) { d.positionPasses = 1000; }),
                   "WorldDef.positionPasses = 1000");
  // At the limits: accepted.
  World edge(with([](WorldDef& d) {
    d.bounds = {{-kMaxCoordinate, -kMaxCoordinate}, {kMaxCoordinate, kMaxCoordinate}};
    d.gravity = {0, -kMaxGravity};
    d.timeToSleep = kMaxTimeToSleep;
    d.threadCount = 2;
    d.velocityIterations = kMaxIterations;
  }));
  EXPECT_EQ(edge.def().velocityIterations, kMaxIterations);
}

TEST_F(Limits, OverflowingValuesAreRefusedAndChangeNothing) {
  Scene s;
  World& w = s.w;
  expectRefused(
      w,
      [&] {
        w.setVelocity(s.ball, {FLT_MAX, 0});
      },
      "faster than 1e+08");
  expectRefused(
      w,
      [&] {
        w.setVelocity(s.ball, {0, -2e8f});
      },
      "setVelocity velocity");
  expectRefused(
      w,
      [&] {
        w.createBody(BodyDef::ball({50, 50}, 1, {2.4e38f, 0}));
      },
      "BodyDef.velocity");
  expectRefused(
      w, [&] { w.step(FLT_MAX); }, "dt = 3.4028235e+38");
  expectRefused(
      w, [&] { w.step(1e30f); }, "dt = 1e+30 must be finite and in [1e-09, 10]");
  expectRefused(
      w, [&] { w.step(1e-12f); }, "dt = 1e-12");
  expectRefused(
      w, [&] { w.createBody(ballWith([](BodyDef& d) { d.mass = 1e-40f; })); },
      "BodyDef.mass = 1e-40 is outside [1e-18, 1e+18]");
  expectRefused(
      w, [&] { w.createBody(ballWith([](BodyDef& d) { d.mass = 1e30f; })); }, "BodyDef.mass");
  expectRefused(
      w, [&] { w.createBody(ballWith([](BodyDef& d) { d.density = 1e-40f; })); },
      "BodyDef.density = 1e-40");
  expectRefused(
      w, [&] { w.createBody(ballWith([](BodyDef& d) { d.density = 1e30f; })); },
      "BodyDef.density = 1e+30");
  expectRefused(
      w, [&] { w.createBody(ballWith([](BodyDef& d) { d.radius = 1e-9f; })); },
      "BodyDef.radius = 1e-09 is outside");
  expectRefused(
      w,
      [&] {
        w.createBody(BodyDef::staticBox({{-3e7f, 0}, {3e7f, 1}}));
      },
      "halfExtents");
  expectRefused(
      w,
      [&] {
        w.createBody(BodyDef::staticBox({{2e7f, 0}, {2e7f + 2, 1}}));
      },
      "BodyDef.position.x");
  expectRefused(
      w,
      [&] {
        w.setPosition(s.box, {-1e8f, 0});
      },
      "setPosition position.x");
}

TEST_F(Limits, ABallTooSmallForItsCoordinateIsRefused) {
  WorldDef def;
  def.boundary = Boundary::Open;
  Scene s(def);
  // 2^-20 of 1e6 is about 0.95: radius 0.5 there has no precision left.
  expectRefused(
      s.w,
      [&] {
        s.w.createBody(BodyDef::ball({1e6f, 0}, 0.5f));
      },
      "too far out for radius 0.5");
  expectRefused(
      s.w,
      [&] {
        s.w.setPosition(s.ball, {0, -5e6f});
      },
      "too far out for radius 1");
  const BodyId far = s.w.createBody(BodyDef::ball({1e6f, 0}, 1.0f));
  EXPECT_TRUE(s.w.isValid(far));
}

TEST_F(Limits, QueryArgumentsAreChecked) {
  Scene s;
  World& w = s.w;
  std::vector<BodyId> out;
  std::vector<RayHit> hits;
  expectRefused(
      w,
      [&] {
        w.queryBox({{10, 0}, {0, 10}}, out);
      },
      "inverted");
  expectRefused(
      w,
      [&] {
        w.queryBox({{0, 5}, {10, 4}}, out);
      },
      "queryBox box = [0, 10] x [5, 4]");
  expectRefused(
      w,
      [&] {
        w.queryBox({{0, 0}, {kInf, 10}}, out);
      },
      "queryBox box.max.x = inf");
  expectRefused(
      w,
      [&] {
        w.queryBox({{-2e9f, 0}, {10, 10}}, out);
      },
      "queryBox box.min.x");
  expectRefused(
      w,
      [&] {
        w.queryRadius({0, kNaN}, 1, out);
      },
      "queryRadius center.y");
  expectRefused(
      w,
      [&] {
        w.queryRadius({0, 0}, 1e10f, out);
      },
      "queryRadius radius = 10000000000 is outside [0, 1e+09]");
  expectRefused(
      w,
      [&] {
        (void)w.raycast(Ray{{0, 0}, {0, 0}, 1});
      },
      "direction = (0, 0)");
  expectRefused(
      w,
      [&] {
        (void)w.raycast(Ray{{0, 0}, {kNaN, 1}, 1});
      },
      "raycast direction.x");
  expectRefused(
      w,
      [&] {
        w.raycastAll(Ray{{0, 0}, {1, 0}, kInf}, hits);
      },
      "raycast maxT = inf");
  expectRefused(
      w,
      [&] {
        (void)w.raycast(Ray{{0, 0}, {1e6f, 0}, 1e6f});
      },
      "too long");
  expectRefused(
      w,
      [&] {
        w.nearest({5, 5}, 0, out);
      },
      "nearest k = 0");
  expectRefused(
      w,
      [&] {
        w.nearest({kInf, 5}, 1, out);
      },
      "nearest point.x");
  // A point box and a box larger than the world are fine.
  w.queryBox({{20, 20}, {20, 20}}, out);
  EXPECT_EQ(out.size(), 1u);
  w.queryBox({{-1e9f, -1e9f}, {1e9f, 1e9f}}, out);
  EXPECT_EQ(out.size(), 2u);
  w.nearest({5, 5}, 100, out);
  EXPECT_EQ(out.size(), 2u);
}

// Balls at the limits of speed, mass, size and coordinates, stepped at the
// largest dt and under the strongest gravity, collide and stay finite.
TEST_F(Limits, AWorldRunAtTheLimitsStaysFinite) {
  for (const Boundary boundary : {Boundary::Closed, Boundary::Open}) {
    WorldDef def;
    def.boundary = boundary;
    def.bounds = {{-kMaxCoordinate, -kMaxCoordinate}, {kMaxCoordinate, kMaxCoordinate}};
    def.gravity = {0, -kMaxGravity};
    World w(def);
    const float big = kMaxCoordinate / 4;
    BodyDef heavy = BodyDef::ball({-big, 0}, big / 2, {kMaxSpeed, 0});
    heavy.mass = kMaxMass;
    BodyDef light = BodyDef::ball({big, 0}, big / 2, {-kMaxSpeed, 0});
    light.mass = kMinMass;
    w.createBody(heavy);
    w.createBody(light);
    w.createBody(BodyDef::ball({0, big}, kMaxCoordinate * kMinRadiusPerCoordinate * 2, {0, 0}));
    w.createBody(BodyDef::ball({0, 0}, kMinRadius, {kMaxSpeed * 0.8f, kMaxSpeed * 0.59f}));
    w.createBody(BodyDef::staticBox({{-big, -big}, {big, -big / 2}}));
    for (int i = 0; i < 20; ++i) {
      w.step(i % 2 == 0 ? kMaxDt : kMinDt);
      for (std::uint32_t k = 0; k < w.bodyCount(); ++k) {
        const BodyId id = w.bodyAt(k);
        ASSERT_TRUE(isFinite(w.position(id))) << "step " << i << " body " << k;
        ASSERT_TRUE(isFinite(w.velocity(id))) << "step " << i << " body " << k;
      }
    }
    EXPECT_TRUE(std::isfinite(w.kineticEnergy()));
  }
}
