// Collision filtering (Filter, World::setFilter) and filtered queries
// (QueryFilter), against brute force with the filter rule written out
// again here, for every broad phase and 1, 2 and 8 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <quadbin/quadbin.hpp>
#include <random>
#include <string>
#include <vector>

using namespace quadbin;

namespace {

// Box2D's rule, written out apart from the library's shouldCollide.
bool oracleCollide(const Filter& a, const Filter& b) {
  if (a.groupIndex != 0 && a.groupIndex == b.groupIndex) return a.groupIndex > 0;
  return (a.categoryBits & b.maskBits) != 0 && (b.categoryBits & a.maskBits) != 0;
}
bool oracleQuery(const QueryFilter& q, const Filter& f) {
  return (f.categoryBits & q.maskBits) != 0 && (f.maskBits & q.categoryBits) != 0;
}

Filter randomFilter(std::mt19937& rng) {
  static constexpr std::array<std::int32_t, 8> kGroups{0, 0, 0, 0, 1, -1, 2, -2};
  std::uniform_int_distribution<int> bit(0, 3), mask(0, 15), group(0, 7);
  Filter f;
  f.categoryBits = std::uint64_t{1} << bit(rng);
  f.maskBits = static_cast<std::uint64_t>(mask(rng)) | (mask(rng) == 0 ? 0 : ~std::uint64_t{15});
  f.groupIndex = kGroups[static_cast<std::size_t>(group(rng))];
  return f;
}

std::string name(const ::testing::TestParamInfo<BroadPhaseType>& info) {
  std::string s(toString(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

std::vector<Pair> eventPairs(const World& w) {
  std::vector<Pair> out;
  for (const ContactEvent& e : w.contactBeginEvents()) {
    out.push_back({std::min(e.a.index, e.b.index), std::max(e.a.index, e.b.index)});
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool sameBits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// ---- the rule ---------------------------------------------------------------

TEST(FilterRule, IsBox2Ds) {
  const Filter def;
  EXPECT_TRUE(shouldCollide(def, def));
  EXPECT_FALSE(shouldCollide({1, 2, 0}, {1, ~0ull, 0}));        // a's mask lacks b's category
  EXPECT_FALSE(shouldCollide({1, ~0ull, 0}, {1, 2, 0}));        // and the other way round
  EXPECT_TRUE(shouldCollide({1, 0, 3}, {2, 0, 3}));             // same positive group: always
  EXPECT_FALSE(shouldCollide({1, ~0ull, -3}, {1, ~0ull, -3}));  // same negative group: never
  EXPECT_TRUE(shouldCollide({1, ~0ull, -3}, {1, ~0ull, -4}));   // other groups: the masks
  EXPECT_FALSE(shouldCollide({1, 0, 3}, {2, 0, 4}));
  std::mt19937 rng(5);
  for (int k = 0; k < 2000; ++k) {
    const Filter a = randomFilter(rng), b = randomFilter(rng);
    ASSERT_EQ(shouldCollide(a, b), oracleCollide(a, b));
    ASSERT_EQ(shouldCollide(a, b), shouldCollide(b, a));
  }
}

// ---- filtered pairs, every broad phase and thread count --------------------

// Balls at rest (no gravity, no speed) and static boxes: the first step's
// contacts are exactly the overlapping pairs, so its begin events are the
// pair set. Placements whose gap is near zero are drawn again, so rounding
// cannot make the oracle and the world disagree.
struct Scene {
  std::vector<BodyDef> defs;
  std::vector<Pair> expected;  // overlapping, allowed by the filters
  std::vector<Pair> overlapping;
};

float gapOf(const BodyDef& a, const BodyDef& b) {
  if (a.type == BodyType::Ball && b.type == BodyType::Ball) {
    return length(b.position - a.position) - a.radius - b.radius;
  }
  const BodyDef& ball = a.type == BodyType::Ball ? a : b;
  const BodyDef& box = a.type == BodyType::Ball ? b : a;
  const AABB bb{box.position - box.halfExtents, box.position + box.halfExtents};
  return length(ball.position - closestPoint(bb, ball.position)) - ball.radius;
}

Scene makeScene(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(5, 55), rad(0.5f, 1.5f), half(0.5f, 3.0f);
  Scene s;
  for (int k = 0; k < 12; ++k) {
    const Vec2 p{pos(rng), pos(rng)};
    BodyDef d = BodyDef::staticBox({p, p + Vec2{half(rng) * 2, half(rng)}});
    d.filter = randomFilter(rng);
    s.defs.push_back(d);
  }
  while (s.defs.size() < 412) {
    BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, rad(rng));
    d.filter = randomFilter(rng);
    const bool ambiguous = std::any_of(s.defs.begin(), s.defs.end(), [&](const BodyDef& o) {
      return std::abs(gapOf(d, o)) < 0.05f;
    });
    if (!ambiguous) s.defs.push_back(d);
  }
  const auto n = static_cast<std::uint32_t>(s.defs.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      const BodyDef &a = s.defs[i], &b = s.defs[j];
      if (a.type != BodyType::Ball && b.type != BodyType::Ball) continue;
      if (gapOf(a, b) >= 0.0f) continue;
      s.overlapping.push_back({i, j});
      if (oracleCollide(a.filter, b.filter)) s.expected.push_back({i, j});
    }
  }
  return s;
}

class FilteredPairs : public ::testing::TestWithParam<BroadPhaseType> {};

TEST_P(FilteredPairs, EqualBruteForceOnEveryThreadCount) {
  const Scene scene = makeScene(11);
  // The scene must test something: pairs kept and pairs rejected.
  ASSERT_GT(scene.expected.size(), 50u);
  ASSERT_GT(scene.overlapping.size(), scene.expected.size() + 50);
  std::vector<Vec2> first;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    WorldDef def;
    def.bounds = {{0, 0}, {60, 60}};
    def.boundary = Boundary::Open;
    def.broadPhase = GetParam();
    def.threadCount = threads;
    def.logLevel = LogLevel::Off;
    World w(def);
    w.createBodies(scene.defs);
    w.step(1.0f / 60.0f);
    const std::vector<Pair> got = eventPairs(w);
    EXPECT_EQ(got, scene.expected) << threads << " threads";
    // Bit-identical for any thread count.
    const std::span<const Vec2> p = w.positions();
    if (first.empty()) {
      first.assign(p.begin(), p.end());
    } else {
      for (std::size_t i = 0; i < p.size(); ++i) {
        ASSERT_TRUE(sameBits(p[i].x, first[i].x) && sameBits(p[i].y, first[i].y))
            << "body " << i << ", " << threads << " threads";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllStructures, FilteredPairs,
                         ::testing::ValuesIn(allBroadPhaseTypes().begin(),
                                             allBroadPhaseTypes().end()),
                         name);

// ---- what filtering does to the motion ---------------------------------------

WorldDef quietDef() {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.logLevel = LogLevel::Off;
  def.threadCount = 1;
  return def;
}

// A filter that lets every pair through takes the filtering path (a custom
// filter on every body) and must change nothing, bit for bit.
TEST(Filtering, FiltersThatRejectNothingChangeNothing) {
  auto run = [](bool custom) {
    WorldDef def = quietDef();
    def.gravity = {0, -10};
    World w(def);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> x(5, 95), y(5, 60), v(-20, 20);
    std::vector<BodyDef> defs;
    defs.push_back(BodyDef::staticBox({{20, 20}, {60, 24}}));
    for (int k = 0; k < 300; ++k)
      defs.push_back(BodyDef::ball({x(rng), y(rng)}, 1.0f, {v(rng), v(rng)}));
    if (custom) {
      for (BodyDef& d : defs) d.filter = {2, ~0ull, 0};
    }
    w.createBodies(defs);
    for (int s = 0; s < 60; ++s) w.step(1.0f / 60.0f);
    const std::span<const Vec2> p = w.positions();
    return std::vector<Vec2>(p.begin(), p.end());
  };
  const std::vector<Vec2> plain = run(false), custom = run(true);
  ASSERT_EQ(plain.size(), custom.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    ASSERT_TRUE(sameBits(plain[i].x, custom[i].x) && sameBits(plain[i].y, custom[i].y)) << i;
  }
}

// A fast gas of two categories that ignore each other, in a closed world
// with obstacles both hit: over many steps (impacts, balls that outrun
// their boxes and are looked at again) no pair of the two ever touches.
TEST(Filtering, RejectedPairsNeverTouch) {
  for (const std::uint32_t threads : {1u, 8u}) {
    WorldDef def = quietDef();
    def.bounds = {{0, 0}, {40, 40}};
    def.threadCount = threads;
    World w(def);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> p(2, 38), v(-200, 200);
    std::vector<BodyDef> defs;
    for (int k = 0; k < 4; ++k) {
      BodyDef box = BodyDef::staticBox(
          {{8.0f * static_cast<float>(k) + 4, 18}, {8.0f * static_cast<float>(k) + 6, 22}});
      box.filter = {4, ~0ull, 0};
      defs.push_back(box);
    }
    for (int k = 0; k < 240; ++k) {
      BodyDef d = BodyDef::ball({p(rng), p(rng)}, 0.5f, {v(rng), v(rng)});
      d.filter = k % 2 == 0 ? Filter{1, 1 | 4, 0} : Filter{2, 2 | 4, 0};
      defs.push_back(d);
    }
    w.createBodies(defs);
    int same = 0, box = 0;
    for (int s = 0; s < 120; ++s) {
      w.step(1.0f / 60.0f);
      for (const ContactEvent& e : w.contactBeginEvents()) {
        const std::uint32_t a = std::min(e.a.index, e.b.index), b = std::max(e.a.index, e.b.index);
        if (a < 4) {
          ++box;
          continue;
        }
        ASSERT_EQ(a % 2, b % 2) << "bodies " << a << " and " << b << " of other categories";
        ++same;
      }
    }
    EXPECT_GT(same, 100);  // the test saw collisions of each kind
    EXPECT_GT(box, 10);
  }
}

// Two balls heading at each other: they bounce or pass through.
bool bounces(const Filter& a, const Filter& b) {
  World w(quietDef());
  BodyDef da = BodyDef::ball({40, 50}, 1, {10, 0}), db = BodyDef::ball({60, 50}, 1, {-10, 0});
  da.filter = a;
  db.filter = b;
  const BodyId ia = w.createBody(da);
  w.createBody(db);
  for (int s = 0; s < 60; ++s) w.step(1.0f / 60.0f);  // 1 s: they meet at 0.9 s
  return w.velocity(ia).x < 0.0f;
}

TEST(Filtering, GroupsAndMasksDecide) {
  EXPECT_TRUE(bounces({}, {}));
  EXPECT_FALSE(bounces({1, 1, 0}, {2, ~0ull, 0}));        // a does not take b's category
  EXPECT_TRUE(bounces({1, 0, 7}, {2, 0, 7}));             // positive group beats masks
  EXPECT_FALSE(bounces({1, ~0ull, -7}, {1, ~0ull, -7}));  // negative group: never
  EXPECT_TRUE(bounces({1, ~0ull, -7}, {1, ~0ull, 7}));    // other groups: the masks
}

// Walls are not bodies: a ball that collides with nothing stays inside a
// closed world.
TEST(Filtering, WallsAlwaysCollide) {
  World w(quietDef());
  BodyDef d = BodyDef::ball({90, 50}, 1, {50, 0});
  d.filter = {0, 0, 0};
  const BodyId id = w.createBody(d);
  for (int s = 0; s < 30; ++s) w.step(1.0f / 60.0f);
  EXPECT_LT(w.velocity(id).x, 0.0f);
  EXPECT_LE(w.position(id).x, 99.0f);
}

// Under gravity onto a floor box: the ball whose mask leaves out the box's
// category falls through it, the other one lands on it.
TEST(Filtering, BallFallsThroughABoxItIgnores) {
  WorldDef def = quietDef();
  def.gravity = {0, -10};
  def.restitution = 0.0f;
  World w(def);
  BodyDef floor = BodyDef::staticBox({{0, 40}, {100, 42}});
  floor.filter = {2, ~0ull, 0};
  w.createBody(floor);
  BodyDef through = BodyDef::ball({30, 50}, 1), lands = BodyDef::ball({70, 50}, 1);
  through.filter = {1, ~std::uint64_t{2}, 0};
  const BodyId a = w.createBody(through), b = w.createBody(lands);
  for (int s = 0; s < 180; ++s) w.step(1.0f / 60.0f);
  EXPECT_LT(w.position(a).y, 39.0f);
  EXPECT_NEAR(w.position(b).y, 43.0f, 0.05f);
}

// setFilter takes effect at the next step and wakes what it concerns: a
// ball asleep on a box falls when the box stops colliding with it.
TEST(Filtering, SetFilterWakesAndTakesEffectNextStep) {
  WorldDef def = quietDef();
  def.gravity = {0, -10};
  def.restitution = 0.0f;
  World w(def);
  const BodyId floor = w.createBody(BodyDef::staticBox({{0, 40}, {100, 42}}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 43}, 1));
  const BodyId other = w.createBody(BodyDef::ball({20, 43}, 1));
  for (int s = 0; s < 120 && (w.isAwake(ball) || w.isAwake(other)); ++s) w.step(1.0f / 60.0f);
  ASSERT_FALSE(w.isAwake(ball));
  ASSERT_FALSE(w.isAwake(other));
  EXPECT_EQ(w.filter(floor), Filter{});
  // The same filter again: nothing happens.
  w.setFilter(ball, Filter{});
  EXPECT_FALSE(w.isAwake(ball));
  const Filter ghost{1, ~std::uint64_t{2}, 0};
  w.setFilter(ball, ghost);
  EXPECT_EQ(w.filter(ball), ghost);
  EXPECT_TRUE(w.isAwake(ball));
  EXPECT_FALSE(w.isAwake(other));     // another island
  w.setFilter(floor, {2, ~0ull, 0});  // a static box: every island wakes
  EXPECT_TRUE(w.isAwake(other));
  for (int s = 0; s < 60; ++s) w.step(1.0f / 60.0f);
  EXPECT_LT(w.position(ball).y, 39.0f);            // falls through
  EXPECT_NEAR(w.position(other).y, 43.0f, 0.05f);  // still held
  EXPECT_THROW(w.setFilter(BodyId{}, Filter{}), Error);
  EXPECT_THROW((void)w.filter(BodyId{}), Error);
}

// ---- filtered queries ---------------------------------------------------------

class FilteredQueries : public ::testing::TestWithParam<BroadPhaseType> {
 protected:
  void SetUp() override {
    WorldDef def;
    def.boundary = Boundary::Open;
    def.broadPhase = GetParam();
    def.logLevel = LogLevel::Off;
    world = std::make_unique<World>(def);
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> pos(-10, 110), rad(0.3f, 4.0f), vel(-30, 30);
    std::vector<BodyDef> defs;
    for (int i = 0; i < 500; ++i) {
      BodyDef d = BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)});
      d.filter = randomFilter(rng);
      defs.push_back(d);
    }
    for (int i = 0; i < 30; ++i) {
      const Vec2 p{pos(rng), pos(rng)};
      BodyDef d = BodyDef::staticBox({p, p + Vec2{rad(rng) * 3, rad(rng)}});
      d.filter = randomFilter(rng);
      defs.push_back(d);
    }
    world->createBodies(defs);
    for (int s = 0; s < 3; ++s) world->step(1.0f / 60.0f);
    world->destroyBody(world->bodyAt(5));  // a body moves into its place
    world->setFilter(world->bodyAt(6), {8, 8, 0});
  }

  [[nodiscard]] std::vector<QueryFilter> queryFilters() const {
    return {QueryFilter{}, QueryFilter{1, 2, {}}, QueryFilter{4, 1 | 8, {}},
            QueryFilter{~0ull, ~0ull, world->bodyAt(10)}, QueryFilter{2, ~0ull, world->bodyAt(6)}};
  }
  // The unfiltered result, thinned by the rule: the oracle.
  [[nodiscard]] std::vector<BodyId> thin(const std::vector<BodyId>& all,
                                         const QueryFilter& q) const {
    std::vector<BodyId> out;
    for (const BodyId id : all) {
      if (id != q.ignore && oracleQuery(q, world->filter(id))) out.push_back(id);
    }
    return out;
  }

  std::unique_ptr<World> world;
};

TEST_P(FilteredQueries, EqualTheUnfilteredResultThinnedByTheRule) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> pos(-10, 110), size(1, 30), dir(-1, 1);
  std::vector<BodyId> all, got;
  std::vector<RayHit> allHits, gotHits;
  std::size_t reported = 0, total = 0;
  for (const QueryFilter& q : queryFilters()) {
    for (int k = 0; k < 20; ++k) {
      const Vec2 p{pos(rng), pos(rng)};
      const float s = size(rng);
      world->queryBox({p, p + Vec2{s, s}}, all);
      world->queryBox({p, p + Vec2{s, s}}, got, q);
      ASSERT_EQ(got, thin(all, q)) << "queryBox";
      reported += got.size();
      total += all.size();

      world->queryRadius(p, s, all);
      world->queryRadius(p, s, got, q);
      ASSERT_EQ(got, thin(all, q)) << "queryRadius";

      const std::uint32_t count = 1 + static_cast<std::uint32_t>(s);
      world->nearest(p, world->bodyCount(), all);
      world->nearest(p, count, got, q);
      std::vector<BodyId> want = thin(all, q);
      if (want.size() > count) want.resize(count);
      ASSERT_EQ(got, want) << "nearest";

      const Ray ray{p, {dir(rng), dir(rng)}, 80.0f};
      world->raycastAll(ray, allHits);
      world->raycastAll(ray, gotHits, q);
      std::vector<BodyId> hitIds, gotIds;
      for (const RayHit& h : allHits) hitIds.push_back(h.body);
      for (const RayHit& h : gotHits) gotIds.push_back(h.body);
      ASSERT_EQ(gotIds, thin(hitIds, q)) << "raycastAll";
      const auto first = world->raycast(ray, q);
      ASSERT_EQ(first.has_value(), !gotIds.empty());
      if (first) {
        EXPECT_EQ(first->body, gotHits.front().body);
        EXPECT_EQ(first->t, gotHits.front().t);
      }
    }
  }
  // The filters both kept and dropped bodies.
  EXPECT_GT(reported, 0u);
  EXPECT_LT(reported, total);
}

INSTANTIATE_TEST_SUITE_P(AllStructures, FilteredQueries,
                         ::testing::ValuesIn(allBroadPhaseTypes().begin(),
                                             allBroadPhaseTypes().end()),
                         name);

// A ray cast from inside the player hits the player at t = 0; ignoring it,
// the ray finds what is in front.
TEST(FilteredQueries, RayIgnoresTheBodyItStartsIn) {
  World w(quietDef());
  const BodyId player = w.createBody(BodyDef::ball({50, 50}, 2));
  const BodyId wall = w.createBody(BodyDef::staticBox({{60, 40}, {62, 60}}));
  const Ray ray{{50, 50}, {1, 0}, 100.0f};
  const auto plain = w.raycast(ray);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->body, player);
  EXPECT_EQ(plain->t, 0.0f);
  QueryFilter skipPlayer;
  skipPlayer.ignore = player;
  const auto hit = w.raycast(ray, skipPlayer);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, wall);
  EXPECT_FLOAT_EQ(hit->t, 10.0f);
  std::vector<RayHit> hits;
  w.raycastAll(ray, hits, skipPlayer);
  ASSERT_EQ(hits.size(), 2u);  // the box, then the world's wall behind it
  EXPECT_EQ(hits[1].wall, WallSide::MaxX);
  // Only the player in the way: the wall.
  const auto back = w.raycast({{50, 50}, {-1, 0}, 100.0f}, skipPlayer);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->wall, WallSide::MinX);
  EXPECT_TRUE(back->body.isNull());
}

TEST(FilteredQueries, ForeignOrStaleIgnoreIsRefused) {
  World w(quietDef()), other(quietDef());
  const BodyId a = w.createBody(BodyDef::ball({50, 50}, 2));
  const BodyId gone = w.createBody(BodyDef::ball({20, 20}, 2));
  w.destroyBody(gone);
  const BodyId foreign = other.createBody(BodyDef::ball({50, 50}, 2));
  std::vector<BodyId> out;
  std::vector<RayHit> hits;
  for (const BodyId bad : {gone, foreign}) {
    QueryFilter q;
    q.ignore = bad;
    EXPECT_THROW(w.queryBox({{0, 0}, {100, 100}}, out, q), Error);
    EXPECT_THROW(w.queryRadius({50, 50}, 5, out, q), Error);
    EXPECT_THROW(w.raycastAll({{0, 50}, {1, 0}, 100}, hits, q), Error);
    EXPECT_THROW((void)w.raycast({{0, 50}, {1, 0}, 100}, q), Error);
    EXPECT_THROW(w.nearest({50, 50}, 1, out, q), Error);
  }
  QueryFilter q;
  q.ignore = a;
  w.nearest({50, 50}, 3, out, q);
  EXPECT_TRUE(out.empty());  // the only body is ignored
}

}  // namespace
