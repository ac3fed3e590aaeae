// Incremental spatial queries (engine/src/queries/query_delta.hpp): a query after a
// few changes answers from the bodies of the last refill (the delta's own
// index of them for a small query, the broad phase for a large one) plus
// the changed bodies. Every answer must equal that of a twin world whose
// index is refilled from scratch before each query, for every broad phase,
// and the box and radius queries' must equal brute force's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <quadbin/quadbin.hpp>
#include <random>

#include "support/query_oracle.hpp"

using namespace quadbin;
using quadbin::test::bruteBox;
using quadbin::test::bruteRadius;
using quadbin::test::indices;
using quadbin::test::paramName;

namespace {

// The same world twice: `live` answers incrementally, `ref` rebuilds its
// broad phase (setBroadPhase empties it) before every query.
class Twins {
 public:
  Twins(BroadPhaseType type, Boundary boundary, std::uint32_t threads) {
    WorldDef def;
    def.boundary = boundary;
    def.bounds = {{0, 0}, {200, 200}};
    def.broadPhase = type;
    def.threadCount = threads;
    def.logLevel = LogLevel::Off;
    live = std::make_unique<World>(def);
    ref = std::make_unique<World>(def);
  }

  void create(const BodyDef& d) {
    const BodyId a = live->createBody(d);
    const BodyId b = ref->createBody(d);
    ASSERT_EQ(a.index, b.index);
    ASSERT_EQ(a.generation, b.generation);
  }
  void destroy(std::uint32_t dense) {
    live->destroyBody(live->bodyAt(dense));
    ref->destroyBody(ref->bodyAt(dense));
  }
  void move(std::uint32_t dense, Vec2 p) {
    live->setPosition(live->bodyAt(dense), p);
    ref->setPosition(ref->bodyAt(dense), p);
  }
  void step() {
    // Both start the step from an empty structure, so they step alike.
    live->setBroadPhase(live->def().broadPhase);
    ref->setBroadPhase(ref->def().broadPhase);
    live->step(1.0f / 60.0f);
    ref->step(1.0f / 60.0f);
  }
  void fresh() { ref->setBroadPhase(ref->def().broadPhase); }

  static void same(std::span<const BodyId> a, std::span<const BodyId> b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].index, b[i].index) << "at " << i;
      ASSERT_EQ(a[i].generation, b[i].generation) << "at " << i;
    }
  }

  void checkBox(const AABB& box) {
    fresh();
    std::vector<BodyId> a, b;
    live->queryBox(box, a);
    ref->queryBox(box, b);
    same(a, b);
    ASSERT_EQ(indices(a), bruteBox(*live, box));
  }
  void checkRadius(Vec2 c, float r) {
    fresh();
    std::vector<BodyId> a, b;
    live->queryRadius(c, r, a);
    ref->queryRadius(c, r, b);
    same(a, b);
    ASSERT_EQ(indices(a), bruteRadius(*live, c, r));
  }
  void checkRay(const Ray& ray) {
    fresh();
    std::vector<RayHit> a, b;
    live->raycastAll(ray, a);
    ref->raycastAll(ray, b);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].body.index, b[i].body.index);
      ASSERT_EQ(a[i].t, b[i].t);
      ASSERT_EQ(a[i].point, b[i].point);
      ASSERT_EQ(a[i].normal, b[i].normal);
    }
  }
  void checkNearest(Vec2 p, std::uint32_t k) {
    fresh();
    std::vector<BodyId> a, b;
    live->nearest(p, k, a);
    ref->nearest(p, k, b);
    same(a, b);
  }

  std::unique_ptr<World> live;
  std::unique_ptr<World> ref;
};

class IncrementalQueries : public ::testing::TestWithParam<BroadPhaseType> {};

// Random interleavings of creates, destroys, moves, steps and all four
// queries; the delta is both small (a few changes) and past its limit.
void interleave(BroadPhaseType type, std::uint32_t threads, unsigned seed, int ops) {
  Twins t(type, Boundary::Open, threads);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-20, 220), rad(0.3f, 3.0f), vel(-20, 20), u(0, 1);
  for (int i = 0; i < 150; ++i) {
    t.create(BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)}));
  }
  for (int op = 0; op < ops; ++op) {
    const float roll = u(rng);
    const auto n = t.live->bodyCount();
    // Bursts of changes (up to ~100) between queries, so the delta fills.
    const int burst = u(rng) < 0.2f ? 40 + static_cast<int>(u(rng) * 60) : 1;
    if (roll < 0.30f) {
      for (int k = 0; k < burst; ++k) {
        if (u(rng) < 0.15f) {
          const Vec2 p{pos(rng), pos(rng)};
          // Some boxes far larger than the balls (the delta keeps those apart).
          const float grow = u(rng) < 0.3f ? 20.0f : 2.0f;
          t.create(BodyDef::staticBox({p, p + Vec2{rad(rng) * grow, rad(rng)}}));
        } else {
          t.create(BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)}));
        }
      }
    } else if (roll < 0.45f && n > 10) {
      for (int k = 0; k < burst && t.live->bodyCount() > 10; ++k) {
        t.destroy(static_cast<std::uint32_t>(u(rng) * static_cast<float>(t.live->bodyCount() - 1)));
      }
    } else if (roll < 0.60f && n > 0) {
      for (int k = 0; k < burst; ++k) {
        const auto i = static_cast<std::uint32_t>(u(rng) * static_cast<float>(n - 1));
        if (t.live->type(t.live->bodyAt(i)) == BodyType::Ball) t.move(i, {pos(rng), pos(rng)});
      }
    } else if (roll < 0.63f) {
      t.step();
    } else if (roll < 0.73f) {
      const Vec2 p{pos(rng), pos(rng)};
      // Mostly small boxes (a few cells of the delta), some over everything.
      const float size = u(rng) < 0.1f ? 1000.0f : 40.0f;
      t.checkBox({p - Vec2{size, size} * 0.5f, p + Vec2{u(rng) * size, u(rng) * size}});
    } else if (roll < 0.83f) {
      t.checkRadius({pos(rng), pos(rng)}, u(rng) * 30);
    } else if (roll < 0.92f) {
      const Vec2 o{pos(rng), pos(rng)};
      const float a = u(rng) * 6.2831853f;
      t.checkRay({o, {std::cos(a), std::sin(a)}, 50 + u(rng) * 200});
    } else {
      t.checkNearest({pos(rng), pos(rng)}, 1 + static_cast<std::uint32_t>(u(rng) * 20));
    }
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "seed " << seed << " op " << op;
      return;
    }
  }
}

TEST_P(IncrementalQueries, RandomInterleavingsMatchAFullRebuild) {
  for (unsigned seed = 1; seed <= 2; ++seed) {
    interleave(GetParam(), 1, seed, 500);
    if (HasFatalFailure()) return;
  }
}

TEST_P(IncrementalQueries, ManyThreadsMatchAFullRebuild) { interleave(GetParam(), 8, 99, 300); }

// The spawn-if-free loop: a query before each create must see every body
// made before it, whether the delta holds it or the structure does.
TEST_P(IncrementalQueries, SpawnIfFreeSeesEveryEarlierSpawn) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.broadPhase = GetParam();
  def.threadCount = 1;
  def.logLevel = LogLevel::Off;
  World world(def);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(1, 99);
  std::vector<Vec2> placed;
  std::vector<BodyId> near;
  for (int i = 0; i < 3000; ++i) {
    const Vec2 p{pos(rng), pos(rng)};
    world.queryRadius(p, 1.0f, near);
    // Brute force with the world's own rule: reach = query radius + ball radius.
    std::size_t want = 0;
    for (const Vec2 q : placed) {
      if (lengthSquared(q - p) <= 1.5f * 1.5f) ++want;
    }
    ASSERT_EQ(near.size(), want) << "spawn " << i;
    if (near.empty()) {
      world.createBody(BodyDef::ball(p, 0.5f));
      placed.push_back(p);
    }
  }
  EXPECT_GT(placed.size(), 500u);
}

// Long runs of changes between refills: the delta grows to three times as
// many entries as the structure holds (its hash table doubling past n),
// and rays, cast now and then, switch it to the smaller limit rays allow
// until the next refill. Every answer equals a full rebuild's.
TEST_P(IncrementalQueries, LongRunsOfChangesAndOccasionalRaysMatchAFullRebuild) {
  Twins t(GetParam(), Boundary::Open, 1);
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> pos(-20, 220), rad(0.3f, 2.0f), u(0, 1);
  for (int i = 0; i < 2500; ++i) {
    const Vec2 p{pos(rng), pos(rng)};
    if (i % 9 == 8) {
      t.create(BodyDef::staticBox({p, p + Vec2{rad(rng) * 15, rad(rng)}}));  // some large
    } else {
      t.create(BodyDef::ball(p, rad(rng)));
    }
    if (i > 600 && i % 5 == 0) {  // moves: a body changed twice leaves a dead entry
      const auto k =
          static_cast<std::uint32_t>(u(rng) * static_cast<float>(t.live->bodyCount() - 1));
      if (t.live->type(t.live->bodyAt(k)) == BodyType::Ball) t.move(k, {pos(rng), pos(rng)});
    }
    if (i > 1200 && i % 11 == 0) t.destroy(static_cast<std::uint32_t>(u(rng) * 1000));
    if (i % 3 == 0) t.checkRadius({pos(rng), pos(rng)}, u(rng) * 4);
    if (i % 17 == 0) {
      const Vec2 p0{pos(rng), pos(rng)};
      t.checkBox({p0, p0 + Vec2{u(rng) * 30, u(rng) * 30}});
    }
    if (i % 97 == 0) t.checkNearest({pos(rng), pos(rng)}, 3);
    // Rays in some stretches only.
    if ((i / 500) % 2 == 1 && i % 13 == 0) {
      const float a = u(rng) * 6.2831853f;
      t.checkRay({{pos(rng), pos(rng)}, {std::cos(a), std::sin(a)}, 300});
    }
    if (HasFatalFailure()) {
      ADD_FAILURE() << "at " << i;
      return;
    }
  }
}

// A step of a large world (QueryIndex::kAdoptFrom bodies or more) leaves
// its broad phase, with the step's swept boxes, as the queries' structure:
// the delta then holds the bodies outside their box (pushed by the
// position correction, grown by the solve). A crowded gas of 20,000 balls,
// some fast, with static and kinematic boxes; after each step, queries of
// every kind, then moves, creates and destroys between more of them:
// every answer equals a full rebuild's and brute force's.
TEST_P(IncrementalQueries, AfterALargeWorldsStepMatchAFullRebuild) {
  if (GetParam() == BroadPhaseType::BruteForce) GTEST_SKIP() << "n^2 / 2 per step at 20,000";
  Twins t(GetParam(), Boundary::Open, 2);
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> pos(0, 200), u(0, 1), vel(-30, 30);
  for (int i = 0; i < 20000; ++i) {
    const Vec2 p{pos(rng), pos(rng)};
    if (i % 400 == 0) {
      t.create(BodyDef::staticBox({p, p + Vec2{3, 1}}));
    } else if (i % 999 == 0) {
      t.create(BodyDef::kinematicBox({p, p + Vec2{2, 2}}, {vel(rng), vel(rng)}));
    } else {
      const float fast = i % 40 == 0 ? 5.0f : 1.0f;  // escapees
      t.create(BodyDef::ball(p, 0.4f + 0.4f * u(rng), Vec2{vel(rng), vel(rng)} * fast));
    }
  }
  for (int s = 0; s < 4; ++s) {
    t.step();
    for (int q = 0; q < 16; ++q) {
      const Vec2 p{pos(rng), pos(rng)};
      switch (q % 4) {
        case 0:
          t.checkBox({p, p + Vec2{u(rng) * 6, u(rng) * 6}});
          break;
        case 1:
          t.checkRadius(p, u(rng) * 3);
          break;
        case 2: {
          const float a = u(rng) * 6.2831853f;
          t.checkRay({p, {std::cos(a), std::sin(a)}, 40});
          break;
        }
        default:
          t.checkNearest(p, 4);
      }
      if (q >= 8) {  // changes between the later ones
        const auto n = t.live->bodyCount();
        const auto i = static_cast<std::uint32_t>(u(rng) * static_cast<float>(n - 1));
        if (q % 3 == 0) {
          t.create(BodyDef::ball({pos(rng), pos(rng)}, 0.5f));
        } else if (q % 3 == 1) {
          t.destroy(i);
        } else if (t.live->type(t.live->bodyAt(i)) == BodyType::Ball) {
          t.move(i, {pos(rng), pos(rng)});
        }
      }
      if (HasFatalFailure()) {
        ADD_FAILURE() << "step " << s << " query " << q;
        return;
      }
    }
  }
}

// Changed bodies of every size, from a twentieth of a unit to a thousand
// units (the delta files each at the level of the grid it fits, 4x coarser
// per level), among balls of the log-uniform radii of the mixed scene:
// moves and creates between queries of every size, some queries with edges
// on the bodies' own edges. Every answer equals brute force and a full
// rebuild.
TEST_P(IncrementalQueries, ChangedBodiesOfEverySizeMatchBruteForce) {
  Twins t(GetParam(), Boundary::Open, 1);
  std::mt19937 rng(33);
  std::uniform_real_distribution<float> pos(-50, 250), logSize(std::log(0.05f), std::log(1000.0f)),
      logRadius(std::log(0.5f), std::log(16.0f)), u(0, 1);
  auto any = [&](Vec2 p) {
    const float size = std::exp(logSize(rng));
    if (u(rng) < 0.5f) return BodyDef::ball(p, size * 0.5f);
    return BodyDef::staticBox({p, p + Vec2{size, size * (0.2f + u(rng))}});
  };
  for (int i = 0; i < 400; ++i) {
    t.create(BodyDef::ball({pos(rng), pos(rng)}, std::exp(logRadius(rng))));
  }
  t.step();  // refilled with the balls: the delta's cell fits them
  for (int i = 0; i < 600; ++i) {
    const Vec2 p{pos(rng), pos(rng)};
    if (u(rng) < 0.6f) {
      t.create(any(p));
    } else {
      const auto k =
          static_cast<std::uint32_t>(u(rng) * static_cast<float>(t.live->bodyCount() - 1));
      if (t.live->type(t.live->bodyAt(k)) == BodyType::Ball) t.move(k, p);
    }
    const Vec2 q{pos(rng), pos(rng)};
    const float size = std::exp(logSize(rng));
    if (i % 3 == 0) {
      t.checkBox({q, q + Vec2{size, size}});
    } else if (i % 3 == 1) {
      t.checkRadius(q, size * 0.5f);
    } else {
      // A box whose corner is the last body's: touching counts.
      const AABB b = t.live->bounds(t.live->bodyAt(t.live->bodyCount() - 1));
      t.checkBox({b.max, b.max + Vec2{size, size}});
    }
    if (HasFatalFailure()) {
      ADD_FAILURE() << "at " << i;
      return;
    }
  }
}

// Small queries, mostly in empty space, where the cells' occupancy lets a
// query skip the structure: with few large boxes (answered from their
// list) and with many (the structure is always asked), queries that just
// touch a ball, and boxes far outside every body. Every answer equals
// brute force.
TEST_P(IncrementalQueries, SmallQueriesInEmptySpaceMatchBruteForce) {
  for (const int large : {5, 40}) {
    WorldDef def;
    def.bounds = {{0, 0}, {200, 200}};
    def.broadPhase = GetParam();
    def.threadCount = 1;
    def.logLevel = LogLevel::Off;
    World w(def);
    std::mt19937 rng(static_cast<unsigned>(large));
    std::uniform_real_distribution<float> pos(1, 199), rad(0.3f, 0.8f), u(0, 1);
    for (int i = 0; i < large; ++i) {
      const Vec2 p{pos(rng), pos(rng)};
      w.createBody(BodyDef::staticBox({p, p + Vec2{2 + u(rng) * 20, 2 + u(rng) * 5}}));
    }
    for (int i = 0; i < 200; ++i) w.createBody(BodyDef::ball({pos(rng), pos(rng)}, rad(rng)));
    std::vector<BodyId> got;
    for (int op = 0; op < 1500; ++op) {
      const float roll = u(rng);
      const auto n = w.bodyCount();
      if (roll < 0.25f) {
        w.createBody(BodyDef::ball({pos(rng), pos(rng)}, rad(rng)));
      } else if (roll < 0.30f) {
        const BodyId id = w.bodyAt(static_cast<std::uint32_t>(u(rng) * static_cast<float>(n - 1)));
        if (w.type(id) == BodyType::Ball) w.setPosition(id, {pos(rng), pos(rng)});
      } else if (roll < 0.33f && n > 300) {
        w.destroyBody(w.bodyAt(static_cast<std::uint32_t>(u(rng) * static_cast<float>(n - 1))));
      } else if (roll < 0.34f) {
        w.step(1.0f / 60.0f);
      } else if (roll < 0.60f) {
        const Vec2 c{pos(rng), pos(rng)};
        const float r = u(rng) * 2;
        w.queryRadius(c, r, got);
        ASSERT_EQ(indices(got), bruteRadius(w, c, r)) << "large " << large << " op " << op;
      } else if (roll < 0.80f) {
        // A box whose corner just touches a ball's tight box.
        const BodyId id = w.bodyAt(static_cast<std::uint32_t>(u(rng) * static_cast<float>(n - 1)));
        const AABB b = w.bounds(id);
        const AABB q{b.max, b.max + Vec2{u(rng), u(rng)}};
        w.queryBox(q, got);
        ASSERT_EQ(indices(got), bruteBox(w, q)) << "large " << large << " op " << op;
      } else if (roll < 0.98f) {
        const Vec2 c{pos(rng), pos(rng)};
        const AABB q{c, c + Vec2{u(rng) * 3, u(rng) * 3}};
        w.queryBox(q, got);
        ASSERT_EQ(indices(got), bruteBox(w, q)) << "large " << large << " op " << op;
      } else {
        // Far outside every body, and reaching the coordinate limit.
        const AABB far{{9e8f, -1e9f}, {1e9f, -9e8f}};
        w.queryBox(far, got);
        EXPECT_TRUE(got.empty());
        const AABB all{{-1e9f, -1e9f}, {1e9f, 1e9f}};
        w.queryBox(all, got);
        ASSERT_EQ(got.size(), w.bodyCount());
      }
    }
  }
}

// ---- open worlds -----------------------------------------------------------

// Boxes around `count` centres spread uniformly over [-side/2, side/2]^2
// around the bounds' centre (50, 50).
std::vector<AABB> spreadBoxes(float side, std::uint32_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-side / 2, side / 2), rad(0.2f, 1.5f);
  std::vector<AABB> boxes;
  for (std::uint32_t i = 0; i < count; ++i) {
    boxes.push_back(AABB::fromCircle({50 + pos(rng), 50 + pos(rng)}, rad(rng)));
  }
  return boxes;
}

std::vector<Pair> brutePairs(std::span<const AABB> boxes) {
  std::vector<Pair> pairs;
  for (std::uint32_t a = 0; a < boxes.size(); ++a) {
    for (std::uint32_t b = a + 1; b < boxes.size(); ++b) {
      if (overlaps(boxes[a], boxes[b])) pairs.push_back({a, b});
    }
  }
  return pairs;
}

class OpenWorld : public ::testing::TestWithParam<BroadPhaseType> {};

// Bodies that spread from inside the bounds to 100x their side and gather
// again (the layout grows, is laid again and comes back): every frame's
// pairs and queries equal brute force's.
TEST_P(OpenWorld, StructureStaysExactAsBodiesSpreadAndGather) {
  auto bp = makeBroadPhase(GetParam());
  bp->setBounds({{0, 0}, {100, 100}});
  const std::vector<float> sides = {80, 150, 300, 1000, 3000, 10000, 10000, 2500, 600, 90, 80};
  std::mt19937 rng(3);
  for (std::size_t f = 0; f < sides.size(); ++f) {
    const auto boxes = spreadBoxes(sides[f], 1500, static_cast<unsigned>(f));
    bp->update(boxes);
    std::vector<Pair> got;
    bp->findPairs(got);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, brutePairs(boxes)) << "frame " << f << " side " << sides[f];
    std::uniform_real_distribution<float> pos(-sides[f] / 2, sides[f] / 2), size(0, 60);
    for (int q = 0; q < 50; ++q) {
      const Vec2 p{50 + pos(rng), 50 + pos(rng)};
      const AABB box{p, p + Vec2{size(rng), size(rng)}};
      std::vector<std::uint32_t> found, want;
      bp->query(box, found);
      std::sort(found.begin(), found.end());
      for (std::uint32_t i = 0; i < boxes.size(); ++i) {
        if (touches(boxes[i], box)) want.push_back(i);
      }
      ASSERT_EQ(found, want) << "frame " << f << " query " << q;
    }
  }
}

// The same bodies spread over 100x the bounds' side in an open world with
// small bounds and in one whose bounds fit them: the same queries, and the
// same candidate pairs in the first step.
TEST_P(OpenWorld, SpreadWorldAnswersAsAFittingWorld) {
  auto make = [&](float bound) {
    WorldDef def;
    def.boundary = Boundary::Open;
    def.bounds = {{50 - bound / 2, 50 - bound / 2}, {50 + bound / 2, 50 + bound / 2}};
    def.broadPhase = GetParam();
    def.threadCount = 1;
    def.logLevel = LogLevel::Off;
    return std::make_unique<World>(def);
  };
  auto small = make(100);
  auto fitting = make(10000);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(-5000, 5000), rad(0.2f, 1.5f), vel(-30, 30);
  std::vector<BodyDef> defs;
  // Dense enough to touch: clusters of 100 balls over the whole extent.
  for (int c = 0; c < 250; ++c) {
    const Vec2 centre{50 + pos(rng), 50 + pos(rng)};
    std::uniform_real_distribution<float> near(-12, 12);
    for (int i = 0; i < 100; ++i) {
      defs.push_back(
          BodyDef::ball(centre + Vec2{near(rng), near(rng)}, rad(rng), {vel(rng), vel(rng)}));
    }
  }
  small->createBodies(defs);
  fitting->createBodies(defs);
  for (int q = 0; q < 200; ++q) {
    const Vec2 p{50 + pos(rng), 50 + pos(rng)};
    std::vector<BodyId> a, b;
    small->queryRadius(p, 40, a);
    fitting->queryRadius(p, 40, b);
    Twins::same(a, b);
    small->nearest(p, 5, a);
    fitting->nearest(p, 5, b);
    Twins::same(a, b);
  }
  small->step(1.0f / 60.0f);
  fitting->step(1.0f / 60.0f);
  EXPECT_GT(small->stats().candidatePairs, 1000u);
  EXPECT_EQ(small->stats().candidatePairs, fitting->stats().candidatePairs);
  EXPECT_EQ(small->stats().contacts, fitting->stats().contacts);
}

INSTANTIATE_TEST_SUITE_P(GridsAndAuto, OpenWorld,
                         ::testing::Values(BroadPhaseType::BinGrid, BroadPhaseType::Auto),
                         paramName);

INSTANTIATE_TEST_SUITE_P(AllStructures, IncrementalQueries,
                         ::testing::ValuesIn(allBroadPhaseTypes().begin(),
                                             allBroadPhaseTypes().end()),
                         paramName);

}  // namespace
