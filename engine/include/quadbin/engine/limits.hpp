#pragma once
/// \file
/// The ranges World accepts at its boundary. A value outside them is
/// refused with quadbin::Error (the message gives the limit). They are
/// chosen so that nothing a step computes in float (squared gaps, the time
/// of impact's b^2 - ac, impulses, swept boxes) can overflow or lose all
/// its precision; docs/limits.md gives the reason for each.

#include <cstdint>

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
