#pragma once
/// \file
/// NonaTree: a "nona-tree", rebuilt every frame. Like LeafQuadtree,
/// but a node splits into 3 x 3 children (each side cut in thirds), so the
/// tree is shallower for the same leaf size. Pairs are reported once by the
/// owner rule; boxes outside setBounds() go on an outside list.
///
/// Pick it where LeafQuadtree fits and the tree walk, not the leaves,
/// dominates (many small bodies). Costs: more children scanned per node,
/// and a box more often straddles one of the two cuts per axis.

#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>

namespace quadbin {

class NonaTree final : public BroadPhase {
 public:
  /// Throws quadbin::Error for an invalid option.
  explicit NonaTree(const NonaTreeOptions& options = {});
  ~NonaTree() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::NonaTree; }
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

  [[nodiscard]] const NonaTreeOptions& options() const noexcept;
  /// The tree of the last update.
  [[nodiscard]] RegionTreeStats stats() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
