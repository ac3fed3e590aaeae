// Contact iterations and exact impacts (see contact_solver.hpp); the
// position correction is in contact_positions.cpp.
#include "solver/contact_solver.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <quadbin/geometry.hpp>
#include <quadbin/narrowphase.hpp>

#include "bodies/kinematic.hpp"
#include "bodies/solid.hpp"
#include "solver/contact_solver_rows.hpp"

namespace quadbin {

using contacts::wall;
using contacts::wallSide;

// Sequential impulses: each contact aims for its target normal speed with
// a non-negative total impulse, contact after contact. With friction, a
// contact first stops its sliding, with a tangent impulse within the cone
// |tangent| <= mu * normal of the normal impulse it has so far (as Box2D).
void ContactSolver::sweep(TaskSystem& tasks, Group lastGroup, std::uint32_t iterations,
                          bool friction) {
  BallState* st = state_.data();
  FrictionRow* fr = frictionRows_.data();
  float* spin = spin_.data();
  const Row* base = rows_.data();
  auto slide = [st, fr, spin, base](const Row& r) {
    FrictionRow& f = fr[&r - base];
    if (f.mu == 0.0f) return false;
    const bool ball = r.kind == kBall;
    const bool turns = ball || r.kind == kKinematic;  // b has a spin (a kinematic's: read only)
    const Vec2 va = st[r.a].v;
    const Vec2 vb = ball || r.kind == kKinematic ? st[r.b].v : Vec2{};  // a kinematic's: read only
    bool changed = false;
    if (f.roll > 0.0f) {  // rolling resistance: an angular impulse against the relative spin
      const float most = f.roll * r.lambda;
      const float wRel = (turns ? spin[r.b] : 0.0f) - spin[r.a];
      const float rollTotal = std::clamp(f.rollLambda - f.rollMass * wRel, -most, most);
      const float dr = rollTotal - f.rollLambda;
      if (dr != 0.0f) {
        f.rollLambda = rollTotal;
        spin[r.a] -= f.ia * dr;
        if (ball) spin[r.b] += f.ib * dr;
        changed = true;
      }
    }
    const float wb = turns ? spin[r.b] : 0.0f;
    // Tangent t = perp(n); the contact point is ra n from a, -rb n from b.
    const float vt = (vb.x - va.x) * -r.ny + (vb.y - va.y) * r.nx - spin[r.a] * f.ra - wb * f.rb;
    const float limit = f.mu * r.lambda;
    const float total = std::clamp(f.lambda - f.tMass * vt, -limit, limit);
    const float d = total - f.lambda;
    if (d == 0.0f) return changed;
    f.lambda = total;
    const Vec2 p{-r.ny * d, r.nx * d};
    st[r.a].v = va - p * r.ima;
    spin[r.a] -= f.ia * f.ra * d;
    if (ball) {
      st[r.b].v = vb + p * r.imb;
      spin[r.b] -= f.ib * f.rb * d;
    }
    return true;
  };
  auto pre = [st](const Row& r) {
    prefetch(&st[r.a]);
    if (r.kind == kBall || r.kind == kKinematic) prefetch(&st[r.b]);
  };
  // The sweeps in one parallel region; a sweep that changed no impulse
  // leaves the next one nothing to do.
  passesOverRows(
      tasks, lastGroup, rows_.data(), 0, iterations,
      [st, friction, &slide](Row& r) {
        const bool slid = friction && slide(r);
        const Vec2 va = st[r.a].v;
        const Vec2 vb = r.kind == kBall || r.kind == kKinematic ? st[r.b].v : Vec2{};
        const float vn = (vb.x - va.x) * r.nx + (vb.y - va.y) * r.ny;
        const float total = std::max(r.lambda + r.mEff * (r.target - vn), 0.0f);
        const float d = total - r.lambda;
        if (d == 0.0f) return slid;
        r.lambda = total;
        const Vec2 p{r.nx * d, r.ny * d};
        st[r.a].v = va - p * r.ima;
        if (r.kind == kBall) st[r.b].v = vb + p * r.imb;
        return true;
      },
      pre, untilUnchanged);
}

// Inlined: it runs twice per collision, in the hottest loop of the step.
[[gnu::always_inline]] inline void ContactSolver::applyImpulse(std::uint32_t i, Vec2 dv, float t) {
  BallState& b = state_[i];
  b.v += dv;
  // The body moved with its old velocity until t and moves with the new one
  // after: shift its end-of-step position so the path stays continuous.
  b.corr -= dv * t;
  b.tLast = t;
  b.changed = clock_;
  maxSpeed_[i] = std::max(maxSpeed_[i], length(b.v));
}

void ContactSolver::rub(const BodyStore& bodies, std::uint32_t a, const ImpactOther& b, Vec2 n,
                        float jn, float mu, float t) {
  const Vec2 tangent{-n.y, n.x};  // as the resting rows' t = perp(n)
  const float ra = bodies.radius[a], rb = b.radius;
  const float ima = bodies.invMass[a], imb = b.invMass;
  const Vec2 va = state_[a].v;
  const Vec2 vb = b.moves ? state_[b.index].v : Vec2{};
  const float wb = b.moves && rb > 0.0f ? spin_[b.index] : 0.0f;
  // Relative sliding of the contact point (ra n from a, -rb n from b).
  const float vt = dot(vb - va, tangent) - spin_[a] * ra - wb * rb;
  // Solid discs: inverse inertia 2 / (m r^2), so r^2 / I = 2 / m.
  const float ia = 2.0f * ima / (ra * ra);
  const float ib = imb > 0.0f ? 2.0f * imb / (rb * rb) : 0.0f;
  const float most = mu * jn;
  const float d = std::clamp(-vt / (ima + imb + 2.0f * ima + 2.0f * imb), -most, most);
  if (!(d != 0.0f)) return;
  applyImpulse(a, tangent * (-d * ima), t);
  spin_[a] -= ia * ra * d;
  if (imb > 0.0f) {
    applyImpulse(b.index, tangent * (d * imb), t);
    spin_[b.index] -= ib * rb * d;
  }
}

// The row's inverse masses are the bodies' (makeRow): one random read less
// per ball.
bool ContactSolver::impactBalls(const BodyStore& bodies, const SolverSettings& s, const Row& r) {
  const std::uint32_t a = r.a, b = r.b;
  const float t0 = std::max(state_[a].tLast, state_[b].tLast);
  const Vec2 pa = positionAt(a, t0), pb = positionAt(b, t0);
  const Vec2 va = state_[a].v, vb = state_[b].v;
  // Most rows in a pass are pairs moving apart: no time of impact for them.
  const Vec2 w0 = vb - va, d0 = pb - pa;
  if (dot(w0, d0) >= 0.0f) return false;
  // timeOfImpact(Circle, Circle) of the narrow phase, inline: b seen from
  // a, a ray against a circle of the summed radius at the origin.
  const auto toi = raycast(Ray{pb - pa, vb - va, s.dt - t0},
                           Circle{{0.0f, 0.0f}, bodies.radius[a] + bodies.radius[b]});
  if (!toi) return false;
  const Vec2 w = vb - va;
  const Vec2 d = pb - pa + w * *toi;
  const Vec2 n = normalizeOr(d, normalizeOr(-w));
  const float vn = dot(w, n);
  if (vn >= 0.0f) return false;  // touching but already separating
  const float ima = r.ima, imb = r.imb;
  const float j = -(1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, b))) * vn / (ima + imb);
  const float t = t0 + *toi;
  applyImpulse(a, n * (-j * ima), t);
  applyImpulse(b, n * (j * imb), t);
  if (s.friction) {
    const float mu = std::sqrt(bodies.friction[a] * bodies.friction[b]);
    if (mu > 0.0f) rub(bodies, a, {b, bodies.radius[b], imb, true}, n, j, mu, t);
  }
  return true;
}

bool ContactSolver::impactBox(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                              std::uint32_t box) {
  const float t0 = state_[a].tLast;
  const Vec2 pa = positionAt(a, t0);
  const Vec2 v = state_[a].v;
  const solid::Solid shape = solid::of(bodies, box);
  const auto toi = solid::timeOfImpact(Circle{pa, bodies.radius[a]}, v, shape, s.dt - t0);
  if (!toi) return false;
  const Vec2 n = solid::outwardNormal(shape, pa + v * *toi);
  const float vn = dot(v, n);
  if (vn >= 0.0f) return false;
  const float dv = -(1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, box))) * vn;
  applyImpulse(a, n * dv, t0 + *toi);
  if (s.friction) {
    const float mu = std::sqrt(bodies.friction[a] * bodies.friction[box]);
    if (mu > 0.0f) {
      rub(bodies, a, {kNoBody, 0.0f, 0.0f, false}, -n, dv / bodies.invMass[a], mu, t0 + *toi);
    }
  }
  return true;
}

bool ContactSolver::impactWall(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                               std::uint32_t side) {
  const float t0 = state_[a].tLast;
  const Vec2 p = positionAt(a, t0);
  const float r = bodies.radius[a];
  const bool xAxis = side < 2;
  const bool lowSide = side % 2 == 0;
  const float pos = xAxis ? p.x : p.y;
  const float vel = xAxis ? state_[a].v.x : state_[a].v.y;
  // The centre's limit on this side, and the signed distance still to go.
  const float limit = xAxis ? (lowSide ? s.bounds.min.x + r : s.bounds.max.x - r)
                            : (lowSide ? s.bounds.min.y + r : s.bounds.max.y - r);
  const bool approaching = lowSide ? vel < 0.0f : vel > 0.0f;
  if (!approaching) return false;
  const float toGo = lowSide ? pos - limit : limit - pos;
  float t = t0;
  if (toGo > 0.0f) {
    t = t0 + toGo / std::abs(vel);
    if (t > s.dt) return false;
  }
  const float dvn =
      -(1.0f + s.restitutionFor(std::abs(vel), s.restitutionOf(bodies, a, wall(0)))) * vel;
  applyImpulse(a, xAxis ? Vec2{dvn, 0.0f} : Vec2{0.0f, dvn}, t);
  if (s.friction) {
    const float mu = std::sqrt(s.wallFriction * bodies.friction[a]);
    if (mu > 0.0f) {
      const float out = lowSide ? -1.0f : 1.0f;  // from the ball towards the wall
      rub(bodies, a, {kNoBody, 0.0f, 0.0f, false}, xAxis ? Vec2{out, 0.0f} : Vec2{0.0f, out},
          std::abs(dvn) / bodies.invMass[a], mu, t);
    }
  }
  return true;
}

// A ball against a kinematic body: time of impact in relative motion, and
// the ball's velocity relative to the body reflected (infinite mass).
bool ContactSolver::impactKinematic(const BodyStore& bodies, const SolverSettings& s,
                                    std::uint32_t a, std::uint32_t k) {
  const float t0 = state_[a].tLast;
  const Vec2 pa = positionAt(a, t0), pk = positionAt(k, t0);
  const Vec2 va = state_[a].v, vk = state_[k].v;
  const float ra = bodies.radius[a];
  const float angle = kinematic::angleAt(bodies, k, t0);
  const auto toi = kinematic::timeOfImpact(bodies, k, pk, angle, vk, Circle{pa, ra}, va, s.dt - t0);
  if (!toi) return false;
  const Vec2 ck = pk + vk * *toi, ca = pa + va * *toi;
  const float at = kinematic::angleAt(bodies, k, t0 + *toi);
  const Vec2 n = kinematic::touch(bodies, k, ck, at, ca, ra).normal;
  // The body's surface where the ball touches it (a turning outline's
  // moves faster the farther it is from the centre).
  const Vec2 vs = kinematic::surfaceVelocity(bodies, k, vk, ck, ca + n * ra);
  const float vn = dot(vs - va, n);
  if (vn >= 0.0f) return false;  // touching but already separating
  const float dv = (1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, k))) * vn;
  applyImpulse(a, n * dv, t0 + *toi);
  if (s.friction) {
    const float mu = std::sqrt(bodies.friction[a] * bodies.friction[k]);
    if (mu > 0.0f) {
      rub(bodies, a, {k, bodies.radius[k], 0.0f, true}, n, -dv / bodies.invMass[a], mu, t0 + *toi);
    }
  }
  return true;
}

// Inlined: the impact passes' row function, whose early outs skip most rows.
[[gnu::always_inline]] inline bool ContactSolver::impact(const BodyStore& bodies,
                                                         const SolverSettings& s, Row& r) {
  // Contacts the iterations pushed are theirs for this step.
  if (r.lambda != 0.0f) return false;
  // Nothing changed since the last check: the same answer (none).
  if (state_[r.a].changed <= r.checked && (r.kind != kBall || state_[r.b].changed <= r.checked)) {
    return false;
  }
  r.checked = clock_;
  bool hit = false;
  if (r.kind == kWall) {
    hit = impactWall(bodies, s, r.a, wallSide(r.b));
  } else if (r.kind == kBall) {
    hit = impactBalls(bodies, s, r);
  } else if (r.kind == kKinematic) {
    hit = impactKinematic(bodies, s, r.a, r.b);
  } else {
    hit = impactBox(bodies, s, r.a, r.b);
  }
  if (hit) r.touched = 1;
  return hit;
}

std::uint32_t ContactSolver::impactPasses(const BodyStore& bodies, const SolverSettings& s,
                                          TaskSystem& tasks) {
  std::uint32_t total = 0;
  bool ranOut = true;
  // The passes in one parallel region; the end of a pass (the extra rows,
  // few: serially) runs on one thread, between two passes.
  passesOverRows(
      tasks, kApart, rows_.data(), 0, s.impactPasses, [&](Row& r) { return impact(bodies, s, r); },
      [this](const Row& r) {
        if (r.lambda != 0.0f) return;  // impact() skips it
        prefetch(&state_[r.a]);
        if (r.kind == kBall || r.kind == kKinematic) prefetch(&state_[r.b]);
      },
      [&](std::uint32_t hits) {
        ++clock_;
        for (Row& r : extraRows_) hits += impact(bodies, s, r) ? 1u : 0u;
        total += hits;
        ranOut = hits != 0;
        return ranOut;
      });
  if (ranOut) impactsLeft_ = true;
  return total;
}

// Friction rows for the resting rows, warm started from the last step's
// tangent impulses (applied here, after the normal ones).
void ContactSolver::buildFriction(const BodyStore& bodies, const SolverSettings& s,
                                  TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  spin_.resize(n);
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) spin_[i] = bodies.w[i];
  });
  frictionRows_.resize(rows_.size());
  // In the colour loop's split (see correctPositions).
  forEachRow(tasks, kApart, [&](const Row& r) {
    FrictionRow f{};
    const float fa = bodies.friction[r.a];
    const float fb = r.kind == kWall ? s.wallFriction : bodies.friction[r.b];
    f.mu = r.group == kResting ? std::sqrt(fa * fb) : 0.0f;
    if (f.mu > 0.0f) {
      f.ra = bodies.radius[r.a];
      f.ia = 2.0f * r.ima / (f.ra * f.ra);
      if (r.kind == kBall) {
        f.rb = bodies.radius[r.b];
        f.ib = 2.0f * r.imb / (f.rb * f.rb);
      } else if (r.kind == kKinematic) {
        // Its surface speed w rb counts; it takes no impulse (ib = 0).
        f.rb = bodies.radius[r.b];
      }
      f.tMass = 1.0f / (r.ima + r.imb + f.ra * f.ra * f.ia + f.rb * f.rb * f.ib);
      const float cone = f.mu * r.lambda;  // r.lambda: as warm started
      f.lambda = std::clamp(store_.contacts()[r.contact].tangent, -cone, cone);
      const float rollB = r.kind == kBall ? bodies.rolling[r.b] : 0.0f;
      const float lever = r.kind == kBall ? std::min(f.ra, f.rb) : f.ra;
      f.roll = std::max(bodies.rolling[r.a], rollB) * lever;
      f.rollMass = 1.0f / (f.ia + f.ib);
      const float most = f.roll * r.lambda;
      f.rollLambda = std::clamp(store_.contacts()[r.contact].rolling, -most, most);
    }
    frictionRows_[rowIndex(r)] = f;
    return false;
  });
  BallState* st = state_.data();
  FrictionRow* fr = frictionRows_.data();
  float* spin = spin_.data();
  const Row* base = rows_.data();
  forEachRow(tasks, kResting, [st, fr, spin, base](Row& r) {
    const FrictionRow& f = fr[&r - base];
    if (f.lambda == 0.0f && f.rollLambda == 0.0f) return false;
    const Vec2 p{-r.ny * f.lambda, r.nx * f.lambda};
    st[r.a].v -= p * r.ima;
    spin[r.a] -= f.ia * (f.ra * f.lambda + f.rollLambda);
    if (r.kind == kBall) {
      st[r.b].v += p * r.imb;
      spin[r.b] += f.ib * (f.rollLambda - f.rb * f.lambda);
    }
    return false;
  });
}

void ContactSolver::solveResting(const BodyStore& bodies, const SolverSettings& s,
                                 TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  state_.resize(n);
  maxSpeed_.resize(n);
  clock_ = 1;
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      // changed = 1: rows start unchecked (0), so every row is checked once.
      state_[i] = {{bodies.px[i], bodies.py[i]}, {bodies.vx[i], bodies.vy[i]}, {}, 0.0f, 1};
    }
  });
  extra_.clear();
  extraRows_.clear();
  extraSorted_.clear();
  escapees_.clear();
  impactsLeft_ = false;

  // Resting contacts: the last step's impulses first (warm starting), then
  // the sweeps. What they push is theirs: impacts leave it alone.
  BallState* st = state_.data();
  forEachRow(tasks, kResting, [st](Row& r) {
    if (r.lambda == 0.0f) return false;
    const Vec2 p{r.nx * r.lambda, r.ny * r.lambda};
    st[r.a].v -= p * r.ima;
    if (r.kind == kBall) st[r.b].v += p * r.imb;
    return false;
  });
  if (s.friction) buildFriction(bodies, s, tasks);
  sweep(tasks, kResting, s.velocityIterations, s.friction);
  // Under gravity: one more pass, bottom-up (contact_shock.cpp).
  if (orderForShock(bodies, s, tasks)) propagateShock(s);
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      maxSpeed_[i] = std::max(length(Vec2{bodies.vx[i], bodies.vy[i]}), length(state_[i].v));
    }
  });
}

std::uint32_t ContactSolver::solveImpacts(const BodyStore& bodies, const SolverSettings& s,
                                          TaskSystem& tasks) {
  return impactPasses(bodies, s, tasks);
}

std::uint32_t ContactSolver::findEscapees(const BodyStore& bodies, const SolverSettings& s,
                                          TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  lookedAt_ = escapees_.size();
  indexBuffers_.reset(chunkCount(n, kBodyChunk));
  forEachChunk(tasks, n, kBodyChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (bodies.awake[i] == 0) continue;
      if (maxSpeed_[i] * s.dt > margin_[i] + kEscapeTolerance * bodies.radius[i]) {
        indexBuffers_[c].push_back(i);
      }
    }
  });
  indexBuffers_.appendTo(tasks, escapees_);
  return static_cast<std::uint32_t>(escapees_.size() - lookedAt_);
}

// When the passes ran out, touching pairs may still approach (a pile
// struck from above, a crowd whose collisions outnumber the passes).
// Where there is a restitution threshold (gravity, or one set), they stop
// approaching here, inelastically, so that a pile comes to rest instead
// of buzzing. Without one (no gravity, e = 1: billiards, gases) they are
// left to the next step's impacts, and the kinetic energy is kept.
void ContactSolver::stopApproaching(const SolverSettings& s, TaskSystem& tasks) {
  if (impactsLeft_ && s.restitutionThreshold > 0.0f) {
    sweep(tasks, kTouchingCollision, std::max(1u, s.velocityIterations / 2), s.friction);
  }
}

}  // namespace quadbin
