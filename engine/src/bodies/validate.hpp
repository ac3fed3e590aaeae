#pragma once
// The checks World runs on its arguments before it changes anything. Each
// returns why the argument is refused (naming the field, its value and the
// limit from quadbin/engine/world_def.hpp), or an empty string when it is
// accepted.

#include <cstdint>
#include <quadbin/engine/body.hpp>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/geometry.hpp>
#include <string>
#include <string_view>

namespace quadbin::validate {

[[nodiscard]] std::string worldDef(const WorldDef& def);
[[nodiscard]] std::string broadPhaseType(BroadPhaseType type, const char* field);
[[nodiscard]] std::string threadCount(std::uint32_t count, const char* field);
/// The values of one body that come from outside, whichever way they come
/// in (a BodyDef, a snapshot): body() is the one table of their limits,
/// and each setter calls the check of the one value it changes.
struct BodyValues {
  BodyType type = BodyType::Ball;
  Vec2 position, velocity;
  float radius = 0.0f;  ///< a ball's or a kinematic ball's; 0: a box
  Vec2 halfExtents;     ///< a box's
  float mass = 0.0f;    ///< a ball's
  float angularVelocity = 0.0f, angle = 0.0f;
  float friction = 0.0f, rolling = 0.0f, restitution = 0.0f;
  float linearDamping = 0.0f, angularDamping = 0.0f;
  Vec2 force;  ///< what applyForce gathered for the next step
  float gravityScale = 1.0f;
  /// A kinematic outline's farthest point from its position: it may turn,
  /// its surface no faster than kMaxSpeed (0: it may not turn).
  float turnReach = 0.0f;
};
/// A gravity scale under a world gravity: finite, |scale| |gravity| within
/// kMaxGravity.
[[nodiscard]] std::string gravityScale(float scale, Vec2 gravity, const char* field);
/// Why `v` is refused, its fields named `prefix` + their BodyDef name
/// ("BodyDef.velocity", "body 3: velocity"), or "".
[[nodiscard]] std::string body(const BodyValues& v, std::string_view prefix);
/// Every field but the fit inside a closed world (insideBounds).
[[nodiscard]] std::string bodyDef(const BodyDef& def);
/// Why a ball at `p` with radius `r` does not fit inside `def`'s closed
/// world, or "" (an open world takes it anywhere).
[[nodiscard]] std::string insideBounds(Vec2 p, float r, const WorldDef& def, const char* field);
/// A ball's mass from a def that bodyDef accepted.
[[nodiscard]] float ballMass(const BodyDef& def);
/// A position: finite, within kMaxCoordinate; for a ball (radius > 0) also
/// large enough a radius for the coordinate (kMinRadiusPerCoordinate).
[[nodiscard]] std::string position(Vec2 p, float radius, const char* field);
[[nodiscard]] std::string velocity(Vec2 v, const char* field);
/// A friction coefficient in [0, kMaxFriction].
[[nodiscard]] std::string friction(float mu, const char* field);
/// A restitution in [0, 1].
[[nodiscard]] std::string restitution(float e, const char* field);
/// A linear or angular damping in [0, kMaxDamping].
[[nodiscard]] std::string damping(float c, const char* field);
/// An angular velocity whose surface speed |w| radius is within kMaxSpeed.
[[nodiscard]] std::string angularVelocity(float w, float radius, const char* field);
[[nodiscard]] std::string dt(float dt);
[[nodiscard]] std::string queryPoint(Vec2 p, const char* field);
[[nodiscard]] std::string queryBox(const AABB& box, const char* field);
[[nodiscard]] std::string queryRadius(float radius, const char* field);
[[nodiscard]] std::string ray(const Ray& ray, const char* field);
[[nodiscard]] std::string nearestCount(std::uint32_t k, const char* field);

}  // namespace quadbin::validate
