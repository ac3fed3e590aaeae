#pragma once
// Internal to the engine: where a ball meets an axis-aligned box, for the
// events, the sensors and World::draw (the solver keeps its own, inlined in
// contact_set.cpp).

#include <quadbin/geometry/aabb.hpp>
#include <quadbin/narrowphase/contact.hpp>
#include <utility>

namespace quadbin {

/// The unit normal from ball centre c towards the box, and the box's point
/// closest to c; a centre inside the box points out of its nearest face
/// (and the point is the centre itself).
[[nodiscard]] inline std::pair<Vec2, Vec2> ballToBox(Vec2 c, const AABB& box) noexcept {
  const Vec2 q = closestPoint(box, c);
  if (q.x != c.x || q.y != c.y) return {normalizeOr(q - c), q};
  return {-outwardNormal(box, c), c};
}

}  // namespace quadbin
