#pragma once
// The quality of a world's state: how much its balls overlap. Computed by
// the perf suite itself from positions and radii, so that a solver that is
// fast because it leaves balls inside each other shows it.

#include <cstdint>
#include <span>

namespace quadbin {
class World;
}

namespace quadbin::perf {

/// Penetration up to this fraction of the summed radii is contact, not an
/// overlap: a pair overlaps when its centre distance is below
/// (ra + rb) * (1 - kOverlapTolerance).
inline constexpr double kOverlapTolerance = 1e-3;

struct Quality {
  /// Ball pairs whose centre distance d < (ra + rb) * (1 - kOverlapTolerance).
  std::uint64_t overlaps = 0;
  /// The largest (ra + rb - d) / min(ra, rb) over all pairs with d < ra + rb;
  /// 0 when no two balls touch.
  double maxPenetration = 0.0;
};

/// The quality of the balls (x[i], y[i]) of radius r[i] > 0 (spans of equal
/// length). Exact: every pair that touches is found, each once, and
/// measured in double (d = sqrt(dx * dx + dy * dy)). O(n) for balls spread
/// like the reference scenes and the pile: a uniform grid of cells about
/// two mean radii wide (at most about 4n cells), a pair being tested only
/// in the first cell (lowest column and row) that both balls' boxes cover.
/// Balls with a non-finite coordinate or radius are left out.
[[nodiscard]] Quality measureQuality(std::span<const double> x, std::span<const double> y,
                                     std::span<const double> r);

/// The same for a World's balls (static boxes are left out).
[[nodiscard]] Quality measureQuality(const World& world);

}  // namespace quadbin::perf
