#pragma once
// Internal to the engine: the velocity solver (velocity_solver.cpp,
// velocity_shock.cpp). Sequential impulses with warm starting on the
// contacts that touch at the start of the step and approach slower than
// the restitution threshold (resting contacts, stacks, piles): perfectly
// inelastic, a fixed number of sweeps, with Coulomb friction and rolling
// resistance where balls have them, and under gravity one more pass,
// bottom-up (the shock pass: tall piles). After the impacts, where their
// passes ran out, the touching pairs still approaching stop.

#include <cstdint>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "solver/solver_settings.hpp"
#include "solver/step_rows.hpp"

namespace quadbin {

class VelocitySolver {
 public:
  using Row = StepRows::Row;
  using FrictionRow = StepRows::FrictionRow;
  using BallState = StepRows::BallState;

  /// The step's rows, shared with the other stages (set once by the world).
  explicit VelocitySolver(StepRows& step) : step_(step) {}

  /// Warm start, the resting contacts' iterations and the shock pass:
  /// changes the balls' velocities (StepRows::state); then each ball's
  /// fastest speed so far (StepRows::maxSpeed). The rows' friction is
  /// warm started from their `contacts` (the contact set's).
  void solveResting(const BodyStore& bodies, const SolverSettings& s,
                    std::span<const contacts::Contact> contacts, TaskSystem& tasks);
  /// Where the impact passes ran out (`impactsLeft`) with a restitution
  /// threshold, the touching pairs still approaching stop, inelastically
  /// (piles rest).
  void stopApproaching(const SolverSettings& s, bool impactsLeft, TaskSystem& tasks);

 private:
  // `relaxation`: the over-relaxation of the normal impulses of rows with
  // friction in every sweep but the last (1: plain sweeps). Returns the
  // rows changed, summed over the sweeps (0: no velocity changed).
  std::uint32_t sweep(TaskSystem& tasks, StepRows::Group lastGroup, std::uint32_t iterations,
                      bool friction, float relaxation);
  // Whether the shock pass runs: gravity, a restitution threshold and
  // friction (elastic worlds keep their exact impulses).
  [[nodiscard]] static bool shockPasses(const SolverSettings& s) noexcept {
    return length(s.gravity) != 0.0f && s.restitutionThreshold > 0.0f && s.friction;
  }
  void buildFriction(const BodyStore& bodies, const SolverSettings& s,
                     std::span<const contacts::Contact> contacts, TaskSystem& tasks);
  // velocity_shock.cpp: the resting rows once more, bottom-up, lower bodies fixed.
  bool orderForShock(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  void propagateShock(const SolverSettings& s);

  StepRows& step_;
  std::vector<std::uint64_t> shockKeys_, shockScratch_;
  std::vector<std::uint32_t> shockCounts_;
  unsigned shockRowBits_ = 0;  // shock key = height bits << shockRowBits_ | row
};

}  // namespace quadbin
