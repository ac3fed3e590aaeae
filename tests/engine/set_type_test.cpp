// World::setType: a body changes what it is among the types its shape
// allows, keeps its id, and the world stays one that createBody could have
// made (a snapshot of it restores), with createBody's refusals and the
// world unchanged when refused.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <quadbin/quadbin.hpp>
#include <vector>

#include "support/quiet_log.hpp"
#include "support/state_hash.hpp"

using namespace quadbin;
using quadbin::test::quietDef;

namespace {

constexpr float kDt = 1.0f / 60.0f;

// The world's state restores into a fresh world (restore checks every
// derived value and invariant), and both step on identically.
void expectRestorable(World& w) {
  const auto bytes = w.snapshot();
  World copy(w.def());
  ASSERT_NO_THROW(copy.restore(bytes));
  for (int s = 0; s < 20; ++s) {
    w.step(kDt);
    copy.step(kDt);
  }
  EXPECT_EQ(::test::hashState(w, true), ::test::hashState(copy, true));
}

}  // namespace

TEST(SetType, ABallMadeKinematicKeepsItsVelocityAndFeelsNoGravity) {
  World w(quietDef({0, -10}));
  const BodyId b = w.createBody(BodyDef::ball({50, 50}, 1.0f, {3, 0}));
  w.step(kDt);
  const Vec2 v = w.velocity(b);
  w.setType(b, BodyType::Kinematic);
  EXPECT_EQ(w.type(b), BodyType::Kinematic);
  EXPECT_EQ(w.velocity(b), v);
  EXPECT_EQ(w.mass(b), std::numeric_limits<float>::infinity());
  EXPECT_EQ(w.radius(b), 1.0f);
  const Vec2 p = w.position(b);
  for (int s = 0; s < 10; ++s) w.step(kDt);
  EXPECT_EQ(w.velocity(b), v);  // no gravity, no damping
  EXPECT_NEAR(w.position(b).x, p.x + 10 * kDt * v.x, 1e-4f);
  expectRestorable(w);
}

TEST(SetType, AKinematicBallMadeABallFallsWithTheDefaultDensitysMass) {
  World w(quietDef({0, -10}));
  const BodyId b = w.createBody(BodyDef::kinematicBall({50, 50}, 2.0f, {1, 0}));
  w.setType(b, BodyType::Ball);
  EXPECT_EQ(w.type(b), BodyType::Ball);
  EXPECT_FLOAT_EQ(w.mass(b), std::numbers::pi_v<float> * 4.0f);
  EXPECT_TRUE(w.isAwake(b));
  w.step(kDt);
  EXPECT_FLOAT_EQ(w.velocity(b).y, -10.0f * kDt);
  EXPECT_FLOAT_EQ(w.velocity(b).x, 1.0f);
  expectRestorable(w);
}

TEST(SetType, AStaticBoxMadeKinematicMovesAndMadeStaticAgainStops) {
  World w(quietDef());
  const BodyId box = w.createBody(BodyDef::staticBox({{40, 40}, {44, 42}}));
  w.setType(box, BodyType::Kinematic);
  w.setVelocity(box, {2, 0});
  for (int s = 0; s < 30; ++s) w.step(kDt);
  EXPECT_NEAR(w.position(box).x, 42.0f + 1.0f, 1e-3f);
  w.setType(box, BodyType::StaticBox);
  EXPECT_EQ(w.velocity(box), (Vec2{0, 0}));
  const Vec2 p = w.position(box);
  w.step(kDt);
  EXPECT_EQ(w.position(box), p);
  expectRestorable(w);
}

// What rested on a body that changes wakes, and a ball dropped on a ball
// made kinematic bounces off it without moving it.
TEST(SetType, WakesWhatRestedOnItAndAKinematicBallIsNotPushed) {
  WorldDef def = quietDef({0, -10});
  def.timeToSleep = 0.2f;
  def.restitution = 0.0f;
  World w(def);
  const BodyId floor = w.createBody(BodyDef::staticBox({{20, 0}, {80, 2}}));
  const BodyId low = w.createBody(BodyDef::ball({50, 3}, 1.0f));
  const BodyId high = w.createBody(BodyDef::ball({50, 5}, 1.0f));
  for (int s = 0; s < 240; ++s) w.step(kDt);
  ASSERT_FALSE(w.isAwake(high));
  w.setType(low, BodyType::Kinematic);  // the stack's lower ball holds still
  EXPECT_TRUE(w.isAwake(high));
  const Vec2 p = w.position(low);
  for (int s = 0; s < 60; ++s) w.step(kDt);
  EXPECT_EQ(w.position(low), p);
  EXPECT_GT(w.position(high).y, p.y + 1.9f);  // still on top of it
  w.setType(floor, BodyType::Kinematic);      // a box: every island wakes
  EXPECT_TRUE(w.isAwake(high));
  expectRestorable(w);
}

TEST(SetType, RefusesWhatTheShapeDoesNotAllowAndLeavesTheWorldUnchanged) {
  World w(quietDef({0, -10}));
  const BodyId ball = w.createBody(BodyDef::ball({50, 50}, 1.0f, {1, 2}));
  const BodyId box = w.createBody(BodyDef::staticBox({{10, 10}, {12, 12}}));
  const BodyId kBox = w.createBody(BodyDef::kinematicBox({{20, 20}, {22, 22}}));
  const BodyId kBall = w.createBody(BodyDef::kinematicBall({30, 30}, 1.0f));
  w.step(kDt);
  const auto before = w.snapshot();
  EXPECT_THROW(w.setType(ball, BodyType::StaticBox), Error);
  EXPECT_THROW(w.setType(box, BodyType::Ball), Error);
  EXPECT_THROW(w.setType(kBox, BodyType::Ball), Error);
  EXPECT_THROW(w.setType(kBall, BodyType::StaticBox), Error);
  EXPECT_THROW(w.setType(ball, static_cast<BodyType>(7)), Error);
  EXPECT_THROW(w.setType(BodyId{}, BodyType::Ball), Error);
  EXPECT_EQ(w.snapshot(), before);
  w.setType(ball, BodyType::Ball);  // the same type: nothing changes
  EXPECT_EQ(w.snapshot(), before);
}

TEST(SetType, ABallThatWouldNotFitInsideAClosedWorldIsRefused) {
  WorldDef def = quietDef();
  def.bounds = {{0, 0}, {100, 100}};
  World w(def);
  // A kinematic ball may pass the walls (they do not stop it).
  const BodyId k = w.createBody(BodyDef::kinematicBall({50, 50}, 1.0f, {600, 0}));
  for (int s = 0; s < 10; ++s) w.step(kDt);
  ASSERT_GT(w.position(k).x, 100.0f);
  const auto before = w.snapshot();
  EXPECT_THROW(w.setType(k, BodyType::Ball), Error);
  EXPECT_EQ(w.snapshot(), before);
}

// A crowd in contact (warm-started contacts, colours) with one ball turned
// kinematic and back, many times: every step's world restores.
TEST(SetType, ContactsOfAChangedBodyEndAndTheCrowdStaysConsistent) {
  WorldDef def = quietDef({0, -10});
  def.restitution = 0.2f;
  World w(def);
  std::vector<BodyId> balls;
  for (int y = 0; y < 6; ++y) {
    for (int x = 0; x < 12; ++x) {
      balls.push_back(w.createBody(BodyDef::ball(
          {40.0f + 2.0f * float(x) + 0.5f * float(y % 2), 2.0f + 2.0f * float(y)}, 1.0f)));
    }
  }
  const BodyId box = w.createBody(BodyDef::staticBox({{30, 0}, {70, 1}}));
  for (int round = 0; round < 12; ++round) {
    for (int s = 0; s < 5; ++s) w.step(kDt);
    const BodyId b = balls[std::size_t(round * 7) % balls.size()];
    w.setType(b, w.type(b) == BodyType::Ball ? BodyType::Kinematic : BodyType::Ball);
    if (round % 4 == 3) {
      w.setType(box,
                w.type(box) == BodyType::StaticBox ? BodyType::Kinematic : BodyType::StaticBox);
    }
    const auto bytes = w.snapshot();
    World copy(w.def());
    ASSERT_NO_THROW(copy.restore(bytes)) << "round " << round;
  }
  expectRestorable(w);
}

TEST(SetType, ABallInASensorMadeKinematicEndsItsOverlap) {
  World w(quietDef({0, 0}));
  BodyDef zone = BodyDef::staticBox({{40, 40}, {60, 60}});
  zone.isSensor = true;
  const BodyId sensor = w.createBody(zone);
  const BodyId ball = w.createBody(BodyDef::ball({50, 50}, 1.0f));
  w.step(kDt);
  ASSERT_EQ(w.sensorBeginEvents().size(), 1u);
  w.setType(ball, BodyType::Kinematic);
  // The overlap ends with the ball's type: a snapshot now restores, and
  // the next step reports the end, once.
  {
    const auto bytes = w.snapshot();
    World copy(w.def());
    ASSERT_NO_THROW(copy.restore(bytes));
  }
  w.step(kDt);
  ASSERT_EQ(w.sensorEndEvents().size(), 1u);
  EXPECT_EQ(w.sensorEndEvents()[0].sensor, sensor);
  EXPECT_EQ(w.sensorEndEvents()[0].visitor, ball);
  w.step(kDt);
  EXPECT_TRUE(w.sensorEndEvents().empty());
  EXPECT_TRUE(w.sensorBeginEvents().empty());
  // Made a ball again, it is seen again.
  w.setType(ball, BodyType::Ball);
  w.step(kDt);
  EXPECT_EQ(w.sensorBeginEvents().size(), 1u);
  expectRestorable(w);
}
