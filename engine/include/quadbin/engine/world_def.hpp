#pragma once
/// \file
/// WorldDef: what a World is made with (bounds, gravity, the solver's
/// iterations, threads, the broad phase), the ranges a World accepts at its
/// boundary (quadbin::limits) and the library's log (LogLevel, setLogLevel,
/// setLogSink); quadbin/engine/world.hpp includes it.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <string_view>

// The ranges World accepts at its boundary. A value outside them is
// refused with quadbin::Error (the message gives the limit). They are
// chosen so that nothing a step computes in float (squared gaps, the time
// of impact's b^2 - ac, impulses, swept boxes) can overflow or lose all
// its precision; docs/limits.md gives the reason for each.

namespace quadbin::limits {

/// |x| and |y| of positions, world bounds and static boxes' centres.
inline constexpr float kMaxCoordinate = 1e7f;
/// Radii and half extents.
inline constexpr float kMaxSize = 1e7f;
/// Smallest radius.
inline constexpr float kMinRadius = 1e-6f;
/// A ball's radius is at least this fraction of its largest coordinate
/// (2^-20: the radius spans at least 8 units in the last place of its
/// position, so a contact's gap keeps 3 significant bits).
inline constexpr float kMinRadiusPerCoordinate = 0x1p-20f;
/// Speed of a ball, units/s; also restitutionThreshold and sleepThreshold.
inline constexpr float kMaxSpeed = 1e8f;
/// |gravity|, units/s^2 (one step of kMaxDt adds at most kMaxSpeed).
inline constexpr float kMaxGravity = 1e7f;
/// Mass of a ball, given or from density: a normal float whose inverse,
/// and whose momentum at kMaxSpeed, stay far inside float range.
inline constexpr float kMinMass = 1e-18f;
inline constexpr float kMaxMass = 1e18f;
/// The step, seconds: dt in [kMinDt, kMaxDt].
inline constexpr float kMinDt = 1e-9f;
inline constexpr float kMaxDt = 10.0f;
/// Friction coefficients (BodyDef::friction, WorldDef::wallFriction): far
/// above any real material's (rubber on rubber is about 1), so that a
/// friction impulse stays within a few normal impulses.
inline constexpr float kMaxFriction = 10.0f;
/// Linear and angular damping (BodyDef::linearDamping, angularDamping),
/// per second: at this value a step of 1/60 s keeps 1/16667 of the speed.
inline constexpr float kMaxDamping = 1e6f;
/// WorldDef::timeToSleep, seconds.
inline constexpr float kMaxTimeToSleep = 1e5f;
/// Coordinates and lengths of spatial queries (box corners, centres, query
/// radius, ray origin, |ray direction| and |ray direction| * maxT): larger
/// than the world's, so a query may cover all of it.
inline constexpr float kMaxQueryCoordinate = 1e9f;
/// WorldDef::threadCount and World::setThreadCount.
inline constexpr std::uint32_t kMaxThreads = 1024;
/// WorldDef::velocityIterations, solverPasses and positionPasses.
inline constexpr std::uint32_t kMaxIterations = 256;

/// Candidate pairs of one step (bodies whose swept boxes overlap, static
/// boxes included): kMaxPairsPerBody per body, at least kMinPairLimit, at
/// most kMaxPairs. A step that would pass it is refused with Error and
/// changes nothing; it bounds the pair and contact buffers by the body
/// count (docs/limits.md).
inline constexpr std::uint64_t kMaxPairsPerBody = 64;
inline constexpr std::uint64_t kMinPairLimit = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kMaxPairs = std::uint64_t{1} << 31;
/// The pair limit of a step of `bodies` bodies.
[[nodiscard]] constexpr std::uint64_t maxPairs(std::uint64_t bodies) noexcept {
  const std::uint64_t perBody = kMaxPairsPerBody * bodies;
  const std::uint64_t limit = perBody > kMinPairLimit ? perBody : kMinPairLimit;
  return limit < kMaxPairs ? limit : kMaxPairs;
}

}  // namespace quadbin::limits

// The library's log: quiet by default (warnings and errors only), written
// to stderr unless the game gives its own sink. The library logs refused
// input (once per kind of refusal, then at debug level) and bodies that
// leave an open world, never once per frame.

namespace quadbin {

enum class LogLevel : int { Trace, Debug, Info, Warn, Error, Off };

/// Receives each message the library logs at or above the current level:
/// its level and its text (one line, no trailing newline). Called on the
/// thread that logged, never from two threads at once.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

/// Messages below `level` are dropped (LogLevel::Off: all of them).
void setLogLevel(LogLevel level);
[[nodiscard]] LogLevel logLevel();
/// Sends every later message to `sink` instead of where they went before;
/// an empty function restores the default, stderr.
void setLogSink(LogSink sink);

}  // namespace quadbin

// WorldDef: what a World is made with (bounds, gravity, the solver's
// iterations, threads, the broad phase); quadbin/engine/world.hpp includes
// it.

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
  /// Keeps the bodies in space order by itself: a step whose world's last
  /// contacts join bodies far apart in memory (a crowd created in random
  /// order, or one that has mixed since) starts with World::optimizeLayout's
  /// renumbering, so that every stage of the step works on nearby memory
  /// and each thread on its own neighbourhood (docs/concurrency.md, "Space
  /// order"). Ids, state, events and warm start are kept; the dense order of
  /// bodyAt() and the bulk arrays changes at such a step. False: the dense
  /// order changes only by createBody, destroyBody and optimizeLayout. Not
  /// in a snapshot: restore keeps the world's own.
  bool autoLayout = true;
};

}  // namespace quadbin
