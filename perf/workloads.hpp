#pragma once
// The workloads of docs/benchmarks.md, measured on one configuration each.

#include <cstdint>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "quality.hpp"
#include "world_peers.hpp"

namespace quadbin::perf {

/// A result that breaks the contract: a pair count that differs from the
/// reference, a pair reported twice, a thread count that changes the
/// result. quadbin-perf exits with code 3 on it.
class CheckFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The fewest timed frames a time-boxed configuration keeps: the whole
/// suite's (run --full) and other commands'.
inline constexpr std::uint32_t kMinTimedFrames = 10;
/// The same in a run without --full (the headline run): there the peers'
/// configurations at 100,000 bodies take 0.1-0.8 s a frame, and their ten
/// warm-up frames plus ten timed ones were most of the run's time.
inline constexpr std::uint32_t kHeadlineMinTimedFrames = 5;

struct Config {
  char workload = 'A';  // 'A': broad phase alone, 'B': full world step, 'C': sweep (= B)
  scenes::SceneKind scene = scenes::SceneKind::Uniform;
  std::uint32_t n = 1000;
  std::string structure = "brute-force";  // a name from structureNames()
  std::uint32_t threads = 1;
  std::uint32_t frames = 60;
  std::uint32_t warmup = 10;
  std::uint64_t seed = scenes::kDefaultSeed;
  /// B/C: steps after which the kinetic energy drift is taken; when larger
  /// than warmup + frames the world keeps stepping, untimed, up to it.
  std::uint32_t driftSteps = 0;
  /// When > 0: stop timing once the timed frames add up to this many
  /// seconds and at least minTimedFrames are timed (Result::config.frames
  /// then says how many were); the world's untimed drift steps are left out.
  double timeBoxSeconds = 0.0;
  std::uint32_t minTimedFrames = kMinTimedFrames;
  /// Not run at all, for this reason (shown as skipped): set by a plan.
  std::string skipReason;
  /// B/C, quadbin structures: World::optimizeLayout() once, before the
  /// warm-up steps (the bodies renumbered in space order).
  bool optimizeLayout = false;
  /// B/C, quadbin structures: WorldDef::autoLayout (the world keeps its
  /// bodies in space order by itself).
  bool autoLayout = true;
};

struct Result {
  Config config;
  double medianMs = 0, minMs = 0, maxMs = 0;
  /// The median over the timed frames of the CPU time each took: the
  /// thread's for one thread, the process's (every thread) for several.
  double cpuMs = 0;
  std::uint64_t pairs = 0;  // A: pairs of the last frame; B/C: contacts of the last step
  double bytesPerBody = 0;
  /// A: the pair count of every frame, warm-up included.
  std::vector<std::uint64_t> framePairs;
  /// B/C: relative change of the total kinetic energy, (E_end - E_0) / E_0.
  std::optional<double> energyDrift;
  /// A digest of what the configuration computed, the same for every thread
  /// count: A: every frame's pair count and the last frame's pair set;
  /// B/C: every step's contact count and the final positions and velocities.
  std::uint64_t resultHash = 0;
  /// B/C: the overlaps of the final state (after the drift steps too).
  std::optional<Quality> quality;
  /// B/C: the median over the timed steps of each stage's time (NaN for a
  /// stage the engine does not have).
  std::optional<StageTimes> stageMedians;
};

/// CPU time in ms: the calling thread's for one thread (the others' work
/// would not be ours), the whole process's for several.
[[nodiscard]] double cpuNowMs(std::uint32_t threads) noexcept;

/// The median of `values` (sorted in place); 0 when empty.
[[nodiscard]] double median(std::vector<double>& values);

/// Workload A (not on the pile: std::invalid_argument). When `expectedPairs` is not empty, each
/// frame's pair count must equal expectedPairs[frame] or CheckFailure is thrown at that frame. The
/// thread count is handed to oneTBB (global_control) for the run.
[[nodiscard]] Result runWorkloadA(const Config& config,
                                  std::span<const std::uint64_t> expectedPairs = {});
/// Workload B (and C, the sweep's points): World::step with the broad phase
/// `config.structure` (a quadbin structure) and WorldDef::threadCount, on
/// the physics of scenes::worldDefFor(config.scene) (the elastic scenes:
/// restitution 1, restitutionThreshold 0, sleeping off); or a world-step
/// peer's step (world_peers.hpp) on the same scene and physics. The energy
/// drift and the quality are computed from the balls' state by the same
/// code for both.
[[nodiscard]] Result runWorkloadB(const Config& config);

/// FNV-1a, 64 bits, over raw bytes, continuing from `hash`.
[[nodiscard]] std::uint64_t fnv1a(const void* data, std::size_t size,
                                  std::uint64_t hash = 0xcbf29ce484222325ull) noexcept;

}  // namespace quadbin::perf
