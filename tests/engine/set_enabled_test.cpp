// World::setEnabled: a disabled body keeps its id and state but leaves the
// simulation (no collision, no query, no motion, no waking), its contacts
// and sensor overlaps end with events, and enabled again it goes on.
#include <gtest/gtest.h>

#include <algorithm>
#include <quadbin/quadbin.hpp>
#include <vector>

#include "support/quiet_log.hpp"
#include "support/state_hash.hpp"

using namespace quadbin;
using quadbin::test::quietDef;

namespace {

constexpr float kDt = 1.0f / 60.0f;

bool contains(const std::vector<BodyId>& ids, BodyId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

TEST(SetEnabled, ADisabledBallKeepsItsStateAndNothingMovesIt) {
  World w(quietDef({0, -10}));
  const BodyId b = w.createBody(BodyDef::ball({50, 50}, 1.0f, {3, 1}));
  w.step(kDt);
  const Vec2 p = w.position(b), v = w.velocity(b);
  w.setEnabled(b, false);
  EXPECT_FALSE(w.isEnabled(b));
  EXPECT_FALSE(w.isAwake(b));
  for (int s = 0; s < 30; ++s) w.step(kDt);
  EXPECT_EQ(w.position(b), p);
  EXPECT_EQ(w.velocity(b), v);
  w.setAwake(b, true);  // nothing wakes a disabled ball
  EXPECT_FALSE(w.isAwake(b));
  w.setEnabled(b, true);
  EXPECT_TRUE(w.isEnabled(b));
  EXPECT_TRUE(w.isAwake(b));
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.velocity(b).y, v.y - 10.0f * kDt);
  EXPECT_GT(w.position(b).x, p.x);
}

TEST(SetEnabled, NoQueryOrRayReportsADisabledBody) {
  World w(quietDef());
  const BodyId ball = w.createBody(BodyDef::ball({50, 50}, 2.0f));
  const BodyId box = w.createBody(BodyDef::staticBox({{60, 45}, {64, 55}}));
  const Ray ray{{40, 50}, {1, 0}, 100};
  std::vector<BodyId> found;
  w.setEnabled(ball, false);
  w.setEnabled(box, false);
  for (int round = 0; round < 2; ++round) {
    const bool on = round == 1;
    w.queryBox({{0, 0}, {100, 100}}, found);
    EXPECT_EQ(contains(found, ball), on);
    EXPECT_EQ(contains(found, box), on);
    w.queryRadius({50, 50}, 20.0f, found);
    EXPECT_EQ(contains(found, ball), on);
    w.nearest({50, 50}, 5, found);
    EXPECT_EQ(contains(found, ball), on);
    const auto hit = w.raycast(ray);
    EXPECT_EQ(hit.has_value() && hit->body == ball, on);
    std::vector<RayHit> hits;
    w.raycastAll(ray, hits);
    EXPECT_EQ(std::any_of(hits.begin(), hits.end(), [&](const RayHit& h) { return h.body == box; }),
              on);
    w.setEnabled(ball, true);
    w.setEnabled(box, true);
  }
}

// A ball falls through a disabled floor and a disabled ball, and what
// rested on a disabled body falls.
TEST(SetEnabled, NothingCollidesWithADisabledBodyAndWhatRestedOnItFalls) {
  WorldDef def = quietDef({0, -10});
  def.restitution = 0.0f;
  def.timeToSleep = 0.2f;
  def.bounds = {{0, -100}, {100, 100}};
  World w(def);
  const BodyId floor = w.createBody(BodyDef::staticBox({{20, 0}, {80, 2}}));
  const BodyId low = w.createBody(BodyDef::ball({50, 3}, 1.0f));
  const BodyId high = w.createBody(BodyDef::ball({50, 5}, 1.0f));
  for (int s = 0; s < 240; ++s) w.step(kDt);
  ASSERT_FALSE(w.isAwake(high));
  ASSERT_NEAR(w.position(high).y, 5.0f, 0.05f);
  w.setEnabled(low, false);
  EXPECT_TRUE(w.isAwake(high));
  const Vec2 lowAt = w.position(low);
  for (int s = 0; s < 90; ++s) w.step(kDt);
  EXPECT_NEAR(w.position(high).y, 3.0f, 0.05f);  // through the disabled ball, onto the floor
  EXPECT_EQ(w.position(low), lowAt);             // unmoved
  w.setEnabled(floor, false);
  for (int s = 0; s < 60; ++s) w.step(kDt);
  EXPECT_LT(w.position(high).y, -2.0f);  // through the disabled floor
}

// A ball resting on a floor, inside a sensor.
TEST(SetEnabled, ContactsAndSensorOverlapsEndWithEventsAndBeginAgain) {
  WorldDef def = quietDef({0, -10});
  def.enableSleep = false;
  World w(def);
  const BodyId floor = w.createBody(BodyDef::staticBox({{40, 0}, {60, 2}}));
  const BodyId b = w.createBody(BodyDef::ball({50, 3}, 1.0f));
  BodyDef sensorDef = BodyDef::staticBox({{40, 2}, {60, 20}});
  sensorDef.isSensor = true;
  const BodyId sensor = w.createBody(sensorDef);
  w.step(kDt);
  ASSERT_EQ(w.contactBeginEvents().size(), 1u);
  ASSERT_EQ(w.sensorBeginEvents().size(), 1u);
  w.step(kDt);
  ASSERT_TRUE(w.contactEndEvents().empty());
  w.setEnabled(b, false);
  w.step(kDt);
  ASSERT_EQ(w.contactEndEvents().size(), 1u);
  const ContactEvent& end = w.contactEndEvents()[0];
  EXPECT_TRUE((end.a == floor && end.b == b) || (end.a == b && end.b == floor));
  ASSERT_EQ(w.sensorEndEvents().size(), 1u);
  EXPECT_EQ(w.sensorEndEvents()[0].sensor, sensor);
  EXPECT_EQ(w.sensorEndEvents()[0].visitor, b);
  w.step(kDt);
  EXPECT_TRUE(w.contactEndEvents().empty());
  EXPECT_TRUE(w.sensorEndEvents().empty());
  w.setEnabled(b, true);
  w.step(kDt);
  EXPECT_EQ(w.contactBeginEvents().size(), 1u);
  EXPECT_EQ(w.sensorBeginEvents().size(), 1u);
}

TEST(SetEnabled, ADisabledKinematicBodyStays) {
  World w(quietDef());
  const BodyId k = w.createBody(BodyDef::kinematicBox({{10, 10}, {12, 12}}, {5, 0}));
  w.setEnabled(k, false);
  const Vec2 p = w.position(k);
  for (int s = 0; s < 10; ++s) w.step(kDt);
  EXPECT_EQ(w.position(k), p);
  EXPECT_EQ(w.velocity(k), (Vec2{5, 0}));
  w.setEnabled(k, true);
  w.step(kDt);
  EXPECT_NEAR(w.position(k).x, p.x + 5.0f * kDt, 1e-5f);
}

// The flag travels with the body through destroyBody's renumbering,
// optimizeLayout and a snapshot, and the restored world steps as the
// original does.
TEST(SetEnabled, TheFlagSurvivesRenumberingAndSnapshots) {
  World w(quietDef({0, -10}));
  std::vector<BodyId> balls;
  for (int i = 0; i < 40; ++i) {
    balls.push_back(w.createBody(BodyDef::ball(
        {10.0f + 2.1f * float(i % 20), 10.0f + 3.0f * float(i / 20)}, 1.0f, {float(i % 3), 0})));
  }
  for (int s = 0; s < 10; ++s) w.step(kDt);
  for (int i = 0; i < 40; i += 3) w.setEnabled(balls[i], false);
  w.destroyBody(balls[1]);
  w.destroyBody(balls[5]);
  w.optimizeLayout();
  for (int i = 0; i < 40; ++i) {
    if (i == 1 || i == 5) continue;
    EXPECT_EQ(w.isEnabled(balls[i]), i % 3 != 0) << i;
  }
  const auto bytes = w.snapshot();
  World copy(w.def());
  copy.restore(bytes);
  auto there = [&](BodyId id) { return BodyId{id.index, id.generation, copy.id()}; };
  EXPECT_FALSE(copy.isEnabled(there(balls[3])));
  EXPECT_TRUE(copy.isEnabled(there(balls[4])));
  for (int s = 0; s < 30; ++s) {
    w.step(kDt);
    copy.step(kDt);
  }
  EXPECT_EQ(::test::hashState(w, true), ::test::hashState(copy, true));
}

TEST(SetEnabled, RefusesABodyNotOfTheWorldAndLeavesItUnchanged) {
  World w(quietDef());
  const BodyId b = w.createBody(BodyDef::ball({50, 50}, 1.0f));
  w.destroyBody(b);
  const auto before = w.snapshot();
  EXPECT_THROW(w.setEnabled(b, false), Error);
  EXPECT_THROW((void)w.isEnabled(b), Error);
  EXPECT_THROW(w.setEnabled(BodyId{}, true), Error);
  EXPECT_EQ(w.snapshot(), before);
}
