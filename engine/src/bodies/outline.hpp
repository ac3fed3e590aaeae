#pragma once
// Internal to the engine: a def's outline (BodyDef::outline) as the hull
// the solver tests, and the box around the body's position that holds it.

#include <algorithm>
#include <cmath>
#include <optional>
#include <quadbin/engine/body.hpp>
#include <quadbin/narrowphase.hpp>
#include <span>

namespace quadbin::outline {

/// The def's outline as a hull relative to its position, or nothing (no
/// outline, or one that makeSegment / makePolygon refuse).
[[nodiscard]] inline std::optional<Hull> hullOf(const BodyDef& d) noexcept {
  if (d.outlineCount == 2) return makeSegment(d.outline[0], d.outline[1], Vec2{});
  if (d.outlineCount < 3 || d.outlineCount > BodyDef::kMaxOutline) return std::nullopt;
  return makePolygon(std::span<const Vec2>(d.outline.data(), d.outlineCount), Vec2{});
}

/// Half extents of the box centred on the position that holds the hull.
[[nodiscard]] inline Vec2 halfOf(const Hull& h) noexcept {
  Vec2 half{};
  for (int i = 0; i < h.count; ++i) {
    half.x = std::max(half.x, std::abs(h.vertices[i].x));
    half.y = std::max(half.y, std::abs(h.vertices[i].y));
  }
  return half;
}

/// The hull's farthest vertex from the position: the radius it sweeps
/// when it turns.
[[nodiscard]] inline float reachOf(const Hull& h) noexcept {
  float most = 0.0f;
  for (int i = 0; i < h.count; ++i) most = std::max(most, length(h.vertices[i]));
  return most;
}

/// The half extents a def gives its body: a circle's radius, an outline's
/// box, or the def's halfExtents.
[[nodiscard]] inline Vec2 halfExtentsOf(const BodyDef& d, float radius) noexcept {
  if (radius > 0.0f) return {radius, radius};
  if (d.outlineCount != 0) {
    if (const auto h = hullOf(d)) return halfOf(*h);
  }
  return d.halfExtents;
}

}  // namespace quadbin::outline
