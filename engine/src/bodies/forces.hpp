#pragma once
// Internal to the engine: forces, damping and impulses on the bodies
// (docs/physics.md, "Materials, damping and forces").
//
// The step's integrate stage calls integrateVelocities instead of plain
// gravity; it falls back to BodyStore::applyGravity while no ball has
// damping or a pending force, so that worlds without them step exactly as
// before. Forces accumulate between steps (World::applyForce) and are
// cleared once the step that used them has succeeded.

#include <cstdint>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bodies/body_store.hpp"

namespace quadbin::forces {

/// Gravity, accumulated forces and damping on the awake balls, Box2D's
/// rule: v = v / (1 + dt c) + dt (g + F / m), w = w / (1 + dt c_w). A ball
/// without force or damping gets exactly what applyGravity would give it.
void integrateVelocities(BodyStore& bodies, Vec2 gravity, float dt, TaskSystem& tasks);

/// Zeroes every accumulated force (no-op when none is pending).
void clearForces(BodyStore& bodies) noexcept;

/// Why ball i may not take `force` on top of its accumulated one, or "".
[[nodiscard]] std::string forceRefusal(const BodyStore& bodies, std::uint32_t i, Vec2 force);

/// Ball i's velocity after a linear impulse at its centre.
[[nodiscard]] Vec2 velocityAfterImpulse(const BodyStore& bodies, std::uint32_t i,
                                        Vec2 impulse) noexcept;
/// Ball i's angular velocity after an angular impulse (I = m r^2 / 2).
[[nodiscard]] float spinAfterImpulse(const BodyStore& bodies, std::uint32_t i,
                                     float impulse) noexcept;

/// The explosion's impulse on ball i (zero when it is out of reach, a
/// static box, or centred exactly on `center`): away from the centre,
/// impulse * (1 - d / radius), d the distance to the ball's surface.
[[nodiscard]] Vec2 explosionImpulse(const BodyStore& bodies, std::uint32_t i, Vec2 center,
                                    float radius, float impulse) noexcept;

/// The new velocities of the balls among `candidates` (dense indices, any
/// order) that an explosion reaches, as (index, velocity) in index order,
/// into `out`. Returns why it is refused (a ball would pass kMaxSpeed),
/// or "".
[[nodiscard]] std::string explosionVelocities(const BodyStore& bodies,
                                              std::span<std::uint32_t> candidates, Vec2 center,
                                              float radius, float impulse,
                                              std::vector<std::pair<std::uint32_t, Vec2>>& out);

}  // namespace quadbin::forces
