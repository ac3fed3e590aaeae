#include "bodies/validate.hpp"

#include <spdlog/fmt/fmt.h>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <quadbin/engine/world_def.hpp>
#include <string_view>

#include "bodies/outline.hpp"

namespace quadbin::validate {

using namespace limits;

namespace {

// The largest angle the step leaves (a remainder of 2 pi, in float).
constexpr float kMaxAngle = 3.14159274f;

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

// A def's own rules, before its values go through body(): what only a
// def has (density, a radius of 0 meaning a kinematic box) and the
// messages that say "must be > 0" rather than a range.
std::string defOutline(const BodyDef& d) {
  if (d.type == BodyType::Ball) {
    return fmt::format(
        "BodyDef.outlineCount = {}: a ball has no outline (outlines are for static and "
        "kinematic bodies)",
        d.outlineCount);
  }
  if (d.outlineCount == 1 || d.outlineCount > BodyDef::kMaxOutline) {
    return fmt::format(
        "BodyDef.outlineCount = {} must be 0, 2 (a segment) or 3 to {} (a convex polygon)",
        d.outlineCount, BodyDef::kMaxOutline);
  }
  for (std::size_t i = 0; i < d.outlineCount; ++i) {
    const std::string field = fmt::format("BodyDef.outline[{}]", i);
    std::string why = finite(d.outline[i], field);
    if (why.empty() &&
        (std::abs(d.outline[i].x) > kMaxSize || std::abs(d.outline[i].y) > kMaxSize)) {
      why = fmt::format("{} = ({}, {}) is farther than {:g} from the position", field,
                        d.outline[i].x, d.outline[i].y, kMaxSize);
    }
    if (!why.empty()) return why;
  }
  if (d.type == BodyType::Kinematic && d.radius > 0.0f) {
    return fmt::format(
        "BodyDef: a kinematic body with radius = {} (a ball) and an outline is ambiguous: use "
        "BodyDef::kinematicPolygon (radius 0)",
        d.radius);
  }
  if (!outline::hullOf(d)) {
    return d.outlineCount == 2
               ? std::string("BodyDef.outline: a segment's two points coincide")
               : fmt::format(
                     "BodyDef.outline: the {} points are not a convex polygon (repeated or "
                     "collinear points, or a dent)",
                     d.outlineCount);
  }
  return {};
}

std::string defShape(const BodyDef& d) {
  if (!std::isfinite(d.radius)) return fmt::format("BodyDef.radius = {} is not finite", d.radius);
  if (d.outlineCount != 0) return defOutline(d);
  if (d.type == BodyType::Kinematic) {
    if (d.radius < 0.0f) return fmt::format("BodyDef.radius = {} must be >= 0", d.radius);
    // A kinematic body is a ball when its radius is above 0, a box when it
    // is 0: half extents set beside a radius say both.
    if (d.radius > 0.0f && d.halfExtents != BodyDef{}.halfExtents) {
      return fmt::format(
          "BodyDef: a kinematic body with radius = {} (a ball) and halfExtents = ({}, {}) (a "
          "box) is ambiguous: use BodyDef::kinematicBall, or BodyDef::kinematicBox (radius 0)",
          d.radius, d.halfExtents.x, d.halfExtents.y);
    }
    return {};
  }
  if (d.type == BodyType::StaticBox) return {};
  if (!(d.radius > 0.0f)) return fmt::format("BodyDef.radius = {} must be > 0", d.radius);
  if (!std::isfinite(d.mass)) return fmt::format("BodyDef.mass = {} is not finite", d.mass);
  if (d.mass < 0.0f) return fmt::format("BodyDef.mass = {} must be >= 0", d.mass);
  if (d.mass > 0.0f) return {};
  if (!std::isfinite(d.density)) {
    return fmt::format("BodyDef.density = {} is not finite", d.density);
  }
  if (!(d.density > 0.0f)) return fmt::format("BodyDef.density = {} must be > 0", d.density);
  if (d.radius >= kMinRadius && d.radius <= kMaxSize) {
    const double mass = double{d.density} * std::numbers::pi * double{d.radius} * d.radius;
    if (mass < kMinMass || mass > kMaxMass) {
      return fmt::format(
          "BodyDef.density = {} with radius {} gives mass {}, outside [{:g}, {:g}]; set "
          "BodyDef.mass or change the density",
          d.density, d.radius, mass, kMinMass, kMaxMass);
    }
  }
  return {};
}

std::string halfExtents(Vec2 h, std::string_view field) {
  std::string why = finite(h, field);
  if (why.empty() && (h.x < 0.0f || h.y < 0.0f || h.x > kMaxSize || h.y > kMaxSize)) {
    why = fmt::format("{} = ({}, {}) is outside [0, {:g}]", field, h.x, h.y, kMaxSize);
  }
  return why;
}

}  // namespace

// The table of a body's limits: every value of a body that comes from
// outside passes here, whichever way it comes in (a BodyDef, a snapshot),
// and the setters call the same checks for the one value they change.
std::string body(const BodyValues& v, std::string_view prefix) {
  auto name = [prefix](std::string_view field) { return fmt::format("{}{}", prefix, field); };
  std::string why = enumValue(v.type, BodyType::Kinematic, name("type").c_str(), "BodyType");
  if (why.empty()) why = inRange(v.friction, 0.0f, kMaxFriction, prefix, "friction");
  if (why.empty()) why = inRange(v.rolling, 0.0f, kMaxFriction, prefix, "rollingResistance");
  if (why.empty()) why = inRange(v.restitution, 0.0f, 1.0f, prefix, "restitution");
  if (why.empty()) why = inRange(v.linearDamping, 0.0f, kMaxDamping, prefix, "linearDamping");
  if (why.empty()) why = inRange(v.angularDamping, 0.0f, kMaxDamping, prefix, "angularDamping");
  if (!why.empty()) return why;
  const bool circle =
      v.type == BodyType::Ball || (v.type == BodyType::Kinematic && v.radius > 0.0f);
  if (circle) {
    why = inRange(v.radius, kMinRadius, kMaxSize, prefix, "radius");
    if (why.empty()) why = position(v.position, v.radius, name("position").c_str());
  } else {
    why = coordinates(v.position, kMaxCoordinate, name("position"));
    if (why.empty()) why = halfExtents(v.halfExtents, name("halfExtents"));
  }
  if (!why.empty()) return why;
  if (v.type == BodyType::StaticBox) {
    why = finite(v.velocity, name("velocity"));
    if (why.empty() && v.velocity != Vec2{}) {
      why = fmt::format("{} = ({}, {}) must be zero for a static box", name("velocity"),
                        v.velocity.x, v.velocity.y);
    }
  } else {
    why = velocity(v.velocity, name("velocity").c_str());
  }
  if (why.empty() && v.type == BodyType::Ball) {
    why = inRange(v.mass, kMinMass, kMaxMass, prefix, "mass");
  }
  if (why.empty()) {
    why = circle || v.turnReach > 0.0f
              ? angularVelocity(v.angularVelocity, circle ? v.radius : v.turnReach,
                                name("angularVelocity").c_str())
              : inRange(v.angularVelocity, 0.0f, 0.0f, prefix, "angularVelocity");
  }
  // The step keeps an angle in [-pi, pi] (a remainder of 2 pi).
  if (why.empty()) why = inRange(v.angle, -kMaxAngle, kMaxAngle, prefix, "angle");
  if (why.empty() && !std::isfinite(v.gravityScale)) {
    why = fmt::format("{} = {} is not finite", name("gravityScale"), v.gravityScale);
  }
  if (why.empty() && v.force != Vec2{}) {
    why = finite(v.force, name("force"));
    if (why.empty() &&
        (v.type != BodyType::Ball || magnitude(v.force) > kMaxGravity * double{v.mass})) {
      why = fmt::format(
          "{} = ({}, {}) accelerates {} faster than {:g} units/s^2 (limits::kMaxGravity)",
          name("force"), v.force.x, v.force.y,
          v.type == BodyType::Ball ? fmt::format("a ball of mass {}", v.mass)
                                   : "a body that no force moves",
          kMaxGravity);
    }
  }
  return why;
}

std::string gravityScale(float scale, Vec2 gravity, const char* field) {
  if (!std::isfinite(scale)) return fmt::format("{} = {} is not finite", field, scale);
  if (std::abs(double{scale}) * magnitude(gravity) > kMaxGravity) {
    return fmt::format(
        "{} = {} under gravity ({}, {}) pulls harder than {:g} units/s^2 (limits::kMaxGravity)",
        field, scale, gravity.x, gravity.y, kMaxGravity);
  }
  return {};
}

std::string bodyDef(const BodyDef& d) {
  std::string why = enumValue(d.type, BodyType::Kinematic, "BodyDef.type", "BodyType");
  if (why.empty()) why = defShape(d);
  if (!why.empty()) return why;
  BodyValues v;
  v.type = d.type;
  v.position = d.position;
  v.velocity = d.velocity;
  v.radius = d.type == BodyType::StaticBox || d.outlineCount != 0 ? 0.0f : d.radius;
  v.halfExtents = outline::halfExtentsOf(d, v.radius);
  v.mass = d.type == BodyType::Ball ? ballMass(d) : 0.0f;
  v.friction = d.friction;
  v.rolling = d.rollingResistance;
  v.restitution = d.restitution.value_or(0.0f);
  v.linearDamping = d.linearDamping;
  v.angularDamping = d.angularDamping;
  v.gravityScale = d.gravityScale;
  return body(v, "BodyDef.");
}

std::string insideBounds(Vec2 p, float r, const WorldDef& def, const char* field) {
  if (def.boundary != Boundary::Closed) return {};
  const AABB& b = def.bounds;
  // As the step clamps a ball to the walls (p in [min + r, max - r]), so
  // that what the step leaves is always accepted.
  if (!(p.x >= b.min.x + r && p.x <= b.max.x - r && p.y >= b.min.y + r && p.y <= b.max.y - r)) {
    return fmt::format(
        "{} = ({}, {}) with radius {} does not fit inside the closed world [{}, {}] x [{}, {}]",
        field, p.x, p.y, r, b.min.x, b.max.x, b.min.y, b.max.y);
  }
  return {};
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
