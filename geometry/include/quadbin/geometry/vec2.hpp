#pragma once
/// \file
/// Vec2: a 2D vector of floats with the arithmetic a physics step needs.
/// It is BasicVec2<float>; BasicVec2<double> (DVec2) serves code that wants
/// double coordinates, such as the generic quadtree container.

#include <cmath>
#include <type_traits>

namespace quadbin {

template <class F>
struct BasicVec2 {
  static_assert(std::is_floating_point_v<F>, "BasicVec2 holds float or double");
  using value_type = F;

  F x = F(0);
  F y = F(0);

  constexpr BasicVec2() noexcept = default;
  constexpr BasicVec2(F px, F py) noexcept : x(px), y(py) {}
  /// From another precision: implicit when lossless (float to double),
  /// explicit when it rounds (double to float).
  template <class G>
  requires(!std::is_same_v<F, G>) constexpr explicit(sizeof(G) > sizeof(F))
      BasicVec2(BasicVec2<G> v) noexcept
      : x(static_cast<F>(v.x)), y(static_cast<F>(v.y)) {}

  constexpr BasicVec2& operator+=(BasicVec2 o) noexcept {
    x += o.x;
    y += o.y;
    return *this;
  }
  constexpr BasicVec2& operator-=(BasicVec2 o) noexcept {
    x -= o.x;
    y -= o.y;
    return *this;
  }
  constexpr BasicVec2& operator*=(F s) noexcept {
    x *= s;
    y *= s;
    return *this;
  }
  friend constexpr bool operator==(BasicVec2, BasicVec2) noexcept = default;

  // The arithmetic, as hidden friends: plain functions of this type, found
  // by argument-dependent lookup, so braces convert ({1, 0}) and a scalar
  // of another type converts as it would for a float parameter.
  [[nodiscard]] friend constexpr BasicVec2 operator+(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x + b.x, a.y + b.y};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator-(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x - b.x, a.y - b.y};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator-(BasicVec2 a) noexcept { return {-a.x, -a.y}; }
  [[nodiscard]] friend constexpr BasicVec2 operator*(BasicVec2 a, F s) noexcept {
    return {a.x * s, a.y * s};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator*(F s, BasicVec2 a) noexcept {
    return {a.x * s, a.y * s};
  }
  [[nodiscard]] friend constexpr BasicVec2 operator/(BasicVec2 a, F s) noexcept {
    return {a.x / s, a.y / s};
  }
  [[nodiscard]] friend constexpr F dot(BasicVec2 a, BasicVec2 b) noexcept {
    return a.x * b.x + a.y * b.y;
  }
  /// z component of the 3D cross product: > 0 when b is counter-clockwise of a.
  [[nodiscard]] friend constexpr F cross(BasicVec2 a, BasicVec2 b) noexcept {
    return a.x * b.y - a.y * b.x;
  }
  [[nodiscard]] friend constexpr F lengthSquared(BasicVec2 a) noexcept { return dot(a, a); }
  [[nodiscard]] friend F length(BasicVec2 a) noexcept { return std::sqrt(dot(a, a)); }
  [[nodiscard]] friend constexpr BasicVec2 min(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y};
  }
  [[nodiscard]] friend constexpr BasicVec2 max(BasicVec2 a, BasicVec2 b) noexcept {
    return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y};
  }
  [[nodiscard]] friend bool isFinite(BasicVec2 a) noexcept {
    return std::isfinite(a.x) && std::isfinite(a.y);
  }
  /// Unit vector along a, or `fallback` for a zero vector (a safe default normal).
  [[nodiscard]] friend BasicVec2 normalizeOr(BasicVec2 a, BasicVec2 fallback) noexcept {
    const F len = length(a);
    return len > F(0) ? a / len : fallback;
  }
  /// Unit vector along a, or (1, 0) for a zero vector.
  [[nodiscard]] friend BasicVec2 normalizeOr(BasicVec2 a) noexcept {
    return normalizeOr(a, BasicVec2(F(1), F(0)));
  }
};

using Vec2 = BasicVec2<float>;
using DVec2 = BasicVec2<double>;

}  // namespace quadbin
