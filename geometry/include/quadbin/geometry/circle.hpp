#pragma once
/// \file
/// Circle and its relations to points, boxes and other circles.

#include <quadbin/geometry/aabb.hpp>

namespace quadbin {

struct Circle {
  Vec2 center;
  float radius = 0.0f;

  [[nodiscard]] constexpr AABB bounds() const noexcept { return AABB::fromCircle(center, radius); }
  [[nodiscard]] constexpr float area() const noexcept {
    return 3.14159265358979f * radius * radius;
  }
  friend constexpr bool operator==(const Circle&, const Circle&) noexcept = default;
};

/// Strict overlap: circles that only touch do not overlap.
[[nodiscard]] constexpr bool overlaps(const Circle& a, const Circle& b) noexcept {
  const float r = a.radius + b.radius;
  return lengthSquared(b.center - a.center) < r * r;
}
[[nodiscard]] constexpr bool overlaps(const Circle& c, const AABB& box) noexcept {
  return lengthSquared(c.center - closestPoint(box, c.center)) < c.radius * c.radius;
}
[[nodiscard]] constexpr bool contains(const Circle& c, Vec2 p) noexcept {
  return lengthSquared(p - c.center) <= c.radius * c.radius;
}

}  // namespace quadbin
