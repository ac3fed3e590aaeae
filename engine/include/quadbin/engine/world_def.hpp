#pragma once
/// \file
/// WorldDef: what a World is made with (bounds, gravity, the solver's
/// iterations, threads, the broad phase); quadbin/engine/world.hpp includes
/// it.

#include <cstdint>
#include <memory>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/engine/limits.hpp>
#include <quadbin/engine/log.hpp>
#include <quadbin/geometry/aabb.hpp>
#include <quadbin/tasks/task_system.hpp>

namespace quadbin {

/// What the world's bounds do.
enum class Boundary : std::uint8_t {
  Closed,  ///< the bounds are walls: no ball ever ends a step outside them
  Open,    ///< no walls: bodies may leave the bounds (still simulated and collided)
};

struct WorldDef {
  AABB bounds{{0.0f, 0.0f}, {100.0f, 100.0f}};  ///< min < max on both axes
  Boundary boundary = Boundary::Closed;
  Vec2 gravity{0.0f, 0.0f};
  float restitution = 1.0f;  ///< in [0, 1]; 1 = perfectly elastic
  /// Collisions slower than this (relative normal speed, units/s) are
  /// perfectly inelastic, as in Box2D: piles under gravity settle instead
  /// of buzzing. Unset (the default): twice the speed gravity adds in one
  /// step, 2 |gravity| dt, so resting contacts are inelastic while a world
  /// without gravity stays exactly elastic (e = 1 conserves kinetic energy).
  std::optional<float> restitutionThreshold;
  /// Bodies at rest fall asleep and cost nothing per step until something
  /// wakes them (a touch, setVelocity, setPosition, setAwake, destroying a
  /// neighbour). A body rests when its speed stays under sleepThreshold for
  /// timeToSleep seconds; a group of touching balls (an island) sleeps only
  /// when all of its balls rest.
  bool enableSleep = true;
  float sleepThreshold = 0.05f;  ///< units/s, >= 0
  float timeToSleep = 0.5f;      ///< seconds, > 0
  /// Threads for the step: 1 = the calling thread only (no TBB at all),
  /// 0 = all hardware threads, n = a oneTBB arena of n threads (at most
  /// 1024). Results are bit-identical for every count. Ignored when
  /// `taskSystem` is set.
  std::uint32_t threadCount = 0;
  /// The game's own scheduler (see quadbin/tasks/task_system.hpp); null:
  /// one is made from `threadCount`. The world shares ownership, so the
  /// system lives at least as long as the world; it may be shared by several
  /// worlds and stepped from several threads at once if the implementation
  /// allows concurrent calls (TaskSystem's contract asks it to). It must not
  /// call back into the world.
  std::shared_ptr<TaskSystem> taskSystem;
  BroadPhaseType broadPhase = BroadPhaseType::Auto;  ///< Auto: picked from the bodies
  /// The options of the structure `broadPhase` names (and of those Auto
  /// picks), for this world and every setBroadPhase after: a value out of
  /// range refuses the World's construction (quadbin::Error). Not in a
  /// snapshot: restore keeps the world's own.
  BroadPhaseOptions broadPhaseOptions;
  /// Iterations of the contact solver (sequential impulses with warm
  /// starting) over the contacts that touch at the start of a step: resting
  /// contacts, stacks and crowds (docs/physics.md). In [1, 256].
  std::uint32_t velocityIterations = 8;
  /// Passes of the exact impact solver (time of impact, elastic impulse)
  /// over the contacts that close during the step: fast balls meeting each
  /// other, a wall or a box, and momentum along chains of touching balls
  /// (Newton's cradle). In [1, 256]; a pass that finds no impact ends early.
  std::uint32_t solverPasses = 4;
  /// Iterations of the position correction that separates overlapping
  /// bodies (position only: no kinetic energy added), for each of its two
  /// parts; in a step where no contact rests (a crowd, a gas) the first
  /// part runs twice as many. In [0, 256].
  std::uint32_t positionPasses = 4;
  /// Friction of the world's walls (a closed world's bounds), combined with
  /// a ball's as for two bodies: sqrt(wallFriction * BodyDef::friction).
  /// In [0, limits::kMaxFriction].
  float wallFriction = 0.6f;
  /// When set, the library's log level is set to it when the world is made.
  std::optional<LogLevel> logLevel;
  /// A contact (walls included) whose approach speed, the relative speed
  /// along its normal at the start of the step, is above this many units/s
  /// is reported by World::contactHitEvents. In [0, limits::kMaxSpeed].
  float hitEventThreshold = 1.0f;
};

}  // namespace quadbin
