#pragma once
// The decomposition: one strip of x per rank, [cut[r-1], cut[r]) with the
// outer strips reaching to infinity, the cuts chosen so that each strip
// holds the same number of balls (recursive coordinate bisection along one
// axis).

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace quadbin::mpi::detail {

class Strips {
 public:
  // `ranks` equal strips of [lo, hi).
  Strips(int ranks, double lo, double hi);

  [[nodiscard]] int ranks() const noexcept { return static_cast<int>(cuts_.size()) + 1; }
  // The rank whose strip holds x (NaN: rank 0).
  [[nodiscard]] int owner(double x) const noexcept;
  [[nodiscard]] double lo(int rank) const noexcept;
  [[nodiscard]] double hi(int rank) const noexcept;
  // How far x lies from the strip of `rank` (0 inside).
  [[nodiscard]] double distance(int rank, double x) const noexcept;
  // The ranks other than `rank` whose strips lie within `halo` of its own,
  // in increasing order (a symmetric relation).
  [[nodiscard]] std::vector<int> neighbours(int rank, double halo) const;
  [[nodiscard]] std::span<const double> cuts() const noexcept { return cuts_; }
  void setCuts(std::vector<double> cuts) { cuts_ = std::move(cuts); }

 private:
  std::vector<double> cuts_;
};

// Collective: cuts that give each of the communicator's ranks the same
// number of the x values all ranks hold together (each rank passes its
// own), found by bisection on the values' float order: every rank gets the
// same cuts. Fewer values than ranks: the strips of [lo, hi) instead.
[[nodiscard]] std::vector<double> balancedCuts(MPI_Comm comm, std::span<const double> xs, double lo,
                                               double hi);

// The same cuts from every value at once (each rank holds them all).
[[nodiscard]] std::vector<double> evenCuts(std::vector<double> xs, int ranks, double lo, double hi);

}  // namespace quadbin::mpi::detail
