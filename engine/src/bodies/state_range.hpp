#pragma once
// Internal to the engine: the step keeps every body's state within the
// limits World accepts at its boundary (docs/limits.md, "What the limits
// promise"), so that a snapshot of any world restores and every step is
// one the limits' reasoning covers. Both rules only act where a body
// went past a limit, which the step never does at ordinary speeds and
// sizes; they cost a few compares per body in the loops that write the
// step's positions back.

#include <algorithm>
#include <cmath>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/geometry.hpp>

namespace quadbin::range {

// Just under the limit, so that a scaled value compares below it after
// rounding (the limits are checked in double).
inline constexpr float kUnder = 1.0f - 0x1p-20f;

/// The farthest a body may be from the origin on each axis: kMaxCoordinate,
/// and for a circle of radius r > 0 the precision edge r / 2^-20 too
/// (limits::kMinRadiusPerCoordinate: beyond it float cannot resolve its
/// contacts). Exact: r times a power of two.
[[nodiscard]] inline float edge(float r) noexcept {
  return r > 0.0f ? std::min(limits::kMaxCoordinate, r / limits::kMinRadiusPerCoordinate)
                  : limits::kMaxCoordinate;
}

/// A position past the edge is held at it, and the velocity that carried
/// it out is dropped (as against a wall that does not give).
inline void holdInside(Vec2& p, Vec2& v, float r) noexcept {
  const float e = edge(r);
  if (std::abs(p.x) > e) [[unlikely]] {
    p.x = std::copysign(e, p.x);
    if (v.x * p.x > 0.0f) v.x = 0.0f;
  }
  if (std::abs(p.y) > e) [[unlikely]] {
    p.y = std::copysign(e, p.y);
    if (v.y * p.y > 0.0f) v.y = 0.0f;
  }
}

/// A ball faster than kMaxSpeed is slowed to it, its direction kept (as
/// Box2D v3's maximum linear speed does).
/// The float test lets through only speeds within a few ulps of the limit,
/// which the double one (the validator's arithmetic) then decides.
inline void capSpeed(Vec2& v) noexcept {
  const float v2 = v.x * v.x + v.y * v.y;
  if (v2 >= limits::kMaxSpeed * limits::kMaxSpeed * kUnder) [[unlikely]] {
    const double speed = std::hypot(double{v.x}, double{v.y});
    if (speed > limits::kMaxSpeed) {
      const double scale = limits::kMaxSpeed * double{kUnder} / speed;
      v = {static_cast<float>(v.x * scale), static_cast<float>(v.y * scale)};
    }
  }
}

/// A spin whose rim moves faster than kMaxSpeed is slowed to it.
inline void capSpin(float& w, float r) noexcept {
  if (std::abs(double{w}) * r > limits::kMaxSpeed) [[unlikely]] {
    w = static_cast<float>(std::copysign(limits::kMaxSpeed * double{kUnder} / r, double{w}));
  }
}

}  // namespace quadbin::range
