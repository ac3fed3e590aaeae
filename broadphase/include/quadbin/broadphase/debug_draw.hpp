#pragma once
/// \file
/// BroadPhaseDraw: what a broad phase shows of its inside to a debug drawer
/// (Box2D's b2Draw, for the spatial structure rather than the bodies).
///
/// BroadPhase::draw(out) walks the structure as the last update (or
/// findPairs) left it and calls `out` once per cell, region, box or
/// interval. It is for viewers and tests (demo/, quadbin-demo): it is const,
/// allocates nothing and never runs in a world's step, but it visits every
/// node, so call it once per displayed frame, not per query.
///
/// What each structure reports:
/// - quadtree:          cell() per node in use; count = boxes stored in that
///                      node itself (straddlers stay in inner nodes)
/// - leaf-quadtree, dynamic-centre, nona-tree:
///                      cell() per leaf; count = boxes in the leaf (a box
///                      reaching several leaves counts in each)
/// - diagonal-bsp:      polygon() per leaf triangle (cell() for a root that
///                      was never cut); count as for the leaves above
/// - bin-grid:          cell() per non-empty cell; depth = level (0 finest);
///                      count = boxes in the cell
/// - dynamic-aabb-tree: treeBox() per node; internal nodes bound their
///                      subtree's fat boxes, leaves give the proxy's fat box
/// - sweep-and-prune:   interval() per proxy, in sweep order, on the axis it
///                      sorts on
/// - brute-force:       nothing (it has no structure)
/// - auto:              whatever the structure it picked reports

#include <cstdint>
#include <quadbin/geometry/aabb.hpp>
#include <quadbin/geometry/vec2.hpp>
#include <span>

namespace quadbin {

/// Receives a broad phase's structure. Every callback does nothing by
/// default: a drawer overrides the ones it shows.
class BroadPhaseDraw {
 public:
  BroadPhaseDraw() = default;
  BroadPhaseDraw(const BroadPhaseDraw&) = default;
  BroadPhaseDraw& operator=(const BroadPhaseDraw&) = default;
  BroadPhaseDraw(BroadPhaseDraw&&) = default;
  BroadPhaseDraw& operator=(BroadPhaseDraw&&) = default;
  virtual ~BroadPhaseDraw() = default;

  /// A rectangular cell of a space partition (tree node or grid cell) at
  /// `depth` (root 0; grid: level), holding `count` boxes.
  virtual void cell(const AABB& box, std::uint32_t depth, std::uint32_t count) {
    (void)box;
    (void)depth;
    (void)count;
  }
  /// A convex region of a space partition (BSP leaf), its corners in order.
  virtual void polygon(std::span<const Vec2> corners, std::uint32_t depth, std::uint32_t count) {
    (void)corners;
    (void)depth;
    (void)count;
  }
  /// A node of a bounding-volume tree at `depth` (root 0): an internal
  /// node's box, or a leaf's (fat) box.
  virtual void treeBox(const AABB& box, std::uint32_t depth, bool leaf) {
    (void)box;
    (void)depth;
    (void)leaf;
  }
  /// The extent [lo, hi] of one proxy on `axis` (0: x, 1: y), `rank`-th in
  /// the sorted order a sweep walks.
  virtual void interval(std::uint32_t axis, float lo, float hi, std::uint32_t rank) {
    (void)axis;
    (void)lo;
    (void)hi;
    (void)rank;
  }
};

}  // namespace quadbin
