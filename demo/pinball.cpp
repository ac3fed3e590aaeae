#include "pinball.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <tuple>

namespace demo {

namespace {

using quadbin::Vec2;

// The table, y up: a dome (a chain) over the field, bumpers and a spinner
// in the middle, two slopes down to a gap at the bottom centre, the paddle
// under the gap, and the drain (the floor strip) below it.
constexpr float kWidth = 100.0f;
constexpr float kHeight = 150.0f;
constexpr Vec2 kDomeCentre{50.0f, 98.0f};
constexpr float kDomeRadius = 50.0f;
constexpr int kDomeSegments = 24;
constexpr float kSlopeTop = 40.0f;     // where the slopes meet the side walls
constexpr float kGapY = 22.0f;         // where they end, either side of the gap
constexpr float kGapHalf = 8.0f;       // half the gap's width
constexpr float kPaddleY = 13.0f;      // the paddle's centre height
constexpr float kPaddleRun = 26.0f;    // how far its centre goes either side of the middle
constexpr float kPaddleSpeed = 16.0f;  // units/s
constexpr float kDrainTop = 8.0f;      // balls touching the strip below it (under the paddle) drain
constexpr float kRowY = 140.0f;        // where waiting balls drop from
constexpr std::uint32_t kRowEvery = 12;  // steps between two rows

quadbin::Filter tableFilter() {
  quadbin::Filter f;
  f.categoryBits = Pinball::kTableCategory;
  return f;
}

// Only the table's pieces, or only the balls (category 1).
quadbin::QueryFilter only(std::uint64_t category) {
  quadbin::QueryFilter f;
  f.categoryBits = ~0ull;
  f.maskBits = category;
  return f;
}

quadbin::BodyDef piece(quadbin::BodyDef def) {
  def.filter = tableFilter();
  return def;
}

// A regular polygon of `sides` corners on a circle of radius r around c,
// the first corner straight up (a bumper has no flat top to rest on).
std::vector<Vec2> regular(Vec2 c, float r, int sides) {
  std::vector<Vec2> v;
  for (int k = 0; k < sides; ++k) {
    const float a = std::numbers::pi_v<float> *
                    (0.5f + 2.0f * static_cast<float>(k) / static_cast<float>(sides));
    v.emplace_back(c.x + r * std::cos(a), c.y + r * std::sin(a));
  }
  return v;
}

// The height of the slopes (or of the gap's ends) below x.
float floorAt(float x) {
  const float run = kWidth * 0.5f - kGapHalf;
  const float drop = kSlopeTop - kGapY;
  if (x < run) return kSlopeTop - drop * x / run;
  if (x > kWidth - run) return kSlopeTop - drop * (kWidth - x) / run;
  return kGapY;
}

}  // namespace

quadbin::WorldDef Pinball::worldDef(quadbin::WorldDef def) {
  def.bounds = quadbin::AABB{{0.0f, 0.0f}, {kWidth, kHeight}};
  def.boundary = quadbin::Boundary::Closed;
  def.gravity = {0.0f, -30.0f};
  def.restitution = 0.6f;
  return def;
}

quadbin::BodyDef Pinball::ball(Vec2 position, Vec2 velocity) {
  quadbin::BodyDef def = quadbin::BodyDef::ball(position, kBallRadius, velocity);
  def.restitution = 0.6f;
  def.friction = 0.3f;
  return def;
}

Pinball::Pinball(quadbin::World& world, std::uint32_t balls, std::uint64_t seed) : rng_(seed) {
  buildWalls(world);
  buildBumpers(world);
  tableBodies_ = world.bodyCount();
  fillGrid(world, balls);
}

void Pinball::buildWalls(quadbin::World& world) {
  // The dome: a chain of segments along a half circle, wall to wall, so a
  // ball rolls along it without catching on the joints.
  std::vector<Vec2> arc;
  for (int k = 0; k <= kDomeSegments; ++k) {
    const float a = std::numbers::pi_v<float> * static_cast<float>(k) / kDomeSegments;
    const float x = std::clamp(kDomeCentre.x + kDomeRadius * std::cos(a), 0.0f, kWidth);
    arc.emplace_back(x, kDomeCentre.y + kDomeRadius * std::sin(a));
  }
  for (const quadbin::BodyId id : world.createChain(arc)) world.setFilter(id, tableFilter());
  // Two slopes from the side walls down to the gap at the bottom centre.
  const float half = kWidth * 0.5f;
  world.createBody(
      piece(quadbin::BodyDef::staticSegment({0.0f, kSlopeTop}, {half - kGapHalf, kGapY})));
  world.createBody(
      piece(quadbin::BodyDef::staticSegment({kWidth, kSlopeTop}, {half + kGapHalf, kGapY})));
  // The paddle under the gap: a kinematic trapezoid, driven by movePaddle.
  const std::array<Vec2, 4> paddle{{{half - 8.0f, kPaddleY - 1.5f},
                                    {half + 8.0f, kPaddleY - 1.5f},
                                    {half + 6.0f, kPaddleY + 1.5f},
                                    {half - 6.0f, kPaddleY + 1.5f}}};
  paddle_ =
      world.createBody(piece(quadbin::BodyDef::kinematicPolygon(paddle, {kPaddleSpeed, 0.0f})));
}

void Pinball::buildBumpers(quadbin::World& world) {
  // Hexagons and triangles (static convex polygons), corner up.
  for (const auto& [c, r, sides] :
       {std::tuple{Vec2{50.0f, 94.0f}, 5.0f, 6}, std::tuple{Vec2{25.0f, 78.0f}, 4.0f, 6},
        std::tuple{Vec2{75.0f, 78.0f}, 4.0f, 6}, std::tuple{Vec2{50.0f, 68.0f}, 4.5f, 3},
        std::tuple{Vec2{12.0f, 58.0f}, 4.5f, 3}, std::tuple{Vec2{88.0f, 58.0f}, 4.5f, 3}}) {
    const std::vector<Vec2> corners = regular(c, r, sides);
    world.createBody(piece(quadbin::BodyDef::staticPolygon(corners)));
  }
  // Two turned boxes sloping down towards the middle.
  world.createBody(piece(quadbin::BodyDef::staticBox({32.0f, 52.0f}, {7.0f, 0.8f}, -0.3f)));
  world.createBody(piece(quadbin::BodyDef::staticBox({68.0f, 52.0f}, {7.0f, 0.8f}, 0.3f)));
  // A spinner between the top bumpers: a kinematic bar turning about its
  // centre (setAngularVelocity), its ends at 10 units/s.
  const std::array<Vec2, 4> bar{{{45.0f, 80.4f}, {55.0f, 80.4f}, {55.0f, 81.6f}, {45.0f, 81.6f}}};
  const quadbin::BodyId spinner = world.createBody(piece(quadbin::BodyDef::kinematicPolygon(bar)));
  world.setAngularVelocity(spinner, 2.0f);
}

void Pinball::fillGrid(quadbin::World& world, std::uint32_t balls) {
  // Rows under the dome, top down, every spot clear of the table; what does
  // not fit waits to drop.
  std::vector<quadbin::BodyDef> defs;
  const float spacing = 2.4f;
  const float top = kDomeCentre.y + kDomeRadius - 4.0f, bottom = kDomeCentre.y + 14.0f;
  for (int row = 0; top - static_cast<float>(row) * spacing > bottom; ++row) {
    const float y = top - static_cast<float>(row) * spacing;
    const float shift = (row % 2 == 1) ? spacing * 0.5f : 0.0f;
    for (float x = 2.0f + shift; x < kWidth - 2.0f && defs.size() < balls; x += spacing) {
      if (!onField(world, {x, y}, kBallRadius)) continue;
      defs.push_back(ball({x, y}, {uniform(-1.0f, 1.0f), 0.0f}));
    }
  }
  world.createBodies(defs);
  waiting_ = balls - static_cast<std::uint32_t>(defs.size());
}

void Pinball::update(quadbin::World& world) {
  movePaddle(world);
  drain(world);
  if (++sinceRow_ >= kRowEvery && waiting_ > 0) {
    dropRow(world);
    sinceRow_ = 0;
  }
}

std::uint32_t Pinball::unqueue(std::uint32_t count) {
  const std::uint32_t taken = std::min(count, waiting_);
  waiting_ -= taken;
  return count - taken;
}

void Pinball::movePaddle(quadbin::World& world) {
  // Kinematic bodies pass through walls and static shapes: the paddle
  // turns at the ends of its run by itself.
  const float x = world.position(paddle_).x - kWidth * 0.5f;
  float v = world.velocity(paddle_).x;
  if (x >= kPaddleRun) v = -kPaddleSpeed;
  if (x <= -kPaddleRun) v = kPaddleSpeed;
  world.setVelocity(paddle_, {v, 0.0f});
}

void Pinball::drain(quadbin::World& world) {
  world.queryBox(quadbin::AABB{{0.0f, 0.0f}, {kWidth, kDrainTop}}, found_, only(1));
  const std::vector<quadbin::BodyId> drained = found_;
  for (const quadbin::BodyId id : drained) {
    // Back to a free spot at the top; one still taken after a few tries
    // waits on the floor until the next step.
    for (int attempt = 0; attempt < 4; ++attempt) {
      const Vec2 p{uniform(30.0f, 70.0f), uniform(128.0f, 142.0f)};
      if (!clearOfBalls(world, p)) continue;
      world.setPosition(id, p);
      world.setVelocity(id, {uniform(-3.0f, 3.0f), -5.0f});
      break;
    }
  }
}

void Pinball::dropRow(quadbin::World& world) {
  for (float x = 28.0f; x <= 72.0f && waiting_ > 0; x += 2.5f) {
    const Vec2 p{x, kRowY};
    if (!clearOfBalls(world, p)) continue;
    world.createBody(ball(p, {uniform(-1.0f, 1.0f), -8.0f}));
    --waiting_;
  }
}

bool Pinball::onField(const quadbin::World& world, Vec2 p, float r) const {
  if (p.x < r || p.x > kWidth - r || p.y > kHeight - r) return false;
  const Vec2 d = p - kDomeCentre;
  if (p.y > kDomeCentre.y && std::sqrt(dot(d, d)) > kDomeRadius - r - 0.2f) return false;
  if (p.y < floorAt(p.x) + 2.0f * r) return false;
  world.queryRadius(p, r + 0.1f, found_, only(kTableCategory));
  return found_.empty();
}

bool Pinball::clearOfBalls(const quadbin::World& world, Vec2 p) const {
  world.queryRadius(p, kBallRadius + 0.05f, found_, only(1));
  return found_.empty();
}

float Pinball::uniform(float lo, float hi) {
  // 24 random bits: the same numbers on every standard library.
  const auto bits = static_cast<float>(rng_() >> 40);
  return lo + (hi - lo) * bits * (1.0f / 16777216.0f);
}

}  // namespace demo
