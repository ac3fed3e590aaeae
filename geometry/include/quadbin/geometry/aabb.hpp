#pragma once
/// \file
/// AABB: an axis-aligned box [min, max] of floats and the overlap rules every
/// broad phase shares.

#include <quadbin/geometry/vec2.hpp>

namespace quadbin {

struct AABB {
  Vec2 min;
  Vec2 max;

  [[nodiscard]] static constexpr AABB fromCenterHalf(Vec2 c, Vec2 half) noexcept {
    return {c - half, c + half};
  }
  [[nodiscard]] static constexpr AABB fromCircle(Vec2 c, float r) noexcept {
    return {{c.x - r, c.y - r}, {c.x + r, c.y + r}};
  }

  [[nodiscard]] constexpr Vec2 center() const noexcept { return (min + max) * 0.5f; }
  [[nodiscard]] constexpr Vec2 extents() const noexcept { return max - min; }
  [[nodiscard]] constexpr float width() const noexcept { return max.x - min.x; }
  [[nodiscard]] constexpr float height() const noexcept { return max.y - min.y; }
  [[nodiscard]] constexpr float area() const noexcept { return width() * height(); }
  [[nodiscard]] constexpr float perimeter() const noexcept { return 2.0f * (width() + height()); }
  /// min <= max on both axes (a zero-size box is valid).
  [[nodiscard]] constexpr bool isValid() const noexcept { return min.x <= max.x && min.y <= max.y; }
  [[nodiscard]] constexpr AABB expanded(float margin) const noexcept {
    return {{min.x - margin, min.y - margin}, {max.x + margin, max.y + margin}};
  }
  friend constexpr bool operator==(const AABB&, const AABB&) noexcept = default;
};

/// The overlap rule of the whole library: strict on both axes, so boxes that
/// only touch do not overlap and a zero-size box overlaps only boxes that
/// contain it in their interior.
[[nodiscard]] constexpr bool overlaps(const AABB& a, const AABB& b) noexcept {
  return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
}
/// Closed-interval overlap (touching counts): used by queries, where a
/// point on the border of a query box is inside it.
[[nodiscard]] constexpr bool touches(const AABB& a, const AABB& b) noexcept {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}
/// outer contains inner entirely (borders included).
[[nodiscard]] constexpr bool contains(const AABB& outer, const AABB& inner) noexcept {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && inner.max.x <= outer.max.x &&
         inner.max.y <= outer.max.y;
}
[[nodiscard]] constexpr bool contains(const AABB& box, Vec2 p) noexcept {
  return box.min.x <= p.x && p.x <= box.max.x && box.min.y <= p.y && p.y <= box.max.y;
}
[[nodiscard]] constexpr AABB unionOf(const AABB& a, const AABB& b) noexcept {
  return {min(a.min, b.min), max(a.max, b.max)};
}
/// The intersection box; invalid (min > max) when the boxes are disjoint.
[[nodiscard]] constexpr AABB intersectionOf(const AABB& a, const AABB& b) noexcept {
  return {max(a.min, b.min), min(a.max, b.max)};
}
[[nodiscard]] inline bool isFinite(const AABB& b) noexcept {
  return isFinite(b.min) && isFinite(b.max);
}
/// The point of box closest to p (p itself when inside).
[[nodiscard]] constexpr Vec2 closestPoint(const AABB& box, Vec2 p) noexcept {
  return min(max(p, box.min), box.max);
}

}  // namespace quadbin
