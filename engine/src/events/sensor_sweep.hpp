#pragma once
// Internal to the engine: the swept test of the sensors (sensor_set.cpp).
// A visitor ball of radius r whose straight path from a to b (in the
// sensor's frame) comes strictly closer than r to the sensor's shape has
// touched the sensor during the step, however thin the shape and however
// fast the ball.

#include <algorithm>
#include <quadbin/geometry.hpp>
#include <utility>

namespace quadbin::sweep {

/// Squared distance from point c to the segment from a to b.
[[nodiscard]] inline float segmentDistanceSquared(Vec2 a, Vec2 b, Vec2 c) noexcept {
  const Vec2 d = b - a;
  const float dd = dot(d, d);
  const float t = dd > 0.0f ? std::clamp(dot(c - a, d) / dd, 0.0f, 1.0f) : 0.0f;
  return lengthSquared(a + d * t - c);
}

/// Whether the segment from a to b meets the closed box (slab test).
[[nodiscard]] inline bool segmentMeetsBox(Vec2 a, Vec2 b, const AABB& box) noexcept {
  float t0 = 0.0f, t1 = 1.0f;
  const float from[2] = {a.x, a.y}, to[2] = {b.x, b.y};
  const float lo[2] = {box.min.x, box.min.y}, hi[2] = {box.max.x, box.max.y};
  for (int k = 0; k < 2; ++k) {
    const float d = to[k] - from[k];
    if (d == 0.0f) {
      if (from[k] < lo[k] || from[k] > hi[k]) return false;
      continue;
    }
    float enter = (lo[k] - from[k]) / d, leave = (hi[k] - from[k]) / d;
    if (enter > leave) std::swap(enter, leave);
    t0 = std::max(t0, enter);
    t1 = std::min(t1, leave);
    if (t0 > t1) return false;
  }
  return true;
}

/// A ball of radius r moved straight from a to b: whether it came strictly
/// closer than r to the box (the segment against the box rounded by r).
/// Apart, the nearest points of a segment and a box are an end of the
/// segment or a corner of the box.
[[nodiscard]] inline bool sweptBallTouchesBox(Vec2 a, Vec2 b, float r, const AABB& box) noexcept {
  if (segmentMeetsBox(a, b, box)) return true;
  const float r2 = r * r;
  if (lengthSquared(a - closestPoint(box, a)) < r2) return true;
  if (lengthSquared(b - closestPoint(box, b)) < r2) return true;
  const Vec2 corners[4] = {box.min, {box.max.x, box.min.y}, {box.min.x, box.max.y}, box.max};
  for (const Vec2 c : corners) {
    if (segmentDistanceSquared(a, b, c) < r2) return true;
  }
  return false;
}

/// A ball of radius r moved straight from a to b: whether it came strictly
/// closer than r to the circle (center, radius).
[[nodiscard]] inline bool sweptBallTouchesCircle(Vec2 a, Vec2 b, float r, Vec2 center,
                                                 float radius) noexcept {
  const float reach = r + radius;
  return segmentDistanceSquared(a, b, center) < reach * reach;
}

}  // namespace quadbin::sweep
