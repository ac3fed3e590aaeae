#pragma once
// DistributedWorld's insides: the rank's World and what it holds each body
// as (its own ball, a neighbour's ghost, a shared static or kinematic
// body), the ghost exchange, the migration, the rebalancing and the dense
// order the copies of a border region share.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <quadbin/mpi/distributed_world.hpp>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "exchange.hpp"
#include "strips.hpp"

namespace quadbin::mpi {

namespace detail {

// What a rank's World holds a body as.
enum class Role : std::uint8_t {
  None,    // no body at this local index
  Owned,   // a ball of this rank's region
  Ghost,   // a copy of a neighbour's ball near the border
  Shared,  // a static or kinematic body, held by every rank
};

// A ball on the wire (a ghost or a migrant): its def as created, with the
// state of now.
struct BallRecord {
  GlobalId id = 0;
  BodyDef def;
  float angularVelocity = 0.0f;
  std::uint8_t awake = 1;
};
static_assert(std::is_trivially_copyable_v<BallRecord>);

// A def being created, with its global id.
struct DefRecord {
  GlobalId id = 0;
  BodyDef def;
};

// A hash of the settings every rank must share (DistributedDef).
[[nodiscard]] std::uint64_t fingerprint(const DistributedDef& d);

}  // namespace detail

struct DistributedWorld::Impl {
  using Role = detail::Role;
  using BallRecord = detail::BallRecord;
  Impl(MPI_Comm c, const DistributedDef& d)
      : comm(c),
        rank(rankOf(c)),
        ranks(sizeOf(c)),
        def(d),
        world(localDef(d.world, ranks)),
        strips(ranks, d.world.bounds.min.x, d.world.bounds.max.x) {}

  static int rankOf(MPI_Comm c) {
    int r = 0;
    MPI_Comm_rank(c, &r);
    return r;
  }
  static int sizeOf(MPI_Comm c) {
    int n = 1;
    MPI_Comm_size(c, &n);
    return n;
  }
  // Over several ranks the dense order is the distributed world's
  // (orderBodies), not the World's own Morton renumbering.
  static WorldDef localDef(WorldDef w, int ranks) {
    if (ranks > 1) w.autoLayout = false;
    return w;
  }

  MPI_Comm comm;
  int rank = 0, ranks = 1;
  DistributedDef def;
  World world;
  // By local index: the exchange in which the ball was last sent as a ghost.
  std::vector<std::uint32_t> sent;
  std::uint32_t sentNow = 0;
  detail::Strips strips;
  // By local BodyId::index: the global id, the role, the def as created.
  std::vector<GlobalId> gidOf;
  std::vector<Role> roleOf;
  std::vector<BodyDef> defOf;
  std::vector<std::uint32_t> stamp;
  std::uint32_t stampNow = 0;
  std::unordered_map<GlobalId, BodyId> localOf;
  GlobalId nextId = 0;
  DistributedStats stats;
  detail::Traffic traffic;

  Role role(BodyId id) const { return id.index < roleOf.size() ? roleOf[id.index] : Role::None; }

  void hold(BodyId id, GlobalId g, Role r, const BodyDef& d);
  void forget(std::span<const BodyId> ids);

  BallRecord recordOf(BodyId id) const;
  // The state of `r` on the held body `id` (sleep is only ever woken: putting
  // a held body to sleep would put its island to sleep with it), but for
  // its position: noted in `moving` for moveApplied().
  void apply(BodyId id, const BallRecord& r);
  // The positions apply() noted, set in one World::setPositions call (one
  // count of the pair limit for all).
  void moveApplied();
  struct Moves {
    std::vector<BodyId> ids;
    std::vector<Vec2> to;
  } moving;
  // New bodies for the records, in their order, all held as `as`.
  std::vector<BodyId> create(const std::vector<BallRecord>& recs, Role as);
  // What arrived from other ranks, put in global id order: each record of
  // a body held here goes to `onHeld(id, record)` (a ghost's found by a
  // merge with ghostList(), another's in localOf); the others are
  // returned, in that order, for the caller to create.
  template <class OnHeld>
  std::vector<BallRecord> sortIn(std::vector<BallRecord>& in, OnHeld&& onHeld) {
    std::sort(in.begin(), in.end(),
              [](const BallRecord& a, const BallRecord& b) { return a.id < b.id; });
    const std::vector<std::pair<GlobalId, BodyId>>& ghosts = ghostList();
    std::vector<BallRecord> fresh;
    std::size_t j = 0;
    for (const BallRecord& r : in) {
      while (j < ghosts.size() && ghosts[j].first < r.id) ++j;
      if (j < ghosts.size() && ghosts[j].first == r.id) {
        onHeld(ghosts[j].second, r);
        continue;
      }
      const auto it = localOf.find(r.id);
      if (it == localOf.end()) {
        fresh.push_back(r);
      } else {
        onHeld(it->second, r);
      }
    }
    return fresh;
  }
  // The ghosts by global id, ascending: kept as ghosts come and go, so
  // that the records an exchange or a migration brings (sorted by global
  // id) find their bodies by a merge rather than a lookup each in a table
  // of every body (a cache miss apiece). Read back from a pass over the
  // roles when not valid (after a restore).
  std::vector<std::pair<GlobalId, BodyId>> ghostIds;
  bool ghostIdsValid = false;
  const std::vector<std::pair<GlobalId, BodyId>>& ghostList();
  // ghostIds less the ones no longer ghosts, merged with `more` (sorted).
  void mergeGhostIds(std::span<const std::pair<GlobalId, BodyId>> more);

  // The local bodies with the given role, in dense order; how many.
  std::vector<BodyId> held(Role r);
  [[nodiscard]] std::uint64_t countHeld(Role r) const;
  // World::bodyAt for every dense index, and each body's dense index by
  // BodyId::index: read back once, then kept in step with the creations,
  // destructions and setBodyOrder calls (the World of several ranks
  // renumbers nothing by itself: autoLayout off). checkDense() compares a
  // few entries with the World and reads all back if one differs.
  const std::vector<BodyId>& denseIds();
  void noteCreated(std::span<const BodyId> ids);
  void noteDestroyed(BodyId id);
  void checkDense();
  std::vector<BodyId> dense;
  std::vector<std::uint32_t> denseOf;
  bool denseValid = false;
  // Beside `dense` (valid with it), by dense index: each body's role, and
  // 1 for a ball sent as a ghost in the last exchange. The passes over
  // every body read these in order: the slot-indexed tables are read at
  // random in dense order, a cache miss per body.
  std::vector<Role> roleAt;
  std::vector<std::uint8_t> sentAt;
  // roleOf[id.index] = r, and roleAt and the count of each role with it.
  void setRole(BodyId id, Role r) {
    --roleCount[static_cast<std::size_t>(roleOf[id.index])];
    ++roleCount[static_cast<std::size_t>(r)];
    roleOf[id.index] = r;
    if (denseValid) roleAt[denseOf[id.index]] = r;
  }
  // How many entries of roleOf hold each role (Role::None's wraps: unused).
  std::array<std::uint64_t, 4> roleCount{};

  // Which owned balls a neighbour gets as ghosts: those within `reach` of
  // its strip (two contact layers of the coming step: the ball that may
  // touch one of the neighbour's, and what may touch that one), and from
  // them, up to kDepth links deep, every ball within `link` of a selected
  // one's surface (a cluster on the border goes whole, so that both ranks
  // solve it the same way).
  static constexpr int kDepth = 32;
  static constexpr int kNarrow = 8;  // ghostsFor's first search: links in the nearer band
  struct Halo {
    double reach = 0.0;
    double link = 0.0;
    double radius = 0.0;  // the largest ball's
    // How far from a strip the search may go: kDepth links, each at most
    // two radii and a link long.
    [[nodiscard]] double band() const { return reach + kDepth * (2.0 * radius + link); }
  };

  Halo halo(float dt);

  // Balls the ghost search may reach, by dense index (ascending), with
  // their centres and radii.
  struct Reachable {
    std::vector<std::uint32_t> at;
    std::vector<Vec2> position;
    std::vector<float> radius;
    void clear() {
      at.clear();
      position.clear();
      radius.clear();
    }
    void add(std::uint32_t i, Vec2 p, float r) {
      at.push_back(i);
      position.push_back(p);
      radius.push_back(r);
    }
  };
  // What the migration's pass over every ball after a step notes for the
  // next step's ghost search, so that it does not read every ball again:
  // every ghost and every owned ball outside this rank's strip or within
  // `width` of its edges (a ball farther inside is farther than `width`
  // from every other strip), with their centres and radii. Valid from the
  // migration to the next exchange, unless the World changes otherwise
  // between (createBodies, a rebalance's renumbering, restore); the search
  // uses it for a band up to `width`.
  struct Border {
    bool valid = false;
    double width = 0.0;
    Reachable balls;
  } border;
  // The width the migration notes, over the last halo's band: the next
  // step's may be wider by this much (a faster ball) before its search
  // reads every ball.
  static constexpr double kBorderSlack = 1.5;
  double lastBand = 0.0;
  Reachable scan;  // ghostsFor's balls when the border does not cover its band
  // The balls within `band` of peer q's strip, owned or ghosts: the
  // border's, or those of a pass over every ball into `scan`.
  const Reachable& reachable(int q, double band);

  // The owned balls peer `q` gets as ghosts (Halo), stamped `sent`. The
  // search runs through this rank's ghosts too (as the last step left
  // them), so that a cluster over three strips reaches the far one, on a
  // grid of the band it may reach.
  std::vector<BodyId> ghostsFor(int q, const Halo& h);
  // The search's balls (entries of a Reachable) in cells as wide as the
  // farthest link, hashed into buckets: a cell's balls are its bucket's
  // entries of that cell, in entry order.
  struct CellTable {
    std::vector<std::int64_t> cellX, cellY;  // by entry (of the balls listed)
    std::vector<std::uint32_t> start;        // per bucket, then the end
    std::vector<std::uint32_t> entries;      // by bucket
    std::vector<std::uint32_t> scratch;      // build's cursors
    std::uint64_t mask = 0;
    [[nodiscard]] std::uint64_t bucketOf(std::int64_t x, std::int64_t y) const noexcept {
      std::uint64_t h = static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ull ^
                        static_cast<std::uint64_t>(y) * 0xC2B2AE3D27D4EB4Full;
      return (h ^ (h >> 29)) & mask;
    }
    // The table of `list` (entries whose cellX and cellY are set).
    void build(std::span<const std::uint32_t> list);
  } cellTable;
  // One link of the search: the balls of the table within `reach` of entry
  // k's centre (in the 3 x 3 cells around its own) and not stamped yet,
  // stamped and appended to `chosen`.
  void linked(const Reachable& balls, std::uint32_t k, double reach,
              std::vector<std::uint32_t>& chosen);

  void exchangeGhosts(const Halo& h);
  // The exchange's messages, kept from step to step (withNeighbours).
  struct GhostBuffers {
    std::vector<std::vector<std::byte>> out;
    std::vector<std::byte> in;
    std::vector<BallRecord> records;
  } ghostBuffers;

  // A position's cell in a 2^16 x 2^16 grid over the bounds, in Morton
  // order: the same on every rank.
  std::uint64_t cellOf(Vec2 p) const {
    const AABB& b = def.world.bounds;
    const auto axis = [](float v, float lo, float hi) {
      const double f = (double{v} - lo) / (double{hi} - lo) * 65536.0;
      return static_cast<std::uint64_t>(std::clamp(f, 0.0, 65535.0));
    };
    std::uint64_t x = axis(p.x, b.min.x, b.max.x), y = axis(p.y, b.min.y, b.max.y), key = 0;
    for (int bit = 0; bit < 16; ++bit) {
      key |= ((x >> bit) & 1u) << (2 * bit) | ((y >> bit) & 1u) << (2 * bit + 1);
    }
    return key;
  }
  // The bodies the last exchange leaves near a border, for the
  // orderBodies after it: the shared ones, the balls it sent (some twice)
  // and the ghosts it kept or made.
  std::vector<BodyId> nearNow;
  bool nearValid = false;
  std::vector<BodyId> sharedIds;  // every body held as Role::Shared
  // The dense order every rank's copy of a border region shares: the
  // bodies near a border (ghosts, owned balls sent as ghosts in this step's
  // exchange, the static and kinematic bodies) last, by cell then global id, so that two ranks
  // solve a cluster on their border in the same order and so to the same bits; the other owned
  // balls first, in their order (all of them by cell too when `all`).
  void orderBodies(bool all);

  // Balls outside this rank's region to their owners; what arrives is
  // owned here (a ghost of it becomes the ball, its contacts kept).
  void migrate();

  void rebalanceIfNeeded();

  // Forgets what the tables hold (after World::restore refills the world).
  void resetTables();
  // An empty World and tables, as made (restore on other ranks).
  void restart(GlobalId next);
  // The shared bodies and this rank's balls of the records, created in
  // global id order, with their spin and sleep.
  void createSorted(const std::vector<BallRecord>& shared, const std::vector<BallRecord>& owned);

  void beginCall() {
    stats = {};
    traffic = {};
  }
  void endCall() {
    stats.bytesSent = traffic.bytes;
    stats.communicationMs = traffic.ms;
  }

  // Whether this rank reports the pair (a, b) of its World: the owner of the
  // pair's ball of lower global id does.
  bool reports(BodyId a, BodyId b) const {
    const Role ra = role(a), rb = role(b);
    const bool ballA = ra == Role::Owned || ra == Role::Ghost;
    const bool ballB = rb == Role::Owned || rb == Role::Ghost;
    if (ballA && ballB) return role(gidOf[a.index] < gidOf[b.index] ? a : b) == Role::Owned;
    if (ballA) return ra == Role::Owned;
    if (ballB) return rb == Role::Owned;
    return false;
  }
  GlobalPair pairOf(BodyId a, BodyId b) const {
    const GlobalId ga = gidOf[a.index], gb = gidOf[b.index];
    return {std::min(ga, gb), std::max(ga, gb)};
  }
  // Whether this rank answers for the body in a query: its own balls, and
  // the shared bodies on rank 0.
  bool answersFor(BodyId id) const {
    const Role r = role(id);
    return r == Role::Owned || (r == Role::Shared && rank == 0);
  }
};

}  // namespace quadbin::mpi
