#pragma once
// Internal to the engine: room in an array that grows one call at a time.
// reserve(size() + k) sets the capacity exactly, so a loop of one-body
// calls (createBody, destroyBody, createBodies of a few) would move the
// whole array every time, quadratic in the bodies; these grow it
// geometrically instead, as push_back does.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace quadbin {

/// Capacity for at least n elements, at least doubling when it grows.
template <class T>
void reserveGrowing(std::vector<T>& v, std::size_t n) {
  if (n > v.capacity()) v.reserve(std::max({n, 2 * v.capacity(), std::size_t{16}}));
}

}  // namespace quadbin
