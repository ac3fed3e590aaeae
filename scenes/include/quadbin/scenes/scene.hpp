#pragma once
/// \file
/// The reference scenes of docs/benchmarks.md (uniform, clustered, mixed) and
/// the pile, generated bit-for-bit from (kind, N, seed), the Workload A
/// motion, the scene file format of quadbin-perf, and a World made from a
/// scene with the physics its kind is simulated with.
///
/// - uniform: N balls of radius 1 spread uniformly over a square world
///   whose discs cover 10 % of it; speeds U(0, 20) in random directions.
/// - clustered: the same balls around 16 random centres (normal spread of
///   1/40 of the world's side).
/// - mixed: radii log-uniform in [0.5, 16], uniform positions, 10 % cover.
/// - pile (Workload B only): N balls of radius 1 dropped under gravity into
///   a closed box about sqrt(N) balls wide. C = ceil(sqrt(N)) columns,
///   world [0, W] x [0, H] with W = 2.2 C + 2; ball i starts at column
///   i % C, row i / C of a grid of spacing 2.2, centre
///   (2.1 + 2.2 column + jitter, 2 + 2.2 row), jitter U(-0.05, 0.05); H is
///   the top row's top edge (2 + 2.2 (rows - 1) + 1) plus 10 % headroom.
///   Velocities U(-1, 1) on each axis. Drawn from std::mt19937_64(seed) in
///   this order: the N jitters, then each ball's vx, vy. Its physics
///   (worldDefFor): gravity (0, -9.8), restitution 0.5 (collisions slower
///   than 1 unit/s inelastic: restitutionThreshold 1), sleeping on; the
///   balls have friction 0.5 and rolling resistance 0.1 (Scene::friction,
///   Scene::rollingResistance), so they roll, the pile stops sliding and a
///   ball rolling on the floor comes to a stop.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quadbin::scenes {

enum class SceneKind : std::uint8_t { Uniform, Clustered, Mixed, Pile };

[[nodiscard]] std::string_view toString(SceneKind kind) noexcept;
[[nodiscard]] std::optional<SceneKind> parseSceneKind(std::string_view name) noexcept;

inline constexpr std::uint64_t kDefaultSeed = 42;
inline constexpr double kDefaultDt = 1.0 / 60.0;

/// Balls in double precision, in a square world [0, size]^2 (the pile's is
/// taller than wide; scene files may carry any world rectangle).
struct Scene {
  AABB world;  ///< float copy of the bounds, for World and broad phases
  double minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0;
  std::vector<double> x, y, vx, vy, r;
  /// Every ball's friction coefficient (BodyDef::friction): 0 (frictionless)
  /// for the elastic scenes and scene files, 0.5 for the pile.
  float friction = 0.0f;
  /// Every ball's rolling resistance (BodyDef::rollingResistance): 0, and
  /// 0.1 for the pile, so that a ball rolling on the floor stops.
  float rollingResistance = 0.0f;

  [[nodiscard]] std::size_t size() const noexcept { return x.size(); }
};

/// The reference scene: deterministic from (kind, n, seed), drawn exactly in
/// the order docs/benchmarks.md fixes.
[[nodiscard]] Scene generate(SceneKind kind, std::uint32_t n, std::uint64_t seed = kDefaultSeed);

/// One frame of Workload A: every ball moves by v * dt and reflects off the
/// world's walls (velocity flipped, position clamped inside).
void advance(Scene& scene, double dt = kDefaultDt) noexcept;

/// Each ball's box [x - r, x + r] in float.
void boxes(const Scene& scene, std::vector<AABB>& out);
/// The same, in ranges of 16,384 balls on `tasks` (Workload A's driver:
/// what a game hands its broad phase each frame, on its own threads).
void boxes(const Scene& scene, std::vector<AABB>& out, TaskSystem& tasks);

/// The pair count of strict overlap on the double boxes (a sweep on x):
/// what docs/benchmarks.md's reference counts are made with.
[[nodiscard]] std::uint64_t countPairsExact(const Scene& scene);

/// A closed world with the scene's bounds and one ball (density 1, friction
/// and rolling resistance from the Scene) per row.
/// Changes to `def`'s bounds are overridden by the scene's. Every ball must
/// lie inside the world (Placement::InsideWorld's rule; a position that
/// float rounding puts a hair outside is moved back in), or quadbin::Error
/// names the first that does not.
[[nodiscard]] World makeWorld(const Scene& scene, WorldDef def = {});

/// `def` with the physics a scene of `kind` is simulated with (quadbin-perf's
/// Workloads B and C, `simulate`, `pile`); its other fields are kept.
/// uniform, clustered, mixed (elastic): no gravity, restitution 1 with
/// restitutionThreshold 0 (every collision elastic, whatever its speed),
/// sleeping off (enableSleep = false: a slow ball keeps moving). pile:
/// gravity (0, -9.8), restitution 0.5, restitutionThreshold 1, sleeping on.
[[nodiscard]] WorldDef worldDefFor(SceneKind kind, WorldDef def = {});

/// Where a scene file's balls may lie. InsideWorld: each ball inside the
/// world rectangle (MINX + r <= x <= MAXX - r, the same on y), so that
/// makeWorld builds it. Anywhere: the rectangle is only the bounds (a
/// broad phase's hint, as for quadbin-perf pairs).
enum class Placement : std::uint8_t { InsideWorld, Anywhere };

/// Scene file (docs/perf-cli.md, "Scene files"): `# world MINX MINY MAXX
/// MAXY`, then the header `x,y,vx,vy,radius`, then one ball per line, every
/// value within the World's limits (quadbin/engine/limits.hpp). Throws
/// quadbin::Error naming `name:line` and the problem for a malformed file.
[[nodiscard]] Scene readSceneFile(const std::string& path,
                                  Placement placement = Placement::InsideWorld);
[[nodiscard]] Scene readScene(std::istream& in, const std::string& name = "<stream>",
                              Placement placement = Placement::InsideWorld);
void writeScene(std::ostream& out, const Scene& scene);

}  // namespace quadbin::scenes
