// World spatial queries against brute-force scans, with every broad phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <quadbin/quadbin.hpp>
#include <random>
#include <thread>

#include "support/query_oracle.hpp"

using namespace quadbin;
using quadbin::test::paramName;

namespace {

struct Body {
  BodyId id;
  bool ball;
  Vec2 c;
  float r;
  AABB box;
};

class Queries : public ::testing::TestWithParam<BroadPhaseType> {
 protected:
  void SetUp() override {
    WorldDef def;
    def.boundary = Boundary::Open;
    def.broadPhase = GetParam();
    def.logLevel = LogLevel::Off;
    world = std::make_unique<World>(def);
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> pos(-20, 120), rad(0.3f, 4.0f), vel(-30, 30);
    for (int i = 0; i < 600; ++i) {
      world->createBody(BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)}));
    }
    for (int i = 0; i < 30; ++i) {
      const Vec2 p{pos(rng), pos(rng)};
      world->createBody(BodyDef::staticBox({p, p + Vec2{rad(rng) * 3, rad(rng)}}));
    }
    for (int s = 0; s < 5; ++s) world->step(1.0f / 60.0f);
    // Churn after the step: the queries must see it.
    world->destroyBody(world->bodyAt(3));
    world->destroyBody(world->bodyAt(100));
    world->createBody(BodyDef::ball({50, 50}, 2));
    world->setPosition(world->bodyAt(7), {-15, 110});
    for (std::uint32_t i = 0; i < world->bodyCount(); ++i) {
      const BodyId id = world->bodyAt(i);
      const bool ball = world->type(id) == BodyType::Ball;
      bodies.push_back({id, ball, world->position(id), world->radius(id), world->bounds(id)});
    }
  }

  [[nodiscard]] float distanceTo(const Body& b, Vec2 p) const {
    if (!b.ball) return length(p - closestPoint(b.box, p));
    return std::max(0.0f, length(p - b.c) - b.r);
  }

  std::unique_ptr<World> world;
  std::vector<Body> bodies;
};

}  // namespace

TEST_P(Queries, BoxAndRadiusMatchAScan) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> pos(-30, 130), size(0, 25);
  for (int q = 0; q < 300; ++q) {
    const Vec2 p{pos(rng), pos(rng)};
    const AABB box{p, p + Vec2{size(rng), size(rng)}};
    std::vector<BodyId> got, want;
    world->queryBox(box, got);
    for (const auto& b : bodies) {
      const bool in =
          b.ball ? lengthSquared(b.c - closestPoint(box, b.c)) <= b.r * b.r : touches(b.box, box);
      if (in) want.push_back(b.id);
    }
    ASSERT_EQ(got, want) << "box query " << q;

    const float radius = size(rng);
    world->queryRadius(p, radius, got);
    want.clear();
    for (const auto& b : bodies) {
      if (distanceTo(b, p) <= radius) want.push_back(b.id);
    }
    ASSERT_EQ(got, want) << "radius query " << q;
  }
}

TEST_P(Queries, RaycastMatchesAScan) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> pos(-30, 130), dir(-1, 1);
  for (int q = 0; q < 300; ++q) {
    const Ray ray{{pos(rng), pos(rng)}, {dir(rng) * 80, dir(rng) * 80}, 1.0f};
    std::vector<RayHit> hits;
    world->raycastAll(ray, hits);
    std::vector<std::pair<float, BodyId>> want;
    for (const auto& b : bodies) {
      auto t = b.ball ? quadbin::raycast(ray, Circle{b.c, b.r}) : quadbin::raycast(ray, b.box);
      if (t) want.emplace_back(*t, b.id);
    }
    ASSERT_EQ(hits.size(), want.size()) << "ray " << q;
    std::sort(want.begin(), want.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < hits.size(); ++k) {
      EXPECT_FLOAT_EQ(hits[k].t, want[k].first);
      EXPECT_NEAR(length(hits[k].normal), 1.0f, 1e-4f);
    }
    const auto first = world->raycast(ray);
    ASSERT_EQ(first.has_value(), !hits.empty());
    if (first) {
      EXPECT_EQ(first->body, hits.front().body);
      EXPECT_LE(dot(first->normal, ray.direction), 0.0f);  // faces the ray
    }
  }
}

TEST_P(Queries, NearestMatchesASort) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> pos(-60, 160);
  for (int q = 0; q < 100; ++q) {
    const Vec2 p{pos(rng), pos(rng)};
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(q % 17);
    std::vector<BodyId> got;
    world->nearest(p, k, got);
    ASSERT_EQ(got.size(), k);
    std::vector<float> d;
    for (const auto& b : bodies) d.push_back(distanceTo(b, p));
    std::vector<float> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t j = 0; j < k; ++j) {
      const auto it =
          std::find_if(bodies.begin(), bodies.end(), [&](const Body& b) { return b.id == got[j]; });
      ASSERT_NE(it, bodies.end());
      EXPECT_FLOAT_EQ(d[static_cast<std::size_t>(it - bodies.begin())], sorted[j])
          << "query " << q << " rank " << j;
    }
  }
  std::vector<BodyId> all;
  world->nearest({0, 0}, 100000, all);
  EXPECT_EQ(all.size(), bodies.size());
}

TEST_P(Queries, ManyThreadsAtOnce) {
  // Read-only queries between steps may run concurrently.
  std::vector<std::thread> threads;
  std::vector<std::size_t> counts(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<BodyId> out;
      std::size_t total = 0;
      for (int q = 0; q < 50; ++q) {
        world->queryRadius({static_cast<float>(q * 2), 50}, 10, out);
        total += out.size();
      }
      counts[static_cast<std::size_t>(t)] = total;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(counts[0], counts[1]);
  EXPECT_EQ(counts[0], counts[3]);
  EXPECT_GT(counts[0], 0u);
}

TEST_P(Queries, BadArgumentsAreRefused) {
  std::vector<BodyId> out;
  EXPECT_THROW(world->queryRadius({0, 0}, -1, out), Error);
  EXPECT_THROW(world->queryBox({{NAN, 0}, {1, 1}}, out), Error);
  EXPECT_THROW((void)world->raycast(Ray{{0, 0}, {1, 0}, -1}), Error);
  EXPECT_THROW(world->nearest({INFINITY, 0}, 3, out), Error);
}

INSTANTIATE_TEST_SUITE_P(AllStructures, Queries,
                         ::testing::ValuesIn(allBroadPhaseTypes().begin(),
                                             allBroadPhaseTypes().end()),
                         paramName);

// A closed world's walls are what a ray from inside hits last, and what a
// ray from outside enters by; an open world has none.
TEST(RayWalls, RaysHitTheWallsOfAClosedWorld) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 80}};
  def.logLevel = LogLevel::Off;
  World w(def);
  const BodyId ball = w.createBody(BodyDef::ball({70, 40}, 5.0f));
  std::vector<RayHit> hits;
  w.raycastAll({{50, 40}, {1, 0}, 1000}, hits);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].body, ball);
  EXPECT_EQ(hits[0].wall, WallSide::None);
  EXPECT_FLOAT_EQ(hits[0].t, 15.0f);
  EXPECT_TRUE(hits[1].body.isNull());
  EXPECT_EQ(hits[1].wall, WallSide::MaxX);
  EXPECT_FLOAT_EQ(hits[1].t, 50.0f);
  EXPECT_EQ(hits[1].point, (Vec2{100, 40}));
  EXPECT_EQ(hits[1].normal, (Vec2{-1, 0}));
  // Straight down past the ball: the floor, its normal up, facing the ray.
  const auto floor = w.raycast({{20, 40}, {0, -2}, 100});
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(floor->wall, WallSide::MinY);
  EXPECT_FLOAT_EQ(floor->t, 20.0f);
  EXPECT_EQ(floor->normal, (Vec2{0, 1}));
  // From outside: the wall it enters by, then the ball, then the far wall.
  w.raycastAll({{-10, 40}, {1, 0}, 1000}, hits);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].wall, WallSide::MinX);
  EXPECT_EQ(hits[0].normal, (Vec2{-1, 0}));
  EXPECT_FLOAT_EQ(hits[0].t, 10.0f);
  EXPECT_EQ(hits[1].body, ball);
  EXPECT_EQ(hits[2].wall, WallSide::MaxX);
  // From a point on the floor, up: not the floor it starts on, the ceiling.
  const auto up = w.raycast({{20, 0}, {0, 1}, 100});
  ASSERT_TRUE(up.has_value());
  EXPECT_EQ(up->wall, WallSide::MaxY);
  EXPECT_FLOAT_EQ(up->t, 80.0f);
  // Short of the wall: nothing; a corner is one hit.
  EXPECT_FALSE(w.raycast({{20, 40}, {0, -1}, 30}).has_value());
  w.raycastAll({{50, 40}, {50, 40}, 2}, hits);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].point, (Vec2{100, 80}));
  // A QueryFilter leaves the walls in.
  QueryFilter none;
  none.maskBits = 0;
  EXPECT_EQ(w.raycast({{50, 40}, {1, 0}, 1000}, none)->wall, WallSide::MaxX);
  def.boundary = Boundary::Open;
  World open(def);
  EXPECT_FALSE(open.raycast({{50, 40}, {1, 0}, 1000}).has_value());
}

// What Auto uses now, as the body count crosses its thresholds.
TEST(ActiveBroadPhase, AutoTellsWhatItPicked) {
  WorldDef def;
  def.bounds = {{0, 0}, {1000, 1000}};
  def.logLevel = LogLevel::Off;
  World w(def);
  EXPECT_EQ(w.def().broadPhase, BroadPhaseType::Auto);
  w.createBody(BodyDef::ball({10, 10}, 1.0f));
  w.step(1.0f / 60.0f);
  EXPECT_EQ(w.activeBroadPhase(), BroadPhaseType::BruteForce);  // a few bodies
  std::vector<BodyDef> many;
  for (int i = 0; i < 100; ++i) {
    many.push_back(BodyDef::ball(
        {20.0f + static_cast<float>(i % 10) * 5.0f, 20.0f + static_cast<float>(i / 10) * 5.0f},
        1.0f));
  }
  w.createBodies(many);
  w.step(1.0f / 60.0f);
  EXPECT_EQ(w.activeBroadPhase(), BroadPhaseType::SweepAndPrune);
  w.setBroadPhase(BroadPhaseType::BinGrid);
  EXPECT_EQ(w.activeBroadPhase(), BroadPhaseType::BinGrid);
}
