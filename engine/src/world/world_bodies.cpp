// World: creating, destroying, reading and changing bodies.
#include <algorithm>
#include <span>
#include <vector>

#include "world/world_impl.hpp"

namespace quadbin {

BodyId World::createBody(const BodyDef& d) {
  Impl& w = live();
  const auto use = w.claimChange();
  w.check(w.refusal(d));
  w.pairBudget.admitBody(w.budgetEnv(), d);
  return w.insert(d);
}

BodyId World::Impl::insert(const BodyDef& d) {
  const bool ball = d.type == BodyType::Ball;
  const float radius = kinematic::radiusOf(d);
  const float mass = ball ? validate::ballMass(d) : std::numeric_limits<float>::infinity();
  const Vec2 half = outline::halfExtentsOf(d, radius);
  const auto dense = ids.size();
  const std::optional<Hull> hull = radius > 0.0f ? std::nullopt : outline::hullOf(d);
  if (hull) bodies.reserveHulls(1);
  bodies.push(d.type, d.position, kinematic::velocityOf(d), half, radius, mass, d.friction,
              d.rollingResistance);
  filters.push(d.filter, d.userData);
  bodies.setMaterial(dense, d.restitution.value_or(settings.def().restitution),
                     ball ? d.linearDamping : 0.0f, ball ? d.angularDamping : 0.0f);
  bodies.setGravityScale(dense, d.gravityScale);
  if (hull) bodies.setHull(dense, *hull);  // room reserved: no throw
  const std::uint32_t slot = ids.add();
  bodies.setSensor(dense, d.isSensor);
  markBodiesChanged(dense, dense + 1);
  return {slot, ids.generation()[slot], worldId};
}

std::vector<BodyId> World::createChain(std::span<const Vec2> points, bool loop) {
  std::vector<BodyDef> defs;
  {
    Impl& w = live();
    const auto use = w.claimChange();
    const std::size_t n = points.size();
    if (n < (loop ? 3u : 2u)) {
      w.refuse(fmt::format("{}: {} points; a chain needs at least {}", __func__, n, loop ? 3 : 2));
    }
    for (std::size_t k = 0; k < n; ++k) {
      w.check(
          validate::position(points[k], 0.0f, fmt::format("{} points[{}]", __func__, k).c_str()));
    }
    const std::size_t segments = loop ? n : n - 1;
    for (std::size_t k = 0; k < segments; ++k) {
      const Vec2 a = points[k], b = points[(k + 1) % n];
      if (a == b) {
        w.refuse(fmt::format("{}: points[{}] and points[{}] are equal ({}, {})", __func__, k,
                             (k + 1) % n, a.x, a.y));
      }
      defs.push_back(BodyDef::staticSegment(a, b));
    }
  }
  std::vector<BodyId> ids = createBodies(defs);  // all or nothing
  // Each segment learns its neighbours (no allocation: the hulls exist).
  Impl& w = live();
  const std::size_t n = points.size(), segments = defs.size();
  for (std::size_t k = 0; k < segments; ++k) {
    const std::uint32_t i = w.denseIndex(ids[k]);
    Hull h = w.bodies.hulls[w.bodies.shape[i]];
    const Vec2 at{w.bodies.px[i], w.bodies.py[i]};
    h.hasPrev = loop || k > 0;
    h.hasNext = loop || k + 1 < segments;
    if (h.hasPrev) h.prev = points[(k + n - 1) % n] - at;
    if (h.hasNext) h.next = points[(k + 2) % n] - at;
    w.bodies.hulls[w.bodies.shape[i]] = h;
  }
  return ids;
}

void World::Impl::leaveChain(std::uint32_t i) noexcept {
  const Hull* mine = bodies.hullOf(i);
  if (mine == nullptr || !(mine->hasPrev || mine->hasNext)) return;
  const Vec2 at{bodies.px[i], bodies.py[i]};
  const Vec2 start = mine->vertex(0, at), end = mine->vertex(1, at);
  // The neighbours are the segments whose end is this start, or whose
  // start is this end, and that defer to it there.
  for (std::uint32_t j = 0; j < bodies.size(); ++j) {
    if (j == i || bodies.shape[j] == kNoHull) continue;
    Hull& other = bodies.hulls[bodies.shape[j]];
    if (!other.isSegment()) continue;
    const Vec2 there{bodies.px[j], bodies.py[j]};
    if (other.hasNext && other.vertex(1, there) == start) other.hasNext = false;
    if (other.hasPrev && other.vertex(0, there) == end) other.hasPrev = false;
  }
  Hull& h = bodies.hulls[bodies.shape[i]];
  h.hasPrev = h.hasNext = false;
}

// One body removed (destroyBody, destroyBodies): the last body takes its
// dense index. `contactsAside`: destroyBodies handles the contacts for all
// the bodies at once, so only the colours move with the last body here.
void World::Impl::removeBody(BodyId id, bool contactsAside) {
  const std::uint32_t dense = ids.dense(id);
  const std::uint32_t last = ids.size() - 1;
  leaveChain(dense);
  pairBudget.forgetBody(budgetEnv(), dense);
  wake(dense);  // what rested on it must fall
  bodies.swapRemove(dense);
  filters.swapRemove(dense);
  if (contactsAside) {
    contactSet.movedBody(dense, last);
  } else {
    contactSet.removeBody(bodies, dense, last);  // the last body is at dense now
  }
  ids.remove(id, dense);
  markBodiesChanged(dense, dense + 1);  // the last body took its place
  // A destroyed body's contacts and sensor overlaps end with events at the
  // next step (they name its old id).
  events.bodyDestroyed(id.index);
  sensors.forgetBody(id.index);
}

void World::destroyBody(BodyId id) {
  Impl& w = live();
  const auto use = w.claimChange();
  (void)w.denseIndex(id);     // refuses a stale or foreign id
  w.events.reserveDestroy();  // may throw: nothing has changed yet
  w.ids.reserveRemovals(1);
  w.removeBody(id, false);
}

void World::destroyBodies(std::span<const BodyId> ids) {
  Impl& w = live();
  const auto use = w.claimChange();
  if (ids.empty()) return;
  // Every id live and given once, before anything changes; then the room
  // every removal needs, taken ahead (nothing below allocates).
  const std::span<const std::uint32_t> dense = w.distinctBodies(ids, "destroyBodies");
  w.events.reserveDestroy(ids.size());
  w.ids.reserveRemovals(ids.size());
  w.contactSet.beginRemovals(w.bodies, dense);  // colours given back: the last step that may throw
  for (const BodyId id : ids) w.removeBody(id, true);
  w.contactSet.endRemovals(w.bodies);
}

BodyType World::type(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.type[w.denseIndex(id)];
}
Vec2 World::position(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  const std::uint32_t i = w.denseIndex(id);
  return {w.bodies.px[i], w.bodies.py[i]};
}
Vec2 World::velocity(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  const std::uint32_t i = w.denseIndex(id);
  return {w.bodies.vx[i], w.bodies.vy[i]};
}
float World::radius(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.radius[w.denseIndex(id)];
}
float World::mass(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.mass[w.denseIndex(id)];
}
AABB World::bounds(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  const std::uint32_t i = w.denseIndex(id);
  return w.bodies.isCircle(i) ? w.bodies.tightBox(i) : solid::bounds(solid::of(w.bodies, i));
}

std::span<const std::uint32_t> World::Impl::distinctBodies(std::span<const BodyId> given,
                                                           const char* call) {
  manyDense.resize(given.size());
  manySlots.resize(given.size());
  for (std::size_t k = 0; k < given.size(); ++k) {
    manyDense[k] = denseIndex(given[k]);
    manySlots[k] = given[k].index;
  }
  std::sort(manySlots.begin(), manySlots.end());
  if (const auto twice = std::adjacent_find(manySlots.begin(), manySlots.end());
      twice != manySlots.end()) {
    refuse(fmt::format("{}: body {} is given twice", call, *twice));
  }
  return manyDense;
}

AABB World::Impl::movedBox(std::uint32_t i, Vec2 p, const char* what) {
  check(validate::position(p, bodies.radius[i], what));
  if (bodies.type[i] == BodyType::Ball) requireInside(p, bodies.radius[i], what);
  const Vec2 half{bodies.hx[i], bodies.hy[i]};
  return {p - half, p + half};
}

void World::Impl::place(std::uint32_t i, Vec2 p) {
  if (p != Vec2{bodies.px[i], bodies.py[i]}) leaveChain(i);
  wake(i);
  bodies.px[i] = p.x;
  bodies.py[i] = p.y;
  markBodiesChanged(i, i + 1);
}

void World::setPosition(BodyId id, Vec2 p) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  const AABB box = w.movedBox(i, p, "setPosition position");
  w.pairBudget.admitMove(w.budgetEnv(), i, box, w.bodyIdAt(i), __func__);
  w.place(i, p);
}

void World::setPositions(std::span<const BodyId> ids, std::span<const Vec2> positions) {
  Impl& w = live();
  const auto use = w.claimChange();
  if (ids.size() != positions.size()) {
    w.refuse(fmt::format("setPositions: {} ids for {} positions", ids.size(), positions.size()));
  }
  if (ids.empty()) return;
  // Every id live and given once, every position valid, before anything
  // changes; then one count of the pair limit for all.
  const std::span<const std::uint32_t> dense = w.distinctBodies(ids, "setPositions");
  w.manyBoxes.resize(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    w.manyBoxes[k] = w.movedBox(dense[k], positions[k], "setPositions position");
  }
  w.pairBudget.admitMoves(w.budgetEnv(), dense, w.manyBoxes);
  for (std::size_t k = 0; k < ids.size(); ++k) w.place(dense[k], positions[k]);
}

void World::setVelocity(BodyId id, Vec2 v) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  w.check(validate::velocity(v, "setVelocity velocity"));
  if (w.bodies.type[i] == BodyType::StaticBox) {
    w.refuse(fmt::format("{}: {} is a static box and cannot move", __func__, describe(id)));
  }
  // A kinematic body wakes the balls in its way when it reaches them.
  if (w.bodies.isBall(i)) w.wake(i);
  w.bodies.vx[i] = v.x;
  w.bodies.vy[i] = v.y;
  w.markMoved();
}

float World::angularVelocity(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.w[w.denseIndex(id)];
}

void World::setAngularVelocity(BodyId id, float angularVelocity) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  BodyStore& b = w.bodies;
  const bool outline = b.shape[i] != kNoHull;
  // A kinematic outline turns about its position, its surface within the
  // speed limit at its farthest point.
  const float reach = outline ? kinematic::reachOf(b, i) : b.radius[i];
  w.check(validate::angularVelocity(angularVelocity, reach, "setAngularVelocity angularVelocity"));
  if (b.type[i] == BodyType::StaticBox) {
    w.refuse(fmt::format("{}: {} is a static body and cannot turn", __func__, describe(id)));
  }
  if (!b.isCircle(i) && !outline) {
    w.refuse(
        fmt::format("{}: {} is a kinematic box and cannot turn; balls, kinematic balls and "
                    "kinematic outlines (BodyDef::kinematicPolygon) do",
                    __func__, describe(id)));
  }
  const bool grow = outline && angularVelocity != 0.0f && (b.hx[i] < reach || b.hy[i] < reach);
  const Vec2 p{b.px[i], b.py[i]}, half{reach, reach};
  if (grow) {  // may refuse: nothing changed yet
    w.pairBudget.admitMove(w.budgetEnv(), i, {p - half, p + half}, w.bodyIdAt(i), __func__);
  }
  w.wake(i);
  if (grow) {  // its box holds it at every angle from now on
    b.hx[i] = b.hy[i] = reach;
    w.markBodiesChanged(i, i + 1);
  }
  b.w[i] = angularVelocity;
}

float World::angle(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.angle[w.denseIndex(id)];
}

float World::friction(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.friction[w.denseIndex(id)];
}

void World::setFriction(BodyId id, float friction) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  w.check(validate::friction(friction, "setFriction friction"));
  w.bodies.setFriction(i, friction);
}

std::uint64_t World::userData(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.filters.userData[w.denseIndex(id)];
}

void World::setUserData(BodyId id, std::uint64_t value) {
  Impl& w = live();
  const auto use = w.claimChange();
  w.filters.userData[w.denseIndex(id)] = value;
}

Filter World::filter(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.filters.filter[w.denseIndex(id)];
}

void World::setFilter(BodyId id, const Filter& filter) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  if (w.filters.filter[i] == filter) return;
  w.wake(i);  // what rested on it may now fall through
  w.filters.setFilter(i, filter);
}

bool World::isAwake(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.awake[w.denseIndex(id)] != 0;
}

void World::setAwake(BodyId id, bool awake) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  if (!w.bodies.isBall(i)) return;
  w.markMoved();  // falling asleep zeroes the velocity
  if (awake) {
    w.bodies.wakeIsland(i);
  } else if (w.bodies.awake[i] != 0) {
    w.bodies.sleepIsland(&i, 1);
  }
}

// ---- materials, damping and forces (forces.cpp) -----------------------------

float World::restitution(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.restitution[w.denseIndex(id)];
}
float World::linearDamping(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.linearDamping[w.denseIndex(id)];
}
float World::angularDamping(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.angularDamping[w.denseIndex(id)];
}
Vec2 World::force(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  const std::uint32_t i = w.denseIndex(id);
  return {w.bodies.fx[i], w.bodies.fy[i]};
}

void World::setRestitution(BodyId id, float restitution) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  w.check(validate::restitution(restitution, "setRestitution restitution"));
  BodyStore& b = w.bodies;
  b.setMaterial(i, restitution, b.linearDamping[i], b.angularDamping[i]);
}

void World::setLinearDamping(BodyId id, float linearDamping) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.ballIndex(id);
  w.check(validate::damping(linearDamping, "setLinearDamping linearDamping"));
  BodyStore& b = w.bodies;
  b.setMaterial(i, b.restitution[i], linearDamping, b.angularDamping[i]);
}

void World::setAngularDamping(BodyId id, float angularDamping) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.ballIndex(id);
  w.check(validate::damping(angularDamping, "setAngularDamping angularDamping"));
  BodyStore& b = w.bodies;
  b.setMaterial(i, b.restitution[i], b.linearDamping[i], angularDamping);
}

void World::applyForce(BodyId id, Vec2 force) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.ballIndex(id);
  w.check(forces::forceRefusal(w.bodies, i, force));
  w.wake(i);
  w.bodies.fx[i] += force.x;
  w.bodies.fy[i] += force.y;
  w.bodies.forcesPending = true;
}

void World::applyLinearImpulse(BodyId id, Vec2 impulse) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.ballIndex(id);
  w.check(validate::velocity(impulse, "applyLinearImpulse impulse"));
  const Vec2 v = forces::velocityAfterImpulse(w.bodies, i, impulse);
  w.check(validate::velocity(v, "applyLinearImpulse: the velocity after the impulse"));
  w.wake(i);
  w.bodies.vx[i] = v.x;
  w.bodies.vy[i] = v.y;
  w.markMoved();
}

void World::applyAngularImpulse(BodyId id, float impulse) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.ballIndex(id);
  if (!std::isfinite(impulse)) {
    w.refuse(fmt::format("applyAngularImpulse impulse = {} is not finite", impulse));
  }
  const float spin = forces::spinAfterImpulse(w.bodies, i, impulse);
  w.check(validate::angularVelocity(spin, w.bodies.radius[i],
                                    "applyAngularImpulse: the angular velocity after the impulse"));
  w.wake(i);
  w.bodies.w[i] = spin;
}

void World::explode(Vec2 center, float radius, float impulse) {
  Impl& w = live();
  const auto use = w.claimChange();
  w.check(validate::queryPoint(center, "explode center"));
  w.check(validate::queryRadius(radius, "explode radius"));
  if (!(radius > 0.0f)) w.refuse(fmt::format("explode radius = {} must be > 0", radius));
  if (!std::isfinite(impulse) || impulse < 0.0f) {
    w.refuse(fmt::format("explode impulse = {} must be finite and >= 0", impulse));
  }
  // The query path: the broad phase on the bodies' tight boxes.
  w.refreshQueryIndex();
  std::vector<std::uint32_t> found;
  w.candidates(AABB::fromCircle(center, radius), found);
  std::vector<std::pair<std::uint32_t, Vec2>> hit;
  w.check(forces::explosionVelocities(w.bodies, found, center, radius, impulse, hit));
  for (const auto& [i, v] : hit) {
    w.wake(i);
    w.bodies.vx[i] = v.x;
    w.bodies.vy[i] = v.y;
  }
  if (!hit.empty()) w.markMoved();
}

// ---- bulk arrays ------------------------------------------------------------

std::vector<BodyId> World::createBodies(std::span<const BodyDef> defs) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::size_t count = defs.size();
  if (count >= std::size_t{kNone} - w.ids.slotCount()) {
    w.refuse(fmt::format("{}: {} bodies would overflow the 32-bit body slots", __func__, count));
  }
  // Every def checked first, in parallel; the lowest refused index wins.
  std::atomic<std::size_t> firstBad{count};
  w.tasks->parallelFor(static_cast<std::uint32_t>(count), 4096,
                       [&](std::uint32_t begin, std::uint32_t end) {
                         for (std::uint32_t k = begin; k < end; ++k) {
                           if (w.refusal(defs[k]).empty()) continue;
                           std::size_t seen = firstBad.load(std::memory_order_relaxed);
                           while (k < seen && !firstBad.compare_exchange_weak(seen, k)) {
                           }
                           return;
                         }
                       });
  if (const std::size_t bad = firstBad.load(); bad < count) {
    w.refuse(fmt::format("{}: defs[{}]: {}", __func__, bad, w.refusal(defs[bad])));
  }
  w.pairBudget.admitBodies(w.budgetEnv(), defs);
  // Room for all of them first (the only step that can throw), then the
  // slots createBody would hand out one call after another: the free ones
  // from the back of the list, then new ones; each body written by index,
  // in parallel.
  std::vector<BodyId> ids(count);
  const std::uint32_t first = w.ids.size();
  const std::size_t total = first + count;
  w.bodies.reserve(total);
  w.filters.reserve(total);
  w.ids.reserveBulk(count);
  std::size_t outlines = 0;
  for (const BodyDef& d : defs) outlines += d.outlineCount != 0 ? 1 : 0;
  w.bodies.reserveHulls(outlines);
  w.bodies.resize(total);
  w.filters.resize(total);
  w.tasks->parallelFor(
      static_cast<std::uint32_t>(count), 4096, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t k = begin; k < end; ++k) {
          const BodyDef& d = defs[k];
          const bool ball = d.type == BodyType::Ball;
          const float radius = kinematic::radiusOf(d);
          const float mass = ball ? validate::ballMass(d) : std::numeric_limits<float>::infinity();
          const std::uint32_t dense = first + k;
          w.bodies.set(dense, d.type, d.position, kinematic::velocityOf(d),
                       outline::halfExtentsOf(d, radius), radius, mass, d.friction,
                       d.rollingResistance);
          w.bodies.sensor[dense] = d.isSensor ? 1 : 0;
          w.filters.set(dense, d.filter, d.userData);
          // Counted by finishBulk (setMaterial's count is not for threads).
          w.bodies.restitution[dense] = d.restitution.value_or(w.settings.def().restitution);
          w.bodies.linearDamping[dense] = ball ? d.linearDamping : 0.0f;
          w.bodies.gravityScale[dense] = d.gravityScale;  // counted by finishBulk
          w.bodies.angularDamping[dense] = ball ? d.angularDamping : 0.0f;
          const std::uint32_t slot = w.ids.bulkSlot(k, first);
          ids[k] = {slot, w.ids.generation()[slot], w.worldId};
        }
      });
  w.ids.finishBulk();
  if (outlines != 0) {  // room reserved above: no throw
    for (std::size_t k = 0; k < count; ++k) {
      if (const auto hull = outline::hullOf(defs[k])) {
        w.bodies.setHull(static_cast<std::uint32_t>(first + k), *hull);
      }
    }
  }
  w.bodies.finishBulk(first);
  w.filters.finishBulk(first);
  w.markBodiesChanged(first, static_cast<std::uint32_t>(w.bodies.size()));
  return ids;
}

std::span<const Vec2> World::positions() const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.views.positions(w.bodies.px, w.bodies.py, *w.tasks);
}
std::span<const Vec2> World::velocities() const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.views.velocities(w.bodies.vx, w.bodies.vy, *w.tasks);
}
std::span<const float> World::radii() const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.radius;
}

}  // namespace quadbin
