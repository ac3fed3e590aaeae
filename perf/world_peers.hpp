#pragma once
// Workload B's peers: other engines' full world step (Box2D's b2World,
// Chipmunk2D's cpSpace), fed a reference scene the way quadbin's World is
// (docs/peers.md says how each is configured and what differs). The suite
// reads their state back and measures it with its own code (quality.hpp,
// the kinetic energy), the same for quadbin and every peer.

#include <cstdint>
#include <memory>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quadbin::perf {

/// Milliseconds of each stage of a step (World's StepStats stage times;
/// a peer maps its own profile onto them, NaN where it has no such stage).
struct StageTimes {
  double integrateMs = 0.0;
  double broadPhaseMs = 0.0;
  double narrowPhaseMs = 0.0;
  double solverMs = 0.0;
  double positionMs = 0.0;
  double sleepMs = 0.0;
  double eventsMs = 0.0;
};

/// The balls of a world, in double, in the scene's order.
struct BallState {
  std::vector<double> x, y, vx, vy, r;
};

/// sum 0.5 m |v|^2 with m = pi r^2 (density 1, every engine's mass): the
/// suite's kinetic energy, the same code for quadbin and the peers.
[[nodiscard]] double kineticEnergy(const BallState& state) noexcept;

/// One simulated world: quadbin's (worldStepper) or a peer's.
class WorldStepper {
 public:
  WorldStepper() = default;
  WorldStepper(const WorldStepper&) = delete;
  WorldStepper& operator=(const WorldStepper&) = delete;
  virtual ~WorldStepper() = default;

  virtual void step(double dt) = 0;
  /// Ball pairs in contact in the last step (walls not counted).
  [[nodiscard]] virtual std::uint32_t contacts() const = 0;
  /// True when contacts() is free (quadbin's stats): then every step's
  /// count goes into the result's digest.
  [[nodiscard]] virtual bool contactsAreFree() const noexcept { return false; }
  virtual void state(BallState& out) const = 0;
  /// The stage times of the last step, where the engine measures them.
  [[nodiscard]] virtual std::optional<StageTimes> stageTimes() const { return std::nullopt; }
  /// Heap bytes of the broad phase, where known; 0 otherwise.
  [[nodiscard]] virtual std::size_t broadPhaseBytes() const noexcept { return 0; }
};

/// The world-step peers compiled into this build, in `list --workload B`
/// order: "box2d-world", "chipmunk-hash", "chipmunk-bbtree" (each when its
/// library was found).
[[nodiscard]] std::vector<std::string> worldPeerNames();
[[nodiscard]] bool isWorldPeer(std::string_view name) noexcept;
/// The engine and version a peer's ratios name: "box2d-2.4", "chipmunk-7";
/// "" for a name that is no world peer.
[[nodiscard]] std::string worldPeerEngine(std::string_view name);
/// The peer `name` with `scene`'s balls, walls on the scene's bounds and
/// the physics of `def` (gravity, restitution, velocityIterations); nullptr
/// for an unknown name.
[[nodiscard]] std::unique_ptr<WorldStepper> makeWorldPeer(std::string_view name,
                                                          const scenes::Scene& scene,
                                                          const WorldDef& def);

}  // namespace quadbin::perf
