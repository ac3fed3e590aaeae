#pragma once
/// \file
/// AABB: an axis-aligned box [min, max] of floats and the overlap rules every
/// broad phase shares. It is BasicBox<float>; BasicBox<double> (DAABB) serves
/// code that wants double coordinates, such as the generic quadtree container.

#include <quadbin/geometry/vec2.hpp>

namespace quadbin {

template <class F>
struct BasicBox {
  using value_type = F;

  BasicVec2<F> min;
  BasicVec2<F> max;

  constexpr BasicBox() noexcept = default;
  constexpr BasicBox(BasicVec2<F> lo, BasicVec2<F> hi) noexcept : min(lo), max(hi) {}
  /// From another precision: implicit when lossless (float to double),
  /// explicit when it rounds (double to float).
  template <class G>
  requires(!std::is_same_v<F, G>) constexpr explicit(sizeof(G) > sizeof(F))
      BasicBox(const BasicBox<G>& b) noexcept
      : min(static_cast<BasicVec2<F>>(b.min)), max(static_cast<BasicVec2<F>>(b.max)) {}

  [[nodiscard]] static constexpr BasicBox fromCenterHalf(BasicVec2<F> c,
                                                         BasicVec2<F> half) noexcept {
    return {c - half, c + half};
  }
  [[nodiscard]] static constexpr BasicBox fromCircle(BasicVec2<F> c, F r) noexcept {
    return {{c.x - r, c.y - r}, {c.x + r, c.y + r}};
  }

  /// Halves first, so that huge finite boxes do not overflow (the same
  /// result as (min + max) / 2 otherwise: halving is exact).
  [[nodiscard]] constexpr BasicVec2<F> center() const noexcept {
    return {min.x * F(0.5) + max.x * F(0.5), min.y * F(0.5) + max.y * F(0.5)};
  }
  [[nodiscard]] constexpr BasicVec2<F> extents() const noexcept { return max - min; }
  [[nodiscard]] constexpr F width() const noexcept { return max.x - min.x; }
  [[nodiscard]] constexpr F height() const noexcept { return max.y - min.y; }
  [[nodiscard]] constexpr F area() const noexcept { return width() * height(); }
  [[nodiscard]] constexpr F perimeter() const noexcept { return F(2) * (width() + height()); }
  /// min <= max on both axes (a zero-size box is valid; false with a NaN).
  [[nodiscard]] constexpr bool isValid() const noexcept { return min.x <= max.x && min.y <= max.y; }
  [[nodiscard]] constexpr BasicBox expanded(F margin) const noexcept {
    return {{min.x - margin, min.y - margin}, {max.x + margin, max.y + margin}};
  }
  friend constexpr bool operator==(const BasicBox&, const BasicBox&) noexcept = default;
};

using AABB = BasicBox<float>;
using DAABB = BasicBox<double>;

/// The overlap rule of the whole library: strict on both axes, so boxes that
/// only touch do not overlap and a zero-size box overlaps only boxes that
/// contain it in their interior.
template <class F>
[[nodiscard]] constexpr bool overlaps(const BasicBox<F>& a, const BasicBox<F>& b) noexcept {
  return a.min.x < b.max.x && b.min.x < a.max.x && a.min.y < b.max.y && b.min.y < a.max.y;
}
/// Closed-interval overlap (touching counts): used by queries, where a
/// point on the border of a query box is inside it.
template <class F>
[[nodiscard]] constexpr bool touches(const BasicBox<F>& a, const BasicBox<F>& b) noexcept {
  return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y;
}
/// outer contains inner entirely (borders included).
template <class F>
[[nodiscard]] constexpr bool contains(const BasicBox<F>& outer, const BasicBox<F>& inner) noexcept {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && inner.max.x <= outer.max.x &&
         inner.max.y <= outer.max.y;
}
template <class F>
[[nodiscard]] constexpr bool contains(const BasicBox<F>& box, BasicVec2<F> p) noexcept {
  return box.min.x <= p.x && p.x <= box.max.x && box.min.y <= p.y && p.y <= box.max.y;
}
template <class F>
[[nodiscard]] constexpr BasicBox<F> unionOf(const BasicBox<F>& a, const BasicBox<F>& b) noexcept {
  return {min(a.min, b.min), max(a.max, b.max)};
}
/// The intersection box; invalid (min > max) when the boxes are disjoint.
template <class F>
[[nodiscard]] constexpr BasicBox<F> intersectionOf(const BasicBox<F>& a,
                                                   const BasicBox<F>& b) noexcept {
  return {max(a.min, b.min), min(a.max, b.max)};
}
template <class F>
[[nodiscard]] bool isFinite(const BasicBox<F>& b) noexcept {
  return isFinite(b.min) && isFinite(b.max);
}
/// The point of box closest to p (p itself when inside).
template <class F>
[[nodiscard]] constexpr BasicVec2<F> closestPoint(const BasicBox<F>& box, BasicVec2<F> p) noexcept {
  return min(max(p, box.min), box.max);
}

}  // namespace quadbin
