#pragma once
/// \file
/// BruteForce: every box against every other. O(n^2) per frame, no structure;
/// the oracle every other broad phase is tested against, and the fastest
/// choice below about a hundred bodies.

#include <memory>
#include <quadbin/broadphase/broadphase.hpp>

namespace quadbin {

class BruteForce final : public BroadPhase {
 public:
  BruteForce();
  ~BruteForce() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::BruteForce; }
  void update(std::span<const AABB> boxes) override;
  /// Pairs in lexicographic order of (a, b).
  void findPairs(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
