#pragma once
/// \file
/// RegionTreeStats: the shape of the tree a per-frame region tree (LeafQuadtree,
/// DynamicCentreQuadtree, NonaTree, DiagonalBsp) built for its last frame.
/// For tests, tuning and the perf suite; nothing depends on it.

#include <cstdint>

namespace quadbin {

struct RegionTreeStats {
  std::uint32_t nodes = 0;        ///< nodes in the pool, leaves included
  std::uint32_t leaves = 0;       ///< regions that hold boxes (some may be empty)
  std::uint32_t depth = 0;        ///< depth of the deepest leaf (the root is 0)
  std::uint32_t leafEntries = 0;  ///< boxes over all leaves: a box in k leaves counts k times
  std::uint32_t largestLeaf = 0;  ///< boxes in the fullest leaf
  std::uint32_t outside = 0;      ///< boxes reaching outside the root, checked on their own list
};

}  // namespace quadbin
