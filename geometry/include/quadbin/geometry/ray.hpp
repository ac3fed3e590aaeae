#pragma once
/// \file
/// Ray: origin + t * direction for t in [0, maxT], and its exact hits on
/// boxes and circles.

#include <algorithm>
#include <cmath>
#include <optional>
#include <quadbin/geometry/circle.hpp>

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
