#pragma once
// The checks World runs on its arguments before it changes anything. Each
// returns why the argument is refused (naming the field, its value and the
// limit from quadbin/engine/limits.hpp), or an empty string when it is
// accepted.

#include <cstdint>
#include <quadbin/engine/world.hpp>
#include <string>

namespace quadbin::validate {

[[nodiscard]] std::string worldDef(const WorldDef& def);
[[nodiscard]] std::string broadPhaseType(BroadPhaseType type, const char* field);
[[nodiscard]] std::string threadCount(std::uint32_t count, const char* field);
/// Every field but the fit inside a closed world (World checks that).
[[nodiscard]] std::string bodyDef(const BodyDef& def);
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
