#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <exception>
#include <quadbin/error.hpp>
#include <quadbin/mpi/distributed_world.hpp>
#include <string>
#include <type_traits>

#include "distributed_impl.hpp"

namespace quadbin::mpi {

namespace {

using detail::append;
using detail::records;
using Role = detail::Role;
using detail::DefRecord;

// A candidate of raycast() from one rank.
struct RayCandidate {
  float t = 0.0f;
  std::uint8_t kind = 0;  // 0: no hit, 1: a body, 2: a wall
  WallSide wall = WallSide::None;
  GlobalId id = 0;
  Vec2 point, normal;
};

// FNV-1a over the settings every rank must share.
class Fingerprint {
 public:
  template <class T>
  Fingerprint& add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (const unsigned char b : bytes) hash_ = (hash_ ^ b) * 1099511628211ull;
    return *this;
  }
  [[nodiscard]] std::uint64_t value() const noexcept { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

}  // namespace

std::uint64_t detail::fingerprint(const DistributedDef& d) {
  const WorldDef& w = d.world;
  Fingerprint f;
  f.add(w.bounds.min.x).add(w.bounds.min.y).add(w.bounds.max.x).add(w.bounds.max.y);
  f.add(w.boundary).add(w.gravity.x).add(w.gravity.y).add(w.restitution);
  f.add(w.restitutionThreshold.has_value()).add(w.restitutionThreshold.value_or(0.0f));
  f.add(w.enableSleep).add(w.sleepThreshold).add(w.timeToSleep).add(w.broadPhase);
  f.add(w.velocityIterations).add(w.solverPasses).add(w.positionPasses).add(w.wallFriction);
  f.add(w.hitEventThreshold).add(w.autoLayout).add(d.rebalanceFactor);
  return f.value();
}

DistributedWorld::DistributedWorld(MPI_Comm comm, const DistributedDef& def) {
  std::string failure;
  if (!(def.rebalanceFactor > 1.0f) || !std::isfinite(def.rebalanceFactor)) {
    failure = "rebalanceFactor must be finite and > 1";
  }
  std::unique_ptr<Impl> impl;
  if (failure.empty()) {
    try {
      impl = std::make_unique<Impl>(comm, def);
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  failure = detail::agreeOnFailure(comm, failure);
  if (failure.empty() && !detail::allEqual(comm, detail::fingerprint(def))) {
    failure = "the ranks passed different settings";
  }
  if (!failure.empty()) throw Error("DistributedWorld: " + failure);
  impl_ = std::move(impl);
}

DistributedWorld::~DistributedWorld() = default;

std::vector<GlobalId> DistributedWorld::createBodies(std::span<const BodyDef> defs) {
  Impl& w = *impl_;
  w.beginCall();
  w.border.valid = false;  // the new bodies are in no border
  std::uint64_t count = defs.size(), base = 0, total = 0;
  {
    const detail::Timed timed(w.traffic);
    MPI_Exscan(&count, &base, 1, MPI_UINT64_T, MPI_SUM, w.comm);
    MPI_Allreduce(&count, &total, 1, MPI_UINT64_T, MPI_SUM, w.comm);
  }
  if (w.rank == 0) base = 0;  // MPI_Exscan leaves rank 0's undefined
  std::vector<GlobalId> ids(defs.size());
  std::vector<std::byte> shared;
  std::vector<std::vector<std::byte>> balls(static_cast<std::size_t>(w.ranks));
  for (std::size_t k = 0; k < defs.size(); ++k) {
    ids[k] = w.nextId + base + k;
    const DefRecord r{ids[k], defs[k]};
    if (defs[k].type == BodyType::Ball) {
      append(balls[static_cast<std::size_t>(w.strips.owner(defs[k].position.x))], r);
    } else {
      append(shared, r);
    }
  }
  std::vector<DefRecord> mine = records<DefRecord>(detail::allGather(w.comm, shared, w.traffic));
  const std::size_t sharedCount = mine.size();
  for (const DefRecord& r : records<DefRecord>(detail::allToAll(w.comm, balls, w.traffic))) {
    mine.push_back(r);
  }
  std::vector<std::size_t> order(mine.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return mine[a].id < mine[b].id; });
  std::vector<BodyDef> list;
  list.reserve(mine.size());
  for (const std::size_t k : order) list.push_back(mine[k].def);
  std::vector<BodyId> made;
  std::string failure;
  try {
    made = w.world.createBodies(list);
    w.noteCreated(made);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) {
    for (std::size_t k = made.size(); k-- > 0;) {
      w.world.destroyBody(made[k]);
      w.noteDestroyed(made[k]);
    }
    throw Error("DistributedWorld::createBodies: " + failure);
  }
  for (std::size_t k = 0; k < made.size(); ++k) {
    const DefRecord& r = mine[order[k]];
    w.hold(made[k], r.id, order[k] < sharedCount ? Role::Shared : Role::Owned, r.def);
  }
  w.nextId += total;
  w.rebalanceIfNeeded();
  if (w.ranks > 1 && !w.stats.rebalanced) w.orderBodies(true);
  w.endCall();
  return ids;
}

void DistributedWorld::step(float dt) {
  Impl& w = *impl_;
  w.beginCall();
  if (!detail::allEqual(w.comm, std::bit_cast<std::uint32_t>(dt))) {
    throw Error("DistributedWorld::step: dt differs between ranks");
  }
  if (!(dt >= limits::kMinDt && dt <= limits::kMaxDt)) {
    throw Error("DistributedWorld::step: dt " + std::to_string(dt) + " outside [" +
                std::to_string(limits::kMinDt) + ", " + std::to_string(limits::kMaxDt) + "]");
  }
  if (w.ranks > 1) {
    w.checkDense();
    w.exchangeGhosts(w.halo(dt));
    w.orderBodies(false);
  }
  std::string failure;
  const auto start = std::chrono::steady_clock::now();
  try {
    w.world.step(dt);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  w.stats.stepMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (w.ranks == 1) w.denseValid = false;  // autoLayout may have renumbered
  if (w.ranks > 1) {
    failure = detail::agreeOnFailure(w.comm, failure);
  } else if (!failure.empty()) {
    failure = "rank 0: " + failure;
  }
  if (!failure.empty()) throw Error("DistributedWorld::step: " + failure);
  if (w.ranks > 1) {
    w.migrate();
    w.rebalanceIfNeeded();
  }
  w.endCall();
}

int DistributedWorld::rank() const noexcept { return impl_->rank; }
int DistributedWorld::ranks() const noexcept { return impl_->ranks; }
std::uint64_t DistributedWorld::bodyCount() const noexcept { return impl_->nextId; }

std::vector<GlobalId> DistributedWorld::ownedIds() const {
  std::vector<GlobalId> out;
  for (const BodyId id : impl_->held(Role::Owned)) out.push_back(impl_->gidOf[id.index]);
  std::sort(out.begin(), out.end());
  return out;
}

AABB DistributedWorld::region() const noexcept {
  const float inf = std::numeric_limits<float>::infinity();
  return {{static_cast<float>(impl_->strips.lo(impl_->rank)), -inf},
          {static_cast<float>(impl_->strips.hi(impl_->rank)), inf}};
}

const World& DistributedWorld::localWorld() const noexcept { return impl_->world; }

GlobalId DistributedWorld::globalId(BodyId local) const {
  if (!impl_->world.isValid(local) || impl_->role(local) == Role::None) {
    throw Error("DistributedWorld::globalId: not a body of localWorld()");
  }
  return impl_->gidOf[local.index];
}

bool DistributedWorld::owns(GlobalId id) const noexcept {
  const auto it = impl_->localOf.find(id);
  return it != impl_->localOf.end() && impl_->role(it->second) == Role::Owned;
}

void DistributedWorld::gather(std::vector<GatheredBody>& out) const {
  const Impl& w = *impl_;
  std::vector<std::byte> mine;
  for (std::uint32_t i = 0; i < w.world.bodyCount(); ++i) {
    const BodyId id = w.world.bodyAt(i);
    if (!w.answersFor(id)) continue;
    append(mine, GatheredBody{w.gidOf[id.index], w.world.type(id), w.world.position(id),
                              w.world.velocity(id), w.world.radius(id), w.world.mass(id)});
  }
  detail::Traffic traffic;
  out = records<GatheredBody>(detail::gatherToRoot(w.comm, mine, traffic));
  std::sort(out.begin(), out.end(),
            [](const GatheredBody& a, const GatheredBody& b) { return a.id < b.id; });
}

std::vector<Vec2> DistributedWorld::gatherPositions() const {
  std::vector<GatheredBody> all;
  gather(all);
  std::vector<Vec2> out;
  out.reserve(all.size());
  for (const GatheredBody& b : all) out.push_back(b.position);
  return out;
}

void DistributedWorld::queryBox(const AABB& box, std::vector<GlobalId>& out) const {
  const Impl& w = *impl_;
  std::vector<BodyId> found;
  std::string failure;
  try {
    w.world.queryBox(box, found);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedWorld::queryBox: " + failure);
  std::vector<std::byte> mine;
  for (const BodyId id : found) {
    if (w.answersFor(id)) append(mine, w.gidOf[id.index]);
  }
  detail::Traffic traffic;
  out = records<GlobalId>(detail::allGather(w.comm, mine, traffic));
  std::sort(out.begin(), out.end());
}

std::optional<GlobalRayHit> DistributedWorld::raycast(const Ray& ray) const {
  const Impl& w = *impl_;
  std::vector<RayHit> hits;
  std::string failure;
  try {
    w.world.raycastAll(ray, hits);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  failure = detail::agreeOnFailure(w.comm, failure);
  if (!failure.empty()) throw Error("DistributedWorld::raycast: " + failure);
  RayCandidate best;
  for (const RayHit& h : hits) {
    RayCandidate c;
    if (h.body.isNull()) {
      if (w.rank != 0) continue;
      c = {h.t, 2, h.wall, 0, h.point, h.normal};
    } else {
      if (!w.answersFor(h.body)) continue;
      c = {h.t, 1, WallSide::None, w.gidOf[h.body.index], h.point, h.normal};
    }
    if (best.kind == 0 || c.t < best.t || (c.t == best.t && c.id < best.id)) best = c;
  }
  std::vector<std::byte> mine;
  append(mine, best);
  detail::Traffic traffic;
  std::optional<GlobalRayHit> out;
  RayCandidate pick;
  for (const RayCandidate& c : records<RayCandidate>(detail::allGather(w.comm, mine, traffic))) {
    if (c.kind == 0) continue;
    if (pick.kind == 0 || c.t < pick.t || (c.t == pick.t && c.id < pick.id)) pick = c;
  }
  if (pick.kind == 0) return out;
  out.emplace();
  if (pick.kind == 1) out->body = pick.id;
  out->t = pick.t;
  out->point = pick.point;
  out->normal = pick.normal;
  out->wall = pick.wall;
  return out;
}

void DistributedWorld::contactPairs(std::vector<GlobalPair>& out) const {
  const Impl& w = *impl_;
  out.clear();
  for (const ContactData& c : w.world.contacts()) {
    if (c.b.isNull() || !w.reports(c.a, c.b)) continue;
    out.push_back(w.pairOf(c.a, c.b));
  }
  std::sort(out.begin(), out.end());
}

void DistributedWorld::contactBeginEvents(std::vector<GlobalPair>& out) const {
  const Impl& w = *impl_;
  out.clear();
  for (const ContactEvent& e : w.world.contactBeginEvents()) {
    if (e.b.isNull() || !w.reports(e.a, e.b)) continue;
    out.push_back(w.pairOf(e.a, e.b));
  }
  std::sort(out.begin(), out.end());
}

const DistributedStats& DistributedWorld::stats() const noexcept { return impl_->stats; }

}  // namespace quadbin::mpi
