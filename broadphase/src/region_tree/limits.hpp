#pragma once
// The options every region tree shares, validated, and its memory budgets.

#include <cmath>
#include <cstdint>
#include <quadbin/error.hpp>
#include <string>

namespace quadbin::detail {

/// The budgets of a tree of n boxes (see "Bounded work" above).
constexpr std::uint32_t kEntriesPerBox = 8;
constexpr std::uint32_t kNodesPerBox = 8;

/// Limits every region tree shares, already validated.
struct TreeLimits {
  std::uint32_t threshold = 16;
  std::uint32_t maxDepth = 8;
  /// Children of one split may hold at most this many times the parent's
  /// boxes (already scaled to the policy's number of children).
  float growthPerSplit = 2.0f;
};

/// Validates the options every region tree shares and scales the growth
/// limit, given for a four-way split, to a split into `children` parts
/// (two binary cuts are one quad split, so a binary cut gets its square
/// root; a 3x3 split is log4(9) quad splits).
[[nodiscard]] inline TreeLimits makeLimits(const char* optionsName, std::uint32_t threshold,
                                           std::uint32_t maxDepth, std::uint32_t depthCap,
                                           float maxSplitGrowth, std::uint32_t children) {
  const std::string name(optionsName);
  if (threshold < 1) throw Error(name + ".threshold = 0: must be at least 1");
  if (maxDepth > depthCap) {
    throw Error(name + ".maxDepth = " + std::to_string(maxDepth) + ": must be at most " +
                std::to_string(depthCap));
  }
  // Above 4 the limit means nothing: a box reaches at most all four
  // children of a quad split (the budgets bound memory whatever it is).
  if (!(maxSplitGrowth >= 1.0f && maxSplitGrowth <= 4.0f)) {
    throw Error(name + ".maxSplitGrowth = " + std::to_string(maxSplitGrowth) +
                ": must be in [1, 4]");
  }
  TreeLimits limits;
  limits.threshold = threshold;
  limits.maxDepth = maxDepth;
  limits.growthPerSplit =
      static_cast<float>(std::pow(static_cast<double>(maxSplitGrowth),
                                  std::log(static_cast<double>(children)) / std::log(4.0)));
  return limits;
}
}  // namespace quadbin::detail
