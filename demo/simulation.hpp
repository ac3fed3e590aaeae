#pragma once
// The demo's world: a reference scene (or the demo's pinball table) in a
// quadbin::World, and what the keys and the mouse do to it (add, remove,
// burst, drag, switch structure and threads), with the step timed.

#include <cstdint>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string_view>

#include "options.hpp"
#include "pinball.hpp"

namespace demo {

class Simulation {
 public:
  static constexpr float kDt = 1.0f / 60.0f;

  explicit Simulation(const Options& options);

  /// The scene of the options again (the structure and threads in use stay).
  void reset();
  /// One step of kDt, timed (the pinball table's own moves first, untimed).
  void step();

  /// `count` balls of the scene's kind at random places (bounds unchanged);
  /// pinball: `count` more balls to drop from the top, a row at a time.
  void addBalls(std::uint32_t count);
  /// Removes the last `count` balls (the most recently added; pinball: the
  /// waiting ones first). Never the table's pieces.
  void removeBalls(std::uint32_t count);
  /// `count` balls flying out of `at` (placed on a spiral, no overlaps;
  /// pinball: only the places on the field, clear of the table).
  void burst(quadbin::Vec2 at, std::uint32_t count);

  /// The ball nearest to `at` if it lies within `reach` of its surface.
  [[nodiscard]] std::optional<quadbin::BodyId> pick(quadbin::Vec2 at, float reach) const;
  /// Starts/stops pulling a ball towards a point (by its velocity, so that it
  /// still collides on the way).
  void grab(quadbin::BodyId ball) { grabbed_ = ball; }
  void release() { grabbed_.reset(); }
  void pullTo(quadbin::Vec2 target) { target_ = target; }
  [[nodiscard]] std::optional<quadbin::BodyId> grabbed() const;

  void setBroadPhase(quadbin::BroadPhaseType type) { world_.setBroadPhase(type); }
  [[nodiscard]] quadbin::BroadPhaseType broadPhase() const { return world_.def().broadPhase; }
  /// 1 or more threads (0 is turned into the hardware's count first).
  void setThreads(std::uint32_t threads) { world_.setThreadCount(threads); }
  [[nodiscard]] std::uint32_t threads() const { return world_.taskSystem().threadCount(); }

  [[nodiscard]] const quadbin::World& world() const noexcept { return world_; }
  [[nodiscard]] const quadbin::scenes::Scene& scene() const noexcept { return scene_; }
  /// The scene's name: a reference scene's, or "pinball".
  [[nodiscard]] std::string_view sceneName() const noexcept;
  /// The balls in the world (bodyCount() less the pinball table's pieces).
  [[nodiscard]] std::uint32_t ballCount() const noexcept;
  /// Balls waiting to drop (pinball; 0 otherwise).
  [[nodiscard]] std::uint32_t waitingBalls() const noexcept;
  /// True when the world's y axis points up on screen (the pinball table,
  /// under gravity); the reference scenes are drawn with y down.
  [[nodiscard]] bool yUp() const noexcept { return pinball_.has_value(); }
  /// Steps since the last reset.
  [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }
  /// Wall time of one step (World::step alone), smoothed over recent steps.
  [[nodiscard]] double stepMs() const noexcept { return stepMs_; }

 private:
  void addScene(const quadbin::scenes::Scene& scene, float scale);

  Options options_;
  quadbin::scenes::Scene scene_;
  quadbin::World world_;
  std::optional<Pinball> pinball_;
  std::uint64_t steps_ = 0;
  std::uint64_t added_ = 0;  // seeds of the added batches
  double stepMs_ = 0.0;
  std::optional<quadbin::BodyId> grabbed_;
  quadbin::Vec2 target_{};
};

}  // namespace demo
