#pragma once
/// \file
/// What a step reports: contact begin/end, hit and sensor events, and the
/// pre-solve callback's type (docs/events.md). Included by
/// quadbin/engine/world.hpp.

#include <cstdint>
#include <functional>
#include <quadbin/engine/body.hpp>
#include <quadbin/geometry/aabb.hpp>

namespace quadbin {

/// Two bodies that started (begin) or stopped (end) touching in the last
/// step; a.index < b.index. The geometry is filled in for begin events only
/// (zero in end events), from the positions at the end of the step.
struct ContactEvent {
  BodyId a;
  BodyId b;
  Vec2 point{};   ///< where they touch (midway between the surfaces)
  Vec2 normal{};  ///< unit normal pointing from a to b
  /// Relative speed along the normal at the start of the step (gravity of
  /// the step included); 0 when they were not closing.
  float approachSpeed = 0.0f;
};

/// Which wall of a closed world a ball hit.
enum class WallSide : std::uint8_t {
  None,  ///< not a wall: the hit is between two bodies
  MinX,  ///< x = bounds.min.x
  MaxX,  ///< x = bounds.max.x
  MinY,  ///< y = bounds.min.y
  MaxY,  ///< y = bounds.max.y
};

/// A contact that touched in the last step with an approach speed above
/// WorldDef::hitEventThreshold: two bodies (a.index < b.index) or a ball and
/// a wall (b is null, wall says which).
struct ContactHitEvent {
  BodyId a;
  BodyId b;
  WallSide wall = WallSide::None;
  Vec2 point{};                ///< where they touch, at the end of the step
  Vec2 normal{};               ///< unit normal pointing from a to b (or the wall)
  float approachSpeed = 0.0f;  ///< relative normal speed at the start of the step
};

/// A pair touching after the last step, as World::contacts lists it
/// (Box2D's b2ContactData): a is a ball; b a ball, a static or kinematic
/// body, or null for a closed world's wall (wall says which).
struct ContactData {
  BodyId a;
  BodyId b;
  Vec2 point{};   ///< where they touch (midway between the surfaces), now
  Vec2 normal{};  ///< unit normal pointing from a to b (or the wall), now
  /// The resting-contact solver's accumulated normal impulse in the last
  /// step (mass * units/s; the exact impacts' impulses are not in it).
  float normalImpulse = 0.0f;
  /// Its accumulated friction impulse, along the normal turned a quarter
  /// counter-clockwise (0 without friction).
  float tangentImpulse = 0.0f;
  WallSide wall = WallSide::None;
};

/// A ball (visitor) that began or stopped overlapping a sensor in the last
/// step.
struct SensorEvent {
  BodyId sensor;
  BodyId visitor;
};

/// World::setPreSolve's callback: a is a ball, b a ball or a static box,
/// normal the unit vector from a to b at the start of the step. Return
/// false to switch the contact off for this step.
using PreSolveFn = std::function<bool(BodyId a, BodyId b, Vec2 normal)>;
}  // namespace quadbin
