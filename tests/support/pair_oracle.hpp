#pragma once
// The brute-force pair oracle every test compares broad phases against:
// all n(n-1)/2 pairs of boxes tested with overlaps(), nothing cleverer, so
// it is right by inspection. O(n^2): for a few thousand boxes at most in a
// Debug build; sweepPairs() gives the same set fast enough for 10,000 boxes
// every frame (Oracle.BruteForceMatchesTheSweep checks that they agree).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <quadbin/broadphase/broadphase.hpp>
#include <vector>

namespace quadbin::test {

/// Every pair (i, j), i < j, of indices into `boxes` whose boxes overlap
/// (geometry's strict overlaps(), which any box type of geometry has),
/// sorted; into `out`, cleared first, so a loop can reuse its capacity.
/// `boxes` is any indexable range of boxes (std::vector, std::span).
template <class Boxes>
void bruteForcePairs(const Boxes& boxes, std::vector<Pair>& out) {
  out.clear();
  const auto n = static_cast<std::uint32_t>(boxes.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = i + 1; j < n; ++j) {
      if (overlaps(boxes[i], boxes[j])) out.push_back({i, j});
    }
  }
}

template <class Boxes>
std::vector<Pair> bruteForcePairs(const Boxes& boxes) {
  std::vector<Pair> out;
  bruteForcePairs(boxes, out);
  return out;
}

/// The same set as bruteForcePairs(), by a sweep on x: sort by min.x, and
/// test each box only against those that start before it ends.
template <class Boxes>
std::vector<Pair> sweepPairs(const Boxes& boxes) {
  std::vector<std::uint32_t> order(boxes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return boxes[a].min.x < boxes[b].min.x || (boxes[a].min.x == boxes[b].min.x && a < b);
  });
  std::vector<Pair> out;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto& a = boxes[order[k]];
    for (std::size_t m = k + 1; m < order.size(); ++m) {
      const auto& b = boxes[order[m]];
      if (!(b.min.x < a.max.x)) break;
      if (overlaps(a, b))
        out.push_back({std::min(order[k], order[m]), std::max(order[k], order[m])});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace quadbin::test
