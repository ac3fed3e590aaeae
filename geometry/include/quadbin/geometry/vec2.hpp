#pragma once
/// \file
/// Vec2: a 2D vector of floats with the arithmetic a physics step needs.

#include <cmath>

namespace quadbin {

struct Vec2 {
  float x = 0.0f;
  float y = 0.0f;

  constexpr Vec2& operator+=(Vec2 o) noexcept {
    x += o.x;
    y += o.y;
    return *this;
  }
  constexpr Vec2& operator-=(Vec2 o) noexcept {
    x -= o.x;
    y -= o.y;
    return *this;
  }
  constexpr Vec2& operator*=(float s) noexcept {
    x *= s;
    y *= s;
    return *this;
  }
  friend constexpr bool operator==(Vec2, Vec2) noexcept = default;
};

[[nodiscard]] constexpr Vec2 operator+(Vec2 a, Vec2 b) noexcept { return {a.x + b.x, a.y + b.y}; }
[[nodiscard]] constexpr Vec2 operator-(Vec2 a, Vec2 b) noexcept { return {a.x - b.x, a.y - b.y}; }
[[nodiscard]] constexpr Vec2 operator-(Vec2 a) noexcept { return {-a.x, -a.y}; }
[[nodiscard]] constexpr Vec2 operator*(Vec2 a, float s) noexcept { return {a.x * s, a.y * s}; }
[[nodiscard]] constexpr Vec2 operator*(float s, Vec2 a) noexcept { return {a.x * s, a.y * s}; }
[[nodiscard]] constexpr Vec2 operator/(Vec2 a, float s) noexcept { return {a.x / s, a.y / s}; }

[[nodiscard]] constexpr float dot(Vec2 a, Vec2 b) noexcept { return a.x * b.x + a.y * b.y; }
/// z component of the 3D cross product: > 0 when b is counter-clockwise of a.
[[nodiscard]] constexpr float cross(Vec2 a, Vec2 b) noexcept { return a.x * b.y - a.y * b.x; }
[[nodiscard]] constexpr float lengthSquared(Vec2 a) noexcept { return dot(a, a); }
[[nodiscard]] inline float length(Vec2 a) noexcept { return std::sqrt(dot(a, a)); }
[[nodiscard]] constexpr Vec2 min(Vec2 a, Vec2 b) noexcept {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y};
}
[[nodiscard]] constexpr Vec2 max(Vec2 a, Vec2 b) noexcept {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
}
[[nodiscard]] inline bool isFinite(Vec2 a) noexcept {
  return std::isfinite(a.x) && std::isfinite(a.y);
}

/// Unit vector along a, or (1, 0) for a zero vector (a safe default normal).
[[nodiscard]] inline Vec2 normalizeOr(Vec2 a, Vec2 fallback = {1.0f, 0.0f}) noexcept {
  const float len = length(a);
  return len > 0.0f ? a / len : fallback;
}

}  // namespace quadbin
