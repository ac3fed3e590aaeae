#pragma once
/// \file
/// LeafQuadtree: a quadtree that stores boxes in its leaves, rebuilt every
/// frame. A box is stored in every leaf its box reaches; a leaf with more than
/// `threshold` boxes splits at the middle of its cell into four, down to
/// `maxDepth`; pairs are found by brute force inside each leaf, and a pair
/// that several leaves share is reported only by the leaf holding the minimum
/// corner of the two boxes' intersection (no duplicates, no global sort).
/// Boxes reaching outside setBounds() go on an outside list (or, when there
/// are many, the root grows to cover them).
///
/// Pick it for a few hundred to tens of thousands of bodies spread over a
/// known world, when bodies move a lot (nothing is kept between frames).
/// Besides the BroadPhase interface it offers a per-frame pattern of its own:
/// clear(), insert(index, box) for each body, then findPairs() or
/// retrieve(box) (the tree is built on the first of those after an insert).

#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>

namespace quadbin {

class LeafQuadtree final : public BroadPhase {
 public:
  /// Throws quadbin::Error for an invalid option.
  explicit LeafQuadtree(const LeafQuadtreeOptions& options = {});
  ~LeafQuadtree() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override {
    return BroadPhaseType::LeafQuadtree;
  }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  /// Proxies in ascending order.
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  /// The proxies whose box the ray hits, in ascending order; only the cells
  /// the ray crosses are visited.
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One cell (or region) per leaf, with the boxes it holds.
  void draw(BroadPhaseDraw& out) const override;
  /// Built and searched in parallel on the task system (see region trees in
  /// docs/concurrency.md); the same tree and pairs for any thread count.
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// Direct use: clear() forgets every box; insert() stages one
  /// (indices must be distinct; they are what pairs and queries report).
  void clear() noexcept;
  void insert(std::uint32_t index, const AABB& box);
  /// Appends, in ascending order, every index stored in a leaf that `box`
  /// touches: the candidates that may collide with it (a superset of
  /// query()). Builds the tree if boxes were inserted since the last build.
  void retrieve(const AABB& box, std::vector<std::uint32_t>& out);

  [[nodiscard]] const LeafQuadtreeOptions& options() const noexcept;
  /// The tree of the last build.
  [[nodiscard]] RegionTreeStats stats() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
