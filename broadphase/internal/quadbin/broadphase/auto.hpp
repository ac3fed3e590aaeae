#pragma once
/// \file
/// AutoBroadPhase ("auto", the World's default): picks a structure from the
/// number of boxes each frame and delegates to it.
///
/// Below `smallBelow` boxes it uses `small` (brute force by default: as fast
/// as anything for a few boxes, with nothing to maintain), below
/// `mediumBelow` it uses `medium` (sweep and prune), and `large` (the bin
/// grid) above. docs/broadphases.md says how the defaults were chosen. A
/// switch back to a smaller structure happens only `hysteresis` below a
/// threshold, so a world hovering at one does not rebuild every frame.

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>

namespace quadbin {

class AutoBroadPhase final : public BroadPhase {
 public:
  /// Throws quadbin::Error when smallBelow > mediumBelow, a structure is
  /// Auto itself, or hysteresis is not in [0, 1).
  explicit AutoBroadPhase(const AutoOptions& options = {});
  /// options.autoSelect for the rule; the structures it picks are made
  /// with their own members of `options` (each checked here, once).
  explicit AutoBroadPhase(const BroadPhaseOptions& options);
  ~AutoBroadPhase() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::Auto; }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  void findPairsInto(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  /// The structure in use's bytes.
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// What the structure in use draws.
  void draw(BroadPhaseDraw& out) const override;
  /// Passed on to the structure in use, and to each one it switches to.
  void setTaskSystem(std::shared_ptr<TaskSystem> tasks) override;
  /// True: the structures it picks for more than a few bodies are parallel.
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// The structure in use since the last update.
  [[nodiscard]] BroadPhaseType active() const noexcept;
  /// What the rule picks for `count` boxes, given the structure in use now.
  [[nodiscard]] BroadPhaseType choose(std::size_t count) const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
