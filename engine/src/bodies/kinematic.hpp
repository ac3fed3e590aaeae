#pragma once
// Internal to the engine: kinematic bodies (BodyType::Kinematic).
//
// A kinematic body is a ball (radius > 0), an axis-aligned box or an
// outline (radius 0) that moves at the velocity the game gives it: infinite mass, no gravity,
// never moved by a collision. In the BodyStore it sits beside the static
// boxes (invMass 0, awake 0, not a ball), with its velocity in vx, vy; the
// step moves it by v dt at the end. The solver treats its contacts like a
// static box's, but against the shape where it is at the time in question
// and with its velocity: time of impact in relative motion, so a fast
// paddle cannot pass through a ball (docs/physics.md, "Kinematic bodies").
// A kinematic ball may also spin at the rate the game sets (w): friction
// then drives what it touches with its surface speed. A kinematic outline
// turns at its w about its position (BodyStore::angle); an axis-aligned
// box never turns.

#include <cstdint>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/geometry.hpp>
#include <span>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"
#include "solver/solver_settings.hpp"

namespace quadbin::kinematic {

[[nodiscard]] inline bool isKinematic(const BodyStore& b, std::uint32_t i) noexcept {
  return b.type[i] == BodyType::Kinematic && b.enabled[i] != 0;  // a disabled one stays
}
/// A kinematic body with a nonzero velocity, or a kinematic ball that spins
/// (its surface drives what touches it through friction).
[[nodiscard]] inline bool isMoving(const BodyStore& b, std::uint32_t i) noexcept {
  return isKinematic(b, i) && (b.vx[i] != 0.0f || b.vy[i] != 0.0f || b.w[i] != 0.0f);
}
/// The radius a def gives its body: a kinematic def with radius > 0 is a
/// ball, otherwise (or a static box) a box.
[[nodiscard]] inline float radiusOf(const BodyDef& d) noexcept {
  return d.type == BodyType::Ball || (d.type == BodyType::Kinematic && d.radius > 0.0f) ? d.radius
                                                                                        : 0.0f;
}
/// The velocity a def gives its body (zero for static boxes).
[[nodiscard]] inline Vec2 velocityOf(const BodyDef& d) noexcept {
  return d.type == BodyType::StaticBox ? Vec2{} : d.velocity;
}

/// How a ball (centre p, radius r) lies against kinematic body k placed
/// with its centre at `center` and turned by `angle` (an outline's; a
/// ball's and a box's shape ignore it): unit normal from the ball towards
/// the shape, and the gap (negative: overlap).
struct Touch {
  Vec2 normal{1.0f, 0.0f};
  float gap = 0.0f;
};
[[nodiscard]] Touch touch(const BodyStore& b, std::uint32_t k, Vec2 center, float angle, Vec2 p,
                          float r) noexcept;

/// Body k's angle at time t into the step (its angle now plus w t; only an
/// outline's angle shapes it).
[[nodiscard]] inline float angleAt(const BodyStore& b, std::uint32_t k, float t) noexcept {
  return b.angle[k] + b.w[k] * t;
}
/// Whether kinematic body k is an outline that turns (w != 0).
[[nodiscard]] bool turns(const BodyStore& b, std::uint32_t k) noexcept;
/// The farthest point of body k's outline from its centre (0 without one).
[[nodiscard]] float reachOf(const BodyStore& b, std::uint32_t k) noexcept;
/// The velocity of body k's surface at point q, its centre at `center`:
/// its velocity vk, plus w x (q - center) for an outline that turns.
[[nodiscard]] Vec2 surfaceVelocity(const BodyStore& b, std::uint32_t k, Vec2 vk, Vec2 center,
                                   Vec2 q) noexcept;

/// Earliest t in [0, tMax] at which the ball (moving at v) touches
/// kinematic body k that starts with its centre at `center`, turned by
/// `angle`, and moves at vk (turning at its w); 0 when they already touch.
/// Exact for a body that does not turn; for a turning outline, conservative
/// advancement to within 1e-3 of the ball's radius (never past the touch).
[[nodiscard]] std::optional<float> timeOfImpact(const BodyStore& b, std::uint32_t k, Vec2 center,
                                                float angle, Vec2 vk, const Circle& ball, Vec2 v,
                                                float tMax) noexcept;

/// The guard of the end of the step (PositionSolver::guardBoxes) against a
/// kinematic body that moved from center0 to center1 (and turned by w dt
/// from its angle): in the body's frame the ball's path from p0 to p1 must
/// not enter it. Where it does, the ball ends where it first touched,
/// carried with the body, and its velocity relative to the body's surface
/// is reflected (v' = v - (1 + e) ((v - vs) . n) n).
void guard(const BodyStore& b, const SolverSettings& s, std::uint32_t a, std::uint32_t k,
           Vec2 center0, Vec2 center1, Vec2 p0, Vec2& p1, Vec2& v) noexcept;

/// Wakes the sleeping balls that a moving kinematic body can reach within
/// the step (from the candidate pairs); returns how many balls woke.
std::uint32_t wakeTouched(BodyStore& b, float dt, std::span<const Pair> pairs) noexcept;

/// Resets the rest time of the balls that touch a moving kinematic body,
/// so that they do not fall asleep on it.
void keepAwake(BodyStore& b, std::span<const contacts::Contact> contacts) noexcept;

}  // namespace quadbin::kinematic
