#pragma once
/// \file
/// quadbin::mpi::DistributedBoxes: Workload A (docs/benchmarks.md: every
/// ball moves and reflects off the walls, then the broad phase reports the
/// pairs of overlapping boxes) over MPI ranks. Each rank owns the balls of
/// its strip of the bounds, runs its broad phase on them and on ghost
/// copies of its neighbours' balls within one diameter of its border, and
/// reports the pairs whose ball of lower global id it owns: the ranks'
/// pairs together are the single process's, each once.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/mpi/distributed_world.hpp>
#include <span>
#include <vector>

namespace quadbin::mpi {

/// A ball of Workload A, in double as the reference scenes are.
struct MovingBall {
  GlobalId id = 0;
  double x = 0.0, y = 0.0, vx = 0.0, vy = 0.0, r = 0.0;
};

/// Workload A's motion of one ball for one frame inside [minX, maxX] x
/// [minY, maxY]: x += vx * dt, then a ball past a wall is put back on it
/// with that velocity component flipped; the same on y.
void advance(MovingBall& ball, double minX, double minY, double maxX, double maxY,
             double dt) noexcept;

/// A ball's box [x - r, x + r] in float, as the single process's.
[[nodiscard]] AABB boxOf(const MovingBall& ball) noexcept;

class DistributedBoxes {
 public:
  /// Collective. `bounds` (the same on every rank) are the walls.
  DistributedBoxes(MPI_Comm comm, double minX, double minY, double maxX, double maxY,
                   BroadPhaseType type = BroadPhaseType::BinGrid);
  ~DistributedBoxes();
  DistributedBoxes(const DistributedBoxes&) = delete;
  DistributedBoxes& operator=(const DistributedBoxes&) = delete;
  DistributedBoxes(DistributedBoxes&&) = delete;
  DistributedBoxes& operator=(DistributedBoxes&&) = delete;

  /// Collective: each rank's balls (ids unique over all ranks, finite
  /// values, r > 0: else quadbin::Error on every rank, nothing added) go to
  /// their owners; the strips are rebalanced by count.
  void add(std::span<const MovingBall> balls);
  /// Collective: one frame of Workload A (motion, migration, ghosts, broad
  /// phase); pairs() then holds this rank's share.
  void frame(double dt);
  /// Collective: the pairs of the current positions without moving.
  void findPairs();

  /// This rank's pairs of the last frame (a < b by id), sorted.
  [[nodiscard]] std::span<const GlobalPair> pairs() const noexcept;
  /// The balls this rank owns, by id.
  [[nodiscard]] std::span<const MovingBall> owned() const noexcept;
  /// Ghosts held in the last frame.
  [[nodiscard]] std::uint32_t ghosts() const noexcept;
  [[nodiscard]] const DistributedStats& stats() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin::mpi
