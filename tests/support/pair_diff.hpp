#pragma once
// The pair-set helper: a broad phase's pairs as a sorted list, and the
// difference between two sorted pair lists (for failure messages: counts,
// and the first missing and first extra pair). The oracle to compare
// against is support/pair_oracle.hpp.
#include <algorithm>
#include <iterator>
#include <quadbin/broadphase/broadphase.hpp>
#include <span>
#include <string>
#include <vector>

namespace quadbin::test {

/// `v` sorted (pairs, ids, anything ordered).
template <class T>
std::vector<T> sorted(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v;
}

/// `bp` updated with `boxes`, and the pairs it finds, in its own order.
inline std::vector<Pair> pairsOf(BroadPhase& bp, std::span<const AABB> boxes) {
  bp.update(boxes);
  std::vector<Pair> pairs;
  bp.findPairs(pairs);
  return pairs;
}

/// What two sorted pair lists do not share: in `want` but not `got`
/// (missing) and in `got` but not `want` (extra), each sorted.
struct PairDifference {
  std::vector<Pair> missing, extra;
};

inline PairDifference pairDifference(const std::vector<Pair>& got, const std::vector<Pair>& want) {
  PairDifference d;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(d.missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(d.extra));
  return d;
}

inline std::string describePairDifference(const std::vector<Pair>& got,
                                          const std::vector<Pair>& want) {
  const PairDifference d = pairDifference(got, want);
  const std::vector<Pair>&missing = d.missing, &extra = d.extra;
  std::string s = std::to_string(got.size()) + " pairs, want " + std::to_string(want.size()) +
                  ": " + std::to_string(missing.size()) + " missing, " +
                  std::to_string(extra.size()) + " extra";
  if (!missing.empty()) {
    s += "; first missing (" + std::to_string(missing[0].a) + ", " + std::to_string(missing[0].b) +
         ")";
  }
  if (!extra.empty()) {
    s += "; first extra (" + std::to_string(extra[0].a) + ", " + std::to_string(extra[0].b) + ")";
  }
  return s;
}

}  // namespace quadbin::test
