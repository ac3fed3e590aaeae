#pragma once
/// \file
/// The broad phases' options, one struct per structure, and
/// BroadPhaseOptions, which holds them all: what makeBroadPhase and
/// WorldDef::broadPhaseOptions take. Each structure's header includes this
/// one, so its options come with it.

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>

namespace quadbin {

/// QuadtreeBroadPhase's (quadbin/broadphase/quadtree.hpp).
struct QuadtreeOptions {
  std::uint32_t threshold = 16;  ///< values a leaf holds before it splits (>= 1)
  std::uint32_t maxDepth = 8;    ///< root is depth 0 (<= 24)
  float looseness = 1.0f;        ///< node boxes grown by this factor, in [1, 4]; 1: strict
  bool incremental = true;       ///< false: clear and re-insert everything each frame
};

/// LeafQuadtree's (quadbin/broadphase/leaf_quadtree.hpp).
struct LeafQuadtreeOptions {
  /// A leaf holding more boxes than this splits (at least 1).
  std::uint32_t threshold = 16;
  /// Depth of the deepest leaf; the root is depth 0 (at most 32).
  std::uint32_t maxDepth = 8;
  /// A split is made only if the four children together would hold at most
  /// this many times the parent's boxes (in [1, 4]; 4 = no limit per split):
  /// stops splitting cells that are already smaller than the boxes in them.
  /// Whatever it is, a tree of n boxes holds at most 8n leaf entries and
  /// 8n + 1 nodes (docs/broadphase-limits.md).
  float maxSplitGrowth = 2.0f;
};

/// DynamicCentreQuadtree's (quadbin/broadphase/dynamic_centre_quadtree.hpp).
struct DynamicCentreQuadtreeOptions {
  /// A leaf holding more boxes than this splits (at least 1).
  std::uint32_t threshold = 16;
  /// Depth of the deepest leaf; the root is depth 0 (at most 32).
  std::uint32_t maxDepth = 8;
  /// 0: split at the mean of all the node's centres; k > 0: at the mean of
  /// k centres drawn (with replacement) from the node.
  std::uint32_t sampleSize = 0;
  /// A split is made only if the four children together would hold at most
  /// this many times the parent's boxes (in [1, 4]; 4 = no limit per split).
  /// Whatever it is, a tree of n boxes holds at most 8n leaf entries and
  /// 8n + 1 nodes (docs/broadphase-limits.md).
  float maxSplitGrowth = 2.0f;
};

/// NonaTree's (quadbin/broadphase/nona_tree.hpp).
struct NonaTreeOptions {
  /// A leaf holding more boxes than this splits (at least 1).
  std::uint32_t threshold = 16;
  /// Depth of the deepest leaf; the root is depth 0 (at most 32). Depth 8
  /// cuts each side into 6,561.
  std::uint32_t maxDepth = 8;
  /// Growth allowed for a four-way split (in [1, 4]); a nine-way split cuts
  /// as finely as log4(9) = 1.6 quadtree levels, so it may grow by
  /// maxSplitGrowth^1.6 (3 for the default). Whatever it is, a tree of n
  /// boxes holds at most 8n leaf entries and 8n + 1 nodes
  /// (docs/broadphase-limits.md).
  float maxSplitGrowth = 2.0f;
};

/// DiagonalBsp's (quadbin/broadphase/diagonal_bsp.hpp).
struct DiagonalBspOptions {
  /// A leaf holding more boxes than this splits (at least 1).
  std::uint32_t threshold = 16;
  /// Depth of the deepest leaf; the root rectangle is depth 0 and its two
  /// triangles depth 1 (at most 64). 16 binary cuts make leaves of the size
  /// of a depth-8 quadtree's.
  std::uint32_t maxDepth = 16;
  /// Growth allowed for a four-way split (in [1, 4]); one binary cut may
  /// grow by its square root (two cuts per quadtree level). Whatever it is,
  /// a tree of n boxes holds at most 8n leaf entries and 8n + 1 nodes
  /// (docs/broadphase-limits.md).
  float maxSplitGrowth = 2.0f;
};

/// BinGrid's (quadbin/broadphase/bin_grid.hpp).
struct BinGridOptions {
  /// Side of the finest cells. 0 = automatic: `cellSizeFactor` times the
  /// median box extent (max of width and height) of the frame.
  float cellSize = 0.0f;
  float cellSizeFactor = 3.0f;
  /// Put boxes larger than the finest cells on coarser levels (cells
  /// doubling in size). With false, one level whose cells fit the largest
  /// box (a plain uniform grid).
  bool multiLevel = true;
};

/// SweepAndPrune's (quadbin/broadphase/sweep_and_prune.hpp).
struct SweepAndPruneOptions {
  enum class Axis : std::uint8_t { Auto, X, Y };
  Axis axis = Axis::Auto;
  std::uint32_t maxShiftsPerProxy = 32;
  float fullSortFraction = 0.25f;
};

/// DynamicAabbTree's (quadbin/broadphase/dynamic_aabb_tree.hpp).
struct DynamicAabbTreeOptions {
  float margin = 0.25f;
  float absoluteMargin = 0.0f;
  float rebuildFraction = 0.1f;
};

/// AutoBroadPhase's (quadbin/broadphase/auto.hpp).
struct AutoOptions {
  std::uint32_t smallBelow = 32;      ///< use `small` below this many boxes
  std::uint32_t mediumBelow = 20000;  ///< use `medium` below this many, `large` above
  BroadPhaseType small = BroadPhaseType::BruteForce;
  BroadPhaseType medium = BroadPhaseType::SweepAndPrune;
  BroadPhaseType large = BroadPhaseType::BinGrid;
  float hysteresis = 0.2f;  ///< fraction of a threshold to go below before switching down
};

/// Every structure's options: makeBroadPhase(type, options) reads the
/// member of `type` (Auto reads autoSelect, and the others for the
/// structures it picks); the rest are ignored.
struct BroadPhaseOptions {
  QuadtreeOptions quadtree;
  LeafQuadtreeOptions leafQuadtree;
  DynamicCentreQuadtreeOptions dynamicCentreQuadtree;
  NonaTreeOptions nonaTree;
  DiagonalBspOptions diagonalBsp;
  BinGridOptions binGrid;
  SweepAndPruneOptions sweepAndPrune;
  DynamicAabbTreeOptions dynamicAabbTree;
  AutoOptions autoSelect;
};

/// A new, empty structure of the given type with its options; throws
/// quadbin::Error (naming the field) for options out of range.
[[nodiscard]] std::unique_ptr<BroadPhase> makeBroadPhase(BroadPhaseType type,
                                                         const BroadPhaseOptions& options);

}  // namespace quadbin
