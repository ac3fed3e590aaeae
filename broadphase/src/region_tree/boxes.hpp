#pragma once
// Boxes as the region trees store and move them, and the owner-point rule
// on one axis (region_tree/tree.hpp explains the rule).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <quadbin/geometry.hpp>
#include <vector>

namespace quadbin::detail {

/// Boxes as four float arrays plus the proxy id of each (structure of
/// arrays: the pair loops stream them).
struct BoxArrays {
  std::vector<float> minX, minY, maxX, maxY;
  std::vector<std::uint32_t> id;

  [[nodiscard]] std::uint32_t size() const noexcept {
    return static_cast<std::uint32_t>(id.size());
  }
  void clear() noexcept {
    minX.clear();
    minY.clear();
    maxX.clear();
    maxY.clear();
    id.clear();
  }
  void push(float x0, float y0, float x1, float y1, std::uint32_t proxy) {
    minX.push_back(x0);
    minY.push_back(y0);
    maxX.push_back(x1);
    maxY.push_back(y1);
    id.push_back(proxy);
  }
  void resize(std::uint32_t n) {
    minX.resize(n);
    minY.resize(n);
    maxX.resize(n);
    maxY.resize(n);
    id.resize(n);
  }
  void pushFrom(const BoxArrays& from, std::uint32_t slot) {
    push(from.minX[slot], from.minY[slot], from.maxX[slot], from.maxY[slot], from.id[slot]);
  }
  [[nodiscard]] AABB box(std::uint32_t slot) const noexcept {
    return {{minX[slot], minY[slot]}, {maxX[slot], maxY[slot]}};
  }
  [[nodiscard]] std::size_t memoryBytes() const noexcept {
    return (minX.capacity() + minY.capacity() + maxX.capacity() + maxY.capacity()) * sizeof(float) +
           id.capacity() * sizeof(std::uint32_t);
  }
};

/// One box on its way down the tree: its coordinates travel with it, so
/// each level streams through memory instead of gathering by index.
struct Item {
  float x0, y0, x1, y1;
  std::uint32_t id;
};

/// The owner points of a box on one axis are [lo, hi), or {lo} when lo == hi.
/// It has one below `cut`:
[[nodiscard]] constexpr bool reachesBelow(float lo, float cut) noexcept { return lo < cut; }
/// ... and one at or above `cut`:
[[nodiscard]] constexpr bool reachesFrom(float lo, float hi, float cut) noexcept {
  return cut < hi || cut <= lo;
}

/// Sorts and deduplicates out[start, end): the answer of a query that may
/// see a box in several leaves (a deterministic order, each id once).
inline void sortUniqueFrom(std::vector<std::uint32_t>& out, std::size_t start) {
  const auto first = out.begin() + static_cast<std::ptrdiff_t>(start);
  std::sort(first, out.end());
  out.erase(std::unique(first, out.end()), out.end());
}

/// One step of a ray walk: a node and the part [t0, t1] of the ray that may
/// lie in it.
struct RaySpan {
  std::uint32_t node = 0;
  float t0 = 0.0f;
  float t1 = 0.0f;
};
}  // namespace quadbin::detail
