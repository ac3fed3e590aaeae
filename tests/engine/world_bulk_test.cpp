// World::createBodies against createBody one at a time, its all-or-nothing
// refusal, World::setPositions against setPosition one at a time and its
// refusals, and the dense read-only spans positions(), velocities(),
// radii().
#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <quadbin/quadbin.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"

namespace {

using namespace quadbin;
using WorldBulk = test::QuietLog;

WorldDef pileDef() {
  WorldDef def;
  def.bounds = {{0, 0}, {80, 80}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.7f;
  def.timeToSleep = 0.1f;
  def.threadCount = 1;
  return def;
}

// A world with bodies, a few destroyed (free slots to reuse) and some steps.
void prepare(World& w) {
  w.createBody(BodyDef::staticBox({{20, 10}, {40, 14}}));
  for (int i = 0; i < 60; ++i) {
    const float x = 3.0f + static_cast<float>(i % 20) * 3.5f;
    const float y = 20.0f + static_cast<float>(i / 20) * 3.0f;
    w.createBody(BodyDef::ball({x, y}, 1.0f, {static_cast<float>(i % 5) - 2.0f, 0}));
  }
  for (int s = 0; s < 10; ++s) w.step(1.0f / 60.0f);
  for (std::uint32_t i : {50u, 3u, 17u}) w.destroyBody(w.bodyAt(i));
}

std::vector<BodyDef> someDefs(std::uint32_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(5.0f, 75.0f), vel(-8.0f, 8.0f), r(0.3f, 1.2f);
  std::vector<BodyDef> defs;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (i % 10 == 9) {
      const Vec2 c{pos(rng), pos(rng)};
      defs.push_back(BodyDef::staticBox({c, c + Vec2{2, 1}}));
    } else {
      BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, r(rng), {vel(rng), vel(rng)});
      if (i % 7 == 0) d.mass = 3.0f;
      defs.push_back(d);
    }
  }
  return defs;
}

// What a caller can see of every body, in dense order, as raw bits.
std::vector<std::uint32_t> state(const World& w) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    const AABB box = w.bounds(id);
    for (const float f : {w.position(id).x, w.position(id).y, w.velocity(id).x, w.velocity(id).y,
                          w.radius(id), w.mass(id), box.min.x, box.min.y, box.max.x, box.max.y}) {
      v.push_back(std::bit_cast<std::uint32_t>(f));
    }
    v.insert(v.end(), {id.index, id.generation, w.isAwake(id) ? 1u : 0u,
                       static_cast<std::uint32_t>(w.type(id))});
  }
  return v;
}

TEST_F(WorldBulk, CreateBodiesEqualsCreateBodyOneAtATime) {
  World bulk(pileDef()), single(pileDef());
  prepare(bulk);
  prepare(single);
  const std::vector<BodyDef> defs = someDefs(40, 7);
  const std::vector<BodyId> ids = bulk.createBodies(defs);
  ASSERT_EQ(ids.size(), defs.size());
  for (std::size_t k = 0; k < defs.size(); ++k) {
    const BodyId one = single.createBody(defs[k]);
    EXPECT_EQ(ids[k].index, one.index) << k;
    EXPECT_EQ(ids[k].generation, one.generation) << k;
    EXPECT_EQ(ids[k].world, bulk.id());
    EXPECT_TRUE(bulk.isValid(ids[k]));
  }
  // The first three reused the destroyed bodies' slots, newest first.
  EXPECT_EQ(ids[0].generation, 1u);
  // Same state (a snapshot holds all of it), and the same next steps.
  EXPECT_EQ(state(bulk), state(single));
  EXPECT_EQ(bulk.snapshot(), single.snapshot());
  for (int s = 0; s < 5; ++s) {
    bulk.step(1.0f / 60.0f);
    single.step(1.0f / 60.0f);
    EXPECT_EQ(state(bulk), state(single));
  }
  EXPECT_EQ(bulk.snapshot(), single.snapshot());
}

// Enough bodies for several parallel ranges, on four threads.
TEST_F(WorldBulk, CreateBodiesInParallelEqualsOneAtATime) {
  WorldDef def = pileDef();
  def.bounds = {{0, 0}, {400, 400}};
  def.threadCount = 4;
  World bulk(def), single(def);
  prepare(bulk);
  prepare(single);
  std::vector<BodyDef> defs = someDefs(20000, 11);
  for (BodyDef& d : defs) d.position = d.position * 5.0f;
  const std::vector<BodyId> ids = bulk.createBodies(defs);
  for (std::size_t k = 0; k < defs.size(); ++k) {
    const BodyId one = single.createBody(defs[k]);
    ASSERT_EQ(ids[k].index, one.index) << k;
    ASSERT_EQ(ids[k].generation, one.generation) << k;
  }
  EXPECT_EQ(state(bulk), state(single));
  EXPECT_EQ(bulk.snapshot(), single.snapshot());
  bulk.step(1.0f / 60.0f);
  single.step(1.0f / 60.0f);
  EXPECT_EQ(bulk.snapshot(), single.snapshot());
}

TEST_F(WorldBulk, CreateBodiesRefusesAllOrNothing) {
  World w(pileDef());
  prepare(w);
  const std::vector<std::uint32_t> stateBefore = state(w);
  const std::vector<std::byte> before = w.snapshot();
  const std::uint32_t count = w.bodyCount();
  auto refusedAt = [&](std::vector<BodyDef> defs, std::size_t index, const char* why) {
    try {
      (void)w.createBodies(defs);
      ADD_FAILURE() << "not refused: " << why;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("defs[" + std::to_string(index) + "]"), std::string::npos) << message;
      EXPECT_NE(message.find(why), std::string::npos) << message;
    }
    EXPECT_EQ(w.bodyCount(), count);
    EXPECT_EQ(state(w), stateBefore);
    EXPECT_EQ(w.snapshot(), before);
  };
  std::vector<BodyDef> defs = someDefs(20, 3);
  defs[7].radius = 0.0f;
  defs[12].radius = -1.0f;  // the lowest bad index is named
  refusedAt(defs, 7, "BodyDef.radius");
  defs = someDefs(20, 4);
  defs.back() = BodyDef::ball({79.5f, 40}, 1.0f);  // does not fit in the closed world
  refusedAt(defs, 19, "closed world");
  defs = someDefs(20, 5);
  defs[9].velocity = {1, 0};  // a moving static box
  ASSERT_EQ(defs[9].type, BodyType::StaticBox);
  refusedAt(defs, 9, "static box");
  // Enough good defs that the check runs in several ranges.
  defs = someDefs(10000, 6);
  defs[9999].position.x = std::numeric_limits<float>::quiet_NaN();
  defs[5000].density = 0.0f;
  refusedAt(defs, 5000, "density");

  EXPECT_TRUE(w.createBodies({}).empty());
  EXPECT_EQ(state(w), stateBefore);
  EXPECT_EQ(w.snapshot(), before);
}

// Every third body (static boxes included) to a place of its own.
void movesOf(const World& w, std::vector<BodyId>& ids, std::vector<Vec2>& to) {
  to.clear();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(5.0f, 75.0f);
  for (std::uint32_t i = 0; i < w.bodyCount(); i += 3) {
    ids.push_back(w.bodyAt(w.bodyCount() - 1 - i));  // not in dense order
    const Vec2 p{pos(rng), pos(rng)};                // x first: braces keep the order
    to.push_back(p);
  }
}

TEST_F(WorldBulk, SetPositionsEqualsSetPositionOneAtATime) {
  World bulk(pileDef()), single(pileDef());
  prepare(bulk);
  prepare(single);
  std::vector<BodyId> ids;
  std::vector<Vec2> to;
  movesOf(bulk, ids, to);
  std::vector<BodyId> same;  // single's bodies at the same dense indices
  movesOf(single, same, to);
  bulk.setPositions(ids, to);
  for (std::size_t k = 0; k < same.size(); ++k) single.setPosition(same[k], to[k]);
  EXPECT_EQ(state(bulk), state(single));
  for (int s = 0; s < 30; ++s) {
    bulk.step(1.0f / 60.0f);
    single.step(1.0f / 60.0f);
  }
  EXPECT_EQ(state(bulk), state(single));
  EXPECT_EQ(bulk.snapshot(), single.snapshot());
  std::vector<BodyId> found;
  bulk.queryBox({to[0] - Vec2{0.1f, 0.1f}, to[0] + Vec2{0.1f, 0.1f}}, found);
  EXPECT_FALSE(found.empty());  // the queries see where they went
  bulk.setPositions({}, {});
  EXPECT_EQ(state(bulk), state(single));
}

TEST_F(WorldBulk, SetPositionsRefusesAllOrNothing) {
  World w(pileDef());
  prepare(w);
  const std::vector<std::uint32_t> stateBefore = state(w);
  const std::vector<std::byte> before = w.snapshot();
  std::vector<BodyId> ids;
  std::vector<Vec2> to;
  movesOf(w, ids, to);
  auto refused = [&](const std::vector<BodyId>& i, const std::vector<Vec2>& p, const char* why) {
    try {
      w.setPositions(i, p);
      ADD_FAILURE() << "not refused: " << why;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(why), std::string::npos) << message;
    }
    EXPECT_EQ(state(w), stateBefore);
    EXPECT_EQ(w.snapshot(), before);
  };
  refused(ids, {to.begin(), to.end() - 1}, "ids for");
  std::vector<BodyId> twice = ids;
  twice.back() = twice.front();
  refused(twice, to, "given twice");
  std::vector<Vec2> outside = to;
  outside.back() = {79.5f, 40};  // a ball that does not fit in the closed world
  if (w.type(ids.back()) != BodyType::Ball) std::swap(ids.front(), ids.back());
  ASSERT_EQ(w.type(ids.back()), BodyType::Ball);
  refused(ids, outside, "closed world");
  std::vector<Vec2> notANumber = to;
  notANumber[1].y = std::numeric_limits<float>::quiet_NaN();
  refused(ids, notANumber, "setPositions position");
  std::vector<BodyId> stale = ids;
  const BodyId gone = w.bodyAt(5);
  w.destroyBody(gone);
  stale[2] = gone;
  const std::vector<std::uint32_t> afterDestroy = state(w);
  try {
    w.setPositions(stale, to);
    ADD_FAILURE() << "a destroyed body was moved";
  } catch (const Error&) {
  }
  EXPECT_EQ(state(w), afterDestroy);
}

// Element i of each span is bodyAt(i)'s, static boxes included.
void expectSpansMatch(const World& w) {
  const std::span<const Vec2> p = w.positions(), v = w.velocities();
  const std::span<const float> r = w.radii();
  ASSERT_EQ(p.size(), w.bodyCount());
  ASSERT_EQ(v.size(), w.bodyCount());
  ASSERT_EQ(r.size(), w.bodyCount());
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    EXPECT_EQ(p[i], w.position(id)) << i;
    EXPECT_EQ(v[i], w.velocity(id)) << i;
    EXPECT_EQ(r[i], w.radius(id)) << i;
    if (w.type(id) == BodyType::StaticBox) {
      EXPECT_EQ(p[i], w.bounds(id).center());
      EXPECT_EQ(v[i], Vec2{});
      EXPECT_EQ(r[i], 0.0f);
    }
  }
}

TEST_F(WorldBulk, SpansMatchThePerBodyAccessors) {
  World w(pileDef());
  expectSpansMatch(w);  // empty
  prepare(w);
  expectSpansMatch(w);
  (void)w.createBodies(someDefs(30, 9));
  expectSpansMatch(w);
  for (int s = 0; s < 20; ++s) {
    w.step(1.0f / 60.0f);
    expectSpansMatch(w);
  }
  // Every change shows at the next call.
  const BodyId ball = w.bodyAt(5);
  w.setPosition(ball, {40, 60});
  expectSpansMatch(w);
  w.setVelocity(ball, {3, 4});
  expectSpansMatch(w);
  EXPECT_EQ(w.velocities()[5], (Vec2{3, 4}));
  w.setAwake(ball, false);  // zeroes the velocity
  expectSpansMatch(w);
  EXPECT_EQ(w.velocities()[5], Vec2{});
  w.destroyBody(w.bodyAt(0));
  expectSpansMatch(w);
  const std::vector<std::byte> saved = w.snapshot();
  w.step(1.0f / 60.0f);
  w.restore(saved);
  expectSpansMatch(w);
}

// The moved-from world is used on purpose.
// NOLINTBEGIN(bugprone-use-after-move, clang-analyzer-cplusplus.Move)
TEST_F(WorldBulk, MovedFromWorldRefusesTheBulkCalls) {
  World w(pileDef());
  World other(std::move(w));
  EXPECT_THROW((void)w.positions(), Error);
  EXPECT_THROW((void)w.velocities(), Error);
  EXPECT_THROW((void)w.radii(), Error);
  EXPECT_THROW((void)w.createBodies(someDefs(3, 1)), Error);
  EXPECT_THROW(w.setPositions({}, {}), Error);
  EXPECT_THROW((void)w.snapshot(), Error);
  EXPECT_THROW(w.restore(other.snapshot()), Error);
}
// NOLINTEND(bugprone-use-after-move, clang-analyzer-cplusplus.Move)

}  // namespace
