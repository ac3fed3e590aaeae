#pragma once
// Internal to the engine: what one step's stages read of the world's
// settings and of what it holds (World::Impl::settingsFor).

#include <algorithm>
#include <cstdint>
#include <quadbin/geometry.hpp>

#include "bodies/body_store.hpp"

namespace quadbin {

struct SolverSettings {
  float dt = 0.0f;
  float restitution = 1.0f;
  float restitutionThreshold = 0.0f;
  bool closedWorld = true;
  AABB bounds{};
  std::uint32_t velocityIterations = 8;
  std::uint32_t impactPasses = 8;
  std::uint32_t positionPasses = 4;
  bool friction = false;      // some ball has friction: the iterations solve it
  float wallFriction = 0.0f;  // the walls' coefficient
  // What the world holds this step (off: the stages skip that work).
  bool kinematic = true;  // some kinematic body
  bool spin = true;       // some body spins, or friction may make one spin
  Vec2 gravity{};         // with a restitution threshold: the shock pass's "up"
  /// Restitution for a collision at relative normal speed `approach` (> 0)
  /// between bodies whose combined restitution is `e` (restitutionOf).
  [[nodiscard]] float restitutionFor(float approach, float e) const noexcept {
    return approach < restitutionThreshold ? 0.0f : e;
  }
  /// The combined restitution of ball a and body b (a ball, a box, or a
  /// wall when b is past the bodies): the larger one, Box2D's rule; a
  /// wall's is the world's.
  [[nodiscard]] float restitutionOf(const BodyStore& bodies, std::uint32_t a,
                                    std::uint32_t b) const noexcept {
    const float eb = b < bodies.size() ? bodies.restitution[b] : restitution;
    return std::max(bodies.restitution[a], eb);
  }
  /// Gap between a ball (centre p, radius r) and wall `side` (0: min x,
  /// 1: max x, 2: min y, 3: max y); negative when it overlaps the wall.
  [[nodiscard]] float wallGap(Vec2 p, float r, std::uint32_t side) const noexcept {
    const float toWall = side == 0   ? p.x - bounds.min.x
                         : side == 1 ? bounds.max.x - p.x
                         : side == 2 ? p.y - bounds.min.y
                                     : bounds.max.y - p.y;
    return toWall - r;
  }
};

}  // namespace quadbin
