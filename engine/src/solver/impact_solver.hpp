#pragma once
// Internal to the engine: the impact solver (impact_solver.cpp). The exact
// time of impact and elastic impulse for every contact that closes during
// the step and is not the velocity solver's (a fast ball meeting another,
// a wall, a box, an outline or a kinematic body; a collision inside a
// crowd; momentum along a chain, Newton's cradle), a bounded number of
// passes. Each impulse is the textbook collision of two bodies, so e = 1
// keeps kinetic energy; with friction, the impact's Coulomb friction too.

#include <cstdint>
#include <quadbin/tasks/parallel.hpp>

#include "bodies/body_store.hpp"
#include "solver/solver_settings.hpp"
#include "solver/step_rows.hpp"

namespace quadbin {

class ImpactSolver {
 public:
  using Row = StepRows::Row;

  /// The step's rows, shared with the other stages (set once by the world).
  explicit ImpactSolver(StepRows& step) : step_(step) {}

  /// The start of the solve.
  void beginSolve() noexcept { impactsLeft_ = false; }
  /// The exact impacts of every contact that closes within the step (the
  /// rows and the extra rows), a bounded number of passes; returns how many
  /// impulses were applied.
  std::uint32_t solve(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// Whether the passes of some round of this step ran out with impacts left.
  [[nodiscard]] bool impactsLeft() const noexcept { return impactsLeft_; }

 private:
  bool impact(const BodyStore& bodies, const SolverSettings& s, Row& r);
  bool impactBalls(const BodyStore& bodies, const SolverSettings& s, const Row& r);
  bool impactBox(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                 std::uint32_t box);
  bool impactWall(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                  std::uint32_t side);
  bool impactKinematic(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                       std::uint32_t k);
  /// The Coulomb friction of an impact at time t: the tangent impulse that
  /// stops the contact point's sliding, at most mu times the normal impulse
  /// jn, on ball a and, where b is a ball, on b (solid discs; n points from
  /// a to b). b as the impact left it: its surface's velocity where they
  /// touch (a ball's after the impact's impulse, a kinematic body's with
  /// a turning outline's w x arm, never changed) and its spin.
  struct ImpactOther {
    std::uint32_t index = kNoBody;  // kNoBody: a wall or a static box
    float radius = 0.0f;            // 0: a box or a wall (no lever)
    float invMass = 0.0f;           // 0: infinite mass
    Vec2 velocity{};                // its surface's velocity where they touch
    bool spins = false;             // a ball or a kinematic body: its spin counts
  };
  void rub(const BodyStore& bodies, std::uint32_t a, const ImpactOther& b, Vec2 n, float jn,
           float mu, float t);

  StepRows& step_;
  bool impactsLeft_ = false;  // the impact passes of this step ran out
};

}  // namespace quadbin
