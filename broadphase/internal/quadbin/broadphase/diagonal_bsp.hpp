#pragma once
/// \file
/// DiagonalBsp: a binary space partition by diagonal cuts, rebuilt every frame. The
/// root rectangle is cut along its diagonal into two right triangles; each
/// triangle is cut from the vertex opposite its longest side to that side's
/// midpoint (from the right angle to the hypotenuse for a right triangle),
/// recursively. Which side of a cut a box reaches is a 2D cross product
/// with its extreme corner on each side. A box goes into every triangle it
/// reaches; a pair is reported once, by the triangle its owner point (the
/// minimum corner of the boxes' intersection) descends to, with points
/// exactly on a cut going to the left (cross product >= 0) side. Boxes
/// outside setBounds() go on an outside list.
///
/// Pick it to compare the classic partitions, or for scenes whose density varies
/// along diagonals; LeafQuadtree is usually faster. Costs: twice the depth
/// of a quadtree for the same leaf size, a cross product per box per level,
/// and an owner check that walks up the cuts for each overlapping pair.
/// Cuts are kept and tested in double, so every finite box is placed
/// exactly, up to the largest float.

#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>

namespace quadbin {

class DiagonalBsp final : public BroadPhase {
 public:
  /// Throws quadbin::Error for an invalid option.
  explicit DiagonalBsp(const DiagonalBspOptions& options = {});
  ~DiagonalBsp() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override {
    return BroadPhaseType::DiagonalBsp;
  }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  /// Proxies in ascending order.
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  /// The proxies whose box the ray hits, in ascending order; only the
  /// triangles the ray crosses are visited.
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One cell (or region) per leaf, with the boxes it holds.
  void draw(BroadPhaseDraw& out) const override;
  /// Built and searched in parallel on the task system (see region trees in
  /// docs/concurrency.md); the same tree and pairs for any thread count.
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  [[nodiscard]] const DiagonalBspOptions& options() const noexcept;
  /// The tree of the last update.
  [[nodiscard]] RegionTreeStats stats() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
