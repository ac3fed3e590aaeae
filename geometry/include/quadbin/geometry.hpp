#pragma once
/// \file
/// The geometry layer: Vec2 (and DVec2), AABB, Circle and Ray, with the
/// exact tests on them that every other layer builds on; quadbin::Error
/// (quadbin/error.hpp) comes with it.

#include <algorithm>
#include <cmath>
#include <optional>
#include <quadbin/error.hpp>
#include <type_traits>

// Vec2: a 2D vector of floats with the arithmetic a physics step needs.
// It is BasicVec2<float>; BasicVec2<double> (DVec2) serves code that wants
// double coordinates, such as the generic quadtree container.

namespace quadbin {

template <class F>
struct BasicVec2 {
  static_assert(std::is_floating_point_v<F>, "BasicVec2 holds float or double");
  using value_type = F;

  F x = F(0);
  F y = F(0);

  constexpr BasicVec2() noexcept = default;
  constexpr BasicVec2(F px, F py) noexcept : x(px), y(py) {}
  /// From another precision: implicit when lossless (float to double),
  /// explicit when it rounds (double to float).
  template <class G>
  requires(!std::is_same_v<F, G>) constexpr explicit(sizeof(G) > sizeof(F))
      BasicVec2(BasicVec2<G> v) noexcept
      : x(static_cast<F>(v.x)), y(static_cast<F>(v.y)) {}

  constexpr BasicVec2& operator+=(BasicVec2 o) noexcept {
    x += o.x;
    y += o.y;
    return *this;
  }
  constexpr BasicVec2& operator-=(BasicVec2 o) noexcept {
    x -= o.x;
    y -= o.y;
    return *this;
  }
  constexpr BasicVec2& operator*=(F s) noexcept {
    x *= s;
    y *= s;
    return *this;
  }
  friend constexpr bool operator==(BasicVec2, BasicVec2) noexcept = default;

  // The arithmetic, as hidden friends: plain functions of this type, found
  // by argument-dependent lookup, so braces convert ({1, 0}) and a scalar
  // of another type converts as it would for a float parameter.
  [[nodiscard]] friend constexpr BasicVec2 operator+(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x + b.x, a.y + b.y};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator-(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x - b.x, a.y - b.y};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator-(BasicVec2 a) noexcept { return {-a.x, -a.y}; }
  [[nodiscard]] friend constexpr BasicVec2 operator*(BasicVec2 a, F s) noexcept {
    return {a.x * s, a.y * s};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator*(F s, BasicVec2 a) noexcept {
    return {a.x * s, a.y * s};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator/(BasicVec2 a, F s) noexcept {
    return {a.x / s, a.y / s};
  }
  [[nodiscard]] friend constexpr F dot(BasicVec2 a, BasicVec2 b) noexcept {
    return a.x * b.x + a.y * b.y;
  }
  /// z component of the 3D cross product: > 0 when b is counter-clockwise of a.
  [[nodiscard]] friend constexpr F cross(BasicVec2 a, BasicVec2 b) noexcept {
    return a.x * b.y - a.y * b.x;
  }
  [[nodiscard]] friend constexpr F lengthSquared(BasicVec2 a) noexcept { return dot(a, a); }
  [[nodiscard]] friend F length(BasicVec2 a) noexcept { return std::sqrt(dot(a, a)); }
  [[nodiscard]] friend constexpr BasicVec2 min(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y};
  }
  [[nodiscard]] friend constexpr BasicVec2 max(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
  }
  [[nodiscard]] friend bool isFinite(BasicVec2 a) noexcept {
    return std::isfinite(a.x) && std::isfinite(a.y);
  }
  /// Unit vector along a, or `fallback` for a zero vector (a safe default normal).
  [[nodiscard]] friend BasicVec2 normalizeOr(BasicVec2 a, BasicVec2 fallback) noexcept {
    const F len = length(a);
    return len > F(0) ? a / len : fallback;
  }
  /// Unit vector along a, or (1, 0) for a zero vector.
  [[nodiscard]] friend BasicVec2 normalizeOr(BasicVec2 a) noexcept {
    return normalizeOr(a, BasicVec2(F(1), F(0)));
  }
};

using Vec2 = BasicVec2<float>;
using DVec2 = BasicVec2<double>;

}  // namespace quadbin

// AABB: an axis-aligned box [min, max] of floats and the overlap rules every
// broad phase shares. It is BasicBox<float>; BasicBox<double> (DAABB) serves
// code that wants double coordinates, such as the generic quadtree container.

namespace quadbin {

template <class F>
struct BasicBox {
  using value_type = F;

  BasicVec2<F> min;
  BasicVec2<F> max;

  constexpr BasicBox() noexcept = default;
  constexpr BasicBox(BasicVec2<F> lo, BasicVec2<F> hi) noexcept : min(lo), max(hi) {}
  /// From another precision: implicit when lossless (float to double),
  /// explicit when it rounds (double to float).
  template <class G>
  requires(!std::is_same_v<F, G>) constexpr explicit(sizeof(G) > sizeof(F))
      BasicBox(const BasicBox<G>& b) noexcept
      : min(static_cast<BasicVec2<F>>(b.min)), max(static_cast<BasicVec2<F>>(b.max)) {}

  [[nodiscard]] static constexpr BasicBox fromCenterHalf(BasicVec2<F> c,
                                                         BasicVec2<F> half) noexcept {
    return {c - half, c + half};
  }
  [[nodiscard]] static constexpr BasicBox fromCircle(BasicVec2<F> c, F r) noexcept {
    return {{c.x - r, c.y - r}, {c.x + r, c.y + r}};
  }

  /// Halves first, so that huge finite boxes do not overflow (the same
  /// result as (min + max) / 2 otherwise: halving is exact).
  [[nodiscard]] constexpr BasicVec2<F> center() const noexcept {
    return {min.x * F(0.5) + max.x * F(0.5), min.y * F(0.5) + max.y * F(0.5)};
  }
  [[nodiscard]] constexpr BasicVec2<F> extents() const noexcept { return max - min; }
  [[nodiscard]] constexpr F width() const noexcept { return max.x - min.x; }
  [[nodiscard]] constexpr F height() const noexcept { return max.y - min.y; }
  [[nodiscard]] constexpr F area() const noexcept { return width() * height(); }
  [[nodiscard]] constexpr F perimeter() const noexcept { return F(2) * (width() + height()); }
  /// min <= max on both axes (a zero-size box is valid; false with a NaN).
  [[nodiscard]] constexpr bool isValid() const noexcept { return min.x <= max.x && min.y <= max.y; }
  [[nodiscard]] constexpr BasicBox expanded(F margin) const noexcept {
    return {{min.x - margin, min.y - margin}, {max.x + margin, max.y + margin}};
  }
  friend constexpr bool operator==(const BasicBox&, const BasicBox&) noexcept = default;
};

using AABB = BasicBox<float>;
using DAABB = BasicBox<double>;

/// The overlap rule of the whole library: strict on both axes, so boxes that
/// only touch do not overlap and a zero-size box overlaps only boxes that
/// contain it in their interior.
template <class F>
[[nodiscard]] constexpr bool overlaps(const BasicBox<F>& a, const BasicBox<F>& b) noexcept {
  return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
}
/// Closed-interval overlap (touching counts): used by queries, where a
/// point on the border of a query box is inside it.
template <class F>
[[nodiscard]] constexpr bool touches(const BasicBox<F>& a, const BasicBox<F>& b) noexcept {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}
/// outer contains inner entirely (borders included).
template <class F>
[[nodiscard]] constexpr bool contains(const BasicBox<F>& outer, const BasicBox<F>& inner) noexcept {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && inner.max.x <= outer.max.x &&
         inner.max.y <= outer.max.y;
}
template <class F>
[[nodiscard]] constexpr bool contains(const BasicBox<F>& box, BasicVec2<F> p) noexcept {
  return box.min.x <= p.x && p.x <= box.max.x && box.min.y <= p.y && p.y <= box.max.y;
}
template <class F>
[[nodiscard]] constexpr BasicBox<F> unionOf(const BasicBox<F>& a, const BasicBox<F>& b) noexcept {
  return {min(a.min, b.min), max(a.max, b.max)};
}
/// The intersection box; invalid (min > max) when the boxes are disjoint.
template <class F>
[[nodiscard]] constexpr BasicBox<F> intersectionOf(const BasicBox<F>& a,
                                                   const BasicBox<F>& b) noexcept {
  return {max(a.min, b.min), min(a.max, b.max)};
}
template <class F>
[[nodiscard]] bool isFinite(const BasicBox<F>& b) noexcept {
  return isFinite(b.min) && isFinite(b.max);
}
/// The point of box closest to p (p itself when inside).
template <class F>
[[nodiscard]] constexpr BasicVec2<F> closestPoint(const BasicBox<F>& box, BasicVec2<F> p) noexcept {
  return min(max(p, box.min), box.max);
}

}  // namespace quadbin

// Circle and its relations to points, boxes and other circles.

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

// Ray: origin + t * direction for t in [0, maxT], and its exact hits on
// boxes and circles.

namespace quadbin {

struct Ray {
  Vec2 origin;
  Vec2 direction;  ///< need not be unit length; hit distances are in units of t
  float maxT = 1.0f;

  [[nodiscard]] constexpr Vec2 at(float t) const noexcept { return origin + direction * t; }
  /// The box that holds every point of the ray (for broad-phase culling).
  [[nodiscard]] constexpr AABB bounds() const noexcept {
    const Vec2 end = at(maxT);
    return {min(origin, end), max(origin, end)};
  }
};

/// Smallest t in [0, ray.maxT] at which the ray is inside box (slab test),
/// or nothing. A ray starting inside the box hits at t = 0.
[[nodiscard]] inline std::optional<float> raycast(const Ray& ray, const AABB& box) noexcept {
  float tmin = 0.0f;
  float tmax = ray.maxT;
  const float o[2] = {ray.origin.x, ray.origin.y};
  const float d[2] = {ray.direction.x, ray.direction.y};
  const float lo[2] = {box.min.x, box.min.y};
  const float hi[2] = {box.max.x, box.max.y};
  for (int axis = 0; axis < 2; ++axis) {
    // A component so small that its inverse overflows (a denormal) is
    // parallel too: 0 * inf would give NaN on a face through the origin.
    const float inv = 1.0f / d[axis];
    if (d[axis] == 0.0f || !std::isfinite(inv)) {
      if (o[axis] < lo[axis] || o[axis] > hi[axis]) return std::nullopt;
      continue;
    }
    float t0 = (lo[axis] - o[axis]) * inv;
    float t1 = (hi[axis] - o[axis]) * inv;
    if (t0 > t1) std::swap(t0, t1);
    tmin = std::max(tmin, t0);
    tmax = std::min(tmax, t1);
    if (tmin > tmax) return std::nullopt;
  }
  return tmin;
}

/// Smallest t in [0, ray.maxT] at which the ray is inside the circle, or
/// nothing. A ray starting inside the circle hits at t = 0.
[[nodiscard]] inline std::optional<float> raycast(const Ray& ray, const Circle& c) noexcept {
  const Vec2 m = ray.origin - c.center;
  const float cc = dot(m, m) - c.radius * c.radius;
  if (cc <= 0.0f) return 0.0f;
  const float a = dot(ray.direction, ray.direction);
  const float b = dot(m, ray.direction);
  if (a == 0.0f || b >= 0.0f) return std::nullopt;  // not moving, or moving away
  const float disc = b * b - a * cc;
  if (disc < 0.0f) return std::nullopt;
  const float t = (-b - std::sqrt(disc)) / a;
  if (t > ray.maxT) return std::nullopt;
  return std::max(t, 0.0f);
}

}  // namespace quadbin
