#pragma once
// Internal to the engine: the world's settings room. The WorldDef a world
// was made with, as the setters that work after creation changed it
// (setGravity, setBroadPhase, setThreadCount, restore), the last step's dt,
// and the warnings logged once per world.

#include <array>
#include <cstdint>
#include <quadbin/engine/world_def.hpp>
#include <utility>

namespace quadbin {

class WorldSettings {
 public:
  explicit WorldSettings(WorldDef d) : def_(std::move(d)) {}

  /// The settings as they are now (World::def).
  [[nodiscard]] const WorldDef& def() const noexcept { return def_; }

  /// The setters, each after the World checked its argument.
  void setGravity(Vec2 gravity) noexcept { def_.gravity = gravity; }
  void setBroadPhase(BroadPhaseType type) noexcept {
    def_.broadPhase = type;
    warned_[index(Warning::BruteForce)] = false;  // the new type may warrant it again
  }
  /// The world's own system of `count` threads (a game's is let go).
  void setThreadCount(std::uint32_t count) noexcept {
    def_.threadCount = count;
    def_.taskSystem = nullptr;
  }
  /// What World::restore takes from a snapshot's settings: all but what
  /// belongs to the process (threads, task system, log level) and the
  /// broad phase's options and autoLayout, which stay this world's.
  [[nodiscard]] WorldDef restoredFrom(const WorldDef& snapshot) const {
    WorldDef next = snapshot;
    next.threadCount = def_.threadCount;
    next.taskSystem = def_.taskSystem;
    next.logLevel = def_.logLevel;
    next.broadPhaseOptions = def_.broadPhaseOptions;
    next.autoLayout = def_.autoLayout;
    return next;
  }
  /// A restored world's settings (restoredFrom, checked).
  void replace(WorldDef&& next) noexcept {
    def_ = std::move(next);
    warned_[index(Warning::BruteForce)] = false;
  }

  /// The step under way, or the last one: the events stage reads it.
  void stepping(float dt) noexcept { stepDt_ = dt; }
  [[nodiscard]] float stepDt() const noexcept { return stepDt_; }

  /// Warnings logged once per world: a brute-force broad phase over many
  /// bodies (again after setBroadPhase or restore), a body that left the
  /// bounds.
  enum class Warning : std::uint8_t { BruteForce, Outside };
  /// True the first time only (then the caller logs).
  [[nodiscard]] bool warnOnce(Warning w) noexcept {
    return !std::exchange(warned_[index(w)], true);
  }

 private:
  static constexpr std::size_t index(Warning w) noexcept { return static_cast<std::size_t>(w); }

  WorldDef def_;
  float stepDt_ = 0.0f;
  std::array<bool, 2> warned_{};
};

}  // namespace quadbin
