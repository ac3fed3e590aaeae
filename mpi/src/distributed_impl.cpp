#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <quadbin/error.hpp>

#include "distributed_impl.hpp"

namespace quadbin::mpi {

using detail::append;
using detail::records;

namespace {
// (global id, body) pairs by global id (each id once).
const auto byGid = [](const std::pair<GlobalId, BodyId>& a, const std::pair<GlobalId, BodyId>& b) {
  return a.first < b.first;
};
}  // namespace

void DistributedWorld::Impl::hold(BodyId id, GlobalId g, Role r, const BodyDef& d) {
  if (id.index >= gidOf.size()) {
    gidOf.resize(id.index + 1);
    roleOf.resize(id.index + 1, Role::None);
    defOf.resize(id.index + 1);
    stamp.resize(id.index + 1, 0);
  }
  if (id.index < sent.size()) sent[id.index] = 0;
  gidOf[id.index] = g;
  setRole(id, r);
  if (r == Role::Shared) sharedIds.push_back(id);
  defOf[id.index] = d;
  localOf[g] = id;
}

// The bodies destroyed in one call (World::destroyBodies: one pass over
// the contacts for all of them), the dense tables following each removal.
void DistributedWorld::Impl::forget(std::span<const BodyId> ids) {
  for (const BodyId id : ids) {
    localOf.erase(gidOf[id.index]);
    setRole(id, Role::None);
  }
  world.destroyBodies(ids);
  for (const BodyId id : ids) noteDestroyed(id);
}

void DistributedWorld::Impl::noteCreated(std::span<const BodyId> ids) {
  if (!denseValid) return;
  for (const BodyId id : ids) {
    if (id.index >= denseOf.size()) denseOf.resize(id.index + 1);
    denseOf[id.index] = static_cast<std::uint32_t>(dense.size());
    dense.push_back(id);
    roleAt.push_back(role(id));
    sentAt.push_back(0);
  }
}

// World::destroyBody moves the last body into the hole.
void DistributedWorld::Impl::noteDestroyed(BodyId id) {
  if (!denseValid) return;
  const std::uint32_t k = denseOf[id.index];
  const BodyId last = dense.back();
  dense[k] = last;
  denseOf[last.index] = k;
  dense.pop_back();
  roleAt[k] = roleAt.back();
  roleAt.pop_back();
  sentAt[k] = sentAt.back();
  sentAt.pop_back();
}

void DistributedWorld::Impl::checkDense() {
  if (!denseValid) return;
  const auto n = static_cast<std::uint32_t>(dense.size());
  denseValid = n == world.bodyCount() &&
               (n == 0 || (world.bodyAt(0) == dense[0] && world.bodyAt(n / 2) == dense[n / 2] &&
                           world.bodyAt(n - 1) == dense[n - 1]));
}

DistributedWorld::Impl::BallRecord DistributedWorld::Impl::recordOf(BodyId id) const {
  BallRecord r;
  r.id = gidOf[id.index];
  r.def = defOf[id.index];
  r.def.position = world.position(id);
  r.def.velocity = world.velocity(id);
  r.angularVelocity = world.angularVelocity(id);
  r.awake = world.isAwake(id) ? 1 : 0;
  return r;
}

// The state of `r` on the held body `id` (sleep is only ever woken: putting
// a held body to sleep would put its island to sleep with it).
// A ghost whose two solves agreed already holds its owner's state, to the
// bit: nothing is set (a set position is checked against the pair limit
// and noted for the queries).
void DistributedWorld::Impl::apply(BodyId id, const BallRecord& r) {
  defOf[id.index] = r.def;
  const auto same = [](Vec2 a, Vec2 b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  };
  if (!same(world.position(id), r.def.position)) {
    moving.ids.push_back(id);
    moving.to.push_back(r.def.position);
  }
  if (!same(world.velocity(id), r.def.velocity)) world.setVelocity(id, r.def.velocity);
  if (std::bit_cast<std::uint32_t>(world.angularVelocity(id)) !=
      std::bit_cast<std::uint32_t>(r.angularVelocity)) {
    world.setAngularVelocity(id, r.angularVelocity);
  }
  if (r.awake != 0 && !world.isAwake(id)) world.setAwake(id, true);
}

void DistributedWorld::Impl::moveApplied() {
  world.setPositions(moving.ids, moving.to);
  moving.ids.clear();
  moving.to.clear();
}

// New bodies for the records, in their order, all held as `as`.
std::vector<BodyId> DistributedWorld::Impl::create(const std::vector<BallRecord>& recs, Role as) {
  if (recs.empty()) return {};
  std::vector<BodyDef> defs;
  defs.reserve(recs.size());
  for (const BallRecord& r : recs) defs.push_back(r.def);
  std::vector<BodyId> ids = world.createBodies(defs);
  noteCreated(ids);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    hold(ids[k], recs[k].id, as, recs[k].def);
    world.setAngularVelocity(ids[k], recs[k].angularVelocity);
    if (recs[k].awake == 0) world.setAwake(ids[k], false);
  }
  return ids;
}

std::uint64_t DistributedWorld::Impl::countHeld(Role r) const {
  assert(r != Role::None);
  assert(roleCount[static_cast<std::size_t>(r)] ==
         static_cast<std::uint64_t>(std::count(roleOf.begin(), roleOf.end(), r)));
  return roleCount[static_cast<std::size_t>(r)];
}

const std::vector<std::pair<GlobalId, BodyId>>& DistributedWorld::Impl::ghostList() {
  if (!ghostIdsValid) {
    ghostIds.clear();
    for (const BodyId id : held(Role::Ghost)) ghostIds.emplace_back(gidOf[id.index], id);
    std::sort(ghostIds.begin(), ghostIds.end(), byGid);
    ghostIdsValid = true;
  }
  return ghostIds;
}

void DistributedWorld::Impl::mergeGhostIds(std::span<const std::pair<GlobalId, BodyId>> more) {
  // The entries still ghosts: every entry is a live body until its ghost
  // is forgotten, which drops it here first.
  std::erase_if(ghostIds, [&](const auto& e) { return role(e.second) != Role::Ghost; });
  const auto middle = static_cast<std::ptrdiff_t>(ghostIds.size());
  ghostIds.insert(ghostIds.end(), more.begin(), more.end());
  std::inplace_merge(ghostIds.begin(), ghostIds.begin() + middle, ghostIds.end(), byGid);
  assert(std::is_sorted(ghostIds.begin(), ghostIds.end(), byGid) &&
         static_cast<std::uint64_t>(ghostIds.size()) == countHeld(Role::Ghost));
}

// The local bodies with the given role, in dense order.
std::vector<BodyId> DistributedWorld::Impl::held(Role r) {
  std::vector<BodyId> out;
  const std::vector<BodyId>& ids = denseIds();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (roleAt[i] == r) out.push_back(ids[i]);
  }
  return out;
}

const std::vector<BodyId>& DistributedWorld::Impl::denseIds() {
  if (!denseValid) {
    dense.resize(world.bodyCount());
    roleAt.resize(dense.size());
    sentAt.resize(dense.size());
    for (std::uint32_t i = 0; i < dense.size(); ++i) {
      dense[i] = world.bodyAt(i);
      if (dense[i].index >= denseOf.size()) denseOf.resize(dense[i].index + 1);
      denseOf[dense[i].index] = i;
      roleAt[i] = role(dense[i]);
      sentAt[i] = dense[i].index < sent.size() && sent[dense[i].index] == sentNow && sentNow != 0;
    }
    denseValid = true;
  }
  return dense;
}

DistributedWorld::Impl::Halo DistributedWorld::Impl::halo(float dt) {
  double mine[2] = {0.0, 0.0}, all[2] = {0.0, 0.0};
  const std::vector<BodyId>& ids = denseIds();
  const auto radii = world.radii();
  const auto velocities = world.velocities();
  // The largest radius and squared speed of the owned balls, one square
  // root. Both are >= 0, so their bits order as they do: an integer max,
  // without branches, vectorizes.
  std::uint32_t radius = 0, speed2 = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::uint32_t owned = roleAt[i] == Role::Owned ? ~0u : 0u;
    radius = std::max(radius, std::bit_cast<std::uint32_t>(radii[i]) & owned);
    speed2 = std::max(speed2, std::bit_cast<std::uint32_t>(lengthSquared(velocities[i])) & owned);
  }
  mine[0] = std::bit_cast<float>(radius);
  mine[1] = std::sqrt(std::bit_cast<float>(speed2));  // the largest length(v): sqrt is monotone
  {
    const detail::Timed timed(traffic);
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm);
  }
  const double g = length(world.gravity());
  const double travel = (all[1] + g * dt) * dt;
  Halo h;
  h.radius = all[0];
  h.link = (all[0] + 2.0 * travel) * 1.001 + 1e-6;
  h.reach = 2.0 * (2.0 * all[0] + 2.0 * travel) * 1.001 + 1e-6;
  lastBand = h.band();
  return h;
}

void DistributedWorld::Impl::exchangeGhosts(const Halo& h) {
  const std::vector<int> peers = strips.neighbours(rank, h.band());
  ++sentNow;
  sent.resize(stamp.size(), 0);
  denseIds();
  std::fill(sentAt.begin(), sentAt.end(), std::uint8_t{0});
  std::vector<std::vector<std::byte>>& out = ghostBuffers.out;
  out.resize(peers.size());
  nearNow.clear();  // the bodies orderBodies puts last: shared, sent, ghosts
  nearNow.insert(nearNow.end(), sharedIds.begin(), sharedIds.end());
  for (std::size_t k = 0; k < peers.size(); ++k) {
    out[k].clear();
    for (const BodyId id : ghostsFor(peers[k], h)) {
      append(out[k], recordOf(id));
      nearNow.push_back(id);  // a ball sent to two peers twice
    }
  }
  std::vector<BallRecord>& in = ghostBuffers.records;
  detail::recordsInto(detail::withNeighbours(comm, peers, out, ghostBuffers.in, traffic), in);
  ++stampNow;
  const std::vector<BallRecord> fresh = sortIn(in, [&](BodyId id, const BallRecord& r) {
    if (role(id) != Role::Ghost) return;  // never: only owners send
    apply(id, r);
    stamp[id.index] = stampNow;
  });
  moveApplied();
  // The ghosts no owner refreshed, destroyed in dense order (as a pass
  // over the roles lists them); the others kept.
  std::vector<BodyId> stale;
  std::vector<std::pair<GlobalId, BodyId>>& ghosts = ghostIds;
  (void)ghostList();
  std::size_t kept = 0;  // the kept ones stay in ghostIds, in order
  for (std::size_t k = 0; k < ghosts.size(); ++k) {
    const BodyId id = ghosts[k].second;
    if (stamp[id.index] != stampNow) {
      stale.push_back(id);
    } else {
      ghosts[kept++] = ghosts[k];
      nearNow.push_back(id);
    }
  }
  ghosts.resize(kept);  // before the removals free their slots
  std::sort(stale.begin(), stale.end(),
            [&](BodyId a, BodyId b) { return denseOf[a.index] < denseOf[b.index]; });
  border.valid = false;  // the removals renumber
  forget(stale);
  const std::vector<BodyId> made = create(fresh, Role::Ghost);
  nearNow.insert(nearNow.end(), made.begin(), made.end());
  nearValid = true;
  std::vector<std::pair<GlobalId, BodyId>> more;  // by global id, as fresh is
  for (std::size_t k = 0; k < made.size(); ++k) more.emplace_back(fresh[k].id, made[k]);
  mergeGhostIds(more);
  stats.ghosts = static_cast<std::uint32_t>(in.size());
}

// The dense order every rank's copy of a border region shares: the
// bodies near a border (ghosts, owned balls within the reach of a
// neighbour's strip, the static and kinematic bodies) last, by cell then
// global id, so that two ranks solve a cluster on their border in the
// same order and so to the same bits; the other owned balls first (all of
// them by cell too when `all`). Those keep their dense index where it is
// in the first part, and the ones past it fill the holes the border
// bodies left, in order: a step renumbers the border and its holes, not
// the world (World::setBodyOrder moves only the bodies that change place).
void DistributedWorld::Impl::orderBodies(bool all) {
  if (all) border.valid = false;  // every body may move
  const std::vector<BodyId>& ids = denseIds();
  const auto n = static_cast<std::uint32_t>(ids.size());
  const auto isNear = [&](std::uint32_t i) { return roleAt[i] != Role::Owned || sentAt[i] != 0; };
  // The border (every body when `all`) sorted by cell then global id, and where
  // its bodies are now: after an exchange from the bodies it listed (nearNow),
  // else from a pass over every body.
  std::vector<std::pair<std::pair<std::uint64_t, GlobalId>, BodyId>> sorted;
  std::vector<std::uint32_t> nearAt;
  const std::span<const Vec2> positions = all ? world.positions() : std::span<const Vec2>{};
  if (nearValid && !all) {
    for (const BodyId id : nearNow) nearAt.push_back(denseOf[id.index]);
    std::sort(nearAt.begin(), nearAt.end());
    nearAt.erase(std::unique(nearAt.begin(), nearAt.end()), nearAt.end());
    assert(std::all_of(nearAt.begin(), nearAt.end(), isNear) &&
           static_cast<std::size_t>(std::count_if(roleAt.begin(), roleAt.end(),
                                                  [](Role r) { return r != Role::Owned; })) +
                   static_cast<std::size_t>(std::count(sentAt.begin(), sentAt.end(), 1)) ==
               nearAt.size());
    for (const std::uint32_t i : nearAt) {
      sorted.push_back(
          {{std::uint64_t{1} << 32 | cellOf(world.position(ids[i])), gidOf[ids[i].index]}, ids[i]});
    }
  } else {
    for (std::uint32_t i = 0; i < n; ++i) {
      const bool near = isNear(i);
      if (!near && !all) continue;
      if (near) nearAt.push_back(i);
      const Vec2 p = all ? positions[i] : world.position(ids[i]);
      sorted.push_back(
          {{(near ? std::uint64_t{1} << 32 : 0) | cellOf(p), gidOf[ids[i].index]}, ids[i]});
    }
  }
  nearValid = false;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto inner = static_cast<std::uint32_t>(n - sorted.size());
  // The places that change and their new bodies: the holes (border
  // bodies in the first part, nearAt's first entries) filled in order by
  // the inner balls past it (none when `all`: the border is everything),
  // then the border where it differs.
  std::vector<std::uint32_t> at;
  std::vector<BodyId> bodies;
  std::size_t hole = 0;
  for (std::uint32_t i = inner; i < n && !all; ++i) {
    if (isNear(i)) continue;
    at.push_back(nearAt[hole++]);
    bodies.push_back(ids[i]);
  }
  for (std::uint32_t k = 0; k < sorted.size(); ++k) {
    if (sorted[k].second == ids[inner + k]) continue;
    at.push_back(inner + k);
    bodies.push_back(sorted[k].second);
  }
  if (at.empty()) return;                              // in order already
  std::vector<std::pair<Role, std::uint8_t>> brought;  // what each brings along
  for (const BodyId id : bodies) {
    const std::uint32_t from = denseOf[id.index];
    brought.emplace_back(roleAt[from], sentAt[from]);
  }
  world.setBodyOrder(at, bodies);
  for (std::size_t j = 0; j < at.size(); ++j) {
    const std::uint32_t k = at[j];
    dense[k] = bodies[j];
    denseOf[bodies[j].index] = k;
    roleAt[k] = brought[j].first;
    sentAt[k] = brought[j].second;
  }
}

// Balls outside this rank's region to their owners; what arrives is
// owned here (a ghost of it becomes the ball, its contacts kept). The
// same pass over every ball notes the next step's border (Border).
void DistributedWorld::Impl::migrate() {
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(ranks));
  const std::vector<BodyId>& ids = denseIds();
  const auto positions = world.positions();
  const auto radii = world.radii();
  const double lo = strips.lo(rank), hi = strips.hi(rank);
  const double width = kBorderSlack * lastBand;
  Reachable& near = border.balls;
  near.clear();
  (void)ghostList();                              // read before any role changes, if it must be
  std::vector<std::pair<GlobalId, BodyId>> left;  // the leavers, ghosts here now
  // Far inside, in floats: x > innerLo and x < innerHi imply x - lo >
  // width and hi - x > width (the bounds rounded inwards), and most balls
  // pass that test alone. A ball at the test's edge joins the border
  // though it need not: it is half a band from any search.
  const float innerLo = std::nextafter(static_cast<float>(lo + width), INFINITY);
  const float innerHi = std::nextafter(static_cast<float>(hi - width), -INFINITY);
  const Vec2* at = positions.data();
  const Role* roles = roleAt.data();
  for (std::uint32_t i = 0; i < ids.size(); ++i) {
    const Role role = roles[i];
    const float xf = at[i].x;
    if ((role == Role::Owned) & (xf > innerLo) & (xf < innerHi)) continue;  // far inside
    if (role == Role::Owned) {
      const double x = xf;
      if (!(x >= lo && x < hi)) {
        const int to = strips.owner(x);
        if (to != rank) {
          const BodyId id = ids[i];
          append(out[static_cast<std::size_t>(to)], recordOf(id));
          setRole(id, Role::Ghost);  // refreshed or dropped by the next exchange
          left.emplace_back(gidOf[id.index], id);
          ++stats.migrated;
        }
      }
    } else if (role != Role::Ghost) {
      continue;
    }
    near.add(i, at[i], radii[i]);  // a ghost, a leaver (a ghost now), a ball near an edge
  }
  std::vector<BallRecord> in = records<BallRecord>(detail::allToAll(comm, out, traffic));
  std::vector<BodyId> arrived;
  std::vector<BallRecord> fresh = sortIn(in, [&](BodyId id, const BallRecord& r) {
    apply(id, r);
    setRole(id, Role::Owned);
    arrived.push_back(id);
  });
  moveApplied();
  // The ghosts that became owned here, with their owner's state: each is
  // in the border (every ghost is), found by its dense index.
  bool whole = true;
  for (const BodyId id : arrived) {
    const auto it = std::lower_bound(near.at.begin(), near.at.end(), denseOf[id.index]);
    whole = whole && it != near.at.end() && *it == denseOf[id.index];
    if (!whole) break;
    near.position[static_cast<std::size_t>(it - near.at.begin())] = world.position(id);
  }
  for (const BodyId id : create(fresh, Role::Owned)) {  // appended: dense order kept
    near.add(denseOf[id.index], world.position(id), world.radius(id));
  }
  border.width = width;
  border.valid = whole && lastBand > 0.0;
  std::sort(left.begin(), left.end(), byGid);
  mergeGhostIds(left);
}

void DistributedWorld::Impl::rebalanceIfNeeded() {
  std::uint64_t mine = countHeld(Role::Owned), most = 0, sum = 0;
  {
    const detail::Timed timed(traffic);
    MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
    MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, comm);
  }
  const double mean = static_cast<double>(sum) / ranks;
  stats.imbalance = sum == 0 ? 1.0f : static_cast<float>(static_cast<double>(most) / mean);
  if (sum < static_cast<std::uint64_t>(ranks) || stats.imbalance <= def.rebalanceFactor) return;
  std::vector<double> xs;
  const std::vector<BodyId>& ids = denseIds();
  const auto positions = world.positions();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (roleAt[i] == Role::Owned) xs.push_back(positions[i].x);
  }
  {
    const detail::Timed timed(traffic);
    strips.setCuts(detail::balancedCuts(comm, xs, def.world.bounds.min.x, def.world.bounds.max.x));
  }
  migrate();
  orderBodies(true);
  stats.rebalanced = true;
  mine = countHeld(Role::Owned);
  {
    const detail::Timed timed(traffic);
    MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
  }
  stats.imbalance = static_cast<float>(static_cast<double>(most) / mean);
}

void DistributedWorld::Impl::resetTables() {
  border.valid = nearValid = ghostIdsValid = false;
  sharedIds.clear();
  gidOf.clear();
  roleOf.clear();
  roleCount = {};
  defOf.clear();
  stamp.clear();
  sent.clear();
  localOf.clear();
  stampNow = sentNow = 0;
  denseValid = false;
}

void DistributedWorld::Impl::restart(GlobalId next) {
  world = World(localDef(def.world, ranks));
  resetTables();
  nextId = next;
}

void DistributedWorld::Impl::createSorted(const std::vector<BallRecord>& shared,
                                          const std::vector<BallRecord>& owned) {
  std::vector<std::pair<const BallRecord*, Role>> all;
  all.reserve(shared.size() + owned.size());
  for (const BallRecord& r : shared) all.emplace_back(&r, Role::Shared);
  for (const BallRecord& r : owned) all.emplace_back(&r, Role::Owned);
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.first->id < b.first->id; });
  std::vector<BodyDef> defs;
  defs.reserve(all.size());
  for (const auto& [r, role] : all) defs.push_back(r->def);
  const std::vector<BodyId> ids = world.createBodies(defs);
  noteCreated(ids);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const BallRecord& r = *all[k].first;
    hold(ids[k], r.id, all[k].second, r.def);
    if (r.def.type != BodyType::StaticBox && r.angularVelocity != 0.0f) {
      world.setAngularVelocity(ids[k], r.angularVelocity);
    }
    if (r.def.type == BodyType::Ball && r.awake == 0) world.setAwake(ids[k], false);
  }
}

}  // namespace quadbin::mpi
