// Static and kinematic outlines (BodyDef::outline): segments, chains,
// convex polygons and turned boxes. Analytic physics (a ball rolling down a
// slope, bouncing off a 45-degree segment and a turned box, rolling over a
// chain's inner vertices, a ball at 100 units per step), queries, sensors,
// snapshots, the debug draw and the refusals.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <quadbin/engine/world.hpp>
#include <quadbin/engine/world_draw.hpp>
#include <vector>

using namespace quadbin;

namespace {

constexpr float kDt = 1.0f / 60.0f;

WorldDef openWorld(Vec2 gravity = {}) {
  WorldDef def;
  def.bounds = {{-200.0f, -200.0f}, {200.0f, 200.0f}};
  def.boundary = Boundary::Open;
  def.gravity = gravity;
  def.enableSleep = false;
  def.threadCount = 1;
  return def;
}

BodyDef ballAt(Vec2 p, float r, Vec2 v = {}) {
  BodyDef d = BodyDef::ball(p, r, v);
  return d;
}

// Unit vector at `degrees` from the x axis.
Vec2 direction(float degrees) {
  const float a = degrees * std::numbers::pi_v<float> / 180.0f;
  return {std::cos(a), std::sin(a)};
}

}  // namespace

TEST(Outline, BallRollsDownAThirtyDegreeSlopeAtTwoThirdsGSinTheta) {
  // Rolling without slipping: a = g sin(theta) / (1 + I / (m r^2)). A
  // quadbin ball is a solid disc (I = m r^2 / 2, docs/physics.md), so
  // a = 2/3 g sin(theta) (a solid sphere's would be 5/7).
  const float g = 10.0f;
  World world(openWorld({0.0f, -g}));
  const Vec2 down = direction(-30.0f);  // along the slope, downhill
  const Vec2 a{-50.0f, 25.0f}, b = a + down * 120.0f;
  BodyDef slope = BodyDef::staticSegment(a, b);
  slope.friction = 1.0f;
  slope.restitution = 0.0f;
  world.createBody(slope);
  const float r = 0.5f;
  const Vec2 up = direction(60.0f);  // the slope's normal on the ball's side
  BodyDef ball = ballAt(a + down * 5.0f + up * r, r);
  ball.friction = 1.0f;
  ball.restitution = 0.0f;
  const BodyId id = world.createBody(ball);
  const Vec2 start = world.position(id);
  const int steps = 120;  // 2 s
  for (int k = 0; k < steps; ++k) world.step(kDt);
  const float t = steps * kDt;
  const float expected = 2.0f / 3.0f * g * 0.5f;  // sin 30 = 1/2
  const float travelled = dot(world.position(id) - start, down);
  const float speed = dot(world.velocity(id), down);
  EXPECT_NEAR(speed / t, expected, 0.03f * expected);
  EXPECT_NEAR(travelled, 0.5f * expected * t * t, 0.04f * 0.5f * expected * t * t);
  // It stays on the slope: neither sinks nor hops.
  const float height = dot(world.position(id) - a, up);
  EXPECT_NEAR(height, r, 0.01f * r);
  // And rolls: the surface speed matches the speed along the slope.
  EXPECT_NEAR(-world.angularVelocity(id) * r, speed, 0.03f * std::abs(speed));
}

TEST(Outline, FrictionlessBallSlidesDownASlopeAtGSinTheta) {
  const float g = 10.0f;
  World world(openWorld({0.0f, -g}));
  const Vec2 down = direction(-30.0f);
  const Vec2 a{-50.0f, 25.0f};
  BodyDef slope = BodyDef::staticSegment(a, a + down * 120.0f);
  slope.restitution = 0.0f;
  world.createBody(slope);
  BodyDef ball = ballAt(a + down * 5.0f + direction(60.0f) * 0.5f, 0.5f);
  ball.restitution = 0.0f;
  const BodyId id = world.createBody(ball);
  for (int k = 0; k < 60; ++k) world.step(kDt);
  EXPECT_NEAR(dot(world.velocity(id), down), g * 0.5f * 1.0f, 0.02f * g * 0.5f);
}

TEST(Outline, BounceOffAFortyFiveDegreeSegmentKeepsSpeedAndMirrorsTheAngle) {
  World world(openWorld());
  world.createBody(BodyDef::staticSegment({-10.0f, -10.0f}, {10.0f, 10.0f}));
  // Falling straight down onto the line y = x from its upper-left side.
  const BodyId id = world.createBody(ballAt({-2.0f, 5.0f}, 0.5f, {0.0f, -10.0f}));
  for (int k = 0; k < 60; ++k) world.step(kDt);
  const Vec2 v = world.velocity(id);
  EXPECT_NEAR(length(v), 10.0f, 1e-3f);
  EXPECT_NEAR(v.x, -10.0f, 1e-3f);  // angle in = angle out: leaves horizontally
  EXPECT_NEAR(v.y, 0.0f, 1e-3f);
}

TEST(Outline, BounceOffATurnedBoxFaceMirrorsTheAngle) {
  World world(openWorld());
  // A square turned by 45 degrees: its upper-right face has the normal
  // (1, 1) / sqrt 2.
  world.createBody(BodyDef::staticBox({0.0f, 0.0f}, {4.0f, 4.0f}, std::numbers::pi_v<float> / 4));
  const BodyId id = world.createBody(ballAt({2.0f, 10.0f}, 0.5f, {0.0f, -10.0f}));
  for (int k = 0; k < 60; ++k) world.step(kDt);
  const Vec2 v = world.velocity(id);
  EXPECT_NEAR(length(v), 10.0f, 1e-3f);
  EXPECT_NEAR(v.x, 10.0f, 1e-3f);
  EXPECT_NEAR(v.y, 0.0f, 1e-3f);
}

TEST(Outline, BallSlidesAndRollsOverAChainsInnerVerticesWithoutABump) {
  for (const float friction : {0.0f, 0.6f}) {
    World world(openWorld({0.0f, -10.0f}));
    std::vector<Vec2> points;
    for (int k = 0; k <= 60; ++k) points.emplace_back(static_cast<float>(k) * 0.5f - 5.0f, 0.0f);
    const std::vector<BodyId> chain = world.createChain(points);
    ASSERT_EQ(chain.size(), 60u);
    for (const BodyId s : chain) {
      world.setFriction(s, friction);
      world.setRestitution(s, 0.0f);
    }
    BodyDef ball = ballAt({-4.0f, 0.25f}, 0.25f, {6.0f, 0.0f});
    ball.friction = friction;
    ball.restitution = 0.0f;
    const BodyId id = world.createBody(ball);
    float highest = 0.0f, fastestUp = 0.0f;
    for (int k = 0; k < 150; ++k) {  // 2.5 s: over about 30 joints
      world.step(kDt);
      highest = std::max(highest, world.position(id).y - 0.25f);
      fastestUp = std::max(fastestUp, world.velocity(id).y);
    }
    EXPECT_GT(world.position(id).x, 5.0f) << "friction " << friction;
    EXPECT_LT(highest, 1e-3f) << "friction " << friction;
    EXPECT_LT(fastestUp, 1e-2f) << "friction " << friction;
  }
}

TEST(Outline, ChainOverAHillKeepsTheBallOnItsSurface) {
  // A convex arc of segments: the ball slides over the top without
  // catching on any vertex; never deeper than the slop into the chain.
  World world(openWorld({0.0f, -10.0f}));
  std::vector<Vec2> points;
  for (int k = 0; k <= 40; ++k) {
    const float a = std::numbers::pi_v<float> * (0.75f - 0.5f * static_cast<float>(k) / 40.0f);
    points.push_back(Vec2{std::cos(a), std::sin(a)} * 20.0f);
  }
  world.createChain(points);
  const BodyId id = world.createBody(ballAt(direction(135.0f) * 20.5f, 0.5f));
  float deepest = 0.0f;
  for (int k = 0; k < 240; ++k) {
    world.step(kDt);
    const Vec2 p = world.position(id);
    if (std::abs(std::atan2(p.y, p.x) - std::numbers::pi_v<float> / 2) < 0.7f) {
      deepest = std::max(deepest, 20.5f - length(p));
    }
  }
  EXPECT_LT(deepest, 0.02f);
}

TEST(Outline, BallAtOneHundredUnitsPerStepNeverPassesASegment) {
  const float speed = 100.0f / kDt;
  for (const float angle : {-90.0f, -60.0f, -45.0f, -20.0f}) {
    World world(openWorld());
    world.createBody(BodyDef::staticSegment({-150.0f, 0.0f}, {150.0f, 0.0f}));
    const Vec2 v = direction(angle) * speed;
    const BodyId id = world.createBody(ballAt(Vec2{0.0f, 50.0f} - v * (0.4f * kDt), 0.5f, v));
    for (int k = 0; k < 3; ++k) {
      world.step(kDt);
      EXPECT_GT(world.position(id).y, 0.5f - 1e-3f) << "angle " << angle << " step " << k;
    }
    EXPECT_NEAR(world.velocity(id).y, speed * std::abs(direction(angle).y), 1e-2f * speed);
  }
}

TEST(Outline, FastBallAtAChainJointBouncesBack) {
  // Straight at the shared vertex of two segments, flat and over a hill:
  // one of the two owns it, and the ball never passes.
  for (const float rise : {0.0f, 2.0f, -2.0f}) {
    World world(openWorld());
    const std::array<Vec2, 3> points{Vec2{-20.0f, -rise}, Vec2{0.0f, 0.0f}, Vec2{20.0f, -rise}};
    world.createChain(points);
    const BodyId id = world.createBody(ballAt({0.0f, 30.0f}, 0.5f, {0.0f, -3000.0f}));
    for (int k = 0; k < 4; ++k) {
      world.step(kDt);
      EXPECT_GT(world.position(id).y, 0.0f) << "rise " << rise << " step " << k;
    }
    EXPECT_GT(world.velocity(id).y, 0.0f) << "rise " << rise;
  }
}

TEST(Outline, DestroyedChainSegmentLeavesItsNeighboursWithPlainEnds) {
  World world(openWorld());
  const std::array<Vec2, 4> points{Vec2{-10.0f, 0.0f}, Vec2{0.0f, 0.0f}, Vec2{10.0f, 0.0f},
                                   Vec2{20.0f, 0.0f}};
  const std::vector<BodyId> chain = world.createChain(points);
  world.destroyBody(chain[1]);
  // A ball falling onto the first segment's end, (0, 0): the segment that
  // owned that vertex's region is gone, so the first one must hold it now.
  // It hits the corner with the normal (0.6, 0.8) and leaves with
  // v - 2 (v . n) n = (4.8, 1.4).
  const BodyId id = world.createBody(ballAt({0.3f, 2.0f}, 0.5f, {0.0f, -5.0f}));
  for (int k = 0; k < 60; ++k) world.step(kDt);
  EXPECT_NEAR(world.velocity(id).x, 4.8f, 1e-3f);
  EXPECT_NEAR(world.velocity(id).y, 1.4f, 1e-3f);
}

TEST(Outline, KinematicPolygonPushesABallAndNeverOverlapsIt) {
  World world(openWorld());
  const std::array<Vec2, 3> wedge{Vec2{-1.0f, -1.0f}, Vec2{1.0f, 0.0f}, Vec2{-1.0f, 1.0f}};
  const BodyId paddle = world.createBody(BodyDef::kinematicPolygon(wedge, {20.0f, 0.0f}));
  const BodyId id = world.createBody(ballAt({3.0f, 0.0f}, 0.5f));
  for (int k = 0; k < 30; ++k) {
    world.step(kDt);
    // The tip (1, 0) leads: the ball stays ahead of it.
    EXPECT_GE(world.position(id).x - (world.position(paddle).x + 1.0f), 0.5f - 2e-3f) << k;
  }
  EXPECT_GT(world.velocity(id).x, 20.0f);  // e = 1 off a body of infinite mass: 40
}

TEST(Outline, QueriesSeeTheOutlinesExactly) {
  World world(openWorld());
  const BodyId seg = world.createBody(BodyDef::staticSegment({0.0f, 0.0f}, {10.0f, 10.0f}));
  const std::array<Vec2, 3> tri{Vec2{20.0f, 0.0f}, Vec2{30.0f, 0.0f}, Vec2{20.0f, 10.0f}};
  const BodyId poly = world.createBody(BodyDef::staticPolygon(tri));
  // Rays: the segment from below-right (the normal faces the ray) and the
  // triangle's hypotenuse.
  auto hit = world.raycast(Ray{{10.0f, 0.0f}, {-1.0f, 0.0f}, 20.0f});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, seg);
  EXPECT_NEAR(hit->t, 10.0f, 1e-4f);
  EXPECT_NEAR(hit->normal.x, std::sqrt(0.5f), 1e-5f);
  EXPECT_NEAR(hit->normal.y, -std::sqrt(0.5f), 1e-5f);
  hit = world.raycast(Ray{{30.0f, 10.0f}, {-1.0f, -1.0f}, 20.0f});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->body, poly);
  EXPECT_NEAR(hit->t, 5.0f, 1e-4f);  // x + y = 40 - 2t meets x + y = 30
  // A ray through the segment's bounding box that misses the segment.
  EXPECT_FALSE(world.raycast(Ray{{1.0f, 9.0f}, {1.0f, 0.0f}, 5.0f}));
  std::vector<BodyId> found;
  world.queryBox({{1.0f, 7.0f}, {3.0f, 9.0f}}, found);  // in the segment's box, off the line
  EXPECT_TRUE(found.empty());
  world.queryBox({{4.0f, 4.5f}, {6.0f, 5.5f}}, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], seg);
  world.queryBox({{26.0f, 6.0f}, {29.0f, 9.0f}}, found);  // beyond the hypotenuse
  EXPECT_TRUE(found.empty());
  world.queryRadius({26.0f, 6.0f}, 1.5f, found);  // the hypotenuse is 1.41 away
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], poly);
  const AABB box = world.bounds(poly);
  EXPECT_EQ(box.min, (Vec2{20.0f, 0.0f}));
  EXPECT_EQ(box.max, (Vec2{30.0f, 10.0f}));
}

TEST(Outline, PolygonSensorSeesABallCrossIt) {
  World world(openWorld());
  const std::array<Vec2, 4> diamond{Vec2{0.0f, -2.0f}, Vec2{2.0f, 0.0f}, Vec2{0.0f, 2.0f},
                                    Vec2{-2.0f, 0.0f}};
  BodyDef s = BodyDef::staticPolygon(diamond);
  s.isSensor = true;
  const BodyId sensor = world.createBody(s);
  // One passes through the diamond, one only through its bounding box's
  // corner, along x + y = 2.6: 0.42 from the edge x + y = 2.
  const BodyId through = world.createBody(ballAt({-10.0f, 0.0f}, 0.25f, {60.0f, 0.0f}));
  world.createBody(ballAt({-6.0f, 8.6f}, 0.25f, {40.0f, -40.0f}));
  std::vector<BodyId> visitors;
  for (int k = 0; k < 20; ++k) {
    world.step(kDt);
    for (const SensorEvent& e : world.sensorBeginEvents()) {
      EXPECT_EQ(e.sensor, sensor);
      visitors.push_back(e.visitor);
    }
  }
  ASSERT_EQ(visitors.size(), 1u);
  EXPECT_EQ(visitors[0], through);
}

TEST(Outline, SnapshotKeepsOutlinesAndChainsAndContinuesBitForBit) {
  World world(openWorld({0.0f, -10.0f}));
  std::vector<Vec2> points;
  for (int k = 0; k <= 12; ++k) {
    const float x = static_cast<float>(k) * 2.0f - 12.0f;
    points.emplace_back(x, 0.02f * x * x);
  }
  world.createChain(points);
  const std::array<Vec2, 5> pent{Vec2{0.0f, 5.0f}, Vec2{2.0f, 6.0f}, Vec2{1.5f, 8.0f},
                                 Vec2{-1.5f, 8.0f}, Vec2{-2.0f, 6.0f}};
  world.createBody(BodyDef::staticPolygon(pent));
  for (int k = 0; k < 20; ++k) {
    BodyDef d = ballAt(
        {-8.0f + 0.8f * static_cast<float>(k), 12.0f + 0.3f * static_cast<float>(k % 3)}, 0.3f);
    d.friction = 0.4f;
    world.createBody(d);
  }
  for (int k = 0; k < 30; ++k) world.step(kDt);
  const std::vector<std::byte> bytes = world.snapshot();
  World copy(openWorld({0.0f, -10.0f}));
  copy.restore(bytes);
  EXPECT_EQ(copy.snapshot(), bytes);
  for (int k = 0; k < 90; ++k) {
    world.step(kDt);
    copy.step(kDt);
  }
  EXPECT_EQ(copy.snapshot(), world.snapshot());
  // A corrupted outline is refused: every byte of the outline block is
  // covered by the checksum, so flip one and fix nothing: refused.
  std::vector<std::byte> bad = bytes;
  bad[bad.size() - 20] ^= std::byte{1};
  EXPECT_THROW(copy.restore(bad), Error);
}

TEST(Outline, DebugDrawReportsPolygonsAndSegments) {
  struct Recorder : WorldDraw {
    std::vector<std::vector<Vec2>> shapes;
    std::vector<bool> closed;
    void polygon(const DrawnPolygon& p) override {
      shapes.emplace_back(p.vertices.begin(), p.vertices.end());
      closed.push_back(p.closed);
    }
  } recorder;
  World world(openWorld());
  world.createBody(BodyDef::staticSegment({0.0f, 0.0f}, {4.0f, 2.0f}));
  const std::array<Vec2, 3> cw{Vec2{10.0f, 0.0f}, Vec2{10.0f, 4.0f}, Vec2{14.0f, 0.0f}};
  world.createBody(BodyDef::staticPolygon(cw));
  world.draw(recorder, {});
  ASSERT_EQ(recorder.shapes.size(), 2u);
  EXPECT_FALSE(recorder.closed[0]);
  EXPECT_EQ(recorder.shapes[0][0], (Vec2{0.0f, 0.0f}));
  EXPECT_EQ(recorder.shapes[0][1], (Vec2{4.0f, 2.0f}));
  EXPECT_TRUE(recorder.closed[1]);
  ASSERT_EQ(recorder.shapes[1].size(), 3u);
  // Counter-clockwise whatever the def's winding.
  const auto& s = recorder.shapes[1];
  EXPECT_GT(cross(s[1] - s[0], s[2] - s[1]), 0.0f);
}

TEST(Outline, BadOutlinesAreRefusedWithTheWorldUnchanged) {
  World world(openWorld());
  world.createBody(ballAt({50.0f, 50.0f}, 1.0f));
  const std::array<Vec2, 4> dart{Vec2{0.0f, 0.0f}, Vec2{4.0f, 0.0f}, Vec2{1.0f, 1.0f},
                                 Vec2{0.0f, 4.0f}};
  const std::array<Vec2, 3> line{Vec2{0.0f, 0.0f}, Vec2{1.0f, 1.0f}, Vec2{2.0f, 2.0f}};
  const std::array<Vec2, 9> many{};
  EXPECT_THROW(world.createBody(BodyDef::staticPolygon(dart)), Error);
  EXPECT_THROW(world.createBody(BodyDef::staticPolygon(line)), Error);
  EXPECT_THROW((void)BodyDef::staticPolygon(many), Error);
  EXPECT_THROW(world.createBody(BodyDef::staticSegment({1.0f, 1.0f}, {1.0f, 1.0f})), Error);
  BodyDef nan = BodyDef::staticSegment({0.0f, 0.0f}, {1.0f, 0.0f});
  nan.outline[1].y = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(world.createBody(nan), Error);
  BodyDef ball = ballAt({0.0f, 0.0f}, 1.0f);
  ball.outlineCount = 2;
  ball.outline[1] = {1.0f, 0.0f};
  EXPECT_THROW(world.createBody(ball), Error);
  BodyDef kinematic = BodyDef::staticSegment({0.0f, 0.0f}, {1.0f, 0.0f});
  kinematic.type = BodyType::Kinematic;  // radius 1 (the default) and an outline
  EXPECT_THROW(world.createBody(kinematic), Error);
  BodyDef one = BodyDef::staticSegment({0.0f, 0.0f}, {1.0f, 0.0f});
  one.outlineCount = 1;
  EXPECT_THROW(world.createBody(one), Error);
  const std::array<Vec2, 1> single{Vec2{0.0f, 0.0f}};
  EXPECT_THROW(world.createChain(single), Error);
  const std::array<Vec2, 2> pair{Vec2{0.0f, 0.0f}, Vec2{1.0f, 0.0f}};
  EXPECT_THROW(world.createChain(pair, true), Error);
  const std::array<Vec2, 3> repeated{Vec2{0.0f, 0.0f}, Vec2{1.0f, 0.0f}, Vec2{1.0f, 0.0f}};
  EXPECT_THROW(world.createChain(repeated), Error);
  EXPECT_EQ(world.bodyCount(), 1u);
  // A good chain and loop are accepted.
  EXPECT_EQ(world.createChain(pair).size(), 1u);
  const std::array<Vec2, 3> triangle{Vec2{0.0f, 0.0f}, Vec2{1.0f, 0.0f}, Vec2{0.0f, 1.0f}};
  EXPECT_EQ(world.createChain(triangle, true).size(), 3u);
}

namespace {

// A kinematic bar from its pivot (the body's position) to 4 units along x,
// half a unit thick, turning counter-clockwise at w.
BodyDef flipper(Vec2 pivot) {
  BodyDef d;
  d.type = BodyType::Kinematic;
  d.radius = 0.0f;
  d.position = pivot;
  d.outline = {Vec2{0.0f, -0.25f}, Vec2{4.0f, -0.25f}, Vec2{4.0f, 0.25f}, Vec2{0.0f, 0.25f}};
  d.outlineCount = 4;
  return d;
}

// Distance from p to the bar above turned by `angle` about the origin (< 0 inside).
float barGap(Vec2 p, float angle) {
  const float c = std::cos(angle), s = std::sin(angle);
  const Vec2 q{c * p.x + s * p.y, -s * p.x + c * p.y};  // into the bar's frame
  const Vec2 d{std::max({0.0f - q.x, q.x - 4.0f, 0.0f}), std::max(std::abs(q.y) - 0.25f, 0.0f)};
  if (d.x > 0.0f || d.y > 0.0f) return length(d);
  return -std::min({q.x, 4.0f - q.x, 0.25f - std::abs(q.y)});
}

}  // namespace

TEST(Outline, TurningFlipperHitsABallWithItsSurfaceSpeed) {
  World world(openWorld());
  const BodyId bar = world.createBody(flipper({0.0f, 0.0f}));
  world.setAngularVelocity(bar, 10.0f);
  const BodyId id = world.createBody(ballAt({3.0f, 1.0f}, 0.5f));
  for (int k = 0; k < 30; ++k) {
    world.step(kDt);
    EXPECT_GT(barGap(world.position(id), world.angle(bar)), 0.5f - 0.02f) << "step " << k;
  }
  // It meets the bar when the bar has turned by 0.082 rad, 3.07 units from
  // the pivot: the surface there moves at 30.7 along the bar's normal, and
  // an e = 1 bounce off a body of infinite mass leaves at twice that.
  const Vec2 v = world.velocity(id);
  EXPECT_NEAR(length(v), 61.4f, 0.05f * 61.4f);
  EXPECT_GT(v.y, 55.0f);
  EXPECT_NEAR(world.angle(bar), 30.0f * kDt * 10.0f - 2.0f * std::numbers::pi_v<float>, 1e-3f);
}

TEST(Outline, FastTurningBarNeverPassesThroughABall) {
  // A turn of one radian per step (the tip at 240 units/s): the ball in
  // its sweep is hit, never jumped over, and never left inside the bar.
  for (const float w : {60.0f, -60.0f}) {
    World world(openWorld());
    const BodyId bar = world.createBody(flipper({0.0f, 0.0f}));
    world.setAngularVelocity(bar, w);
    const BodyId id = world.createBody(ballAt({-2.0f, 2.0f}, 0.5f));
    for (int k = 0; k < 12; ++k) {
      world.step(kDt);
      EXPECT_GT(barGap(world.position(id), world.angle(bar)), 0.5f - 0.03f)
          << "w " << w << " step " << k;
    }
    EXPECT_GT(length(world.velocity(id)), 10.0f) << "w " << w;
  }
}

TEST(Outline, OnlyKinematicOutlinesTurnAndTheyRestoreBitForBit) {
  World world(openWorld());
  const BodyId box = world.createBody(BodyDef::kinematicBox({{0, 0}, {1, 1}}));
  const std::array<Vec2, 3> tri{Vec2{10, 0}, Vec2{12, 0}, Vec2{10, 2}};
  const BodyId fixed = world.createBody(BodyDef::staticPolygon(tri));
  const BodyId spinner = world.createBody(BodyDef::kinematicPolygon(tri));
  EXPECT_THROW(world.setAngularVelocity(box, 1.0f), Error);
  EXPECT_THROW(world.setAngularVelocity(fixed, 1.0f), Error);
  EXPECT_THROW(world.setAngularVelocity(spinner, 1e30f), Error);
  world.setAngularVelocity(spinner, 3.0f);
  // Its box now holds it at every angle: sqrt(2) around its position.
  for (int k = 0; k < 10; ++k)
    world.createBody(ballAt({9.0f + 0.3f * static_cast<float>(k), 3.5f}, 0.1f, {0, -5}));
  for (int k = 0; k < 20; ++k) world.step(kDt);
  const std::vector<std::byte> bytes = world.snapshot();
  World copy(openWorld());
  copy.restore(bytes);
  for (int k = 0; k < 40; ++k) {
    world.step(kDt);
    copy.step(kDt);
  }
  EXPECT_EQ(copy.snapshot(), world.snapshot());
  EXPECT_NEAR(world.angle(spinner), std::remainder(60.0f * kDt * 3.0f, 6.2831853f), 1e-4f);
}
