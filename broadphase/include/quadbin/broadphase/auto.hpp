#pragma once
/// \file
/// AutoBroadPhase ("auto", the World's default): picks a structure from the
/// number of boxes each frame and delegates to it.
///
/// The paper's rule (brute force below ~100 bodies, quadtree to ~1,000,
/// grid above) was the starting point; the defaults come from our own
/// Workload A measurements (docs/perf.md): brute force only below about 32
/// boxes (it is as fast as anything there and has nothing to maintain),
/// sweep and prune up to 20,000 (fastest from ~30 bodies in the world-step
/// sweep, and at 10,000 on every scene of Workload A, mixed sizes
/// included), and the bin grid above (it overtakes sweep and prune at about
/// 12,000 bodies in the uniform world-step sweep, later on mixed sizes, wins
/// at 100,000 on every scene and is over 2x the plain grid at 1,000,000). A switch back happens
/// only `hysteresis` below a threshold, so a world hovering at one does not
/// rebuild every frame.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>

namespace quadbin {

struct AutoOptions {
  std::uint32_t smallBelow = 32;      ///< use `small` below this many boxes
  std::uint32_t mediumBelow = 20000;  ///< use `medium` below this many, `large` above
  BroadPhaseType small = BroadPhaseType::BruteForce;
  BroadPhaseType medium = BroadPhaseType::SweepAndPrune;
  BroadPhaseType large = BroadPhaseType::BinGrid;
  float hysteresis = 0.2f;  ///< fraction of a threshold to go below before switching down
};

class AutoBroadPhase final : public BroadPhase {
 public:
  explicit AutoBroadPhase(const AutoOptions& options = {});

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::Auto; }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override { active_->findPairs(out); }
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override {
    active_->query(box, out);
  }
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override {
    active_->queryRay(ray, out);
  }
  [[nodiscard]] std::size_t size() const noexcept override { return active_->size(); }
  [[nodiscard]] std::size_t memoryBytes() const noexcept override { return active_->memoryBytes(); }
  /// What the structure in use draws.
  void draw(BroadPhaseDraw& out) const override { active_->draw(out); }
  /// Passed on to the structure in use, and to each one it switches to.
  void setTaskSystem(std::shared_ptr<TaskSystem> tasks) override;
  /// True: the structures it picks for more than a few bodies are parallel.
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// The structure in use since the last update.
  [[nodiscard]] BroadPhaseType active() const noexcept { return active_->type(); }
  /// What the rule picks for `count` boxes, given the structure in use now.
  [[nodiscard]] BroadPhaseType choose(std::size_t count) const noexcept;

 private:
  AutoOptions options_;
  std::unique_ptr<BroadPhase> active_;
  AABB bounds_{};
  bool haveBounds_ = false;
};

}  // namespace quadbin
