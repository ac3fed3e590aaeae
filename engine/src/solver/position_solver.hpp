#pragma once
// Internal to the engine: the position solver (position_solver.cpp). The
// end-of-step positions from the solved velocities and the impacts'
// corrections, then the overlaps left removed by moving positions only (no
// velocity change: no kinetic energy added): sequential impulses on
// position shifts, a fixed number of passes, warm started from the last
// step's shift impulses so that a crowd packed too tight builds up the
// "pressure" that spreads it over a few steps; then the settling passes of
// calm contacts (a pile's). Last, the walls of a closed world, the guard
// against static boxes, and the bodies written back.

#include <cstdint>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

#include "bodies/body_store.hpp"
#include "solver/solver_settings.hpp"
#include "solver/step_rows.hpp"

namespace quadbin {

class PositionSolver {
 public:
  using Row = StepRows::Row;
  using ShiftRow = StepRows::ShiftRow;
  using BallState = StepRows::BallState;

  /// The step's rows, shared with the other stages (set once by the world).
  explicit PositionSolver(StepRows& step) : step_(step) {}

  /// Moves the awake balls and the kinematic bodies to their end-of-step
  /// positions (the solved velocities and the impacts' corrections).
  void integratePositions(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// Removes overlaps by moving positions only (shift passes, then the
  /// settling passes of calm contacts).
  void correctOverlaps(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// Clamps the balls to the walls of a closed world, keeps them out of
  /// static boxes (guardBoxes) and writes positions, velocities, spin and
  /// angles back to the bodies. Where neither kinematic bodies nor spin
  /// are (s.kinematic, s.spin off) the new positions go to undo's arrays,
  /// which are then swapped with the bodies': the step's save of them,
  /// without a copy (undo.saved.positions). Returns how many bodies end
  /// the step with their centre outside s.bounds (StepStats::bodiesOutside),
  /// counted in the same pass.
  std::uint32_t clampPositions(BodyStore& bodies, const SolverSettings& s, BodySnapshot& undo,
                               TaskSystem& tasks);

 private:
  [[nodiscard]] ShiftRow makeShiftRow(const BodyStore& bodies, const SolverSettings& s, Row& r,
                                      std::uint32_t staticSlot) const;
  bool settle(const BodyStore& bodies, const SolverSettings& s, Row& r);
  // Held by the shift passes and lifted by settle(): a contact that carried
  // a load, or a resting one where there is a restitution threshold.
  [[nodiscard]] static bool isCalm(const SolverSettings& s, const Row& r) noexcept {
    return r.lambda > 0.0f || (r.group == StepRows::kResting && s.restitutionThreshold > 0.0f);
  }
  std::uint32_t makeShiftRows(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks,
                              bool& any);
  /// Returns how many calm contacts there are (settle()'s work).
  std::uint32_t correctPositions(const BodyStore& bodies, const SolverSettings& s,
                                 TaskSystem& tasks);
  void guardBoxes(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  // clampPositions without kinematic bodies and spin: p and v written back.
  std::uint32_t writeBack(BodyStore& bodies, const SolverSettings& s, BodySnapshot& undo,
                          TaskSystem& tasks);

  StepRows& step_;
  std::vector<Vec2> shift_;  // per ball (+ one zero for static things): position shift
  // correctPositions left the shifts for writeBack to add (see there).
  bool shiftPending_ = false;
  OrderedBuffers<std::uint32_t> indexBuffers_;  // guardBoxes' rows
};

}  // namespace quadbin
