#pragma once
/// \file
/// The reference scenes of BENCHMARKS.md (uniform, clustered, mixed),
/// generated bit-for-bit from (kind, N, seed), the Workload A motion, the
/// scene file format of quadbin-perf, and a World made from a scene.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/geometry/aabb.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quadbin::scenes {

enum class SceneKind : std::uint8_t { Uniform, Clustered, Mixed };

[[nodiscard]] std::string_view toString(SceneKind kind) noexcept;
[[nodiscard]] std::optional<SceneKind> parseSceneKind(std::string_view name) noexcept;

inline constexpr std::uint64_t kDefaultSeed = 42;
inline constexpr double kDefaultDt = 1.0 / 60.0;

/// Balls in double precision, in a square world [0, size]^2 (scene files may
/// carry any world rectangle).
struct Scene {
  AABB world;  ///< float copy of the bounds, for World and broad phases
  double minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0;
  std::vector<double> x, y, vx, vy, r;

  [[nodiscard]] std::size_t size() const noexcept { return x.size(); }
};

/// The reference scene: deterministic from (kind, n, seed), drawn exactly in
/// the order BENCHMARKS.md fixes.
[[nodiscard]] Scene generate(SceneKind kind, std::uint32_t n, std::uint64_t seed = kDefaultSeed);

/// One frame of Workload A: every ball moves by v * dt and reflects off the
/// world's walls (velocity flipped, position clamped inside).
void advance(Scene& scene, double dt = kDefaultDt) noexcept;

/// Each ball's box [x - r, x + r] in float.
void boxes(const Scene& scene, std::vector<AABB>& out);

/// The pair count of strict overlap on the double boxes (a sweep on x):
/// what BENCHMARKS.md's reference counts are made with.
[[nodiscard]] std::uint64_t countPairsExact(const Scene& scene);

/// A closed world with the scene's bounds and one ball (density 1) per row.
/// Changes to `def`'s bounds are overridden by the scene's.
[[nodiscard]] World makeWorld(const Scene& scene, WorldDef def = {});

/// Scene file: `# world MINX MINY MAXX MAXY`, then the header
/// `x,y,vx,vy,radius`, then one ball per line. Throws quadbin::Error naming
/// the line and the problem for a malformed file.
[[nodiscard]] Scene readSceneFile(const std::string& path);
[[nodiscard]] Scene readScene(std::istream& in, const std::string& name = "<stream>");
void writeScene(std::ostream& out, const Scene& scene);

}  // namespace quadbin::scenes
