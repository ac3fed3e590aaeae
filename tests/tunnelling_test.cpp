// A ball moving up to 10 radii per step never passes through a wall, a
// static box or another ball, whatever fraction of a step it arrives at.
#include <gtest/gtest.h>

#include <quadbin/quadbin.hpp>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;
constexpr float kRadius = 0.5f;
constexpr float kSpeed = 10.0f * kRadius / kDt;  // 10 radii per step

WorldDef quietDef() {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  return def;
}

}  // namespace

class Tunnelling : public ::testing::TestWithParam<float> {};  // start offset

TEST_P(Tunnelling, NeverThroughTheWorldsWalls) {
  World w(quietDef());
  const BodyId a =
      w.createBody(BodyDef::ball({50 + GetParam(), 50}, kRadius, {kSpeed, kSpeed * 0.37f}));
  for (int i = 0; i < 300; ++i) {
    w.step(kDt);
    const Vec2 p = w.position(a);
    ASSERT_TRUE(p.x >= kRadius && p.x <= 100 - kRadius && p.y >= kRadius && p.y <= 100 - kRadius)
        << "step " << i << " at (" << p.x << ", " << p.y << ")";
  }
  EXPECT_NEAR(length(w.velocity(a)), kSpeed * std::sqrt(1 + 0.37f * 0.37f), 1e-2f);
}

TEST_P(Tunnelling, NeverThroughAThinStaticBox) {
  World w(quietDef());
  w.createBody(BodyDef::staticBox({{60, 0}, {60.05f, 100}}));  // a plank thinner than the ball
  const BodyId a = w.createBody(BodyDef::ball({20 + GetParam(), 50}, kRadius, {kSpeed, 0}));
  bool bounced = false;
  for (int i = 0; i < 120; ++i) {
    w.step(kDt);
    ASSERT_LE(w.position(a).x, 60 - kRadius + 1e-3f) << "passed the plank at step " << i;
    bounced |= w.velocity(a).x < 0.0f;
  }
  EXPECT_TRUE(bounced);
}

TEST_P(Tunnelling, NeverThroughTheCornerOfABox) {
  World w(quietDef());
  w.createBody(BodyDef::staticBox({{60, 60}, {61, 61}}));
  const BodyId a = w.createBody(
      BodyDef::ball({30 + GetParam(), 30 + GetParam() + 0.3f}, kRadius, {kSpeed, kSpeed}));
  for (int i = 0; i < 8; ++i) {
    w.step(kDt);
    const Vec2 p = w.position(a);
    ASSERT_FALSE(p.x > 60.5f && p.y > 60.5f) << "went through the corner at step " << i;
  }
}

TEST_P(Tunnelling, NeverThroughAnotherBall) {
  WorldDef def = quietDef();
  def.boundary = Boundary::Open;
  World w(def);
  const BodyId target = w.createBody(BodyDef::ball({60, 50}, kRadius));
  const BodyId bullet = w.createBody(BodyDef::ball({20 + GetParam(), 50.2f}, kRadius, {kSpeed, 0}));
  for (int i = 0; i < 30; ++i) {
    w.step(kDt);
    ASSERT_LT(w.position(bullet).x, w.position(target).x) << "passed through at step " << i;
  }
  EXPECT_GT(w.velocity(target).x, 0.5f * kSpeed);  // it was struck
}

TEST_P(Tunnelling, TwoFastBallsHeadOn) {
  WorldDef def = quietDef();
  def.boundary = Boundary::Open;
  World w(def);
  const BodyId a = w.createBody(BodyDef::ball({20 + GetParam(), 50}, kRadius, {kSpeed, 0}));
  const BodyId b = w.createBody(BodyDef::ball({80, 50.1f}, kRadius, {-kSpeed, 0}));
  for (int i = 0; i < 30; ++i) {
    w.step(kDt);
    ASSERT_LT(w.position(a).x, w.position(b).x) << "passed through at step " << i;
  }
  EXPECT_NEAR(w.velocity(a).x, -kSpeed, 0.05f * kSpeed);
}

TEST_P(Tunnelling, SlowBallStruckByAHeavyOneGainsSpeedSafely) {
  // The light ball ends up far faster than its swept box assumed; the
  // solver must look again before it passes the plank.
  WorldDef def = quietDef();
  World w(def);
  w.createBody(BodyDef::staticBox({{47.2f, 0}, {47.25f, 100}}));
  BodyDef heavy = BodyDef::ball({40 + GetParam() * 0.1f, 50}, kRadius, {kSpeed * 0.6f, 0});
  heavy.mass = 1000;
  w.createBody(heavy);
  const BodyId light = w.createBody(BodyDef::ball({42, 50}, kRadius));
  // Three steps: struck, thrown at the plank, bounced back (later the heavy
  // ball squeezes it against the plank, which no solver survives).
  bool bounced = false;
  for (int i = 0; i < 3; ++i) {
    w.step(kDt);
    ASSERT_LE(w.position(light).x, 47.2f - kRadius + 1e-3f) << "light ball passed at step " << i;
    bounced |= w.velocity(light).x < 0.0f;
  }
  EXPECT_TRUE(bounced);
}

INSTANTIATE_TEST_SUITE_P(StartOffsets, Tunnelling,
                         ::testing::Values(0.0f, 0.13f, 0.5f, 1.7f, 2.49f, 3.3f, 4.99f));
