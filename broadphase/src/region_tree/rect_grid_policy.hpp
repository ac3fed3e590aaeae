#pragma once
// The cut policy of the rectangular region trees (leaf quadtree,
// dynamic-centre quadtree, nona-tree): a cell cut by kSide - 1 cuts on each
// axis, the cuts chosen by a Cutter.

#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/geometry.hpp>
#include <span>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "boxes.hpp"

namespace quadbin::detail {

// Rectangular grids: a cell cut into kSide x kSide children by kSide - 1 cuts
// on each axis (quadtree: 2, nona-tree: 3). Cells are half-open
// [x0, x1) x [y0, y1), so a point on a cut belongs to the cell above it.

struct RectShape {
  float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
  // Ascending cuts, x0 <= cut <= x1; set when the cell is split.
  std::array<float, 2> cutX{};
  std::array<float, 2> cutY{};
};

/// Policy of the rectangular trees; Cutter::chooseCuts picks the cuts and
/// Cutter::kSide says how many children per axis.
template <class Cutter>
class RectGridPolicy {
 public:
  using Shape = RectShape;
  static constexpr std::uint32_t kSide = Cutter::kSide;
  static_assert(kSide == 2 || kSide == 3);
  static constexpr std::uint32_t kMaxChildren = kSide * kSide;
  static constexpr std::uint32_t kDepthCap = 32;
  static constexpr bool kHalfOpenRoot = true;
  static constexpr bool kOwnerByDescent = false;

  explicit RectGridPolicy(Cutter cutter) : cutter_(std::move(cutter)) {}

  [[nodiscard]] Shape root(const AABB& r) const noexcept {
    Shape s;
    s.x0 = r.min.x;
    s.y0 = r.min.y;
    s.x1 = r.max.x;
    s.y1 = r.max.y;
    return s;
  }

  bool split(Shape& s, std::uint32_t depth, std::uint32_t node, std::span<const Item> items,
             Shape* children, std::uint32_t& count) const {
    if (!cutter_.chooseCuts(s, depth, node, items)) return false;
    for (std::uint32_t r = 0; r < kSide; ++r) {
      for (std::uint32_t c = 0; c < kSide; ++c) {
        Shape& child = children[r * kSide + c];
        child = Shape{};
        child.x0 = c == 0 ? s.x0 : s.cutX[c - 1];
        child.x1 = c + 1 == kSide ? s.x1 : s.cutX[c];
        child.y0 = r == 0 ? s.y0 : s.cutY[r - 1];
        child.y1 = r + 1 == kSide ? s.y1 : s.cutY[r];
      }
    }
    count = kMaxChildren;
    return true;
  }

  void insertMasks(const Shape& s, const Item* items, std::uint32_t count,
                   std::uint16_t* masks) const noexcept {
#if defined(__SSE2__)
    // Four comparisons per cut at once on (x0, y0, x1, y1); their sign bits
    // index a table of masks. The scalar insertMask is the reference: the
    // table is built from the same rule.
    __m128 cuts[kSide - 1];
    for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
      cuts[k] = _mm_setr_ps(s.cutX[k], s.cutY[k], s.cutX[k], s.cutY[k]);
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      float corners[4];
      std::memcpy(corners, &items[i], sizeof corners);
      const __m128 box = _mm_loadu_ps(corners);
      std::uint32_t index = 0;
      for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
        const auto below = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmplt_ps(box, cuts[k])));
        const auto above = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmpgt_ps(box, cuts[k])));
        index |= ((below & 3u) | (above & 12u)) << (4 * k);
      }
      masks[i] = kMaskTable[index];
      assert(masks[i] == insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
#else
    for (std::uint32_t i = 0; i < count; ++i) {
      masks[i] = static_cast<std::uint16_t>(
          insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
#endif
  }

  // Column k is reached if the box has owner points below its upper cut and
  // at or above its lower cut; rows alike. Branch-free: the bits of the
  // columns, repeated for each reached row by one multiplication.
  [[nodiscard]] static std::uint32_t insertMask(const Shape& s, float x0, float y0, float x1,
                                                float y1) noexcept {
    std::uint32_t columns = 0, rows = 0;
    for (std::uint32_t k = 0; k < kSide; ++k) {
      const bool belowX = k + 1 == kSide || reachesBelow(x0, s.cutX[k]);
      const bool fromX = k == 0 || ((s.cutX[k - 1] < x1) | (s.cutX[k - 1] <= x0));
      const bool belowY = k + 1 == kSide || reachesBelow(y0, s.cutY[k]);
      const bool fromY = k == 0 || ((s.cutY[k - 1] < y1) | (s.cutY[k - 1] <= y0));
      columns |= static_cast<std::uint32_t>(belowX & fromX) << k;
      rows |= static_cast<std::uint32_t>(belowY & fromY) << (k * kSide);
    }
    const std::uint32_t mask = columns * rows;
    return mask != 0 ? mask : 1u;  // NaN: overlaps nothing, any child will do
  }

  // Closed: a box touching a cut may meet boxes on both sides of it.
  [[nodiscard]] std::uint32_t queryMask(const Shape& s, const AABB& box) const noexcept {
    std::uint32_t c0 = 0, c1 = 0, r0 = 0, r1 = 0;
    for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
      c0 += s.cutX[k] < box.min.x;
      c1 += s.cutX[k] <= box.max.x;
      r0 += s.cutY[k] < box.min.y;
      r1 += s.cutY[k] <= box.max.y;
    }
    if (c1 < c0 || r1 < r0) return 0;  // an inverted (invalid) query box
    const std::uint32_t columns = ((1u << (c1 - c0 + 1)) - 1u) << c0;
    std::uint32_t mask = 0;
    for (std::uint32_t r = r0; r <= r1; ++r) mask |= columns << (r * kSide);
    return mask;
  }

  [[nodiscard]] std::uint32_t pointChild(const Shape& s, float x, float y) const noexcept {
    std::uint32_t c = 0, r = 0;
    for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
      c += s.cutX[k] <= x;
      r += s.cutY[k] <= y;
    }
    return r * kSide + c;
  }

  [[nodiscard]] static bool leafOwns(const Shape& s, float x, float y) noexcept {
    return (s.x0 <= x) & (x < s.x1) & (s.y0 <= y) & (y < s.y1);
  }

  static void drawLeaf(const Shape& s, std::uint32_t depth, std::uint32_t count,
                       BroadPhaseDraw& out) {
    out.cell({{s.x0, s.y0}, {s.x1, s.y1}}, depth, count);
  }

  // Children whose cell (grown by a rounding margin) the ray crosses. Every
  // box in the tree lies inside the closed root, so the bounded cells
  // suffice.
  std::uint32_t rayChildren(const Shape& s, const Shape* children, std::uint32_t count,
                            const Ray& ray, float t0, float t1, RaySpan* out) const {
    const std::uint32_t mask = queryMask(s, ray.bounds());
    std::uint32_t n = 0;
    for (std::uint32_t c = 0; c < count; ++c) {
      if (!(mask & (1u << c))) continue;
      const Shape& ch = children[c];
      const float margin =
          1e-5f * (std::abs(ch.x0) + std::abs(ch.x1) + std::abs(ch.y0) + std::abs(ch.y1)) +
          std::numeric_limits<float>::min();
      const AABB cell{{ch.x0 - margin, ch.y0 - margin}, {ch.x1 + margin, ch.y1 + margin}};
      if (raycast(ray, cell)) out[n++] = RaySpan{c, t0, t1};
    }
    return n;
  }

 private:
  // Masks by comparison bits: for cut k, bits 4k and 4k+1 say x0 < cutX[k]
  // and y0 < cutY[k]; bits 4k+2 and 4k+3 say cutX[k] < x1 and cutY[k] < y1.
  // (cut <= lo is !(lo < cut): the same for every number.)
  static constexpr auto kMaskTable = [] {
    std::array<std::uint16_t, (1u << (4 * (kSide - 1)))> table{};
    for (std::uint32_t index = 0; index < table.size(); ++index) {
      const auto bit = [index](std::uint32_t at) { return ((index >> at) & 1u) != 0; };
      std::uint32_t columns = 0, rows = 0;
      for (std::uint32_t j = 0; j < kSide; ++j) {
        for (std::uint32_t axis = 0; axis < 2; ++axis) {
          const bool below = j + 1 == kSide || bit(4 * j + axis);
          const bool from = j == 0 || bit(4 * (j - 1) + 2 + axis) || !bit(4 * (j - 1) + axis);
          if (!(below && from)) continue;
          if (axis == 0) columns |= 1u << j;
          if (axis == 1) rows |= 1u << (j * kSide);
        }
      }
      const std::uint32_t mask = columns * rows;
      table[index] = static_cast<std::uint16_t>(mask != 0 ? mask : 1u);
    }
    return table;
  }();

  Cutter cutter_;
};

/// A cut at `value`, kept inside [lo, hi] (rounding may push it out).
[[nodiscard]] constexpr float clampCut(float value, float lo, float hi) noexcept {
  return value < lo ? lo : (value > hi ? hi : value);
}
}  // namespace quadbin::detail
