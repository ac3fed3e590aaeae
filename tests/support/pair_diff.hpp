#pragma once
// A readable difference between two sorted pair lists, for test failure
// messages: counts, and the first missing and first extra pair.
#include <algorithm>
#include <iterator>
#include <quadbin/broadphase/broadphase.hpp>
#include <string>
#include <vector>

namespace quadbin::test {

inline std::string describePairDifference(const std::vector<Pair>& got,
                                          const std::vector<Pair>& want) {
  std::vector<Pair> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::string s = std::to_string(got.size()) + " pairs, want " + std::to_string(want.size()) +
                  ": " + std::to_string(missing.size()) + " missing, " +
                  std::to_string(extra.size()) + " extra";
  if (!missing.empty())
    s += "; first missing (" + std::to_string(missing[0].a) + ", " + std::to_string(missing[0].b) +
         ")";
  if (!extra.empty())
    s += "; first extra (" + std::to_string(extra[0].a) + ", " + std::to_string(extra[0].b) + ")";
  return s;
}

}  // namespace quadbin::test
