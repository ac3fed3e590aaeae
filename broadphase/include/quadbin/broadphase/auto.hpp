#pragma once
/// \file
/// AutoBroadPhase ("auto"): picks a structure from the number of boxes and
/// the spread of their sizes each frame, and delegates to it.
///
/// The starting point is the paper's recommendation: brute force below
/// about a hundred bodies, a quadtree up to about a thousand, the bin grid
/// above. Boxes of very different sizes (the 90th percentile of the extent
/// more than `sizeSpread` times the 10th) go to the quadtree at any size,
/// which handles them without coarse levels. The thresholds are set from
/// our own measurements (docs/perf.md). A switch happens only when the
/// count leaves the current band by `hysteresis`, so a world hovering at a
/// threshold does not rebuild every frame.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>

namespace quadbin {

struct AutoOptions {
  std::uint32_t bruteForceBelow = 100;
  std::uint32_t quadtreeBelow = 1000;
  float sizeSpread = 8.0f;
  float hysteresis = 0.2f;  ///< fraction of a threshold to cross before switching back
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
  /// Passed on to the structure in use, and to each one it switches to.
  void setTaskSystem(std::shared_ptr<TaskSystem> tasks) override;
  /// True: the structures it picks for more than a few bodies are parallel.
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// The structure in use since the last update.
  [[nodiscard]] BroadPhaseType active() const noexcept { return active_->type(); }
  /// What the rule picks for these boxes, given the structure in use now.
  [[nodiscard]] BroadPhaseType choose(std::span<const AABB> boxes) const;

 private:
  AutoOptions options_;
  std::unique_ptr<BroadPhase> active_;
  AABB bounds_{};
  bool haveBounds_ = false;
};

}  // namespace quadbin
