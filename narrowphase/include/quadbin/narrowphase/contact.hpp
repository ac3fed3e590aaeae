#pragma once
/// \file
/// Exact shape tests that produce contacts (normal, depth, point), and the
/// continuous versions (time of impact) the solver uses against tunnelling.

#include <optional>
#include <quadbin/geometry/circle.hpp>
#include <quadbin/geometry/ray.hpp>
#include <quadbin/narrowphase/hull.hpp>

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

/// Hulls (segments, chains' segments, polygons; hull.hpp):
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
