#pragma once
/// \file
/// quadbin::mpi::DistributedWorld: one World split over the ranks of an MPI
/// communicator by space (docs/distributed.md). Every rank steps the balls
/// of its own region with the usual broad phase and solver, beside ghost
/// copies of its neighbours' balls near its border; balls that cross a
/// border move to their new owner with their global id and state.
///
/// \code
///   MPI_Init(&argc, &argv);
///   quadbin::mpi::DistributedDef def;
///   def.world.bounds = {{0, 0}, {1000, 1000}};
///   quadbin::mpi::DistributedWorld world(MPI_COMM_WORLD, def);
///   std::vector<quadbin::BodyDef> mine = ...;   // any rank may create
///   world.createBodies(mine);                    // collective
///   for (int frame = 0; frame < 600; ++frame) world.step(1.0f / 60.0f);  // collective
///   std::vector<quadbin::mpi::GatheredBody> all;
///   world.gather(all);                           // rank 0 gets every body
/// \endcode
///
/// Every member marked collective must be called by every rank of the
/// communicator, in the same order, with the same scalar arguments. A
/// refused call throws quadbin::Error on every rank and leaves the world as
/// it was.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <span>
#include <string>
#include <vector>

namespace quadbin::mpi {

/// A body's id over all ranks: given in creation order (rank by rank, then
/// in each rank's order), kept when the body moves to another rank.
using GlobalId = std::uint64_t;

/// What a DistributedWorld is made with. Every rank passes the same (the
/// constructor compares them and refuses a difference on every rank).
struct DistributedDef {
  /// The world each rank steps: bounds, physics, solver. Its threadCount is
  /// each rank's own thread count.
  WorldDef world;
  /// The regions are rebalanced (new borders, balls moved to their new
  /// owners) when the rank owning the most balls owns more than this times
  /// the mean; > 1.
  float rebalanceFactor = 1.25f;
};

/// What the last collective call cost this rank.
struct DistributedStats {
  std::uint64_t bytesSent = 0;   ///< ghosts and migrants this rank sent
  std::uint32_t ghosts = 0;      ///< ghost balls this rank held in the step
  std::uint32_t migrated = 0;    ///< balls this rank handed to a new owner
  float imbalance = 1.0f;        ///< most balls owned by a rank over the mean
  bool rebalanced = false;       ///< the regions were moved at the end of the call
  double communicationMs = 0.0;  ///< wall time in MPI calls (waits included)
  double stepMs = 0.0;           ///< wall time of the local World::step
};

/// A body as gather() reports it.
struct GatheredBody {
  GlobalId id = 0;
  BodyType type = BodyType::Ball;
  Vec2 position;
  Vec2 velocity;
  float radius = 0.0f;  ///< 0 for boxes and outlines
  float mass = 0.0f;    ///< infinity for static and kinematic bodies
};

/// Two bodies that touch, by global id (a < b), as contactPairs() reports.
struct GlobalPair {
  GlobalId a = 0;
  GlobalId b = 0;
  friend constexpr bool operator==(const GlobalPair&, const GlobalPair&) noexcept = default;
  friend constexpr auto operator<=>(const GlobalPair&, const GlobalPair&) noexcept = default;
};

/// The nearest hit of a ray over all ranks.
struct GlobalRayHit {
  std::optional<GlobalId> body;  ///< nothing for a wall
  float t = 0.0f;
  Vec2 point;
  Vec2 normal;
  WallSide wall = WallSide::None;
};

class DistributedWorld {
 public:
  /// Collective. The regions start as equal strips of the bounds along x.
  DistributedWorld(MPI_Comm comm, const DistributedDef& def);
  ~DistributedWorld();
  DistributedWorld(const DistributedWorld&) = delete;
  DistributedWorld& operator=(const DistributedWorld&) = delete;
  DistributedWorld(DistributedWorld&&) = delete;
  DistributedWorld& operator=(DistributedWorld&&) = delete;

  /// Collective. Each rank passes its own defs (none is fine). A ball goes
  /// to the rank whose region holds its position; static and kinematic
  /// bodies are held by every rank (they are the same everywhere). Returns
  /// the global ids of this rank's defs, in order. A def that World would
  /// refuse (outside closed bounds, a bad radius...) is refused on every
  /// rank and nothing is created.
  std::vector<GlobalId> createBodies(std::span<const BodyDef> defs);

  /// Collective: ghosts exchanged with the neighbours, every rank's World
  /// stepped, balls that left a region moved to its new owner, the regions
  /// rebalanced when DistributedDef::rebalanceFactor is passed. A dt that
  /// differs between ranks or that World refuses is refused on every rank.
  void step(float dt);

  [[nodiscard]] int rank() const noexcept;
  [[nodiscard]] int ranks() const noexcept;
  /// Every body of every rank, each counted once.
  [[nodiscard]] std::uint64_t bodyCount() const noexcept;
  /// The balls this rank owns, by global id in increasing order.
  [[nodiscard]] std::vector<GlobalId> ownedIds() const;
  /// This rank's region: [min.x, max.x) along x, any y (the outer
  /// regions reach to infinity).
  [[nodiscard]] AABB region() const noexcept;
  /// What this rank steps: its own balls, the ghosts of its neighbours'
  /// (as the last step left them) and the static and kinematic bodies.
  [[nodiscard]] const World& localWorld() const noexcept;
  /// The global id of a body of localWorld().
  [[nodiscard]] GlobalId globalId(BodyId local) const;
  /// Whether this rank owns the ball (a static or kinematic body: false).
  [[nodiscard]] bool owns(GlobalId id) const noexcept;

  /// Collective: every body to rank 0, by global id (other ranks: out
  /// empty).
  void gather(std::vector<GatheredBody>& out) const;
  /// Collective: every body's position to rank 0, by global id (other
  /// ranks: empty).
  [[nodiscard]] std::vector<Vec2> gatherPositions() const;
  /// Collective: the bodies whose shape touches the box, by global id, on
  /// every rank (World::queryBox over all ranks).
  void queryBox(const AABB& box, std::vector<GlobalId>& out) const;
  /// Collective: the nearest hit over all ranks (World::raycast), on every
  /// rank; on a tie the lower global id.
  [[nodiscard]] std::optional<GlobalRayHit> raycast(const Ray& ray) const;
  /// This rank's share of the touching pairs of the last step: each pair of
  /// all ranks is reported by exactly one rank, the owner of its ball of
  /// lower global id. By (a, b).
  void contactPairs(std::vector<GlobalPair>& out) const;
  /// The contact begin events of the last step whose pair this rank
  /// reports (the contactPairs() rule), by global id.
  void contactBeginEvents(std::vector<GlobalPair>& out) const;

  /// Collective: writes a checkpoint into the folder `dir` (created if
  /// need be; every rank must see the same folder): each rank's World
  /// snapshot, what it holds each body as, and the decomposition. Atomic:
  /// `dir/current` names the last complete checkpoint and is replaced (a
  /// file renamed) only once every rank has written and flushed its part,
  /// so a checkpoint cut short (a rank aborted, a full disk) is never read;
  /// the checkpoint before is removed after the switch.
  void checkpoint(const std::string& dir);
  /// Collective: the state of the checkpoint `dir/current` names, written
  /// by a world of the same settings. On as many ranks as wrote it, every
  /// rank takes its own World back and the steps go on bit for bit as they
  /// would have; on another number of ranks, the bodies are dealt to
  /// strips balanced anew, with their state (the contacts' warm start and
  /// the balls' angles start afresh). A missing, damaged or foreign
  /// checkpoint throws quadbin::Error on every rank, the world unchanged.
  void restore(const std::string& dir);

  [[nodiscard]] const DistributedStats& stats() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin::mpi
