#include "validate.hpp"

#include <spdlog/fmt/fmt.h>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <quadbin/engine/limits.hpp>
#include <string_view>

namespace quadbin::validate {

using namespace limits;

namespace {

// The checks below build their message only when they refuse: a valid
// argument costs no allocation (queries run them once per call). A field's
// name is `field` followed by `suffix` (".x", " origin", ...).

// "field = value is not finite" or "... is outside [lo, hi]", or "".
std::string inRange(float value, float lo, float hi, std::string_view field,
                    std::string_view suffix = {}) {
  if (!std::isfinite(value)) return fmt::format("{}{} = {} is not finite", field, suffix, value);
  if (value < lo || value > hi) {
    return fmt::format("{}{} = {} is outside [{:g}, {:g}]", field, suffix, value, lo, hi);
  }
  return {};
}

std::string finite(Vec2 v, std::string_view field, std::string_view suffix = {}) {
  if (!std::isfinite(v.x)) return fmt::format("{}{}.x = {} is not finite", field, suffix, v.x);
  if (!std::isfinite(v.y)) return fmt::format("{}{}.y = {} is not finite", field, suffix, v.y);
  return {};
}

std::string coordinates(Vec2 p, float limit, std::string_view field, std::string_view suffix = {}) {
  // The common case first, without building any name.
  if (std::abs(p.x) <= limit && std::abs(p.y) <= limit) return {};
  std::string why = finite(p, field, suffix);
  if (why.empty()) why = inRange(p.x, -limit, limit, fmt::format("{}{}.x", field, suffix));
  if (why.empty()) why = inRange(p.y, -limit, limit, fmt::format("{}{}.y", field, suffix));
  return why;
}

// |v| in double, so that finite components near FLT_MAX do not overflow.
double magnitude(Vec2 v) { return std::hypot(double{v.x}, double{v.y}); }

template <class Enum>
std::string enumValue(Enum value, Enum last, const char* field, const char* type) {
  const auto raw = static_cast<long long>(value);
  if (raw < 0 || raw > static_cast<long long>(last)) {
    return fmt::format("{} = {} is not a {} (0 to {})", field, raw, type,
                       static_cast<long long>(last));
  }
  return {};
}

std::string count(std::uint32_t value, std::uint32_t lo, std::uint32_t hi, const char* field) {
  if (value < lo || value > hi)
    return fmt::format("{} = {} is outside [{}, {}]", field, value, lo, hi);
  return {};
}

}  // namespace

std::string broadPhaseType(BroadPhaseType type, const char* field) {
  return enumValue(type, BroadPhaseType::Auto, field, "BroadPhaseType");
}

std::string threadCount(std::uint32_t value, const char* field) {
  return count(value, 0, kMaxThreads, field);
}

std::string worldDef(const WorldDef& def) {
  const AABB& b = def.bounds;
  std::string why = coordinates(b.min, kMaxCoordinate, "WorldDef.bounds.min");
  if (why.empty()) why = coordinates(b.max, kMaxCoordinate, "WorldDef.bounds.max");
  if (why.empty() && (!(b.min.x < b.max.x) || !(b.min.y < b.max.y))) {
    why = fmt::format("WorldDef.bounds = [{}, {}] x [{}, {}] needs min < max on both axes", b.min.x,
                      b.max.x, b.min.y, b.max.y);
  }
  if (why.empty()) {
    why = enumValue(def.boundary, Boundary::Open, "WorldDef.boundary", "Boundary");
  }
  if (why.empty()) why = finite(def.gravity, "WorldDef.gravity");
  if (why.empty() && magnitude(def.gravity) > kMaxGravity) {
    why = fmt::format("WorldDef.gravity = ({}, {}) has a length above {:g}", def.gravity.x,
                      def.gravity.y, kMaxGravity);
  }
  if (why.empty() && !(def.restitution >= 0.0f && def.restitution <= 1.0f)) {
    why = fmt::format("WorldDef.restitution = {} is outside [0, 1]", def.restitution);
  }
  if (why.empty() && def.restitutionThreshold) {
    why = inRange(*def.restitutionThreshold, 0.0f, kMaxSpeed, "WorldDef.restitutionThreshold");
  }
  if (why.empty()) why = inRange(def.sleepThreshold, 0.0f, kMaxSpeed, "WorldDef.sleepThreshold");
  if (why.empty()) why = inRange(def.timeToSleep, 0.0f, kMaxTimeToSleep, "WorldDef.timeToSleep");
  if (why.empty() && !(def.timeToSleep > 0.0f)) {
    why = fmt::format("WorldDef.timeToSleep = {} must be > 0", def.timeToSleep);
  }
  if (why.empty() && !def.taskSystem) why = threadCount(def.threadCount, "WorldDef.threadCount");
  if (why.empty()) why = broadPhaseType(def.broadPhase, "WorldDef.broadPhase");
  if (why.empty()) {
    why = count(def.velocityIterations, 1, kMaxIterations, "WorldDef.velocityIterations");
  }
  if (why.empty()) why = count(def.solverPasses, 1, kMaxIterations, "WorldDef.solverPasses");
  if (why.empty()) why = count(def.positionPasses, 0, kMaxIterations, "WorldDef.positionPasses");
  if (why.empty()) why = inRange(def.wallFriction, 0.0f, kMaxFriction, "WorldDef.wallFriction");
  if (why.empty()) {
    why = inRange(def.hitEventThreshold, 0.0f, kMaxSpeed, "WorldDef.hitEventThreshold");
  }
  if (why.empty() && def.logLevel) {
    why = enumValue(*def.logLevel, LogLevel::Off, "WorldDef.logLevel", "LogLevel");
  }
  return why;
}

std::string position(Vec2 p, float radius, const char* field) {
  std::string why = coordinates(p, kMaxCoordinate, field);
  if (why.empty() && radius > 0.0f) {
    const float largest = std::max(std::abs(p.x), std::abs(p.y));
    if (radius < largest * kMinRadiusPerCoordinate) {
      why = fmt::format(
          "{} = ({}, {}) is too far out for radius {}: a ball's radius must be at least {:g} of "
          "its largest coordinate (here {}), or float cannot resolve its contacts",
          field, p.x, p.y, radius, kMinRadiusPerCoordinate, largest * kMinRadiusPerCoordinate);
    }
  }
  return why;
}

std::string velocity(Vec2 v, const char* field) {
  std::string why = finite(v, field);
  if (why.empty() && magnitude(v) > kMaxSpeed) {
    why = fmt::format("{} = ({}, {}) is faster than {:g} units/s", field, v.x, v.y, kMaxSpeed);
  }
  return why;
}

std::string friction(float mu, const char* field) { return inRange(mu, 0.0f, kMaxFriction, field); }

std::string restitution(float e, const char* field) { return inRange(e, 0.0f, 1.0f, field); }

std::string damping(float c, const char* field) { return inRange(c, 0.0f, kMaxDamping, field); }

std::string angularVelocity(float w, float radius, const char* field) {
  if (!std::isfinite(w)) return fmt::format("{} = {} is not finite", field, w);
  if (std::abs(double{w}) * radius > kMaxSpeed) {
    return fmt::format("{} = {} turns the surface of a ball of radius {} faster than {:g}", field,
                       w, radius, kMaxSpeed);
  }
  return {};
}

namespace {
// A kinematic ball (radius > 0) is checked as a ball's shape, a kinematic
// box as a static box's; both may move. Mass and density do not apply.
std::string kinematicDef(const BodyDef& d) {
  std::string why;
  if (!std::isfinite(d.radius)) return fmt::format("BodyDef.radius = {} is not finite", d.radius);
  if (d.radius < 0.0f) return fmt::format("BodyDef.radius = {} must be >= 0", d.radius);
  if (d.radius > 0.0f) {
    why = inRange(d.radius, kMinRadius, kMaxSize, "BodyDef.radius");
    if (why.empty()) why = position(d.position, d.radius, "BodyDef.position");
  } else {
    why = coordinates(d.position, kMaxCoordinate, "BodyDef.position");
    if (why.empty()) why = finite(d.halfExtents, "BodyDef.halfExtents");
    if (why.empty() && (d.halfExtents.x < 0.0f || d.halfExtents.y < 0.0f ||
                        d.halfExtents.x > kMaxSize || d.halfExtents.y > kMaxSize)) {
      why = fmt::format("BodyDef.halfExtents = ({}, {}) is outside [0, {:g}]", d.halfExtents.x,
                        d.halfExtents.y, kMaxSize);
    }
  }
  if (why.empty()) why = velocity(d.velocity, "BodyDef.velocity");
  return why;
}
}  // namespace

std::string bodyDef(const BodyDef& d) {
  std::string why = enumValue(d.type, BodyType::Kinematic, "BodyDef.type", "BodyType");
  if (why.empty()) why = friction(d.friction, "BodyDef.friction");
  if (why.empty()) why = friction(d.rollingResistance, "BodyDef.rollingResistance");
  if (why.empty() && d.restitution) why = restitution(*d.restitution, "BodyDef.restitution");
  if (why.empty()) why = damping(d.linearDamping, "BodyDef.linearDamping");
  if (why.empty()) why = damping(d.angularDamping, "BodyDef.angularDamping");
  if (!why.empty()) return why;
  if (d.type == BodyType::Kinematic) return kinematicDef(d);
  if (d.type == BodyType::Ball) {
    // Finite, then > 0 (messages "radius = 0"), then the range.
    if (!std::isfinite(d.radius)) return fmt::format("BodyDef.radius = {} is not finite", d.radius);
    if (!(d.radius > 0.0f)) return fmt::format("BodyDef.radius = {} must be > 0", d.radius);
    why = inRange(d.radius, kMinRadius, kMaxSize, "BodyDef.radius");
    if (why.empty()) why = position(d.position, d.radius, "BodyDef.position");
    if (why.empty()) why = velocity(d.velocity, "BodyDef.velocity");
    if (!why.empty()) return why;
    if (!std::isfinite(d.mass)) return fmt::format("BodyDef.mass = {} is not finite", d.mass);
    if (d.mass < 0.0f) return fmt::format("BodyDef.mass = {} must be >= 0", d.mass);
    if (d.mass > 0.0f) return inRange(d.mass, kMinMass, kMaxMass, "BodyDef.mass");
    if (!std::isfinite(d.density)) {
      return fmt::format("BodyDef.density = {} is not finite", d.density);
    }
    if (!(d.density > 0.0f)) return fmt::format("BodyDef.density = {} must be > 0", d.density);
    const double mass = double{d.density} * std::numbers::pi * double{d.radius} * d.radius;
    if (mass < kMinMass || mass > kMaxMass) {
      return fmt::format(
          "BodyDef.density = {} with radius {} gives mass {}, outside [{:g}, {:g}]; set "
          "BodyDef.mass or change the density",
          d.density, d.radius, mass, kMinMass, kMaxMass);
    }
    return {};
  }
  why = coordinates(d.position, kMaxCoordinate, "BodyDef.position");
  if (why.empty()) why = finite(d.halfExtents, "BodyDef.halfExtents");
  if (!why.empty()) return why;
  if (d.halfExtents.x < 0.0f || d.halfExtents.y < 0.0f || d.halfExtents.x > kMaxSize ||
      d.halfExtents.y > kMaxSize) {
    return fmt::format("BodyDef.halfExtents = ({}, {}) is outside [0, {:g}]", d.halfExtents.x,
                       d.halfExtents.y, kMaxSize);
  }
  why = finite(d.velocity, "BodyDef.velocity");
  if (why.empty() && d.velocity != Vec2{}) {
    why = fmt::format("BodyDef.velocity = ({}, {}) must be zero for a static box", d.velocity.x,
                      d.velocity.y);
  }
  return why;
}

float ballMass(const BodyDef& d) {
  return d.mass > 0.0f ? d.mass : d.density * std::numbers::pi_v<float> * d.radius * d.radius;
}

std::string dt(float dt) {
  if (!std::isfinite(dt) || !(dt >= kMinDt && dt <= kMaxDt)) {
    return fmt::format("step: dt = {} must be finite and in [{:g}, {:g}] seconds", dt, kMinDt,
                       kMaxDt);
  }
  return {};
}

std::string queryPoint(Vec2 p, const char* field) {
  return coordinates(p, kMaxQueryCoordinate, field);
}

std::string queryBox(const AABB& box, const char* field) {
  std::string why = coordinates(box.min, kMaxQueryCoordinate, field, ".min");
  if (why.empty()) why = coordinates(box.max, kMaxQueryCoordinate, field, ".max");
  if (why.empty() && (box.min.x > box.max.x || box.min.y > box.max.y)) {
    why = fmt::format("{} = [{}, {}] x [{}, {}] is inverted: it needs min <= max on both axes",
                      field, box.min.x, box.max.x, box.min.y, box.max.y);
  }
  return why;
}

std::string queryRadius(float radius, const char* field) {
  if (std::isfinite(radius) && radius < 0.0f) {
    return fmt::format("{} = {} must be >= 0", field, radius);
  }
  return inRange(radius, 0.0f, kMaxQueryCoordinate, field);
}

std::string ray(const Ray& r, const char* field) {
  std::string why = coordinates(r.origin, kMaxQueryCoordinate, field, " origin");
  if (why.empty()) why = finite(r.direction, field, " direction");
  if (why.empty() && std::isfinite(r.maxT) && r.maxT < 0.0f) {
    why = fmt::format("{} maxT = {} must be >= 0", field, r.maxT);
  }
  if (why.empty()) why = inRange(r.maxT, 0.0f, kMaxQueryCoordinate, field, " maxT");
  if (!why.empty()) return why;
  const double length = magnitude(r.direction);
  if (r.direction == Vec2{}) {
    return fmt::format("{} direction = (0, 0): a ray needs a direction", field);
  }
  if (length > kMaxQueryCoordinate || length * r.maxT > kMaxQueryCoordinate) {
    return fmt::format(
        "{} direction = ({}, {}) with maxT = {} is too long: |direction| and |direction| * maxT "
        "must be at most {:g}",
        field, r.direction.x, r.direction.y, r.maxT, kMaxQueryCoordinate);
  }
  return {};
}

std::string nearestCount(std::uint32_t k, const char* field) {
  if (k == 0) return fmt::format("{} = 0: ask for at least one body", field);
  return {};
}

}  // namespace quadbin::validate
