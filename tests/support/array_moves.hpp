#pragma once
// Counting how often an array moved (was reallocated) over a loop of
// calls, by its address, not by time: a loop of n one-element growths that
// grow geometrically moves it about log2(n) times, one that reserves
// exactly one more moves it n times.

#include <cstddef>
#include <span>
#include <vector>

namespace quadbin::test {

/// Records `a`'s address in `seen` when it differs from the last one.
template <class T>
void countMove(std::vector<const T*>& seen, std::span<const T> a) {
  if (seen.empty() || seen.back() != a.data()) seen.push_back(a.data());
}

/// The most moves allowed over 20,000 growths (log2(20,000) is 15).
inline constexpr std::size_t kGrowths = 20'000;
inline constexpr std::size_t kMostMoves = 40;

}  // namespace quadbin::test
