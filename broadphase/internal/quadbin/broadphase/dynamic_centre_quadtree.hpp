#pragma once
/// \file
/// DynamicCentreQuadtree: a "quadtree with a dynamic centre",
/// rebuilt every frame. Like LeafQuadtree, but a node splits into four at the
/// mean of its bodies' centres instead of the middle of its cell, so crowded
/// regions are cut where the bodies are and leaves hold similar numbers of
/// them. `sampleSize` = k > 0 takes the mean of k bodies drawn by a small
/// xorshift generator seeded from the node (a few randomly chosen bodies;
/// reproducible: the same input gives the same tree). A node whose
/// centres all coincide is not split. Pairs are reported once by the owner
/// rule; boxes outside setBounds() go on an outside list.
///
/// Pick it for clustered scenes with a few hundred to tens of thousands of
/// bodies. Costs: one extra pass over a node's bodies per split (or k
/// samples), and cells whose shape depends on the bodies.

#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>

namespace quadbin {

class DynamicCentreQuadtree final : public BroadPhase {
 public:
  /// Throws quadbin::Error for an invalid option.
  explicit DynamicCentreQuadtree(const DynamicCentreQuadtreeOptions& options = {});
  ~DynamicCentreQuadtree() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override {
    return BroadPhaseType::DynamicCentreQuadtree;
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

  [[nodiscard]] const DynamicCentreQuadtreeOptions& options() const noexcept;
  /// The tree of the last update.
  [[nodiscard]] RegionTreeStats stats() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
