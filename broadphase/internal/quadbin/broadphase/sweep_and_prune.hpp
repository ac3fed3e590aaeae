#pragma once
/// \file
/// SweepAndPrune: the classic sort-and-sweep (Bullet's btAxisSweep3, the
/// broad phase of early Box2D), on one axis.
///
/// The proxies are kept sorted by box min on one axis, keyed by
/// (min, proxy index): ties are broken by index, so the order, and the order
/// of the pairs, depends only on the boxes. Between frames the previous
/// order is kept and repaired by an insertion sort, which costs ~O(n) when
/// bodies move little; proxies that appear are sorted apart and merged in,
/// and a badly broken order (too many element shifts) or a large change of
/// count falls back to a full stable radix sort. The sweep then walks the
/// sorted structure of arrays: for each proxy, the following ones while
/// their min is below its max (16 at a time with SSE2), testing the other
/// axis strictly.
///
/// When to pick it: bodies of similar size, up to ~10^5 in a compact world,
/// or worlds long along one axis; a simple, allocation-free, deterministic
/// reference. Its cost is n times the number of boxes sharing a sweep
/// window: in a square world of uniform density that grows as n^1.5, and
/// clusters that line up along the axis make it worse, so grids and trees
/// win at large n. One huge box makes its own window long but costs nothing
/// to the others.
///
/// Options:
/// - axis: Auto (default) picks, at each full sort, the axis along which the
///   box centres vary most (fewer boxes share a window); X or Y force one.
/// - maxShiftsPerProxy: the insertion sort gives up and does a full sort once
///   it has shifted more than this many elements per proxy (default 32).
/// - fullSortFraction: a frame where more than this fraction of proxies
///   appeared or disappeared is fully re-sorted (default 0.25).

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <vector>

namespace quadbin {

class SweepAndPrune final : public BroadPhase {
 public:
  /// Throws quadbin::Error when an option is out of range
  /// (maxShiftsPerProxy == 0, fullSortFraction not in [0, 1]).
  explicit SweepAndPrune(const SweepAndPruneOptions& options = {});
  ~SweepAndPrune() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override {
    return BroadPhaseType::SweepAndPrune;
  }
  void update(std::span<const AABB> boxes) override;
  /// Pairs in sweep order (by (min, index) of the earlier proxy on the axis).
  void findPairs(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One interval per proxy on the sort axis, in sweep order: how long
  /// each proxy's window is shows in how many intervals overlap it.
  void draw(BroadPhaseDraw& out) const override;

  /// 0 for x, 1 for y: the axis the proxies are sorted on now.
  [[nodiscard]] int sortAxis() const noexcept;
  /// Full sorts done since construction (for tests and tuning).
  [[nodiscard]] std::uint64_t fullSorts() const noexcept;
  /// Frames repaired by the incremental path since construction.
  [[nodiscard]] std::uint64_t incrementalSorts() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
