// destroyBody and the solver's persistent contacts: the destroyed body's
// contacts end, the body moved into its place keeps its contacts' impulses
// and colours, and every other contact keeps its warm start, so a pile
// that loses one ball does not sag as a whole for a step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <set>
#include <span>
#include <tuple>
#include <vector>

namespace quadbin {
namespace {

constexpr float kDt = 1.0f / 60.0f;

// A pile of 300 balls with friction (and rolling resistance on some) in the
// left half of a box, sleeping off; `loner` (when set) adds one more ball
// at rest on the floor of the right half, far from the pile, as the first
// or the last body.
enum class Loner : std::uint8_t { None, First, Last };

struct Pile {
  World world;
  std::vector<BodyId> balls;  // the pile's, in creation order
  BodyId loner;
};

Pile makePile(Loner loner) {
  WorldDef def;
  def.bounds = {{0, 0}, {80, 60}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.3f;
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  Pile p{World(def), {}, {}};
  auto addLoner = [&] { p.loner = p.world.createBody(BodyDef::ball({70.0f, 0.8f}, 0.8f)); };
  if (loner == Loner::First) addLoner();
  std::uint32_t state = 9;
  auto uniform = [&state](float lo, float hi) {
    state = state * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(state >> 8) / 16777216.0f;
  };
  for (int i = 0; i < 300; ++i) {
    BodyDef d = BodyDef::ball({uniform(1.5f, 28.5f), uniform(1.5f, 58.5f)},
                              0.6f + 0.1f * static_cast<float>(i % 5));
    d.friction = 0.5f;
    d.rollingResistance = i % 3 == 2 ? 0.1f : 0.0f;  // the last ball's too
    p.balls.push_back(p.world.createBody(d));
  }
  if (loner == Loner::Last) addLoner();
  for (int s = 0; s < 240; ++s) p.world.step(kDt);
  return p;
}

// The largest difference of the pile's velocities between two worlds.
float largestVelocityGap(const Pile& l, const Pile& r) {
  float most = 0.0f;
  for (std::size_t k = 0; k < l.balls.size(); ++k) {
    most = std::max(most, length(l.world.velocity(l.balls[k]) - r.world.velocity(r.balls[k])));
  }
  return most;
}

bool samePile(const Pile& l, const Pile& r) {
  for (std::size_t k = 0; k < l.balls.size(); ++k) {
    if (l.world.position(l.balls[k]) != r.world.position(r.balls[k]) ||
        l.world.velocity(l.balls[k]) != r.world.velocity(r.balls[k])) {
      return false;
    }
  }
  return true;
}

// Removing the last body, which touches only the floor, leaves the pile's
// contacts exactly as they were: the world steps on bit for bit as one that
// never had it (a destroy that forgot the contacts would start the pile's
// next step cold).
TEST(Destroy, LastBodyLeavesTheOthersContactsBitForBit) {
  Pile with = makePile(Loner::Last);
  Pile without = makePile(Loner::None);
  ASSERT_TRUE(samePile(with, without)) << "the loner must not reach the pile";
  with.world.destroyBody(with.loner);
  for (int s = 0; s < 30; ++s) {
    with.world.step(kDt);
    without.world.step(kDt);
    ASSERT_TRUE(samePile(with, without)) << "step " << s;
  }
}

// Removing the first body moves the pile's last ball into its place: that
// ball's contacts are renamed (pairs whose order flips swap ends) and keep
// their impulses, so the pile takes its next step as its twin does, but for
// the last bits: under 1e-4 in velocity, where a destroy that forgot the
// contacts left 0.70 and one that renamed without swapping ends 0.008
// (measured).
TEST(Destroy, MovedBodyKeepsItsWarmStart) {
  Pile with = makePile(Loner::First);
  Pile twin = makePile(Loner::None);
  ASSERT_TRUE(samePile(with, twin)) << "the loner must not reach the pile";
  ASSERT_EQ(with.world.bodyAt(0), with.loner);
  with.world.destroyBody(with.loner);
  ASSERT_EQ(with.world.bodyAt(0), with.balls.back()) << "the last ball moved";
  for (Pile* p : {&with, &twin}) p->world.step(kDt);
  EXPECT_LT(largestVelocityGap(with, twin), 1e-4f);
}

// Balls destroyed out of order, pile and loner alike, between steps and
// several at once: the world goes on stepping (debug builds check after
// each destroy that the contacts are in canonical order, name live bodies
// and hold exactly the colours recorded per ball), every contact event
// names live or just-destroyed bodies, and the pile stays in its box.
TEST(Destroy, ManyOutOfOrderKeepTheContactsConsistent) {
  Pile p = makePile(Loner::Last);
  std::vector<BodyId> live = p.balls;
  std::uint32_t state = 5;
  for (int round = 0; round < 20; ++round) {
    for (int k = 0; k < 1 + round % 4; ++k) {
      state = state * 1664525u + 1013904223u;
      const std::size_t at = (state >> 8) % live.size();
      p.world.destroyBody(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
    p.world.step(kDt);
    for (const ContactEvent& e : p.world.contactBeginEvents()) {
      EXPECT_TRUE(p.world.isValid(e.a) && p.world.isValid(e.b));
    }
  }
  const AABB box = p.world.def().bounds;
  for (const BodyId id : live) {
    const Vec2 c = p.world.position(id);
    EXPECT_TRUE(contains(box, c)) << c.x << ", " << c.y;
  }
}

// Many bodies destroyed between two steps, a slot reused and its new body
// destroyed too, a body disabled: the next step ends exactly the touching
// pairs of the bodies gone (kept from the events of every step so far),
// each once, in order, besides the pairs that came apart on their own;
// and a snapshot taken before that step restores to a world that reports
// the same ends.
TEST(Destroy, ManyAtOnceEndTheirTouchingPairsOnceEach) {
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
  auto key = [](const ContactEvent& e) {
    return Key{e.a.index, e.b.index, e.a.generation, e.b.generation};
  };
  std::set<Key> touching;  // from the events of every step
  auto track = [&](const World& w) {
    for (const ContactEvent& e : w.contactEndEvents()) touching.erase(key(e));
    for (const ContactEvent& e : w.contactBeginEvents()) touching.insert(key(e));
  };
  WorldDef def;
  def.bounds = {{0, 0}, {80, 60}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.3f;
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  World w(def);
  std::vector<BodyId> balls;
  for (int i = 0; i < 400; ++i) {
    const auto x = static_cast<float>(i % 20), y = static_cast<float>(i / 20);
    balls.push_back(w.createBody(BodyDef::ball({2.0f + 1.9f * x, 1.0f + 1.9f * y}, 1.0f)));
  }
  for (int s = 0; s < 120; ++s) {
    w.step(kDt);
    track(w);
  }
  ASSERT_GT(touching.size(), 300u);
  std::set<std::uint32_t> goneSlots;
  for (std::size_t k = 0; k < balls.size(); k += 3) {
    goneSlots.insert(balls[k].index);
    w.destroyBody(balls[k]);
  }
  const BodyId reused = w.createBody(BodyDef::ball({70.0f, 50.0f}, 1.0f));
  ASSERT_TRUE(goneSlots.contains(reused.index)) << "a freed slot is reused";
  w.destroyBody(reused);
  w.setEnabled(balls[1], false);
  goneSlots.insert(balls[1].index);
  const std::vector<std::byte> saved = w.snapshot();
  World restored(def);
  restored.restore(saved);
  w.step(kDt);
  restored.step(kDt);
  const std::span<const ContactEvent> ends = w.contactEndEvents();
  std::set<Key> ended;
  for (std::size_t k = 0; k < ends.size(); ++k) {
    EXPECT_TRUE(ended.insert(key(ends[k])).second) << "an end reported twice";
    if (k > 0) {
      EXPECT_LT(key(ends[k - 1]), key(ends[k]));
    }
    EXPECT_TRUE(touching.contains(key(ends[k]))) << "an end of a pair that did not touch";
  }
  std::size_t theirs = 0;
  for (const Key& k : touching) {
    if (goneSlots.contains(std::get<0>(k)) || goneSlots.contains(std::get<1>(k))) {
      EXPECT_TRUE(ended.contains(k)) << "a destroyed body's touching pair did not end";
      ++theirs;
    }
  }
  EXPECT_GT(theirs, 100u);
  const std::span<const ContactEvent> restoredEnds = restored.contactEndEvents();
  ASSERT_EQ(restoredEnds.size(), ends.size());
  for (std::size_t k = 0; k < ends.size(); ++k) EXPECT_EQ(key(restoredEnds[k]), key(ends[k]));
}

// A world of every kind of body: static boxes, a kinematic paddle and
// ball, and balls (with and without friction) dropped on them by
// addBalls, placed by a generator of its own; sleeping on.
struct MixedWorld {
  explicit MixedWorld(std::uint32_t seed) : world(def()), state(seed) {
    for (int i = 0; i < 6; ++i) {
      const float x = 5.0f + 9.0f * static_cast<float>(i);
      live.push_back(world.createBody(BodyDef::staticBox({{x, 8}, {x + 5, 9}})));
    }
    live.push_back(world.createBody(BodyDef::kinematicBox({{2, 3}, {8, 4}}, {3, 0})));
    live.push_back(world.createBody(BodyDef::kinematicBall({50, 20}, 1.5f, {-2, 0})));
  }
  static WorldDef def() {
    WorldDef d;
    d.bounds = {{0, 0}, {60, 40}};
    d.gravity = {0, -9.8f};
    d.restitution = 0.2f;
    d.logLevel = LogLevel::Off;
    return d;
  }
  std::uint32_t next(std::uint32_t bound) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % bound;
  }
  void addBalls(int count) {
    for (int k = 0; k < count; ++k) {
      const Vec2 at{2.0f + static_cast<float>(next(560)) * 0.1f,
                    10.0f + static_cast<float>(next(280)) * 0.1f};
      BodyDef d = BodyDef::ball(at, 0.5f + 0.1f * static_cast<float>(next(5)));
      d.friction = next(2) == 0 ? 0.4f : 0.0f;
      live.push_back(world.createBody(d));
    }
  }
  void steps(int count) {
    for (int s = 0; s < count; ++s) world.step(kDt);
  }

  World world;
  std::vector<BodyId> live;  // in creation order
  std::uint32_t state;
};

// Every kind of body destroyed among the others: balls resting on static
// boxes, a kinematic paddle and ball sweeping through them, and those
// destroyed in turn (their contacts name them as b), with balls created in
// between; sleeping on. The world keeps stepping with every ball inside it
// (and, in debug builds, consistent contacts after every destroy).
TEST(Destroy, BoxesKinematicsAndBallsAmongEachOther) {
  MixedWorld m(11);
  World& w = m.world;
  std::vector<BodyId>& live = m.live;
  m.addBalls(400);
  m.steps(60);
  for (int round = 0; round < 40; ++round) {
    for (int k = 0; k < 3 && !live.empty(); ++k) {
      const std::size_t at = m.next(static_cast<std::uint32_t>(live.size()));
      w.destroyBody(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (round % 5 == 0) m.addBalls(10);
    w.step(kDt);
  }
  EXPECT_EQ(w.bodyCount(), live.size());
  const AABB box = MixedWorld::def().bounds;
  for (const BodyId id : live) {
    ASSERT_TRUE(w.isValid(id));
    if (w.type(id) != BodyType::Ball) continue;
    const Vec2 c = w.position(id);
    EXPECT_TRUE(contains(box, c)) << c.x << ", " << c.y;
  }
}

// The mixed world with 500 balls, stepped a while.
MixedWorld settledMixedWorld() {
  MixedWorld m(3);
  m.addBalls(500);
  m.steps(90);
  return m;
}

// Bodies `picks` of two equal worlds destroyed, all at once in `bulk` and
// one by one in `one`: the same bodies, contacts and snapshot to the byte,
// then over `steps` steps the same snapshots and contact end events.
void expectDestroyedAlike(World& bulk, const std::vector<BodyId>& bulkIds, World& one,
                          const std::vector<BodyId>& oneIds, std::span<const std::size_t> picks,
                          int steps) {
  std::vector<BodyId> gone;
  for (const std::size_t k : picks) gone.push_back(bulkIds[k]);
  bulk.destroyBodies(gone);
  for (const std::size_t k : picks) one.destroyBody(oneIds[k]);
  ASSERT_EQ(bulk.bodyCount(), one.bodyCount());
  ASSERT_EQ(bulk.contacts().size(), one.contacts().size());
  ASSERT_EQ(bulk.snapshot(), one.snapshot());
  for (int s = 0; s < steps; ++s) {
    bulk.step(kDt);
    one.step(kDt);
    ASSERT_EQ(bulk.snapshot(), one.snapshot()) << "step " << s;
    ASSERT_EQ(bulk.contactEndEvents().size(), one.contactEndEvents().size()) << "step " << s;
  }
}

// destroyBodies is destroyBody for each id in turn: the same snapshot to
// the byte (dense order, contacts with their impulses and colours, touching
// pairs and pending ends), then the same steps and events; boxes, kinematic
// bodies, the last body and ones moved by earlier removals among them.
TEST(Destroy, ManyAtOnceAreTheCallsOneByOne) {
  MixedWorld bulkWorld = settledMixedWorld(), oneWorld = settledMixedWorld();
  World& bulk = bulkWorld.world;
  World& one = oneWorld.world;
  const std::vector<BodyId>& bulkIds = bulkWorld.live;
  const std::vector<BodyId>& oneIds = oneWorld.live;
  ASSERT_EQ(bulk.snapshot(), one.snapshot());
  std::vector<std::size_t> picks{bulkIds.size() - 1, 0, 6, 7, bulkIds.size() - 2};
  for (std::size_t k = 9; k < bulkIds.size(); k += 4) picks.push_back(k);
  std::swap(picks[5], picks[picks.size() - 1]);  // not in creation order
  ASSERT_NO_FATAL_FAILURE(expectDestroyedAlike(bulk, bulkIds, one, oneIds, picks, 30));
  bulk.destroyBodies({});  // nothing to do
  EXPECT_EQ(bulk.snapshot(), one.snapshot());
  // A second call on the same world (what the first left in its kept
  // scratch must not leak into it).
  const std::vector<std::size_t> more{1, 2, 3, 5, 10};
  SCOPED_TRACE("after the second call");
  expectDestroyedAlike(bulk, bulkIds, one, oneIds, more, 10);
}

// A row of touching balls made first and lone balls last: removing balls
// from the row's middle moves lone balls (no contacts) into the holes, so
// the row's contacts past the last removed ball are renamed by no one and
// must all be kept, in order, by the call for many as by the calls one by
// one.
TEST(Destroy, ManyAtOnceKeepTheContactsPastTheLastRemoved) {
  auto make = [] {
    WorldDef def;
    def.bounds = {{0, 0}, {100, 100}};
    def.gravity = {0, 0};
    def.enableSleep = false;
    def.logLevel = LogLevel::Off;
    World w(def);
    std::vector<BodyId> ids;
    for (int i = 0; i < 40; ++i) {
      ids.push_back(w.createBody(BodyDef::ball({10.0f + 0.99f * static_cast<float>(i), 10}, 0.5f)));
    }
    for (int i = 0; i < 10; ++i) {
      ids.push_back(w.createBody(BodyDef::ball({60.0f + 3.0f * static_cast<float>(i), 80}, 0.5f)));
    }
    w.step(kDt);
    return std::pair{std::move(w), ids};
  };
  auto [bulk, bulkIds] = make();
  auto [one, oneIds] = make();
  ASSERT_GE(bulk.contacts().size(), 30u);  // the row touches
  const std::vector<std::size_t> picks{5, 12, 20};
  expectDestroyedAlike(bulk, bulkIds, one, oneIds, picks, 10);
}

// All or nothing: a stale id, one from another world or one given twice
// refuses the whole call, the world unchanged.
TEST(Destroy, ManyAtOnceRefuseABadIdWithNothingChanged) {
  MixedWorld mine = settledMixedWorld(), theirs = settledMixedWorld();
  World& w = mine.world;
  const std::vector<BodyId>& ids = mine.live;
  const std::vector<BodyId>& others = theirs.live;
  w.destroyBody(ids[20]);
  const std::vector<std::byte> before = w.snapshot();
  const std::vector<std::vector<BodyId>> bad{
      {ids[10], ids[20]}, {ids[10], ids[11], ids[10]}, {ids[10], others[12]}};
  for (const std::vector<BodyId>& list : bad) {
    EXPECT_THROW(w.destroyBodies(list), Error);
    EXPECT_EQ(w.snapshot(), before);
    EXPECT_TRUE(w.isValid(ids[10]));
  }
}

}  // namespace
}  // namespace quadbin
