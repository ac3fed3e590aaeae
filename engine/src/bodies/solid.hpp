#pragma once
// Internal to the engine: the shape of a static or kinematic body that is
// not a circle, placed with its centre at a point: an axis-aligned box
// (hx, hy) or a hull (BodyStore::hullOf: a segment, a chain's segment, a
// polygon). The solver, the events, the sensors, the queries and the debug
// draw test balls against either through these, one branch each: the box
// path is the one boxes always took, bit for bit.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <quadbin/narrowphase.hpp>

#include "bodies/ball_geometry.hpp"
#include "bodies/body_store.hpp"

namespace quadbin::solid {

struct Solid {
  AABB box;                    // the box, or the box around the position that holds the hull
  const Hull* base = nullptr;  // null: the box; else the hull as made (angle 0)
  Vec2 at;                     // the body's centre
  std::optional<Hull> turned;  // the hull turned by the body's angle, when it is not 0
  /// The hull at the body's angle, or null for a box.
  [[nodiscard]] const Hull* hull() const noexcept { return turned ? &*turned : base; }
};

/// The hull turned by `angle` radians counter-clockwise about the body's
/// position (a kinematic outline that turns: BodyStore::angle).
[[nodiscard]] inline Hull turn(const Hull& h, float angle) noexcept {
  const float c = std::cos(angle), s = std::sin(angle);
  const auto rotate = [c, s](Vec2 p) { return Vec2{c * p.x - s * p.y, s * p.x + c * p.y}; };
  Hull out = h;
  for (int i = 0; i < h.count; ++i) {
    out.vertices[i] = rotate(h.vertices[i]);
    out.normals[i] = rotate(h.normals[i]);
  }
  out.prev = rotate(h.prev);
  out.next = rotate(h.next);
  return out;
}

/// Body j (static or kinematic, not a circle) with its centre at `center`
/// and turned by `angle`.
[[nodiscard]] inline Solid at(const BodyStore& b, std::uint32_t j, Vec2 center,
                              float angle) noexcept {
  Solid s{{{center.x - b.hx[j], center.y - b.hy[j]}, {center.x + b.hx[j], center.y + b.hy[j]}},
          b.hullOf(j),
          center,
          std::nullopt};
  if (s.base != nullptr && angle != 0.0f) s.turned = turn(*s.base, angle);
  return s;
}
/// Body j where it is, at its angle.
[[nodiscard]] inline Solid of(const BodyStore& b, std::uint32_t j) noexcept {
  return at(b, j, {b.px[j], b.py[j]}, b.angle[j]);
}

/// The shape's exact bounds (a hull's, or the box).
[[nodiscard]] inline AABB bounds(const Solid& s) noexcept {
  return s.hull() != nullptr ? quadbin::bounds(*s.hull(), s.at) : s.box;
}
/// Whether the shape and the box share a point.
[[nodiscard]] inline bool touches(const Solid& s, const AABB& box) noexcept {
  return s.hull() != nullptr ? quadbin::touches(*s.hull(), s.at, box)
                             : quadbin::touches(s.box, box);
}
[[nodiscard]] inline Vec2 closestPoint(const Solid& s, Vec2 p) noexcept {
  return s.hull() != nullptr ? quadbin::closestPoint(*s.hull(), s.at, p)
                             : quadbin::closestPoint(s.box, p);
}
/// collide(Circle, AABB) or collide(Circle, Hull): nothing where a chain's
/// neighbour owns the region.
[[nodiscard]] inline std::optional<Contact> collide(const Circle& c, const Solid& s) noexcept {
  return s.hull() != nullptr ? quadbin::collide(c, *s.hull(), s.at) : quadbin::collide(c, s.box);
}
[[nodiscard]] inline Vec2 outwardNormal(const Solid& s, Vec2 p) noexcept {
  return s.hull() != nullptr ? quadbin::outwardNormal(*s.hull(), s.at, p)
                             : quadbin::outwardNormal(s.box, p);
}
/// Earliest t at which the ray comes within `radius` of the shape.
[[nodiscard]] inline std::optional<float> raycast(const Ray& ray, const Solid& s,
                                                  float radius) noexcept {
  if (s.hull() != nullptr) return raycastRounded(ray, *s.hull(), s.at, radius);
  return radius > 0.0f ? raycastRounded(ray, s.box, radius) : quadbin::raycast(ray, s.box);
}
/// timeOfImpact of a circle moving at v against the fixed shape.
[[nodiscard]] inline std::optional<float> timeOfImpact(const Circle& c, Vec2 v, const Solid& s,
                                                       float tMax) noexcept {
  return s.hull() != nullptr ? quadbin::timeOfImpact(c, v, *s.hull(), s.at, tMax)
                             : quadbin::timeOfImpact(c, v, s.box, tMax);
}

/// ballToBox for either shape: the unit normal from ball centre c towards
/// the shape and its point closest to c (c itself inside).
[[nodiscard]] inline std::pair<Vec2, Vec2> ballTo(const Solid& s, Vec2 c) noexcept {
  if (s.hull() == nullptr) return ballToBox(c, s.box);
  const HullSide side = sideOf(*s.hull(), s.at, c);
  return {side.normal, side.distance > 0.0f ? c + side.normal * side.distance : c};
}

/// A gap for a region the shape does not own (a chain's neighbour does):
/// far enough that no contact forms, small enough for arithmetic.
inline constexpr float kFarGap = 1e18f;

/// How a ball (centre p, radius r) lies against the shape: unit normal from
/// the ball towards it, and the gap (negative: overlap; kFarGap where a
/// chain's neighbour owns the region).
struct Touch {
  Vec2 normal{1.0f, 0.0f};
  float gap = 0.0f;
};
[[nodiscard]] inline Touch touch(const Solid& s, Vec2 p, float r) noexcept {
  if (s.hull() != nullptr) {
    const HullSide side = sideOf(*s.hull(), s.at, p);
    if (!side.owned) return {side.normal, kFarGap};
    return {side.normal, side.distance - r};
  }
  const AABB& box = s.box;
  Touch t;
  const Vec2 d = quadbin::closestPoint(box, p) - p;
  const float dist = length(d);
  if (dist > 0.0f) {
    t.normal = d / dist;
    t.gap = dist - r;
  } else {  // centre inside the box: out through the nearest face
    const Vec2 out = quadbin::outwardNormal(box, p);
    t.normal = -out;
    const float toFace = out.x != 0.0f ? (out.x > 0.0f ? box.max.x - p.x : p.x - box.min.x)
                                       : (out.y > 0.0f ? box.max.y - p.y : p.y - box.min.y);
    t.gap = -(r + toFace);
  }
  return t;
}

}  // namespace quadbin::solid
