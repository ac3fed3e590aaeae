#pragma once
/// \file
/// The narrow phase: exact shape tests that produce contacts (normal, depth,
/// point) between circles, boxes and hulls (segments, chains' segments,
/// convex polygons), and their continuous versions (time of impact) that
/// the solver uses against tunnelling.

#include <array>
#include <cstdint>
#include <optional>
#include <quadbin/geometry.hpp>
#include <span>

// Convex shapes other than axis-aligned boxes, for static and kinematic
// bodies that balls hit: two-sided segments, the segments of a chain (which
// know their neighbours, so that a ball rolls over an inner vertex without
// a bump) and convex polygons of 3 to 8 vertices (rotated boxes among
// them), with the same exact tests as boxes (the contact and the time of
// impact come below, beside the boxes').
//
// A hull's vertices are relative to its body's position `at`, so a moving
// body moves its hull without rewriting it.

namespace quadbin {

struct Hull {
  static constexpr int kMaxVertices = 8;
  /// Counter-clockwise (a segment: its two ends), relative to the body's
  /// position.
  std::array<Vec2, kMaxVertices> vertices{};
  /// Outward unit normal of the edge from vertex i to vertex i + 1 (a
  /// segment: normals[0] to the left of a -> b, normals[1] its opposite).
  std::array<Vec2, kMaxVertices> normals{};
  std::uint8_t count = 0;  ///< 2: a segment; 3 to 8: a convex polygon
  /// A chain's segment: the vertex before vertices[0] (hasPrev) and after
  /// vertices[1] (hasNext), relative to the same position. The region
  /// around a shared vertex belongs to exactly one of its two segments: a
  /// ball there touches the chain once, with the normal it would have on a
  /// smooth curve, instead of catching on the joint.
  bool hasPrev = false, hasNext = false;
  Vec2 prev{}, next{};

  [[nodiscard]] bool isSegment() const noexcept { return count == 2; }
  /// Vertex i in world coordinates for a body at `at`.
  [[nodiscard]] Vec2 vertex(int i, Vec2 at) const noexcept { return at + vertices[i]; }
};

/// A convex polygon from 3 to 8 points in either winding, relative to
/// `origin`; nothing when a point is not finite, two points coincide, three
/// consecutive points are collinear or the polygon is not convex.
[[nodiscard]] std::optional<Hull> makePolygon(std::span<const Vec2> points, Vec2 origin) noexcept;
/// The segment a-b relative to `origin`; nothing when a == b or a point is
/// not finite.
[[nodiscard]] std::optional<Hull> makeSegment(Vec2 a, Vec2 b, Vec2 origin) noexcept;
/// A box of half extents `half` (both > 0) turned by `angle` radians
/// counter-clockwise about its centre, the origin.
[[nodiscard]] Hull makeBox(Vec2 half, float angle) noexcept;

/// The tight axis-aligned box of the hull at `at`.
[[nodiscard]] AABB bounds(const Hull& hull, Vec2 at) noexcept;
/// Whether the hull at `at` and the box share a point (separating axes:
/// the box's and the hull's edge normals).
[[nodiscard]] bool touches(const Hull& hull, Vec2 at, const AABB& box) noexcept;
/// The point of the hull at `at` closest to p (p itself inside a polygon).
[[nodiscard]] Vec2 closestPoint(const Hull& hull, Vec2 at, Vec2 p) noexcept;

/// Where point p lies against the hull at `at`: the unit normal from p
/// towards the hull's nearest point (inside a polygon: into the nearest
/// edge, minus its outward normal; on a segment: -normals[0]), the signed
/// distance to it (< 0 inside a polygon), and whether the hull owns the
/// region (false where a chain's neighbour does).
struct HullSide {
  Vec2 normal;
  float distance = 0.0f;
  bool owned = true;
};
[[nodiscard]] HullSide sideOf(const Hull& hull, Vec2 at, Vec2 p) noexcept;

/// Unit normal of the hull's surface facing p (from the hull towards p): from
/// the closest point to p, or the nearest edge's outward normal inside.
[[nodiscard]] Vec2 outwardNormal(const Hull& hull, Vec2 at, Vec2 p) noexcept;

/// Earliest t in [0, ray.maxT] at which the ray is within `radius` of the
/// hull at `at` (radius 0: on or in it); a ray that starts there hits at 0.
/// A chain's segment counts only the region it owns.
[[nodiscard]] std::optional<float> raycastRounded(const Ray& ray, const Hull& hull, Vec2 at,
                                                  float radius) noexcept;

}  // namespace quadbin

// Exact shape tests that produce contacts (normal, depth, point), and the
// continuous versions (time of impact) the solver uses against tunnelling.

namespace quadbin {

/// Where two shapes touch. The normal points from the first shape to the
/// second, so moving the first by -normal * depth (or the second by
/// +normal * depth) separates them.
struct Contact {
  Vec2 normal;         ///< unit length
  float depth = 0.0f;  ///< penetration depth: > 0 overlapping, 0 touching
  Vec2 point;          ///< midway between the two deepest points
};

/// A contact when the circles overlap or touch, otherwise nothing.
/// Concentric circles get the normal (1, 0).
[[nodiscard]] std::optional<Contact> collide(const Circle& a, const Circle& b) noexcept;
/// A contact when the circle overlaps or touches the box. A circle whose
/// centre is inside the box is pushed out through the nearest face.
[[nodiscard]] std::optional<Contact> collide(const Circle& a, const AABB& b) noexcept;
/// A contact when the boxes overlap or touch, along the axis of least overlap.
[[nodiscard]] std::optional<Contact> collide(const AABB& a, const AABB& b) noexcept;

/// Earliest t in [0, tMax] at which circle a moving at va and circle b moving
/// at vb touch; 0 when they already overlap or touch.
[[nodiscard]] std::optional<float> timeOfImpact(const Circle& a, Vec2 va, const Circle& b, Vec2 vb,
                                                float tMax) noexcept;
/// Earliest t in [0, tMax] at which circle a moving at va touches the
/// fixed box; 0 when it already overlaps or touches it.
[[nodiscard]] std::optional<float> timeOfImpact(const Circle& a, Vec2 va, const AABB& box,
                                                float tMax) noexcept;

/// Hulls (segments, chains' segments, polygons; above):
/// A contact when the circle overlaps or touches the hull at `at`, with the
/// conventions of collide(Circle, AABB): the normal points from the circle
/// into the hull. A centre inside a polygon leaves through the nearest
/// edge; a centre on a segment through its left side (normals[0]). A
/// chain's segment reports nothing for a centre in the region its
/// neighbour owns.
[[nodiscard]] std::optional<Contact> collide(const Circle& a, const Hull& hull, Vec2 at) noexcept;

/// Earliest t in [0, tMax] at which circle a moving at va touches the fixed
/// hull at `at`; 0 when it already overlaps or touches it.
[[nodiscard]] std::optional<float> timeOfImpact(const Circle& a, Vec2 va, const Hull& hull, Vec2 at,
                                                float tMax) noexcept;

/// Unit normal of the box's surface facing point p: from the closest point
/// of the box to p, or the nearest face's outward normal when p is inside.
[[nodiscard]] Vec2 outwardNormal(const AABB& box, Vec2 p) noexcept;

/// Earliest t in [0, ray.maxT] at which the ray enters the box grown by
/// radius with rounded corners (the set of centres where a circle of that
/// radius touches the box).
[[nodiscard]] std::optional<float> raycastRounded(const Ray& ray, const AABB& box,
                                                  float radius) noexcept;

}  // namespace quadbin
