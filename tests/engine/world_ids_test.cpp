// BodyId: ids know their world; stale, reused and foreign ids are refused.
#include <gtest/gtest.h>

#include <functional>
#include <quadbin/quadbin.hpp>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

static_assert(std::is_trivially_copyable_v<BodyId>);

using test::QuietLog;

using BodyIds = QuietLog;

struct State {
  std::vector<BodyId> ids;
  std::vector<Vec2> pos, vel;
  std::vector<bool> awake;
  friend bool operator==(const State&, const State&) = default;
};

State state(const World& w) {
  State s;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    s.ids.push_back(id);
    s.pos.push_back(w.position(id));
    s.vel.push_back(w.velocity(id));
    s.awake.push_back(w.isAwake(id));
  }
  return s;
}

// Every call that takes a BodyId, with `id`: each must throw an Error that
// names the id (its index, generation and world) and leave `w` unchanged.
void expectEveryCallRefuses(World& w, BodyId id, const char* mentions) {
  const State before = state(w);
  const std::string named = "world = " + std::to_string(id.world);
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"destroyBody", [&] { w.destroyBody(id); }},
      {"type", [&] { (void)w.type(id); }},
      {"position", [&] { (void)w.position(id); }},
      {"velocity", [&] { (void)w.velocity(id); }},
      {"radius", [&] { (void)w.radius(id); }},
      {"mass", [&] { (void)w.mass(id); }},
      {"bounds", [&] { (void)w.bounds(id); }},
      {"setPosition",
       [&] {
         w.setPosition(id, {50, 50});
       }},
      {"setVelocity",
       [&] {
         w.setVelocity(id, {1, 0});
       }},
      {"isAwake", [&] { (void)w.isAwake(id); }},
      {"setAwake", [&] { w.setAwake(id, false); }},
  };
  for (const auto& [name, call] : calls) {
    try {
      call();
      ADD_FAILURE() << name << " accepted " << mentions;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find(named), std::string::npos) << what;
      EXPECT_NE(what.find(mentions), std::string::npos) << what;
    }
    EXPECT_EQ(state(w), before) << name;
  }
  EXPECT_FALSE(w.isValid(id));
}

}  // namespace

TEST_F(BodyIds, EachWorldHasItsOwnNonzeroId) {
  World a, b;
  EXPECT_NE(a.id(), 0u);
  EXPECT_NE(b.id(), 0u);
  EXPECT_NE(a.id(), b.id());
  const BodyId id = a.createBody(BodyDef::ball({10, 10}, 1));
  EXPECT_EQ(id.world, a.id());
  EXPECT_EQ(a.bodyAt(0), id);
  EXPECT_EQ(BodyId{}.world, 0u);
}

TEST_F(BodyIds, AnIdFromAnotherWorldIsRefusedEverywhere) {
  World a, b;
  // The same slot and generation in both worlds: only the world tells them apart.
  const BodyId inA = a.createBody(BodyDef::ball({10, 10}, 1, {1, 0}));
  const BodyId inB = b.createBody(BodyDef::ball({20, 20}, 2, {0, 1}));
  ASSERT_EQ(inA.index, inB.index);
  ASSERT_EQ(inA.generation, inB.generation);
  EXPECT_NE(inA, inB);
  EXPECT_TRUE(b.isValid(inB));
  expectEveryCallRefuses(b, inA, "not from this world");
  EXPECT_EQ(b.position(inB), (Vec2{20, 20}));
  EXPECT_EQ(b.bodyCount(), 1u);
  EXPECT_EQ(a.position(inA), (Vec2{10, 10}));  // a is untouched too
}

TEST_F(BodyIds, DestroyedAndReusedIdsAreRefusedEverywhere) {
  World w;
  const BodyId gone = w.createBody(BodyDef::ball({10, 10}, 1));
  w.createBody(BodyDef::ball({30, 30}, 1));
  w.destroyBody(gone);
  expectEveryCallRefuses(w, gone, "stale");
  const BodyId reused = w.createBody(BodyDef::ball({60, 60}, 1));
  ASSERT_EQ(reused.index, gone.index);
  expectEveryCallRefuses(w, gone, "stale");
  EXPECT_TRUE(w.isValid(reused));
  // An id never made here: an index past every slot, and the null id.
  expectEveryCallRefuses(w, BodyId{1000, 0, w.id()}, "stale");
  expectEveryCallRefuses(w, BodyId{}, "null");
}

TEST_F(BodyIds, EventsAndQueriesCarryTheWorld) {
  WorldDef def;
  def.boundary = Boundary::Open;
  World w(def);
  w.createBody(BodyDef::ball({10, 50}, 1, {60, 0}));
  w.createBody(BodyDef::ball({13, 50}, 1, {}));
  std::vector<ContactEvent> events;
  for (int i = 0; i < 12; ++i) {
    w.step(1.0f / 60.0f);
    events.insert(events.end(), w.contactBeginEvents().begin(), w.contactBeginEvents().end());
  }
  ASSERT_FALSE(events.empty());
  for (const ContactEvent& e : events) {
    EXPECT_TRUE(w.isValid(e.a));
    EXPECT_TRUE(w.isValid(e.b));
  }
  std::vector<BodyId> found;
  w.queryRadius({10, 50}, 100, found);
  ASSERT_EQ(found.size(), 2u);
  for (const BodyId id : found) EXPECT_EQ(id.world, w.id());
}

TEST_F(BodyIds, HashTellsEveryFieldApart) {
  const std::hash<BodyId> hash;
  std::unordered_set<std::size_t> seen;
  for (std::uint32_t world = 1; world <= 4; ++world) {
    for (std::uint32_t generation = 0; generation < 4; ++generation) {
      for (std::uint32_t index = 0; index < 16; ++index) {
        seen.insert(hash(BodyId{index, generation, world}));
      }
    }
  }
  EXPECT_EQ(seen.size(), 4u * 4u * 16u);
  EXPECT_EQ(hash(BodyId{3, 1, 2}), hash(BodyId{3, 1, 2}));
  std::unordered_set<BodyId> ids{BodyId{1, 0, 1}, BodyId{1, 0, 2}, BodyId{1, 0, 1}};
  EXPECT_EQ(ids.size(), 2u);
}
