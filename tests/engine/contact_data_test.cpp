// World::contacts and contactsOf (docs/events.md, "Contacts now"): the
// touching pairs after the last step, with their geometry and impulses,
// checked against a resting stack whose impulses are known.
#include <gtest/gtest.h>

#include <cmath>
#include <quadbin/quadbin.hpp>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

WorldDef restingDef() {
  WorldDef def;
  def.bounds = {{0, 0}, {40, 40}};
  def.gravity = {0, -10};
  def.enableSleep = false;
  def.logLevel = LogLevel::Off;
  return def;
}

}  // namespace

// A ball of mass m on a static box, a ball of mass 2m on it: the box
// carries 3 m g dt per step, the upper contact 2 m g dt.
TEST(ContactData, ARestingStackHasItsWeightInItsImpulses) {
  World w(restingDef());
  const BodyId box = w.createBody(BodyDef::staticBox({{10, 4}, {30, 5}}));
  BodyDef lower = BodyDef::ball({20, 6}, 1.0f);
  lower.mass = 1.0f;
  BodyDef upper = BodyDef::ball({20, 8}, 1.0f);
  upper.mass = 2.0f;
  const BodyId a = w.createBody(lower);
  const BodyId b = w.createBody(upper);
  for (int s = 0; s < 120; ++s) w.step(kDt);
  const auto all = w.contacts();
  ASSERT_EQ(all.size(), 2u);
  // The lower ball's contacts, by the other's dense index: the box (0), then b.
  const ContactData& onBox = all[0];
  EXPECT_EQ(onBox.a, a);
  EXPECT_EQ(onBox.b, box);
  EXPECT_EQ(onBox.wall, WallSide::None);
  EXPECT_NEAR(onBox.normal.x, 0.0f, 1e-6f);
  EXPECT_NEAR(onBox.normal.y, -1.0f, 1e-6f);
  EXPECT_NEAR(onBox.point.y, 5.0f, 1e-3f);
  EXPECT_NEAR(onBox.normalImpulse, 3.0f * 10.0f * kDt, 0.02f * 3.0f * 10.0f * kDt);
  EXPECT_EQ(onBox.tangentImpulse, 0.0f);  // frictionless
  const ContactData& between = all[1];
  EXPECT_EQ(between.a, a);
  EXPECT_EQ(between.b, b);
  EXPECT_NEAR(between.normal.y, 1.0f, 1e-5f);
  EXPECT_NEAR(between.point.y, 7.0f, 1e-3f);
  EXPECT_NEAR(between.normalImpulse, 2.0f * 10.0f * kDt, 0.02f * 2.0f * 10.0f * kDt);
  std::vector<ContactData> mine;
  w.contactsOf(b, mine);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].b, b);
  w.contactsOf(box, mine);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].a, a);
  // Destroyed, the box's contact is gone at once.
  w.destroyBody(box);
  for (const ContactData& d : w.contacts()) EXPECT_NE(d.b, box);
  EXPECT_THROW(w.contactsOf(box, mine), Error);
}

// A ball on the floor of a closed world: a wall contact, b null.
TEST(ContactData, TheFloorIsAWallContact) {
  World w(restingDef());
  const BodyId ball = w.createBody(BodyDef::ball({7, 1}, 1.0f));
  for (int s = 0; s < 60; ++s) w.step(kDt);
  const auto all = w.contacts();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].a, ball);
  EXPECT_TRUE(all[0].b.isNull());
  EXPECT_EQ(all[0].wall, WallSide::MinY);
  EXPECT_EQ(all[0].normal, (Vec2{0, -1}));
  EXPECT_NEAR(all[0].point.x, 7.0f, 1e-4f);
  EXPECT_NEAR(all[0].point.y, 0.0f, 1e-3f);
  EXPECT_NEAR(all[0].normalImpulse, w.mass(ball) * 10.0f * kDt, 1e-3f);
  // Nothing touches in a world without contacts.
  World empty(restingDef());
  EXPECT_TRUE(empty.contacts().empty());
}

// The same list on 1 and 3 threads, bit for bit.
TEST(ContactData, TheSameOnAnyThreadCount) {
  auto run = [](std::uint32_t threads) {
    WorldDef def = restingDef();
    def.threadCount = threads;
    def.restitution = 0.2f;
    World w(def);
    for (int i = 0; i < 200; ++i) {
      BodyDef d = BodyDef::ball(
          {2.0f + static_cast<float>(i % 18) * 2.1f, 2.0f + static_cast<float>(i / 18) * 2.1f},
          1.0f);
      d.friction = 0.5f;
      w.createBody(d);
    }
    for (int s = 0; s < 180; ++s) w.step(kDt);
    const auto all = w.contacts();
    return std::vector<ContactData>(all.begin(), all.end());
  };
  const auto one = run(1), three = run(3);
  ASSERT_EQ(one.size(), three.size());
  ASSERT_GT(one.size(), 150u);  // a settled pile: about a contact per ball and more
  for (std::size_t k = 0; k < one.size(); ++k) {
    EXPECT_EQ(one[k].a.index, three[k].a.index);  // two worlds: ids differ in world only
    EXPECT_EQ(one[k].b.index, three[k].b.index);
    EXPECT_EQ(one[k].normalImpulse, three[k].normalImpulse);
    EXPECT_EQ(one[k].tangentImpulse, three[k].tangentImpulse);
    EXPECT_EQ(one[k].point, three[k].point);
  }
}
