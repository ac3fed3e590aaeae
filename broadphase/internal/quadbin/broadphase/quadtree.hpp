#pragma once
/// \file
/// QuadtreeBroadPhase: the loose, incremental quadtree as a broad phase ("quadtree").
///
/// A box lives in the smallest node that fully contains it; boxes that
/// straddle a split line stay in the parent. A leaf holding more than
/// `threshold` boxes splits (down to `maxDepth`). Between frames only the
/// boxes that left their node (or now fit a child) move, and a node whose
/// subtree holds no more than `threshold` boxes takes its children's boxes
/// back and frees them.
///
///     +-------+-------+      root: the big box and the ones on its split lines
///     |   .   |  .    |      each quadrant: boxes wholly inside it
///     +---+---+   .   |
///     | . | . |       |
///     +---+---+-------+
///
/// Pairs: a box is tested against the boxes of its own node and of the
/// descendant nodes its box overlaps, so boxes piled on the root's split
/// lines cost a walk along the line, not a scan of the whole tree.
/// `looseness` > 1 grows every node's box (a loose quadtree) so that small
/// boxes on split lines sink into a child; pairs are then found by a query
/// per box, since loose siblings overlap.
///
/// Boxes outside the root are kept in an outside list, paired with
/// everything, never lost; the root is regrown when too many are outside.
/// Pick it for a few hundred to a few thousand bodies, or when bodies move
/// little between frames.
///
/// Parallel (setTaskSystem): a full build (the first frame, a new root,
/// `incremental = false`) sorts the boxes top-down into quadrants by chunks
/// and builds small subtrees as independent tasks, giving the tree that
/// one-by-one insertion would give. The scan for boxes that changed and must move
/// runs by chunks of proxies on the unchanged tree; the moves themselves
/// are applied serially in index order (they split and merge nodes). Pairs
/// are searched by tasks over the nodes' values in depth-first order, each
/// pair reported by the task of its shallower value, into its own buffer;
/// the buffers are merged in that order: the same pairs, in the same order,
/// for any thread count.

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <vector>

namespace quadbin {

class QuadtreeBroadPhase final : public BroadPhase {
 public:
  /// Throws quadbin::Error when an option is out of range.
  explicit QuadtreeBroadPhase(const QuadtreeOptions& options = {});
  ~QuadtreeBroadPhase() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::Quadtree; }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One cell per node in use (its own rectangle, not the loose one), with
  /// the boxes stored in that node itself.
  void draw(BroadPhaseDraw& out) const override;
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// Nodes in use (for tests and statistics).
  [[nodiscard]] std::uint32_t nodeCount() const noexcept;
  /// Boxes held in the outside list.
  [[nodiscard]] std::size_t outsideCount() const noexcept;
  /// Proxies that changed node in the last update.
  [[nodiscard]] std::uint32_t movedLastUpdate() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
