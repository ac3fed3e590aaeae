// Contact events with their geometry and hit events (walls included):
// against analytic cases, whatever the slot order, and the ends of
// destroyed bodies' contacts (sensors and pre-solve: events_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <quadbin/quadbin.hpp>
#include <random>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "support/quiet_log.hpp"

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

using Events = test::QuietLog;

WorldDef quietWorld(std::uint32_t threads = 1) {
  WorldDef def;
  def.bounds = {{0, 0}, {100, 100}};
  def.threadCount = threads;
  return def;
}

// ---- rich contact events ----------------------------------------------------

TEST_F(Events, HeadOnBallsBeginWithPointNormalAndApproachSpeed) {
  World w(quietWorld());
  const BodyId a = w.createBody(BodyDef::ball({40, 50}, 1, {5, 0}));
  const BodyId b = w.createBody(BodyDef::ball({60, 50}, 1, {-5, 0}));
  std::vector<ContactEvent> begins;
  std::vector<ContactHitEvent> hits;
  for (int s = 0; s < 150 && begins.empty(); ++s) {
    w.step(kDt);
    begins.assign(w.contactBeginEvents().begin(), w.contactBeginEvents().end());
    hits.assign(w.contactHitEvents().begin(), w.contactHitEvents().end());
  }
  ASSERT_EQ(begins.size(), 1u);
  const ContactEvent& e = begins[0];
  EXPECT_EQ(e.a, a);
  EXPECT_EQ(e.b, b);
  EXPECT_NEAR(e.normal.x, 1.0f, 1e-6f);
  EXPECT_NEAR(e.normal.y, 0.0f, 1e-6f);
  EXPECT_NEAR(e.point.x, 50.0f, 1e-3f);
  EXPECT_NEAR(e.point.y, 50.0f, 1e-6f);
  EXPECT_NEAR(e.approachSpeed, 10.0f, 1e-4f);
  ASSERT_EQ(hits.size(), 1u) << "10 units/s is above the default threshold";
  EXPECT_EQ(hits[0].a, a);
  EXPECT_EQ(hits[0].b, b);
  EXPECT_EQ(hits[0].wall, WallSide::None);
  EXPECT_NEAR(hits[0].approachSpeed, 10.0f, 1e-4f);
  EXPECT_NEAR(hits[0].normal.x, 1.0f, 1e-6f);
  // The elastic bounce: they part, and the end event has no geometry.
  for (int s = 0; s < 5 && w.contactEndEvents().empty(); ++s) w.step(kDt);
  ASSERT_EQ(w.contactEndEvents().size(), 1u);
  EXPECT_EQ(w.contactEndEvents()[0].a, a);
  EXPECT_EQ(w.contactEndEvents()[0].approachSpeed, 0.0f);
  EXPECT_TRUE(w.contactHitEvents().empty());
}

TEST_F(Events, BallAgainstStaticBoxNormalPointsFromAToB) {
  World w(quietWorld());
  // The box first: a is the box, b the ball, the normal from box to ball.
  const BodyId box = w.createBody(BodyDef::staticBox({{45, 10}, {55, 20}}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 30}, 1, {0, -6}));
  for (int s = 0; s < 200 && w.contactBeginEvents().empty(); ++s) w.step(kDt);
  ASSERT_EQ(w.contactBeginEvents().size(), 1u);
  const ContactEvent e = w.contactBeginEvents()[0];
  EXPECT_EQ(e.a, box);
  EXPECT_EQ(e.b, ball);
  EXPECT_NEAR(e.normal.x, 0.0f, 1e-6f);
  EXPECT_NEAR(e.normal.y, 1.0f, 1e-6f);
  EXPECT_NEAR(e.point.x, 50.0f, 1e-4f);
  EXPECT_NEAR(e.point.y, 20.0f, 1e-4f);
  EXPECT_NEAR(e.approachSpeed, 6.0f, 1e-4f);
}

struct WallCase {
  Vec2 start, velocity;
  WallSide side = WallSide::None;
  Vec2 normal;
};

TEST_F(Events, BallHittingEachWallIsAHitWithItsSide) {
  const WallCase cases[] = {
      {{10, 50}, {-7, 0}, WallSide::MinX, {-1, 0}},
      {{90, 50}, {7, 0}, WallSide::MaxX, {1, 0}},
      {{50, 10}, {0, -7}, WallSide::MinY, {0, -1}},
      {{50, 90}, {0, 7}, WallSide::MaxY, {0, 1}},
  };
  for (const WallCase& c : cases) {
    World w(quietWorld());
    const BodyId ball = w.createBody(BodyDef::ball(c.start, 1, c.velocity));
    std::vector<ContactHitEvent> hits;
    for (int s = 0; s < 200 && hits.empty(); ++s) {
      w.step(kDt);
      hits.assign(w.contactHitEvents().begin(), w.contactHitEvents().end());
    }
    ASSERT_EQ(hits.size(), 1u) << static_cast<int>(c.side);
    const ContactHitEvent& h = hits[0];
    EXPECT_EQ(h.a, ball);
    EXPECT_TRUE(h.b.isNull());
    EXPECT_EQ(h.wall, c.side);
    EXPECT_EQ(h.normal.x, c.normal.x);
    EXPECT_EQ(h.normal.y, c.normal.y);
    EXPECT_NEAR(h.approachSpeed, 7.0f, 1e-4f);
    // On the wall, level with the ball.
    const Vec2 p = w.position(ball);
    if (c.normal.x != 0.0f) {
      EXPECT_EQ(h.point.x, c.normal.x < 0 ? 0.0f : 100.0f);
      EXPECT_EQ(h.point.y, p.y);
    } else {
      EXPECT_EQ(h.point.y, c.normal.y < 0 ? 0.0f : 100.0f);
      EXPECT_EQ(h.point.x, p.x);
    }
    // Bounced back (e = 1), and walls make no contact begin events.
    EXPECT_NEAR(dot(w.velocity(ball), c.normal), -7.0f, 1e-4f);
    EXPECT_TRUE(w.contactBeginEvents().empty());
  }
}

TEST_F(Events, HitThresholdFiltersSlowContacts) {
  WorldDef def = quietWorld();
  def.hitEventThreshold = 3.0f;
  World w(def);
  w.createBody(BodyDef::ball({5, 50}, 1, {-2, 0}));  // slower than 3: no hit
  w.createBody(BodyDef::ball({95, 50}, 1, {4, 0}));  // faster: a hit
  std::vector<WallSide> walls;
  for (int s = 0; s < 200; ++s) {
    w.step(kDt);
    for (const ContactHitEvent& h : w.contactHitEvents()) walls.push_back(h.wall);
  }
  ASSERT_FALSE(walls.empty());
  for (const WallSide side : walls) EXPECT_EQ(side, WallSide::MaxX);
}

// A hit between balls is the pair's geometry at the end of the step and
// the approach speed of the velocities it started with, bit for bit, and a
// pair approaching no faster than the threshold is no hit; with bodies
// destroyed out of order, slot and dense order disagree, so both ways the
// hit test takes (contact order, slot order) are checked.
TEST_F(Events, BallHitsAreTheirGeometryBitForBitWhateverTheSlotOrder) {
  WorldDef def = quietWorld();
  def.hitEventThreshold = 2.0f;
  World w(def);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> place(5, 95), speed(-8, 8);
  std::vector<BodyId> balls;
  for (int i = 0; i < 800; ++i) {
    balls.push_back(
        w.createBody(BodyDef::ball({place(rng), place(rng)}, 0.8f, {speed(rng), speed(rng)})));
  }
  for (std::size_t i = 0; i < 400; i += 3) w.destroyBody(balls[i]);
  std::erase_if(balls, [&](BodyId id) { return !w.isValid(id); });
  auto bits = [](float f) { return std::bit_cast<std::uint32_t>(f); };
  std::size_t hits = 0, slow = 0;
  for (int s = 0; s < 60; ++s) {
    std::vector<Vec2> before(1000);
    for (const BodyId id : balls) before[id.index] = w.velocity(id);
    w.step(kDt);
    std::set<std::pair<std::uint32_t, std::uint32_t>> hit;
    // In (a, b) slot order, a wall after every body of the same a, though
    // the dense order is not the slots' here.
    auto key = [](const ContactHitEvent& h) {
      return std::tuple{h.a.index, h.wall != WallSide::None, h.b.index, h.wall};
    };
    const std::span<const ContactHitEvent> all = w.contactHitEvents();
    for (std::size_t k = 1; k < all.size(); ++k) ASSERT_LT(key(all[k - 1]), key(all[k]));
    for (const ContactHitEvent& h : w.contactHitEvents()) {
      if (h.wall != WallSide::None) continue;
      ASSERT_LT(h.a.index, h.b.index);
      const Vec2 pa = w.position(h.a), d = w.position(h.b) - pa;
      const Vec2 n = d / length(d);
      const float gap = length(d) - w.radius(h.a) - w.radius(h.b);
      const Vec2 point = pa + n * (w.radius(h.a) + 0.5f * gap);
      const float approach = dot(before[h.a.index] - before[h.b.index], n);
      EXPECT_EQ(bits(h.normal.x), bits(n.x));
      EXPECT_EQ(bits(h.normal.y), bits(n.y));
      EXPECT_EQ(bits(h.point.x), bits(point.x));
      EXPECT_EQ(bits(h.point.y), bits(point.y));
      EXPECT_EQ(bits(h.approachSpeed), bits(approach));
      hit.insert({h.a.index, h.b.index});
      ++hits;
    }
    // Touching pairs that began this step and are no hit approach slower.
    for (const ContactEvent& e : w.contactBeginEvents()) {
      if (hit.contains({e.a.index, e.b.index})) continue;
      EXPECT_LE(e.approachSpeed, def.hitEventThreshold);
      ++slow;
    }
  }
  EXPECT_GT(hits, 100u);
  EXPECT_GT(slow, 10u);
}

TEST_F(Events, RestingUnderGravityIsNoHit) {
  WorldDef def = quietWorld();
  def.gravity = {0, -10};
  World w(def);
  w.createBody(BodyDef::ball({50, 1.0f}, 1));
  for (int s = 0; s < 60; ++s) {
    w.step(kDt);
    EXPECT_TRUE(w.contactHitEvents().empty()) << "step " << s;
  }
}

TEST_F(Events, HitEventThresholdIsValidated) {
  for (const float bad :
       {-1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    WorldDef def = quietWorld();
    def.hitEventThreshold = bad;
    EXPECT_THROW(World{def}, Error);
  }
  WorldDef def = quietWorld();
  def.hitEventThreshold = 0.0f;
  EXPECT_NO_THROW(World{def});
}

TEST_F(Events, DestroyingABodyEndsItsContactsAtTheNextStep) {
  WorldDef def = quietWorld();
  def.gravity = {0, -10};
  World w(def);
  const BodyId floorBox = w.createBody(BodyDef::staticBox({{0, 0}, {100, 10}}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 11.0f}, 1));
  const BodyId other = w.createBody(BodyDef::ball({70, 11.0f}, 1));
  for (int s = 0; s < 60; ++s) w.step(kDt);
  ASSERT_EQ(w.stats().contacts, 2u);
  w.destroyBody(ball);
  w.step(kDt);
  ASSERT_EQ(w.contactEndEvents().size(), 1u);
  const ContactEvent e = w.contactEndEvents()[0];
  EXPECT_EQ(e.a, floorBox);
  EXPECT_EQ(e.b, ball);
  EXPECT_FALSE(w.isValid(e.b));
  EXPECT_TRUE(w.contactBeginEvents().empty());
  w.step(kDt);
  EXPECT_TRUE(w.contactEndEvents().empty()) << "ended once";
  EXPECT_TRUE(w.isValid(other));
}

TEST_F(Events, DestroyEndsAreReportedEvenWhenTheWorldSleeps) {
  WorldDef def = quietWorld();
  def.gravity = {0, -10};
  World w(def);
  w.createBody(BodyDef::staticBox({{0, 0}, {100, 10}}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 11.0f}, 1));
  for (int s = 0; s < 120; ++s) w.step(kDt);
  ASSERT_FALSE(w.isAwake(ball));
  // Nothing is left awake, and the step still reports the end.
  w.destroyBody(ball);
  w.step(kDt);
  EXPECT_EQ(w.stats().awakeBodies, 0u);
  ASSERT_EQ(w.contactEndEvents().size(), 1u);
  EXPECT_EQ(w.contactEndEvents()[0].b, ball);
}

}  // namespace
