#pragma once
// Arithmetic on box coordinates that stays exact-enough and finite over the
// whole float range: a width (max - min) or a centre ((min + max) / 2) of
// finite floats can overflow float, never double.

#include <algorithm>
#include <limits>

namespace quadbin::detail {

constexpr float kFloatMax = std::numeric_limits<float>::max();

/// The float nearest the midpoint of a and b: finite for finite a and b,
/// and between them (rounding is monotonic).
[[nodiscard]] constexpr float midpoint(float a, float b) noexcept {
  return static_cast<float>((static_cast<double>(a) + static_cast<double>(b)) * 0.5);
}

/// b - a without overflow.
[[nodiscard]] constexpr double span(float a, float b) noexcept {
  return static_cast<double>(b) - static_cast<double>(a);
}

/// A double rounded to float and clamped into the finite range.
[[nodiscard]] constexpr float clampToFloat(double v) noexcept {
  return static_cast<float>(
      std::clamp(v, -static_cast<double>(kFloatMax), static_cast<double>(kFloatMax)));
}

}  // namespace quadbin::detail
