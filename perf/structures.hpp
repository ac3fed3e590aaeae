#pragma once
// What the perf suite measures: one of quadbin's broad phases, or a peer
// engine's (Box2D, Bullet) or a baseline, behind one small interface so a
// workload runs them all the same way, fed the same frames.

#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace quadbin::perf {

class Structure {
 public:
  Structure() = default;
  Structure(const Structure&) = delete;
  Structure& operator=(const Structure&) = delete;
  virtual ~Structure() = default;

  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  virtual void setBounds(const AABB& bounds) = 0;
  /// This frame's boxes (the BroadPhase contract: proxy i = boxes[i]).
  virtual void update(std::span<const AABB> boxes) = 0;
  /// Appends the exact strict-overlap pairs (a < b), each once. Peers that
  /// report candidates (fat boxes) filter them here: the filtering is timed.
  virtual void findPairs(std::vector<Pair>& out) = 0;
  /// The same pairs in place of what `out` held (BroadPhase::findPairsInto
  /// for quadbin's structures; clear then findPairs for the others).
  virtual void findPairsInto(std::vector<Pair>& out) {
    out.clear();
    findPairs(out);
  }
  /// Heap bytes the structure holds.
  [[nodiscard]] virtual std::size_t memoryBytes() const noexcept = 0;
  /// Where quadbin's structures run their parallel work (--threads);
  /// peers and baselines ignore it.
  virtual void setTaskSystem(const std::shared_ptr<TaskSystem>& tasks) { (void)tasks; }
  /// The most bodies the main job (`run` with the default structures) gives
  /// it, for a peer whose untimed setup grows too fast above that (the time
  /// budget only predicts timed frames); 0: no limit. Named in --broadphase,
  /// it runs at any N.
  [[nodiscard]] virtual std::uint32_t defaultRunMaxBodies() const noexcept { return 0; }
};

/// Every name `--broadphase` accepts: quadbin's structures first (in
/// allBroadPhaseTypes() order), then the peers and baselines.
[[nodiscard]] std::vector<std::string> structureNames();
/// The structure called `name`, or nullptr for an unknown name.
[[nodiscard]] std::unique_ptr<Structure> makeStructure(std::string_view name);

/// Peers and baselines compiled into this build (perf/peers/), in `list` order.
[[nodiscard]] std::vector<std::string> peerNames();
[[nodiscard]] std::unique_ptr<Structure> makePeer(std::string_view name);

}  // namespace quadbin::perf
