#pragma once
// The demo's own scene (--scene pinball): a table of outlines under gravity,
// built from the engine's static segments, a chain, convex polygons, turned
// boxes and a kinematic paddle, with balls that drop from the top, drain at
// the bottom and come back to the top. docs/demo.md, "The pinball scene".

#include <cstdint>
#include <quadbin/engine/world.hpp>
#include <random>
#include <vector>

namespace demo {

class Pinball {
 public:
  /// The table's pieces are of this category (Filter::categoryBits); the
  /// balls keep category 1, so a QueryFilter can tell them apart.
  static constexpr std::uint64_t kTableCategory = 2;
  static constexpr float kBallRadius = 1.0f;

  /// `def` with the table's bounds (100 x 150, y up) and physics: gravity
  /// (0, -30), restitution 0.6 (the walls too).
  [[nodiscard]] static quadbin::WorldDef worldDef(quadbin::WorldDef def);
  /// A ball of the table: radius 1, restitution 0.6, friction 0.3.
  [[nodiscard]] static quadbin::BodyDef ball(quadbin::Vec2 position, quadbin::Vec2 velocity);

  /// Builds the table in `world` (made from worldDef()) and `balls` balls:
  /// as many as fit in a grid under the dome at once, the rest wait to drop.
  Pinball(quadbin::World& world, std::uint32_t balls, std::uint64_t seed);

  /// Before each step: the paddle's velocity (it turns at the ends of its
  /// run), drained balls back to the top, a row of waiting balls dropped.
  void update(quadbin::World& world);
  /// `count` more balls to drop from the top, a row at a time.
  void queue(std::uint32_t count) { waiting_ += count; }
  /// Takes up to `count` balls off the queue; returns how many were not there.
  std::uint32_t unqueue(std::uint32_t count);
  /// True when a ball of radius r at p lies on the playing field (under the
  /// dome, above the slopes) clear of every piece of the table.
  [[nodiscard]] bool onField(const quadbin::World& world, quadbin::Vec2 p, float r) const;

  /// How many bodies the table is made of (created before any ball).
  [[nodiscard]] std::uint32_t tableBodies() const noexcept { return tableBodies_; }
  [[nodiscard]] std::uint32_t waiting() const noexcept { return waiting_; }

 private:
  void buildWalls(quadbin::World& world);
  void buildBumpers(quadbin::World& world);
  void fillGrid(quadbin::World& world, std::uint32_t balls);
  void movePaddle(quadbin::World& world);
  void drain(quadbin::World& world);
  void dropRow(quadbin::World& world);
  [[nodiscard]] bool clearOfBalls(const quadbin::World& world, quadbin::Vec2 p) const;
  [[nodiscard]] float uniform(float lo, float hi);

  quadbin::BodyId paddle_;
  std::uint32_t tableBodies_ = 0;
  std::uint32_t waiting_ = 0;
  std::uint32_t sinceRow_ = 0;
  std::mt19937_64 rng_;
  mutable std::vector<quadbin::BodyId> found_;  // query results, reused
};

}  // namespace demo
