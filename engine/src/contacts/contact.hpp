#pragma once
// Internal to the engine: a contact as the step keeps it from one step to
// the next, and its vocabulary (walls, colours, slop, touching pairs). The
// stages that read contacts (islands, events, sensors, snapshot, draw)
// depend on this header, not on the solver that writes them.

#include <cstdint>
#include <utility>

#include "bodies/body_store.hpp"

namespace quadbin::contacts {

/// A closed world's walls are a contact kind of their own: a contact's b
/// is a body or one of the four walls, asked with isWall and wallSide and
/// made with wall(side), never by arithmetic on b. Encoded past every body
/// index (kWallBase + side), so that the canonical order (a, b) lists a
/// ball's walls after its bodies and a snapshot stores b as one word.
inline constexpr std::uint32_t kWallBase = UINT32_MAX - 4;
/// True when b names a wall rather than a body.
[[nodiscard]] constexpr bool isWall(std::uint32_t b) noexcept { return b >= kWallBase; }
/// The wall b names: 0 min x, 1 max x, 2 min y, 3 max y (b a wall).
[[nodiscard]] constexpr std::uint32_t wallSide(std::uint32_t b) noexcept { return b - kWallBase; }
/// The b of a contact with wall `side` (0..3).
[[nodiscard]] constexpr std::uint32_t wall(std::uint32_t side) noexcept { return kWallBase + side; }

/// Colours with a bit per ball (ConstraintGraph); contacts that find them
/// all taken go to one more group, solved serially.
inline constexpr std::uint32_t kColours = 64;
/// Overlap, as a fraction of the smaller radius, under which a contact
/// still counts as touching (resting contacts hover around zero gap).
inline constexpr float kSlop = 0.005f;

/// The most a stored impulse may move either end when it is warm started:
/// lambda / m in units/s (a million times kMaxSpeed), shift / m in units.
/// Stored impulses are held under it (ContactSet::store), so that a restored
/// one, however crafted, keeps every step's arithmetic finite; only a
/// stack whose masses differ by more than about 1e12 carries that much.
inline constexpr float kMaxWarmChange = 1e14f;
/// `impulse`, held under kMaxWarmChange for an end of inverse mass `im`.
[[nodiscard]] inline float warmable(float impulse, float im) noexcept {
  return impulse * im > kMaxWarmChange ? kMaxWarmChange * (1.0f - 0x1p-20f) / im : impulse;
}

/// A contact of the step, in canonical order; persists to the next step.
/// Uninitialised by default: the contact arrays are resized every step
/// and every field is written before it is read.
struct Contact {        // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::uint32_t a;      // an awake ball
  std::uint32_t b;      // a ball (> a), a static or kinematic body, or a wall (isWall)
  float lambda;         // accumulated normal impulse of the contact iterations
  std::uint8_t colour;  // < kColours, or kColours: the serial group
  std::uint8_t touched;
  float shift = 0.0f;    // accumulated impulse of the position correction
  float tangent = 0.0f;  // accumulated friction impulse of the iterations
  float rolling = 0.0f;  // accumulated rolling-resistance impulse
  friend constexpr bool operator<(const Contact& l, const Contact& r) noexcept {
    return l.a != r.a ? l.a < r.a : l.b < r.b;
  }
};

[[nodiscard]] constexpr bool sameBodies(const Contact& l, const Contact& r) noexcept {
  return l.a == r.a && l.b == r.b;
}

/// A contact whose bodies were renumbered, back in canonical form: of two
/// balls, the lower index is a. Swapping the ends turns the normal and
/// tangent round, so the normal, shift and tangent impulses stay and the
/// rolling one changes sign (it acts on a's spin as -, on b's as +).
inline void orient(Contact& c, const BodyStore& bodies) noexcept {
  if (!isWall(c.b) && bodies.isBall(c.b) && c.b < c.a) {
    std::swap(c.a, c.b);
    c.rolling = -c.rolling;
  }
}

}  // namespace quadbin::contacts

namespace quadbin {

/// Asked about each ball-and-body pair the narrow phase keeps, before it
/// becomes a contact (sensors, World::setPreSolve; sensor_set.hpp); unset:
/// every pair is kept. Called from worker threads.
struct ContactFilter {
  const void* context = nullptr;
  bool (*allows)(const void* context, std::uint32_t a, std::uint32_t b) = nullptr;
};

/// A pair of touching bodies by (slot, generation), for contact events.
struct TouchKey {
  std::uint32_t slotA, genA, slotB, genB;
  friend constexpr bool operator<(const TouchKey& l, const TouchKey& r) noexcept {
    if (l.slotA != r.slotA) return l.slotA < r.slotA;
    if (l.slotB != r.slotB) return l.slotB < r.slotB;
    if (l.genA != r.genA) return l.genA < r.genA;
    return l.genB < r.genB;
  }
};

}  // namespace quadbin
