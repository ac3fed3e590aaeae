#pragma once
/// \file
/// DynamicAabbTree: a binary bounding-volume hierarchy in the style of
/// Box2D's b2DynamicTree and Bullet's btDbvt, one leaf per proxy.
///
/// Each proxy has an enlarged ("fat") box; the internal nodes bound the fat
/// boxes of their leaves, and the leaves themselves carry the tight box. A
/// proxy whose new box is still inside its fat box costs one containment
/// test per frame; one that leaves it is removed and re-inserted, walking
/// down from the root to the cheapest sibling by the surface-area (in 2D:
/// perimeter) heuristic, and the path back to the root is kept balanced by
/// AVL rotations, so the height stays O(log n) even for thousands of
/// identical boxes. When many proxies move, appear or disappear in one frame
/// (and on the first frame) the whole tree is rebuilt top-down instead
/// (median splits of the centres on the wider axis), which is cheaper than
/// that many re-insertions and gives a better tree. findPairs descends the
/// tree against itself, each pair of subtrees once, pruning on strict box
/// overlap; two leaves meet only if their tight boxes overlap strictly, so
/// the fat boxes never leak into the result.
///
/// When to pick it: unbounded or very uneven worlds, widely varying box
/// sizes, many queries and ray casts, or scenes where most bodies rest.
///
/// Options:
/// - margin: the fat box is the tight box grown on each side by
///   margin * (larger side of the box) + absoluteMargin. Default 0.25: a
///   quarter of the box size, scale-free. Larger: fewer re-insertions and
///   rebuilds, more subtree pairs to look at.
/// - absoluteMargin: added on every side (default 0). Give it a value in
///   world units when many bodies have zero-size boxes and move.
/// - rebuildFraction: when the proxies that left their fat box, appeared or
///   disappeared exceed this fraction of the count, the tree is rebuilt
///   instead of updated one leaf at a time (default 0.1; a rebuild costs
///   about as much as re-inserting a tenth of the proxies). 1 means
///   re-insert one by one unless more proxies changed than remain.

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <vector>

namespace quadbin {

class DynamicAabbTree final : public BroadPhase {
 public:
  /// Throws quadbin::Error when an option is negative, not finite, or
  /// rebuildFraction is not in [0, 1].
  explicit DynamicAabbTree(const DynamicAabbTreeOptions& options = {});
  ~DynamicAabbTree() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override {
    return BroadPhaseType::DynamicAabbTree;
  }
  void update(std::span<const AABB> boxes) override;
  /// Pairs in the order of a depth-first descent of the tree against itself.
  void findPairs(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  /// Walks only the nodes whose box the ray crosses; the leaves hold the
  /// tight boxes, so the result is the exact hit set.
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One treeBox per node in use, in pool order: internal nodes' boxes and
  /// the leaves' fat boxes, each with its depth (root 0).
  void draw(BroadPhaseDraw& out) const override;

  /// Height of the tree: 0 for a single leaf, -1 when empty.
  [[nodiscard]] int height() const noexcept;
  /// The fat box the tree holds for a proxy.
  [[nodiscard]] AABB fatBox(std::uint32_t proxy) const noexcept;
  /// Checks every invariant (links, heights, balance, boxes containing their
  /// children, fat boxes containing the tight ones, free list). For tests:
  /// O(n).
  [[nodiscard]] bool isValid() const;
  /// Full top-down rebuilds and single re-insertions since construction.
  [[nodiscard]] std::uint64_t rebuilds() const noexcept;
  [[nodiscard]] std::uint64_t reinsertions() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
