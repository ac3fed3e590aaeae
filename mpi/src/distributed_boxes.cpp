#include <algorithm>
#include <cmath>
#include <quadbin/error.hpp>
#include <quadbin/mpi/distributed_boxes.hpp>
#include <string>

#include "exchange.hpp"
#include "strips.hpp"

namespace quadbin::mpi {

using detail::append;
using detail::records;

void advance(MovingBall& b, double minX, double minY, double maxX, double maxY,
             double dt) noexcept {
  double x = b.x + b.vx * dt;
  if (x < minX + b.r) {
    x = minX + b.r;
    b.vx = -b.vx;
  } else if (x > maxX - b.r) {
    x = maxX - b.r;
    b.vx = -b.vx;
  }
  double y = b.y + b.vy * dt;
  if (y < minY + b.r) {
    y = minY + b.r;
    b.vy = -b.vy;
  } else if (y > maxY - b.r) {
    y = maxY - b.r;
    b.vy = -b.vy;
  }
  b.x = x;
  b.y = y;
}

AABB boxOf(const MovingBall& b) noexcept {
  return {{static_cast<float>(b.x - b.r), static_cast<float>(b.y - b.r)},
          {static_cast<float>(b.x + b.r), static_cast<float>(b.y + b.r)}};
}

namespace {

bool byId(const MovingBall& a, const MovingBall& b) { return a.id < b.id; }

}  // namespace

struct DistributedBoxes::Impl {
  Impl(MPI_Comm c, double x0, double y0, double x1, double y1, BroadPhaseType type)
      : comm(c), minX(x0), minY(y0), maxX(x1), maxY(y1), strips(1, x0, x1) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    strips = detail::Strips(ranks, x0, x1);
    broadPhase = makeBroadPhase(type);
    broadPhase->setBounds({{static_cast<float>(x0), static_cast<float>(y0)},
                           {static_cast<float>(x1), static_cast<float>(y1)}});
  }

  MPI_Comm comm;
  int rank = 0, ranks = 1;
  double minX, minY, maxX, maxY;
  detail::Strips strips;
  std::unique_ptr<BroadPhase> broadPhase;
  std::vector<MovingBall> owned, ghosts;
  std::vector<AABB> boxes;
  std::vector<Pair> local;
  std::vector<GlobalPair> pairs;
  double maxRadius = 0.0;
  DistributedStats stats;
  detail::Traffic traffic;

  // Owned balls outside this rank's strip to their owners.
  void migrate() {
    std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(ranks));
    std::size_t kept = 0;
    for (const MovingBall& b : owned) {
      const int to = strips.owner(b.x);
      if (to == rank) {
        owned[kept++] = b;
      } else {
        append(out[static_cast<std::size_t>(to)], b);
        ++stats.migrated;
      }
    }
    owned.resize(kept);
    for (const MovingBall& b : records<MovingBall>(detail::allToAll(comm, out, traffic))) {
      owned.push_back(b);
    }
    std::sort(owned.begin(), owned.end(), byId);
  }

  void rebalanceIfNeeded() {
    std::uint64_t mine = owned.size(), most = 0, sum = 0;
    {
      const detail::Timed timed(traffic);
      MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
      MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
    }
    const double mean = static_cast<double>(sum) / ranks;
    stats.imbalance = sum == 0 ? 1.0f : static_cast<float>(static_cast<double>(most) / mean);
    if (sum < static_cast<std::uint64_t>(ranks) || stats.imbalance <= 1.25f) return;
    std::vector<double> xs;
    xs.reserve(owned.size());
    for (const MovingBall& b : owned) xs.push_back(b.x);
    {
      const detail::Timed timed(traffic);
      strips.setCuts(detail::balancedCuts(comm, xs, minX, maxX));
    }
    migrate();
    stats.rebalanced = true;
  }

  // Ghosts within one diameter (the largest) of the strip, then the broad
  // phase over owned and ghost boxes; a pair is this rank's when it owns
  // the ball of lower id (the other is then here, owned or a ghost: the
  // two overlap, so they are nearer than the halo).
  void findPairs() {
    double mine = 0.0;
    for (const MovingBall& b : owned) mine = std::max(mine, b.r);
    {
      const detail::Timed timed(traffic);
      MPI_Allreduce(&mine, &maxRadius, 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    const double reach = 2.0 * maxRadius * 1.001 + 1e-9;
    const std::vector<int> peers = strips.neighbours(rank, reach);
    std::vector<std::vector<std::byte>> out(peers.size());
    for (const MovingBall& b : owned) {
      for (std::size_t k = 0; k < peers.size(); ++k) {
        if (strips.distance(peers[k], b.x) <= reach) append(out[k], b);
      }
    }
    std::vector<std::byte> in;
    ghosts = records<MovingBall>(detail::withNeighbours(comm, peers, out, in, traffic));
    std::sort(ghosts.begin(), ghosts.end(), byId);
    stats.ghosts = static_cast<std::uint32_t>(ghosts.size());
    boxes.clear();
    for (const MovingBall& b : owned) boxes.push_back(boxOf(b));
    for (const MovingBall& b : ghosts) boxes.push_back(boxOf(b));
    broadPhase->update(boxes);
    local.clear();
    broadPhase->findPairs(local);
    pairs.clear();
    const auto idOf = [&](std::uint32_t i) {
      return i < owned.size() ? owned[i].id : ghosts[i - owned.size()].id;
    };
    for (const Pair p : local) {
      const GlobalId a = idOf(p.a), b = idOf(p.b);
      const std::uint32_t lower = a < b ? p.a : p.b;
      if (lower < owned.size()) pairs.push_back({std::min(a, b), std::max(a, b)});
    }
    std::sort(pairs.begin(), pairs.end());
  }
  void beginCall() {
    stats = {};
    traffic = {};
  }
  void endCall() {
    stats.bytesSent = traffic.bytes;
    stats.communicationMs = traffic.ms;
  }
};

DistributedBoxes::DistributedBoxes(MPI_Comm comm, double minX, double minY, double maxX,
                                   double maxY, BroadPhaseType type) {
  std::string failure;
  if (!(minX < maxX && minY < maxY) || !std::isfinite(maxX - minX) || !std::isfinite(maxY - minY)) {
    failure = "the bounds must be finite with min < max";
  }
  failure = detail::agreeOnFailure(comm, failure);
  if (!failure.empty()) throw Error("DistributedBoxes: " + failure);
  impl_ = std::make_unique<Impl>(comm, minX, minY, maxX, maxY, type);
}

DistributedBoxes::~DistributedBoxes() = default;

void DistributedBoxes::add(std::span<const MovingBall> balls) {
  Impl& w = *impl_;
  w.beginCall();
  std::string failure;
  for (const MovingBall& b : balls) {
    if (!std::isfinite(b.x) || !std::isfinite(b.y) || !std::isfinite(b.vx) ||
        !std::isfinite(b.vy) || !(b.r > 0.0) || !std::isfinite(b.r)) {
      failure = "ball " + std::to_string(b.id) + ": not finite, or r <= 0";
      break;
    }
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedBoxes::add: " + failure);
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(w.ranks));
  for (const MovingBall& b : balls) append(out[static_cast<std::size_t>(w.strips.owner(b.x))], b);
  std::vector<MovingBall> in = records<MovingBall>(detail::allToAll(w.comm, out, w.traffic));
  // Ids must be unique over all ranks: every id held or arriving goes to
  // rank id % ranks, which looks for a repeat.
  std::vector<std::vector<std::byte>> byHash(static_cast<std::size_t>(w.ranks));
  const auto ranks = static_cast<GlobalId>(w.ranks);
  for (const MovingBall& b : w.owned) append(byHash[b.id % ranks], b.id);
  for (const MovingBall& b : in) append(byHash[b.id % ranks], b.id);
  std::vector<GlobalId> ids = records<GlobalId>(detail::allToAll(w.comm, byHash, w.traffic));
  std::sort(ids.begin(), ids.end());
  const auto twice = std::adjacent_find(ids.begin(), ids.end());
  failure = twice != ids.end() ? "id " + std::to_string(*twice) + " given twice" : "";
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedBoxes::add: " + failure);
  w.owned.insert(w.owned.end(), in.begin(), in.end());
  std::sort(w.owned.begin(), w.owned.end(), byId);
  w.rebalanceIfNeeded();
  w.endCall();
}

void DistributedBoxes::frame(double dt) {
  Impl& w = *impl_;
  w.beginCall();
  for (MovingBall& b : w.owned) advance(b, w.minX, w.minY, w.maxX, w.maxY, dt);
  w.migrate();
  w.rebalanceIfNeeded();
  w.findPairs();
  w.endCall();
}

void DistributedBoxes::findPairs() {
  Impl& w = *impl_;
  w.beginCall();
  w.findPairs();
  w.endCall();
}

std::span<const GlobalPair> DistributedBoxes::pairs() const noexcept { return impl_->pairs; }
std::span<const MovingBall> DistributedBoxes::owned() const noexcept { return impl_->owned; }
std::uint32_t DistributedBoxes::ghosts() const noexcept { return impl_->stats.ghosts; }
const DistributedStats& DistributedBoxes::stats() const noexcept { return impl_->stats; }

}  // namespace quadbin::mpi
