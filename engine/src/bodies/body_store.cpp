#include "bodies/body_store.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <quadbin/tasks/parallel.hpp>

#include "bodies/capacity.hpp"
#include "bodies/outline.hpp"

namespace quadbin {

void BodyStore::push(BodyType t, Vec2 p, Vec2 v, Vec2 half, float r, float m, float mu,
                     float roll) {
  px.push_back(p.x);
  py.push_back(p.y);
  vx.push_back(v.x);
  vy.push_back(v.y);
  w.push_back(0.0f);
  angle.push_back(0.0f);
  friction.push_back(mu);
  rolling.push_back(roll);
  if (t == BodyType::Ball && mu > 0.0f) ++frictionBalls;
  hx.push_back(half.x);
  hy.push_back(half.y);
  radius.push_back(r);
  noteRadius(r);
  if (t != BodyType::Ball) ++boxCount;
  mass.push_back(m);
  invMass.push_back(t == BodyType::Ball ? 1.0f / m : 0.0f);
  type.push_back(t);
  awake.push_back(t == BodyType::Ball ? 1 : 0);
  restTime.push_back(0.0f);
  islandNext.push_back(kNoBody);
  islandPrev.push_back(kNoBody);
  sensor.push_back(0);
  enabled.push_back(1);
  shape.push_back(kNoHull);
  // Materials: World::Impl::insert sets them (setMaterial) right after.
  for (auto* column : {&restitution, &linearDamping, &angularDamping, &fx, &fy}) {
    column->push_back(0.0f);
  }
  gravityScale.push_back(1.0f);
}

void BodyStore::setType(std::uint32_t i, BodyType t, float m) noexcept {
  const bool was = isBall(i), ball = t == BodyType::Ball;
  if (friction[i] > 0.0f) frictionBalls = frictionBalls - (was ? 1u : 0u) + (ball ? 1u : 0u);
  if (gravityScale[i] != 1.0f) scaledBalls = scaledBalls - (was ? 1u : 0u) + (ball ? 1u : 0u);
  boxCount = boxCount + (was ? 1u : 0u) - (ball ? 1u : 0u);
  type[i] = t;
  mass[i] = ball ? m : std::numeric_limits<float>::infinity();
  invMass[i] = ball ? 1.0f / m : 0.0f;
  awake[i] = ball && enabled[i] != 0 ? 1 : 0;
  restTime[i] = 0.0f;
  if (!ball) {  // no damping (setMaterial keeps dampedBalls right), no force
    setMaterial(i, restitution[i], 0.0f, 0.0f);
    fx[i] = fy[i] = 0.0f;
  }
  if (t == BodyType::StaticBox) vx[i] = vy[i] = w[i] = 0.0f;
}

void BodyStore::reserveHulls(std::size_t count) {
  const std::size_t free = freeHulls.size();
  if (count > free) reserveGrowing(hulls, hulls.size() + (count - free));
  // A slot for every hull, so that clearHull never allocates.
  reserveGrowing(freeHulls, hulls.capacity());
}

void BodyStore::setHull(std::uint32_t i, const Hull& h) {
  reserveHulls(1);
  if (shape[i] != kNoHull) {
    hulls[shape[i]] = h;
    return;
  }
  if (freeHulls.empty()) {
    hulls.push_back(h);
    shape[i] = static_cast<std::uint32_t>(hulls.size() - 1);
  } else {
    shape[i] = freeHulls.back();
    freeHulls.pop_back();
    hulls[shape[i]] = h;
  }
  ++hullCount;
}

void BodyStore::clearHull(std::uint32_t i) noexcept {
  if (shape[i] == kNoHull) return;
  if (shape[i] + 1 == hulls.size()) {
    hulls.pop_back();
  } else {
    // freeHulls has room: one slot per hull ever held (reserved with hulls).
    freeHulls.push_back(shape[i]);
  }
  shape[i] = kNoHull;
  --hullCount;
}

void BodyStore::reserve(std::size_t count) {
  forEachColumn([count](auto& v) { reserveGrowing(v, count); });
}

void BodyStore::resize(std::size_t count) {
  forEachColumn([count](auto& v) { v.resize(count); });
}

void BodyStore::set(std::uint32_t i, BodyType t, Vec2 p, Vec2 v, Vec2 half, float r, float m,
                    float mu, float roll) noexcept {
  px[i] = p.x;
  py[i] = p.y;
  vx[i] = v.x;
  vy[i] = v.y;
  w[i] = 0.0f;
  angle[i] = 0.0f;
  friction[i] = mu;
  rolling[i] = roll;
  hx[i] = half.x;
  hy[i] = half.y;
  radius[i] = r;
  mass[i] = m;
  invMass[i] = t == BodyType::Ball ? 1.0f / m : 0.0f;
  type[i] = t;
  awake[i] = t == BodyType::Ball ? 1 : 0;
  restTime[i] = 0.0f;
  islandNext[i] = kNoBody;
  islandPrev[i] = kNoBody;
  sensor[i] = 0;
  enabled[i] = 1;
  shape[i] = kNoHull;
  restitution[i] = 0.0f;
  linearDamping[i] = 0.0f;
  angularDamping[i] = 0.0f;
  fx[i] = 0.0f;
  fy[i] = 0.0f;
  gravityScale[i] = 1.0f;
}

void BodyStore::finishBulk(std::size_t from) noexcept {
  for (std::size_t i = from; i < px.size(); ++i) {
    noteRadius(radius[i]);
    if (type[i] != BodyType::Ball) ++boxCount;
    if (type[i] == BodyType::Ball && friction[i] > 0.0f) ++frictionBalls;
    sensorCount += sensor[i];
    if (linearDamping[i] > 0.0f || angularDamping[i] > 0.0f) ++dampedBalls;
    if (type[i] == BodyType::Ball && gravityScale[i] != 1.0f) ++scaledBalls;
  }
}

validate::BodyValues BodyStore::values(std::uint32_t i) const noexcept {
  validate::BodyValues v;
  v.type = type[i];
  v.position = {px[i], py[i]};
  v.velocity = {vx[i], vy[i]};
  v.radius = radius[i];
  v.halfExtents = {hx[i], hy[i]};
  v.mass = mass[i];
  v.angularVelocity = w[i];
  v.angle = angle[i];
  v.friction = friction[i];
  v.rolling = rolling[i];
  v.restitution = restitution[i];
  v.linearDamping = linearDamping[i];
  v.angularDamping = angularDamping[i];
  v.force = {fx[i], fy[i]};
  v.gravityScale = gravityScale[i];
  if (type[i] == BodyType::Kinematic && shape[i] != kNoHull) {
    v.turnReach = outline::reachOf(hulls[shape[i]]);
  }
  return v;
}

void BodyStore::reserveRenumber(const Permutation& p) {
  if (p.movedCount() * kSparseLinks <= p.size()) linkScratch_.reserve(2 * p.movedCount());
}

void BodyStore::renumber(const Permutation& p, Permutation::Direction d) noexcept {
  const std::size_t moved = p.movedCount();
  if (moved * kSparseLinks <= p.size() && linkScratch_.capacity() >= 2 * moved) {
    // Few bodies move: only the island links that point at one of them
    // change (in a ring, one next and one prev point at each), found from
    // the moved bodies' own links before any is rewritten.
    linkScratch_.clear();
    p.forEachMoved([&](std::uint32_t k) {
      if (islandNext[k] == kNoBody) return;
      linkScratch_.push_back(islandPrev[k]);  // reserved: no allocation
      linkScratch_.push_back(islandNext[k]);
    });
    std::size_t j = 0;
    p.forEachMoved([&](std::uint32_t k) {
      if (islandNext[k] == kNoBody) return;
      const std::uint32_t to = p.map(k, d);
      islandNext[linkScratch_[j]] = to;
      islandPrev[linkScratch_[j + 1]] = to;
      j += 2;
    });
    forEachColumn([&](auto& v) { p.move(v, d); });
    return;
  }
  forEachColumn([&](auto& v) { p.move(v, d); });
  for (auto* links : {&islandNext, &islandPrev}) {
    for (std::uint32_t& l : *links) l = l == kNoBody ? kNoBody : p.map(l, d);
  }
}

void BodyStore::swapRemove(std::uint32_t i) {
  const auto last = static_cast<std::uint32_t>(px.size() - 1);
  // The last body moves to i: its island neighbours must point at i.
  if (last != i && islandNext[last] != kNoBody) {
    const std::uint32_t next = islandNext[last], prev = islandPrev[last];
    if (next == last) {  // alone in its island: a loop to itself, at i after the move
      islandNext[last] = i;
      islandPrev[last] = i;
    } else {
      islandNext[prev] = i;
      islandPrev[next] = i;
    }
  }
  const float gone = radius[i];
  if (!isBall(i)) --boxCount;
  setFriction(i, 0.0f);
  setSensor(i, false);
  setEnabled(i, true);
  setMaterial(i, 0.0f, 0.0f, 0.0f);
  setGravityScale(i, 1.0f);
  clearHull(i);
  auto remove = [i](auto& v) {
    v[i] = v.back();
    v.pop_back();
  };
  forEachColumn(remove);
  dropRadius(gone);
}

void BodyStore::recountMaxRadius() noexcept {
  maxRadius = 0.0f;
  maxRadiusCount = 0;
  for (const float r : radius) noteRadius(r);
}

std::uint32_t BodyStore::wakeIsland(std::uint32_t i) noexcept {
  if (islandNext[i] == kNoBody) return 0;
  std::uint32_t woke = 0;
  std::uint32_t k = i;
  do {
    const std::uint32_t next = islandNext[k];
    islandNext[k] = kNoBody;
    islandPrev[k] = kNoBody;
    awake[k] = 1;
    restTime[k] = 0.0f;
    ++woke;
    k = next;
  } while (k != i);
  return woke;
}

void BodyStore::wakeAll() noexcept {
  for (std::size_t i = 0; i < px.size(); ++i) {
    if (islandNext[i] == kNoBody) continue;
    islandNext[i] = kNoBody;
    islandPrev[i] = kNoBody;
    awake[i] = 1;
    restTime[i] = 0.0f;
  }
}

void BodyStore::sleepIsland(const std::uint32_t* members, std::uint32_t count) noexcept {
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::uint32_t i = members[k];
    islandNext[i] = members[k + 1 == count ? 0 : k + 1];
    islandPrev[i] = members[k == 0 ? count - 1 : k - 1];
    awake[i] = 0;
    vx[i] = 0.0f;
    vy[i] = 0.0f;
    w[i] = 0.0f;
  }
}

void BodyStore::setFriction(std::uint32_t i, float mu) noexcept {
  if (isBall(i)) frictionBalls += (mu > 0.0f ? 1u : 0u) - (friction[i] > 0.0f ? 1u : 0u);
  friction[i] = mu;
}

void BodyStore::setMaterial(std::uint32_t i, float e, float linear, float angular) noexcept {
  const bool was = linearDamping[i] > 0.0f || angularDamping[i] > 0.0f;
  const bool is = linear > 0.0f || angular > 0.0f;
  dampedBalls += (is ? 1u : 0u) - (was ? 1u : 0u);
  restitution[i] = e;
  linearDamping[i] = linear;
  angularDamping[i] = angular;
}

void BodyStore::applyGravity(Vec2 g, float dt, TaskSystem& tasks) {
  if (g == Vec2{}) return;
  tasks.parallelFor(static_cast<std::uint32_t>(px.size()),
                    bodyPassGrain(static_cast<std::uint32_t>(px.size())),
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t i = begin; i < end; ++i) {
                        if (awake[i] == 0) continue;
                        vx[i] += g.x * dt;
                        vy[i] += g.y * dt;
                      }
                    });
}

namespace {
// A body's swept box (BodyStore::sweptBoxes), from its columns' values.
[[gnu::always_inline]] inline AABB sweptBoxOf(float x, float y, float halfX, float halfY, float u,
                                              float v, bool moving, BodyType kind, float dt,
                                              float staticMargin, bool kinematic) noexcept {
  float travel = moving ? length(Vec2{u, v}) * dt : kind == BodyType::Ball ? 0.0f : staticMargin;
  // A kinematic body's box covers its whole path.
  if (kinematic && kind == BodyType::Kinematic) travel += length(Vec2{u, v}) * dt;
  return {{x - halfX - travel, y - halfY - travel}, {x + halfX + travel, y + halfY + travel}};
}
}  // namespace

AABB BodyStore::sweptBox(std::uint32_t i, float dt, float staticMargin,
                         bool kinematic) const noexcept {
  return sweptBoxOf(px[i], py[i], hx[i], hy[i], vx[i], vy[i], awake[i] != 0, type[i], dt,
                    staticMargin, kinematic);
}

void BodyStore::sweptBoxes(float dt, float staticMargin, bool kinematic, std::vector<AABB>& out,
                           TaskSystem& tasks, Probes* probes) const {
  out.resize(px.size());
  // The arrays as local pointers: the stores to `out` could alias the
  // vectors, which would then be reloaded for every body.
  AABB* box = out.data();
  const float *x = px.data(), *y = py.data(), *u = vx.data(), *v = vy.data();
  const float *halfX = hx.data(), *halfY = hy.data();
  const std::uint8_t* moving = awake.data();
  const BodyType* kind = type.data();
  // All of the probes or none (unused points count nothing anyone reads).
  const std::uint32_t probeCount = probes != nullptr ? probes->count : 0;
  assert(probeCount == 0 || probeCount == Probes::kMax);
  const std::array<Vec2, Probes::kMax> at =
      probes != nullptr ? probes->at : std::array<Vec2, Probes::kMax>{};
  std::array<std::atomic<std::uint64_t>, Probes::kMax> inside{};
  tasks.parallelFor(
      static_cast<std::uint32_t>(px.size()), bodyPassGrain(static_cast<std::uint32_t>(px.size())),
      [=, &inside](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) {
          box[i] = sweptBoxOf(x[i], y[i], halfX[i], halfY[i], u[i], v[i], moving[i] != 0, kind[i],
                              dt, staticMargin, kinematic);
        }
        // The range's boxes are still in the cache: counted here, they cost
        // no pass of their own.
        if (probeCount == 0) return;
        std::array<std::uint32_t, Probes::kMax> count{};
        for (std::uint32_t i = begin; i < end; ++i) {
          const AABB b = box[i];
          for (std::uint32_t k = 0; k < Probes::kMax; ++k) {
            // '&', not '&&': no branch per box, the loop vectorises.
            count[k] += static_cast<std::uint32_t>((b.min.x < at[k].x) & (at[k].x < b.max.x) &
                                                   (b.min.y < at[k].y) & (at[k].y < b.max.y));
          }
        }
        for (std::uint32_t k = 0; k < Probes::kMax; ++k) {
          if (count[k] != 0) inside[k].fetch_add(count[k], std::memory_order_relaxed);
        }
      });
  if (probes == nullptr) return;
  for (std::uint32_t k = 0; k < Probes::kMax; ++k) {
    probes->inside[k] = inside[k].load(std::memory_order_relaxed);
  }
}

void BodyStore::tightBoxes(std::vector<AABB>& out, TaskSystem& tasks) const {
  out.resize(px.size());
  tasks.parallelFor(static_cast<std::uint32_t>(px.size()),
                    bodyPassGrain(static_cast<std::uint32_t>(px.size())),
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t i = begin; i < end; ++i) out[i] = tightBox(i);
                    });
}

void BodySnapshot::save(const BodyStore& b, Parts parts, TaskSystem& tasks) {
  const std::size_t n = b.size();
  saved = {false, false, false, false};  // nothing optional is valid until it is copied
  // Sized first (the only step that may allocate), then copied in parallel.
  for (auto* v : {&px, &py, &vx, &vy}) v->resize(n);
  awake.resize(n);
  if (parts.spin) {
    w.resize(n);
    angle.resize(n);
  }
  if (parts.rest) restTime.resize(n);
  if (parts.islands) {
    islandNext.resize(n);
    islandPrev.resize(n);
  }
  tasks.parallelFor(static_cast<std::uint32_t>(n), bodyPassGrain(static_cast<std::uint32_t>(n)),
                    [&](std::uint32_t begin, std::uint32_t end) {
                      auto copy = [&](const auto& from, auto& to) {
                        std::copy(from.begin() + begin, from.begin() + end, to.begin() + begin);
                      };
                      if (parts.positions) {
                        copy(b.px, px);
                        copy(b.py, py);
                      }
                      copy(b.vx, vx);
                      copy(b.vy, vy);
                      copy(b.awake, awake);
                      if (parts.spin) {
                        copy(b.w, w);
                        copy(b.angle, angle);
                      }
                      if (parts.rest) copy(b.restTime, restTime);
                      if (parts.islands) {
                        copy(b.islandNext, islandNext);
                        copy(b.islandPrev, islandPrev);
                      }
                    });
  saved = parts;
}

void BodySnapshot::saveIslands(const BodyStore& b) {
  if (!saved.rest) {
    restTime.resize(b.size());
    std::copy(b.restTime.begin(), b.restTime.end(), restTime.begin());
    saved.rest = true;
  }
  if (saved.islands) return;
  islandNext.resize(b.size());
  islandPrev.resize(b.size());
  std::copy(b.islandNext.begin(), b.islandNext.end(), islandNext.begin());
  std::copy(b.islandPrev.begin(), b.islandPrev.end(), islandPrev.begin());
  saved.islands = true;
}

void BodySnapshot::restore(BodyStore& b) const noexcept {
  // Serial: the task system may be what failed.
  if (saved.positions) {
    std::copy(px.begin(), px.end(), b.px.begin());
    std::copy(py.begin(), py.end(), b.py.begin());
  }
  std::copy(vx.begin(), vx.end(), b.vx.begin());
  std::copy(vy.begin(), vy.end(), b.vy.begin());
  std::copy(awake.begin(), awake.end(), b.awake.begin());
  if (saved.spin) {
    std::copy(w.begin(), w.end(), b.w.begin());
    std::copy(angle.begin(), angle.end(), b.angle.begin());
  }
  if (saved.rest) std::copy(restTime.begin(), restTime.end(), b.restTime.begin());
  if (saved.islands) {
    std::copy(islandNext.begin(), islandNext.end(), b.islandNext.begin());
    std::copy(islandPrev.begin(), islandPrev.end(), b.islandPrev.begin());
  }
}

}  // namespace quadbin
