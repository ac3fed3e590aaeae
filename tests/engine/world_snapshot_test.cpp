// Snapshot and restore continue bit-identically: a busy world (collisions,
// walls, a static box, a pile under gravity with sleep on, bodies destroyed
// and created before the snapshot) snapshotted at step k and restored, into
// itself (rollback) or into a fresh world, steps on exactly as the original
// does, for every broad phase and 1, 2 and 8 threads, and so does a packed
// crowd without gravity (warm-started position shifts); and the restored
// broad phase, rebuilt from nothing, may be of any type.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <quadbin/quadbin.hpp>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace quadbin;

constexpr float kDt = 1.0f / 60.0f;
constexpr int kBefore = 40;  // steps before the snapshot (k)
constexpr int kAfter = 30;   // steps compared after it (n)

WorldDef busyDef(BroadPhaseType type, std::uint32_t threads) {
  WorldDef def;
  def.bounds = {{0, 0}, {120, 120}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.8f;
  def.timeToSleep = 0.1f;
  def.broadPhase = type;
  def.threadCount = threads;
  def.logLevel = LogLevel::Off;
  return def;
}

// Steps k with changes between them; the snapshot follows.
void buildUp(World& w) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> pos(3.0f, 117.0f), vel(-25.0f, 25.0f), r(0.4f, 1.4f);
  w.createBody(BodyDef::staticBox({{30, 30}, {70, 34}}));
  w.createBody(BodyDef::staticBox({{90, 0}, {94, 50}}));
  for (int i = 0; i < 120; ++i) {  // a pile on the floor, at rest, with friction: balls spin
    const float x = 2.0f + static_cast<float>(i % 40) * 2.0f;
    const float y = 1.0f + static_cast<float>(i / 40) * 2.0f;
    BodyDef ball = BodyDef::ball({x, y}, 1.0f);
    ball.friction = 0.5f;
    ball.rollingResistance = i % 2 == 0 ? 0.1f : 0.0f;
    w.createBody(ball);
  }
  for (int i = 0; i < 400; ++i) {  // a gas that strikes it, the walls and each other
    // Named in turn: the order in which a call's arguments are evaluated is
    // the compiler's (GCC and clang differ), the braces' order is fixed.
    const Vec2 velocity{vel(rng), vel(rng)};
    const float radius = r(rng);
    const Vec2 at{pos(rng), 10.0f + pos(rng) * 0.9f};
    w.createBody(BodyDef::ball(at, radius, velocity));
  }
  for (int s = 0; s < kBefore; ++s) {
    if (s == 15) {
      for (std::uint32_t i : {200u, 7u, 1u, 333u, 64u, 450u}) w.destroyBody(w.bodyAt(i));
      for (int i = 0; i < 4; ++i) w.createBody(BodyDef::ball({pos(rng), 100}, 0.8f, {5, -3}));
    }
    if (s == kBefore - 1) {
      for (std::uint32_t i : {100u, 101u, 300u}) w.setAwake(w.bodyAt(i), false);
    }
    w.step(kDt);
  }
}

// Everything observable after a step, ids without their world.
struct Frame {
  std::vector<std::uint32_t> values;
  friend bool operator==(const Frame&, const Frame&) = default;
};

Frame frame(const World& w) {
  Frame f;
  auto& v = f.values;
  for (const Vec2 p : w.positions())
    v.insert(v.end(), {std::bit_cast<std::uint32_t>(p.x), std::bit_cast<std::uint32_t>(p.y)});
  for (const Vec2 p : w.velocities())
    v.insert(v.end(), {std::bit_cast<std::uint32_t>(p.x), std::bit_cast<std::uint32_t>(p.y)});
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    v.insert(v.end(), {id.index, id.generation, w.isAwake(id) ? 1u : 0u});
  }
  for (const auto events : {w.contactBeginEvents(), w.contactEndEvents()}) {
    v.push_back(static_cast<std::uint32_t>(events.size()));
    for (const ContactEvent& e : events)
      v.insert(v.end(), {e.a.index, e.a.generation, e.b.index, e.b.generation});
  }
  v.insert(v.end(), {w.stats().contacts, w.stats().awakeBodies, w.stats().colours});
  return f;
}

// Steps n with changes of its own (the restored free list hands out the
// same slots), recording each step.
std::vector<Frame> carryOn(World& w) {
  std::vector<Frame> frames;
  for (int s = 0; s < kAfter; ++s) {
    if (s == 10) {
      w.destroyBody(w.bodyAt(20));
      for (int i = 0; i < 12; ++i) {
        w.createBody(BodyDef::ball({10.0f + static_cast<float>(i) * 8.0f, 110}, 0.7f, {0, -10}));
      }
    }
    w.step(kDt);
    frames.push_back(frame(w));
  }
  return frames;
}

struct Case {
  BroadPhaseType type;
  std::uint32_t threads;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (BroadPhaseType t : allBroadPhaseTypes()) {
    for (std::uint32_t threads : {1u, 2u, 8u}) all.push_back({t, threads});
  }
  return all;
}

std::string caseName(const testing::TestParamInfo<Case>& info) {
  std::string name =
      std::string(toString(info.param.type)) + "_" + std::to_string(info.param.threads);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// A crowd packed too tight, without gravity: the position correction's
// warm-started shift impulses (the crowd's "pressure") carry across steps.
void crowdUp(World& w) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> vel(-2.0f, 2.0f);
  for (int i = 0; i < 500; ++i) {
    const float x = 40.0f + static_cast<float>(i % 25) * 1.7f;
    const float y = 40.0f + static_cast<float>(i / 25) * 1.7f;
    w.createBody(BodyDef::ball({x, y}, 1.0f, {vel(rng), vel(rng)}));
  }
  for (int s = 0; s < 10; ++s) w.step(kDt);
}

class Snapshot : public testing::TestWithParam<Case> {};

TEST_P(Snapshot, ContinuesBitIdentically) {
  const Case c = GetParam();
  World original(busyDef(c.type, c.threads));
  buildUp(original);
  // The scene covers what a snapshot must carry.
  std::uint32_t asleep = 0;
  for (std::uint32_t i = 0; i < original.bodyCount(); ++i) {
    const BodyId id = original.bodyAt(i);
    asleep += original.type(id) == BodyType::Ball && !original.isAwake(id) ? 1u : 0u;
  }
  EXPECT_GT(asleep, 0u);
  EXPECT_GT(original.stats().contacts, 0u);

  const std::vector<std::byte> saved = original.snapshot();
  const std::vector<Frame> expected = carryOn(original);

  // Rollback: the same world, its ids still valid.
  const BodyId kept = original.bodyAt(3);
  original.restore(saved);
  EXPECT_TRUE(original.isValid(kept));
  EXPECT_EQ(original.snapshot(), saved);
  EXPECT_TRUE(carryOn(original) == expected) << "rollback diverged";

  // A fresh world made with another def and thread count takes the
  // snapshot's def; its ids carry its own world id.
  WorldDef other;
  other.threadCount = c.threads == 1 ? 8 : 1;
  other.broadPhase =
      c.type == BroadPhaseType::BinGrid ? BroadPhaseType::Quadtree : BroadPhaseType::BinGrid;
  other.logLevel = LogLevel::Off;
  World fresh(other);
  fresh.createBody(BodyDef::ball({5, 5}, 1));
  fresh.restore(saved);
  EXPECT_EQ(fresh.def().broadPhase, c.type);
  EXPECT_EQ(fresh.def().threadCount, other.threadCount);
  EXPECT_EQ(fresh.def().gravity, original.def().gravity);
  EXPECT_EQ(fresh.snapshot(), saved);
  const BodyId moved{kept.index, kept.generation, fresh.id()};
  EXPECT_TRUE(fresh.isValid(moved));
  EXPECT_FALSE(fresh.isValid(kept));
  EXPECT_TRUE(carryOn(fresh) == expected) << "restore into a fresh world diverged";
}

TEST_P(Snapshot, CrowdContinuesBitIdentically) {
  const Case c = GetParam();
  WorldDef def = busyDef(c.type, c.threads);
  def.gravity = {};
  World original(def);
  crowdUp(original);
  const std::vector<std::byte> saved = original.snapshot();
  const std::vector<Frame> expected = carryOn(original);
  original.restore(saved);
  EXPECT_TRUE(carryOn(original) == expected) << "rollback diverged";
  WorldDef other;
  other.threadCount = c.threads == 1 ? 2 : 1;
  other.logLevel = LogLevel::Off;
  World fresh(other);
  fresh.restore(saved);
  EXPECT_TRUE(carryOn(fresh) == expected) << "restore into a fresh world diverged";
}

INSTANTIATE_TEST_SUITE_P(AllStructures, Snapshot, testing::ValuesIn(cases()), caseName);

// The broad phase is not in a snapshot: it is rebuilt, and the narrow phase
// puts the pairs in canonical order, so a restored world continues the same
// on every structure.
TEST(SnapshotAcrossStructures, AnyBroadPhaseContinuesTheSame) {
  for (const bool crowd : {false, true}) {
    WorldDef def = busyDef(BroadPhaseType::BinGrid, 2);
    if (crowd) def.gravity = {};
    World original(def);
    crowd ? crowdUp(original) : buildUp(original);
    const std::vector<std::byte> saved = original.snapshot();
    const std::vector<Frame> expected = carryOn(original);
    for (BroadPhaseType t : allBroadPhaseTypes()) {
      World w(busyDef(BroadPhaseType::Auto, 2));
      w.restore(saved);
      w.setBroadPhase(t);
      EXPECT_TRUE(carryOn(w) == expected) << (crowd ? "crowd, " : "busy, ") << toString(t);
    }
  }
}

}  // namespace
