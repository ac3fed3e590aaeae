#pragma once
// Internal to the engine: where a ball meets an axis-aligned box, for the
// events, the sensors and World::draw (the solver keeps its own, inlined in
// contact_set.cpp), and which way two balls on one centre part.

#include <cstdint>
#include <quadbin/geometry.hpp>
#include <quadbin/narrowphase.hpp>
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

/// The normal from ball a to ball b when their centres coincide: a fixed
/// function of the pair, spread over the whole circle, so that a crowd
/// created on one point spreads out in every direction (one direction for
/// every pair would only line it up along an axis, which the walls of a
/// closed world may have no room for). Made of + - * / alone, so the bits
/// are the same on every machine: the point (1 - t^2, 2t) / (1 + t^2) of the
/// unit circle's right half for t in [-1, 1), negated for half the pairs.
[[nodiscard]] inline Vec2 apartDirection(std::uint32_t a, std::uint32_t b) noexcept {
  std::uint32_t h = (a * 0x9E3779B1u) ^ ((b + 0x7F4A7C15u) * 0x85EBCA77u);
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  const float t = static_cast<float>(h & 0xFFFFu) / 32768.0f - 1.0f;
  const float q = 1.0f + t * t;
  const Vec2 n{(1.0f - t * t) / q, 2.0f * t / q};
  return (h & 0x80000000u) != 0 ? -n : n;
}

}  // namespace quadbin
