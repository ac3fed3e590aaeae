// A turning kinematic outline's surface moves at vk + w x arm where a ball
// touches it: the resting contacts' velocity rows and the friction of
// resting contacts and impacts see that surface speed, not only the
// body's translation (docs/physics.md, "Turning outlines").
#include <gtest/gtest.h>

#include <cmath>
#include <quadbin/engine/world.hpp>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;
constexpr float kGravity = 10.0f;

WorldDef pileWorld() {
  WorldDef def;
  def.bounds = {{-200.0f, -200.0f}, {200.0f, 200.0f}};
  def.boundary = Boundary::Open;
  def.gravity = {0.0f, -kGravity};
  def.enableSleep = false;
  def.threadCount = 1;
  return def;
}

// A kinematic square of half side `half` about its position, turning at w.
BodyDef square(float half, float friction) {
  BodyDef d;
  d.type = BodyType::Kinematic;
  d.radius = 0.0f;
  d.position = {0.0f, 0.0f};
  d.outline = {Vec2{-half, -half}, Vec2{half, -half}, Vec2{half, half}, Vec2{-half, half}};
  d.outlineCount = 4;
  d.friction = friction;
  return d;
}

// A kinematic bar from its pivot (the body's position) to 4 units along x,
// half a unit thick.
BodyDef bar() {
  BodyDef d;
  d.type = BodyType::Kinematic;
  d.radius = 0.0f;
  d.position = {0.0f, 0.0f};
  d.outline = {Vec2{0.0f, -0.25f}, Vec2{4.0f, -0.25f}, Vec2{4.0f, 0.25f}, Vec2{0.0f, 0.25f}};
  d.outlineCount = 4;
  return d;
}

}  // namespace

TEST(TurningOutline, ABallRestingOnARisingBarMovesWithItsSurface) {
  // The bar turns slowly counter-clockwise: 3 units from the pivot its top
  // rises at 0.15 units/s, under the restitution threshold (2 g dt = 0.33):
  // a resting contact, which must carry the balls up at the surface's
  // speed (seeing the translation only, it would leave them still, lifted
  // by the position correction alone, with no velocity).
  World world(pileWorld());
  const BodyId b = world.createBody(bar());
  constexpr float kW = 0.05f;
  world.setAngularVelocity(b, kW);
  const BodyId ball = world.createBody(BodyDef::ball({3.0f, 0.75f}, 0.5f));
  // A second ball on it: the contact carries a load, so it stays a resting
  // contact (the velocity solver's) whatever the speeds.
  (void)world.createBody(BodyDef::ball({3.0f, 1.75f}, 0.5f));
  for (int k = 0; k < 30; ++k) world.step(kDt);
  const float angle = world.angle(b);
  const Vec2 normal{-std::sin(angle), std::cos(angle)};  // the bar's top
  const Vec2 p = world.position(ball);
  const float along = p.x * std::cos(angle) + p.y * std::sin(angle);  // from the pivot
  EXPECT_NEAR(dot(world.velocity(ball), normal), kW * along, 0.1f * kW * along);
  // And it stays on the surface: neither sunk nor lifted off.
  const float height = dot(p, normal) - 0.25f - 0.5f;
  EXPECT_NEAR(height, 0.0f, 0.01f);
}

TEST(TurningOutline, FrictionOnATurningSquareDragsABallAlongItsSurface) {
  // A square of half side 4 turning counter-clockwise at 0.5 rad/s: its top
  // moves at w * 4 = 2 units/s towards -x. Friction on the resting contact
  // brings the contact point of a solid disc to the surface's speed: the
  // ball's centre to a third of it (the rest is spin), within mu g dt per
  // step (0.13 units/s at mu = 0.8).
  World world(pileWorld());
  const BodyId s = world.createBody(square(4.0f, 0.8f));
  constexpr float kW = 0.5f;
  world.setAngularVelocity(s, kW);
  BodyDef d = BodyDef::ball({0.0f, 4.5f}, 0.5f);
  d.friction = 0.8f;
  const BodyId ball = world.createBody(d);
  for (int k = 0; k < 8; ++k) world.step(kDt);
  const float surface = -kW * 4.0f;
  EXPECT_NEAR(world.velocity(ball).x, surface / 3.0f, 0.15f * std::abs(surface / 3.0f));
  // Driven at its lowest point towards -x, it spins clockwise: v - w r = the
  // surface speed there.
  EXPECT_NEAR(world.velocity(ball).x + world.angularVelocity(ball) * 0.5f, surface, 0.05f * 2.0f);
}

TEST(TurningOutline, AnImpactOnATurningSquareTakesItsSurfaceSpeedWithFriction) {
  // A ball dropped from just above the top of a square turning at 1 rad/s
  // (its top moving at 4 units/s towards -x; it turns by 0.003 rad before
  // the ball lands): the impact's Coulomb friction, mu times a large normal
  // impulse, brings the contact point to the surface's speed, the centre
  // to a third of it, where a body seen as not moving would leave the
  // ball's horizontal speed at 0.
  WorldDef def = pileWorld();
  def.restitution = 0.5f;
  World world(def);
  const BodyId s = world.createBody(square(4.0f, 1.0f));
  world.setAngularVelocity(s, 1.0f);
  BodyDef d = BodyDef::ball({0.0f, 4.56f}, 0.5f, {0.0f, -20.0f});
  d.friction = 1.0f;
  const BodyId ball = world.createBody(d);
  world.step(kDt);
  ASSERT_GT(world.velocity(ball).y, 0.0f);  // it bounced
  EXPECT_NEAR(world.velocity(ball).x, -4.0f / 3.0f, 0.2f);
}
