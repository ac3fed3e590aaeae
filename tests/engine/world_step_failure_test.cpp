// The strong guarantee of World::step: a step that throws (its task system
// fails half way, the pair limit refuses it) leaves the world exactly as it
// was, and the world steps again.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <quadbin/quadbin.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

// Runs everything inline, except its failAt-th call of parallel work
// (counting every call since it was made), which does the first half of
// the work and then throws: the world sees half-written arrays.
class FailingTasks final : public TaskSystem {
 public:
  std::uint64_t calls = 0;
  std::uint64_t failAt = 0;  // 0: never
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return 1; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    if (++calls == failAt) {
      body(0, count / 2);
      throw std::runtime_error("task system failed");
    }
    body(0, count);
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    if (++calls == failAt) {
      for (std::uint32_t i = 0; i < count / 2; ++i) task(i);
      throw std::runtime_error("task system failed");
    }
    for (std::uint32_t i = 0; i < count; ++i) task(i);
  }
};

// Everything a user can see of a world, bit for bit.
struct Snapshot {
  std::vector<BodyId> ids;
  std::vector<std::uint32_t> bits;  // x, y, vx, vy, spin, angle of each body
  std::vector<bool> awake;
  std::vector<std::pair<BodyId, BodyId>> begins, ends;
  std::uint32_t candidatePairs = 0, contacts = 0, awakeBodies = 0;

  explicit Snapshot(const World& w) {
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      ids.push_back(id);
      const Vec2 p = w.position(id), v = w.velocity(id);
      for (const float f : {p.x, p.y, v.x, v.y, w.angularVelocity(id), w.angle(id)}) {
        bits.push_back(std::bit_cast<std::uint32_t>(f));
      }
      awake.push_back(w.isAwake(id));
    }
    for (const ContactEvent& e : w.contactBeginEvents()) begins.emplace_back(e.a, e.b);
    for (const ContactEvent& e : w.contactEndEvents()) ends.emplace_back(e.a, e.b);
    candidatePairs = w.stats().candidatePairs;
    contacts = w.stats().contacts;
    awakeBodies = w.stats().awakeBodies;
  }
  bool operator==(const Snapshot&) const = default;
  // The same, as if taken of the world with id `world` (a twin's ids name
  // the twin).
  Snapshot& as(std::uint32_t world) {
    for (BodyId& id : ids) id.world = world;
    for (auto* events : {&begins, &ends}) {
      for (auto& [a, b] : *events) a.world = b.world = world;
    }
    return *this;
  }
  // What differs, for the failure message.
  [[nodiscard]] std::string diff(const Snapshot& o) const {
    std::string out;
    if (ids != o.ids) out += " ids";
    if (bits != o.bits) out += " positions/velocities/spin";
    if (awake != o.awake) out += " awake";
    if (begins != o.begins) out += " begin-events";
    if (ends != o.ends) out += " end-events";
    if (candidatePairs != o.candidatePairs || contacts != o.contacts ||
        awakeBodies != o.awakeBodies) {
      out += " stats";
    }
    return out;
  }
};

// A pile under gravity, with static boxes, sleeping on: every stage of the
// step has work (wake-ups, contacts, impacts, sleep, events), and enough
// balls that the body passes split (4,096 bodies a range).
// With friction the balls spin (the step saves spin and angle only then).
void fill(World& w, int balls, float friction = 0.0f) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> speed(-20.0f, 20.0f);
  for (int i = 0; i < balls; ++i) {
    const float x = 3.0f + static_cast<float>(i % 90) * 2.2f;
    const float y = 3.0f + static_cast<float>(i / 90) * 2.2f;
    BodyDef d = BodyDef::ball({x, y}, 1.0f, {speed(rng), speed(rng)});
    d.friction = friction;
    w.createBody(d);
  }
  w.createBody(BodyDef::staticBox({{40, 20}, {60, 24}}));
  w.createBody(BodyDef::staticBox({{120, 50}, {124, 90}}));
}

class StepFailure : public test::QuietLog, public ::testing::WithParamInterface<BroadPhaseType> {
 protected:
  void failEveryCall(float friction);
};

TEST_P(StepFailure, ATaskSystemThatThrowsChangesNothing) { failEveryCall(0.0f); }

// Spinning balls: their spin and angle come back too.
TEST_P(StepFailure, ATaskSystemThatThrowsChangesNoSpin) { failEveryCall(0.5f); }

// The world that fails steps in lockstep with a twin whose task system
// never fails: after each failure, the next step is the twin's, bit for bit
// (the solver's persistent contacts came back with the bodies).
void StepFailure::failEveryCall(float friction) {
  auto tasks = std::make_shared<FailingTasks>();
  WorldDef def;
  def.bounds = {{0, 0}, {200, 200}};
  def.gravity = {0, -30};
  def.timeToSleep = 0.05f;
  def.sleepThreshold = 2.0f;
  def.taskSystem = tasks;
  def.broadPhase = GetParam();
  World w(def);
  fill(w, 5000, friction);
  def.taskSystem = std::make_shared<FailingTasks>();
  World twin(def);
  fill(twin, 5000, friction);
  constexpr float kDt = 1.0f / 60.0f;
  for (int s = 0; s < 5; ++s) {
    w.step(kDt);
    twin.step(kDt);
  }
  // The parallel calls of one step: a failure at each of them.
  const std::uint64_t before = tasks->calls;
  w.step(kDt);
  twin.step(kDt);
  const std::uint64_t perStep = tasks->calls - before;
  ASSERT_GT(perStep, 5u);
  // Every call for short steps; evenly spread ones (first and last included)
  // otherwise, to keep the test fast in Debug.
  const std::uint64_t stride = std::max<std::uint64_t>(1, perStep / 24);
  std::vector<std::uint64_t> failAt;
  for (std::uint64_t k = 1; k < perStep; k += stride) failAt.push_back(k);
  failAt.push_back(perStep);
  int failures = 0;
  for (const std::uint64_t k : failAt) {
    const Snapshot was(w);
    tasks->failAt = tasks->calls + k;
    bool threw = false;
    try {
      w.step(kDt);
    } catch (const std::runtime_error&) {
      threw = true;
    }
    tasks->failAt = 0;
    if (!threw) {  // this step made fewer calls (the scene changes)
      twin.step(kDt);
      continue;
    }
    ++failures;
    const Snapshot is(w);
    EXPECT_TRUE(is == was) << "parallel call " << k << " of " << perStep << ":" << is.diff(was);
    EXPECT_FALSE(w.isStepping());
    // And it steps again, as its twin does.
    ASSERT_NO_THROW(w.step(kDt)) << "after a failure at call " << k;
    twin.step(kDt);
    const Snapshot stepped(w);
    Snapshot twinStepped(twin);
    EXPECT_TRUE(stepped == twinStepped.as(w.id()))
        << "the step after a failure at call " << k << ":" << stepped.diff(twinStepped);
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const Vec2 p = w.position(w.bodyAt(i));
      ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
    }
  }
  EXPECT_GT(failures, 10);
}

INSTANTIATE_TEST_SUITE_P(Structures, StepFailure,
                         ::testing::Values(BroadPhaseType::BinGrid, BroadPhaseType::LeafQuadtree,
                                           BroadPhaseType::Quadtree),
                         [](const auto& p) {
                           std::string name(toString(p.param));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

using LayoutFailure = test::QuietLog;

// A step that begins by renumbering the bodies in space order
// (WorldDef::autoLayout) and then fails, at any of its parallel calls,
// leaves them in the order it found them; the step after it renumbers them
// and steps as a twin whose step never failed.
TEST_F(LayoutFailure, AFailedStepKeepsTheOrderItFound) {
  // 3,000 balls on a grid, created in shuffled order: the first step's
  // contacts join bodies far apart in memory, so the second renumbers.
  auto make = [](const std::shared_ptr<FailingTasks>& tasks) {
    WorldDef def;
    def.bounds = {{0, 0}, {200, 200}};
    def.taskSystem = tasks;
    World w(def);
    std::vector<std::uint32_t> order(3000);
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(4));
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> speed(-20.0f, 20.0f);
    for (const std::uint32_t i : order) {
      const Vec2 at{3.0f + static_cast<float>(i % 60) * 2.2f,
                    3.0f + static_cast<float>(i / 60) * 2.2f};
      w.createBody(BodyDef::ball(at, 1.0f, {speed(rng), speed(rng)}));
    }
    w.step(1.0f / 60.0f);
    return w;
  };
  constexpr float kDt = 1.0f / 60.0f;
  auto counter = std::make_shared<FailingTasks>();
  World probe = make(counter);
  const std::uint64_t before = counter->calls;
  probe.step(kDt);
  ASSERT_GT(probe.stats().layoutMs, 0.0) << "the second step renumbers";
  const std::uint64_t perStep = counter->calls - before;
  const std::uint64_t stride = std::max<std::uint64_t>(1, perStep / 12);
  int failures = 0;
  for (std::uint64_t k = 1; k <= perStep; k += stride) {
    auto tasks = std::make_shared<FailingTasks>();
    World w = make(tasks);
    World twin = make(std::make_shared<FailingTasks>());
    const Snapshot was(w);
    tasks->failAt = tasks->calls + k;
    EXPECT_THROW(w.step(kDt), std::runtime_error) << "parallel call " << k;
    tasks->failAt = 0;
    ++failures;
    const Snapshot is(w);
    EXPECT_TRUE(is == was) << "parallel call " << k << " of " << perStep << ":" << is.diff(was);
    w.step(kDt);
    twin.step(kDt);
    EXPECT_GT(w.stats().layoutMs, 0.0);
    Snapshot twinStepped(twin);
    const Snapshot stepped(w);
    EXPECT_TRUE(stepped == twinStepped.as(w.id()))
        << "the step after a failure at call " << k << ":" << stepped.diff(twinStepped);
  }
  EXPECT_GE(failures, 8);  // every parallel call of the step, or 12 spread over them
}

using PairLimit = test::QuietLog;

// Fast balls whose swept boxes all contain one point: refused before the
// broad phase runs, saying why, and nothing changes. Creation cannot
// refuse them (their tight boxes are apart; docs/limits.md), and a smaller
// dt steps the same world.
TEST_F(PairLimit, SweptBoxesOnOnePointAreRefusedAndChangeNothing) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.gravity = {0, -10};
  World w(def);
  const int n = 3000;  // 4.5 million pairs, over the floor of 2^20
  ASSERT_GT(std::uint64_t{n} * (n - 1) / 2, limits::maxPairs(n));
  for (int i = 0; i < n; ++i) {
    const Vec2 at{1.0f + static_cast<float>(i % 55) * 1.8f,
                  1.0f + static_cast<float>(i / 55) * 1.8f};
    w.createBody(BodyDef::ball(at, 0.5f, {3000, 0}));  // 50 units in 1/60 s
  }
  const Snapshot was(w);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      w.step(1.0f / 60.0f);
      FAIL() << n << " swept boxes on one point were stepped";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("candidate pairs"), std::string::npos) << what;
      EXPECT_NE(what.find("limit"), std::string::npos) << what;
    }
    EXPECT_TRUE(Snapshot(w) == was);
  }
  EXPECT_NO_THROW(w.step(1e-4f));  // 0.3 units: a few neighbours each
}

// Pairs no single point shows (balls in a row, each swept box over 130
// neighbours: each point is in about 260 boxes) are refused once the broad
// phase has found them.
TEST_F(PairLimit, ARowOfSweptBoxesPastTheLimitIsRefused) {
  WorldDef def;
  def.bounds = {{0, 0}, {20100, 100}};
  def.broadPhase = BroadPhaseType::BinGrid;
  World w(def);
  const int n = 20000;
  std::vector<BodyDef> row;
  for (int i = 0; i < n; ++i) {
    row.push_back(BodyDef::ball({50.0f + static_cast<float>(i), 50.0f}, 0.1f, {7800, 0}));
  }
  w.createBodies(row);
  const Snapshot was(w);
  try {
    w.step(1.0f / 60.0f);
    FAIL() << "past the pair limit, the step ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the broad phase found"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(Snapshot(w) == was);
  EXPECT_NO_THROW(w.step(1e-4f));
}

}  // namespace
