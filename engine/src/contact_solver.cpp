// Contact iterations, exact impacts and position correction (see
// contact_solver.hpp).
#include "contact_solver.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <quadbin/narrowphase/contact.hpp>

#include "kinematic.hpp"

namespace quadbin {

namespace {
// Rounds of "impacts, then look again for balls that outran their box".
constexpr int kMaxRounds = 4;
// Position correction, two parts. The shift passes aim to remove each
// overlap whole in a step (at most kMaxShift of the smaller radius), warm
// started from the last step's shift impulses. Calm contacts (one that
// carried a load in the last step, or, in a world with a restitution
// threshold, one resting) only hold there: settle() then lifts a loaded
// overlap by kGentle of it per pass and another by all of it (at most
// kMaxLift of the smaller radius per pass), cold, since lifting a loaded
// ball out of an overlap at once turns into kinetic energy when it falls
// back, and warm started lifts make a tall pile pop.
constexpr float kMaxShift = 1.0f;
constexpr float kGentle = 0.2f;
constexpr float kMaxLift = 0.5f;
// An overlap under this fraction of the smaller radius does not keep the
// settling passes going.
constexpr float kSettled = 1e-3f;
// guardBoxes(): a path that only grazes a box (by this fraction of the
// radius) does not enter it.
constexpr float kGuardTolerance = 1e-3f;
constexpr float kTwoPi = 6.28318530717958647692f;
// Work split: constants, never the thread count.
constexpr std::uint32_t kContactChunk = 16384;
constexpr std::uint32_t kBodyGrain = 4096;
constexpr std::uint32_t kBodyChunk = 16384;
constexpr std::uint32_t kContactGrain = 1024;
}  // namespace

template <class R, class F>
std::uint32_t ContactSolver::forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rows,
                                          std::uint32_t tail, F&& f) {
  std::atomic<std::uint32_t> hits{0};
  for (std::uint32_t colour = 0; colour <= kColours; ++colour) {
    const std::uint32_t first = bucketStart_[std::size_t{kGroups} * colour];
    std::uint32_t last = bucketStart_[kGroups * colour + lastGroup + 1];
    if (colour == kColours) last += tail;
    if (first == last) continue;
    R* part = rows + first;
    ++clock_;
    // One atomic add per range of rows, never per row.
    auto run = [&](std::uint32_t begin, std::uint32_t end) {
      std::uint32_t local = 0;
      for (std::uint32_t k = begin; k < end; ++k) local += f(part[k]) ? 1u : 0u;
      if (local != 0) hits.fetch_add(local, std::memory_order_relaxed);
    };
    if (colour == kColours) {
      run(0, last - first);  // the overflow group shares balls: serially
    } else {
      tasks.parallelFor(last - first, kContactGrain, run);
    }
  }
  return hits.load(std::memory_order_relaxed);
}

template <class F>
std::uint32_t ContactSolver::forEachRow(TaskSystem& tasks, Group lastGroup, F&& f) {
  return forEachRowIn(tasks, lastGroup, rows_.data(), 0, f);
}

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
  for (std::uint32_t it = 0; it < iterations; ++it) {
    // A sweep that changed no impulse leaves the next one nothing to do.
    const std::uint32_t changed = forEachRow(tasks, lastGroup, [st, friction, &slide](Row& r) {
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
    });
    if (changed == 0) break;
  }
}

void ContactSolver::applyImpulse(std::uint32_t i, Vec2 dv, float t) {
  BallState& b = state_[i];
  b.v += dv;
  // The body moved with its old velocity until t and moves with the new one
  // after: shift its end-of-step position so the path stays continuous.
  b.corr -= dv * t;
  b.tLast = t;
  changed_[i] = clock_;
  maxSpeed_[i] = std::max(maxSpeed_[i], length(b.v));
}

bool ContactSolver::impactBalls(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                                std::uint32_t b) {
  const float t0 = std::max(state_[a].tLast, state_[b].tLast);
  const Vec2 pa = positionAt(a, t0), pb = positionAt(b, t0);
  const Vec2 va = state_[a].v, vb = state_[b].v;
  // Most rows in a pass are pairs moving apart: no time of impact for them.
  const Vec2 w0 = vb - va, d0 = pb - pa;
  if (dot(w0, d0) >= 0.0f) return false;
  const auto toi =
      timeOfImpact(Circle{pa, bodies.radius[a]}, va, Circle{pb, bodies.radius[b]}, vb, s.dt - t0);
  if (!toi) return false;
  const Vec2 w = vb - va;
  const Vec2 d = pb - pa + w * *toi;
  const Vec2 n = normalizeOr(d, normalizeOr(-w));
  const float vn = dot(w, n);
  if (vn >= 0.0f) return false;  // touching but already separating
  const float ima = bodies.invMass[a], imb = bodies.invMass[b];
  const float j = -(1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, b))) * vn / (ima + imb);
  const float t = t0 + *toi;
  applyImpulse(a, n * (-j * ima), t);
  applyImpulse(b, n * (j * imb), t);
  return true;
}

bool ContactSolver::impactBox(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                              std::uint32_t box) {
  const float t0 = state_[a].tLast;
  const Vec2 pa = positionAt(a, t0);
  const Vec2 v = state_[a].v;
  const AABB shape = bodies.tightBox(box);
  const auto toi = timeOfImpact(Circle{pa, bodies.radius[a]}, v, shape, s.dt - t0);
  if (!toi) return false;
  const Vec2 n = outwardNormal(shape, pa + v * *toi);
  const float vn = dot(v, n);
  if (vn >= 0.0f) return false;
  applyImpulse(a, n * (-(1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, box))) * vn),
               t0 + *toi);
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
      -(1.0f + s.restitutionFor(std::abs(vel), s.restitutionOf(bodies, a, kWallBase))) * vel;
  applyImpulse(a, xAxis ? Vec2{dvn, 0.0f} : Vec2{0.0f, dvn}, t);
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
  const auto toi = kinematic::timeOfImpact(bodies, k, pk, vk, Circle{pa, ra}, va, s.dt - t0);
  if (!toi) return false;
  const Vec2 n = kinematic::touch(bodies, k, pk + vk * *toi, pa + va * *toi, ra).normal;
  const float vn = dot(vk - va, n);
  if (vn >= 0.0f) return false;  // touching but already separating
  applyImpulse(a, n * ((1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, k))) * vn),
               t0 + *toi);
  return true;
}

bool ContactSolver::impact(const BodyStore& bodies, const SolverSettings& s, Row& r) {
  // Contacts the iterations pushed are theirs for this step.
  if (r.lambda != 0.0f) return false;
  // Nothing changed since the last check: the same answer (none).
  if (changed_[r.a] <= r.checked && (r.kind != kBall || changed_[r.b] <= r.checked)) return false;
  r.checked = clock_;
  bool hit = false;
  if (r.kind == kWall) {
    hit = impactWall(bodies, s, r.a, r.b - kWallBase);
  } else if (r.kind == kBall) {
    hit = impactBalls(bodies, s, r.a, r.b);
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
  for (std::uint32_t pass = 0; pass < s.impactPasses; ++pass) {
    std::uint32_t hits = forEachRow(tasks, kApart, [&](Row& r) { return impact(bodies, s, r); });
    ++clock_;
    for (Row& r : extraRows_) hits += impact(bodies, s, r) ? 1u : 0u;  // few: serially
    total += hits;
    if (hits == 0) return total;
  }
  impactsLeft_ = true;
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
  tasks.parallelFor(static_cast<std::uint32_t>(rows_.size()), kContactGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      for (std::uint32_t k = begin; k < end; ++k) {
                        const Row& r = rows_[k];
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
                          f.tMass =
                              1.0f / (r.ima + r.imb + f.ra * f.ra * f.ia + f.rb * f.rb * f.ib);
                          const float cone = f.mu * r.lambda;  // r.lambda: as warm started
                          f.lambda = std::clamp(contacts_[r.contact].tangent, -cone, cone);
                          const float rollB = r.kind == kBall ? bodies.rolling[r.b] : 0.0f;
                          const float lever = r.kind == kBall ? std::min(f.ra, f.rb) : f.ra;
                          f.roll = std::max(bodies.rolling[r.a], rollB) * lever;
                          f.rollMass = 1.0f / (f.ia + f.ib);
                          const float most = f.roll * r.lambda;
                          f.rollLambda = std::clamp(contacts_[r.contact].rolling, -most, most);
                        }
                        frictionRows_[k] = f;
                      }
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

SolverResult ContactSolver::solve(BodyStore& bodies, const SolverSettings& s,
                                  const BroadPhase& broad, std::vector<AABB>& boxes,
                                  TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  state_.resize(n);
  maxSpeed_.resize(n);
  changed_.assign(n, 1);  // rows start unchecked (0): every row is checked once
  clock_ = 1;
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      state_[i] = {
          {bodies.px[i], bodies.py[i]}, {bodies.vx[i], bodies.vy[i]}, {}, 0.0f, bodies.invMass[i]};
    }
  });
  extra_.clear();
  extraRows_.clear();
  extraSorted_.clear();

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
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      maxSpeed_[i] = std::max(length(Vec2{bodies.vx[i], bodies.vy[i]}), length(state_[i].v));
    }
  });

  SolverResult result;
  impactsLeft_ = false;
  std::vector<std::uint32_t>& grown = escapees_;  // every ball whose box grew this step
  grown.clear();
  for (int round = 0; round < kMaxRounds; ++round) {
    result.impulses += impactPasses(bodies, s, tasks);
    // Balls that collisions made faster than their swept box allowed may
    // reach bodies the broad phase did not pair them with: look again.
    const std::size_t firstNew = grown.size();
    indexBuffers_.reset(chunkCount(n, kBodyChunk));
    forEachChunk(tasks, n, kBodyChunk,
                 [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                   for (std::uint32_t i = begin; i < end; ++i) {
                     if (bodies.awake[i] == 0) continue;
                     if (maxSpeed_[i] * s.dt > margin_[i] + kEscapeTolerance * bodies.radius[i]) {
                       indexBuffers_[c].push_back(i);
                     }
                   }
                 });
    indexBuffers_.appendTo(tasks, grown);
    if (grown.size() == firstNew) break;
    if (round == kMaxRounds - 1) {
      result.unresolvedEscapes = static_cast<std::uint32_t>(grown.size() - firstNew);
      break;
    }
    lookAgain(bodies, s, broad, boxes, firstNew, tasks);
  }
  // When the passes ran out, touching pairs may still approach (a pile
  // struck from above, a crowd whose collisions outnumber the passes).
  // Where there is a restitution threshold (gravity, or one set), they stop
  // approaching here, inelastically, so that a pile comes to rest instead
  // of buzzing. Without one (no gravity, e = 1: billiards, gases) they are
  // left to the next step's impacts, and the kinetic energy is kept.
  if (impactsLeft_ && s.restitutionThreshold > 0.0f) {
    sweep(tasks, kTouchingCollision, std::max(1u, s.velocityIterations / 2), s.friction);
  }
  return result;
}

// One pass of nonlinear Gauss-Seidel on a calm contact: the pair is moved
// apart along the line of centres by kGentle of its overlap if it is
// loaded, else by all of it (at most kMaxLift of the smaller radius), in
// inverse proportion to the masses.
bool ContactSolver::settle(const BodyStore& bodies, const SolverSettings& s, Row& r) {
  const std::uint32_t a = r.a;
  const Vec2 pa = state_[a].p;
  const float ra = bodies.radius[a];
  const float share = r.lambda > 0.0f ? kGentle : 1.0f;
  auto lift = [share](float overlap, float radius) {
    return std::min(overlap * share, kMaxLift * radius);
  };
  if (r.kind == kBall) {
    const float rb = bodies.radius[r.b];
    const Vec2 d = state_[r.b].p - pa;
    const float dist = length(d);
    const float overlap = ra + rb - dist;
    if (!(overlap > 0.0f)) return false;
    const float smaller = std::min(ra, rb);
    const Vec2 n = dist > 0.0f ? d / dist : Vec2{r.nx, r.ny};
    const float push = lift(overlap, smaller) * r.mEff;
    state_[a].p -= n * (push * r.ima);
    state_[r.b].p += n * (push * r.imb);
    return overlap > kSettled * smaller;
  }
  if (r.kind == kKinematic) {  // where the body ends the step
    const kinematic::Touch t = kinematic::touch(bodies, r.b, state_[r.b].p, pa, ra);
    if (!(t.gap < 0.0f)) return false;
    state_[a].p -= t.normal * lift(-t.gap, ra);
    return -t.gap > kSettled * ra;
  }
  if (r.kind == kBox) {
    const auto hit = collide(Circle{pa, ra}, bodies.tightBox(r.b));
    if (!hit || !(hit->depth > 0.0f)) return false;
    state_[a].p -= hit->normal * lift(hit->depth, ra);
    return hit->depth > kSettled * ra;
  }
  const float gap = s.wallGap(pa, ra, r.b - kWallBase);
  if (!(gap < 0.0f)) return false;
  state_[a].p += Vec2{r.nx, r.ny} * gap;  // back inside, all the way: a wall does not give
  return false;
}

ContactSolver::ShiftRow ContactSolver::makeShiftRow(const BodyStore& bodies,
                                                    const SolverSettings& s, Row& r,
                                                    std::uint32_t staticSlot) const {
  const Vec2 pa = state_[r.a].p;
  const float ra = bodies.radius[r.a];
  Vec2 n{r.nx, r.ny};
  float gap = 0.0f, smaller = ra;
  if (r.kind == kBall) {
    const float rb = bodies.radius[r.b];
    const Vec2 d = state_[r.b].p - pa;
    const float dist = length(d);
    if (dist > 0.0f) n = d / dist;
    gap = dist - ra - rb;
    smaller = std::min(ra, rb);
  } else if (r.kind == kKinematic) {  // where the body ends the step
    const kinematic::Touch t = kinematic::touch(bodies, r.b, state_[r.b].p, pa, ra);
    n = t.normal;
    gap = t.gap;
  } else if (r.kind == kBox) {
    const AABB box = bodies.tightBox(r.b);
    const auto hit = collide(Circle{pa, ra}, box);
    if (hit && hit->depth > 0.0f) {
      n = hit->normal;
      gap = -hit->depth;
    } else {
      const Vec2 d = closestPoint(box, pa) - pa;
      const float dist = length(d);
      if (dist > 0.0f) n = d / dist;
      gap = dist - ra;
    }
  } else {
    gap = s.wallGap(pa, ra, r.b - kWallBase);
  }
  const bool calm = isCalm(s, r);
  ShiftRow out{};
  out.a = r.a;
  out.b = r.kind == kBall ? r.b : staticSlot;
  out.nx = n.x;
  out.ny = n.y;
  out.ima = r.ima;
  out.imb = r.imb;
  out.mEff = r.mEff;
  if (gap < 0.0f) {
    r.touched = 1;
    // A calm contact only holds (its overlap grows no deeper); settle()
    // lifts it out afterwards.
    out.goal = calm ? 0.0f : std::min(-gap, kMaxShift * smaller);
  } else {
    out.goal = -gap;  // may close the gap, no more
  }
  // Warm started, except where it would pull an open gap shut (the shift
  // impulse only lessens after a warm start): in a world with a restitution
  // threshold only overlapping contacts keep theirs, or a resting pile would
  // jitter; without one (gases, crowds) near-touching contacts keep theirs
  // too, and a crowd's "pressure" carries across them.
  const bool warm = !calm && (gap < 0.0f || !(s.restitutionThreshold > 0.0f));
  out.shift = warm ? r.shift : 0.0f;
  return out;
}

// Sequential impulses on position shifts: each contact aims for its goal
// (its normal shift) with a non-negative total impulse, mass-weighted, so
// the shifts keep the centre of mass; velocities are untouched, so no
// kinetic energy is added.
std::uint32_t ContactSolver::correctPositions(const BodyStore& bodies, const SolverSettings& s,
                                              TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const auto rowCount = static_cast<std::uint32_t>(rows_.size());
  const auto extraCount = static_cast<std::uint32_t>(extraRows_.size());
  shiftRows_.resize(std::size_t{rowCount} + extraCount);
  // Rows with work: an overlap to remove or a shift impulse to start from.
  auto acts = [](const ShiftRow& r) { return r.goal > 0.0f || r.shift > 0.0f; };
  std::atomic<std::uint32_t> calm{0}, active{0};
  tasks.parallelFor(rowCount, kContactGrain, [&](std::uint32_t begin, std::uint32_t end) {
    std::uint32_t calmHere = 0, activeHere = 0;
    for (std::uint32_t k = begin; k < end; ++k) {
      shiftRows_[k] = makeShiftRow(bodies, s, rows_[k], n);
      calmHere += isCalm(s, rows_[k]) ? 1u : 0u;
      activeHere += acts(shiftRows_[k]) ? 1u : 0u;
    }
    if (calmHere != 0) calm.fetch_add(calmHere, std::memory_order_relaxed);
    if (activeHere != 0) active.fetch_add(activeHere, std::memory_order_relaxed);
  });
  bool any = active.load(std::memory_order_relaxed) != 0;
  for (std::uint32_t e = 0; e < extraCount; ++e) {
    shiftRows_[rowCount + e] = makeShiftRow(bodies, s, extraRows_[e], n);
    any = any || acts(shiftRows_[rowCount + e]);
  }
  if (!any) return calm.load(std::memory_order_relaxed);  // nothing overlaps: no shift
  shift_.assign(std::size_t{n} + 1, Vec2{});
  Vec2* sh = shift_.data();
  // Colour after colour like the rows; the extra rows follow the overflow
  // group (serially).
  auto forEachShiftRow = [&](auto&& f) {
    return forEachRowIn(tasks, kApart, shiftRows_.data(), extraCount, f);
  };
  forEachShiftRow([sh](ShiftRow& r) {  // warm start
    if (r.shift == 0.0f) return false;
    const Vec2 p{r.nx * r.shift, r.ny * r.shift};
    sh[r.a] -= p * r.ima;
    if (r.imb != 0.0f) sh[r.b] += p * r.imb;
    return false;
  });
  for (std::uint32_t pass = 0; pass < s.positionPasses; ++pass) {
    const std::uint32_t changed = forEachShiftRow([sh](ShiftRow& r) {
      const Vec2 sa = sh[r.a], sb = sh[r.b];
      const float u = (sb.x - sa.x) * r.nx + (sb.y - sa.y) * r.ny;
      const float total = std::max(r.shift + r.mEff * (r.goal - u), 0.0f);
      const float d = total - r.shift;
      if (d == 0.0f) return false;
      r.shift = total;
      const Vec2 p{r.nx * d, r.ny * d};
      sh[r.a] = sa - p * r.ima;
      if (r.imb != 0.0f) sh[r.b] = sb + p * r.imb;
      return true;
    });
    if (changed == 0) break;
  }
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) state_[i].p += shift_[i];
  });
  // The rows' shift impulses are read from shiftRows_ when the contacts
  // are stored (finishPositions); the extra rows keep theirs here.
  for (std::uint32_t e = 0; e < extraCount; ++e) {
    extraRows_[e].shift = shiftRows_[rowCount + e].shift;
  }
  return calm.load(std::memory_order_relaxed);
}

// The last word on static boxes: a ball's straight path from where it
// started the step to where it ends must not enter a box it has a contact
// with. In a crowd, a collision after the ball's impact with the box,
// impact passes that ran out or a position shift could carry it in or
// through. Where the path enters, the ball stops where it first touches
// the box and its velocity into the box is reflected as in an impact.
// Serially, in row order: the box contacts are few, and one ball's box
// contacts are guarded one after the other.
void ContactSolver::guardBoxes(const BodyStore& bodies, const SolverSettings& s,
                               TaskSystem& tasks) {
  const auto rowCount = static_cast<std::uint32_t>(rows_.size());
  indexBuffers_.reset(chunkCount(rowCount, kContactChunk));
  forEachChunk(tasks, rowCount, kContactChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 for (std::uint32_t k = begin; k < end; ++k) {
                   if (rows_[k].kind == kBox || rows_[k].kind == kKinematic) {
                     indexBuffers_[c].push_back(k);
                   }
                 }
               });
  auto guard = [&](const Row& r) {
    const std::uint32_t a = r.a;
    if (r.kind == kKinematic) {
      const Vec2 start{bodies.px[r.b], bodies.py[r.b]};
      kinematic::guard(bodies, s, a, r.b, start, state_[r.b].p, {bodies.px[a], bodies.py[a]},
                       state_[a].p, state_[a].v);
      return;
    }
    const float ra = bodies.radius[a];
    const AABB box = bodies.tightBox(r.b);
    const Vec2 p0{bodies.px[a], bodies.py[a]};
    Vec2& p1 = state_[a].p;
    const float inner = ra * (1.0f - kGuardTolerance);  // grazing is not entering
    if (collide(Circle{p0, inner}, box)) {
      // It started the step overlapping the box: only its end is guarded.
      const auto hit = collide(Circle{p1, inner}, box);
      if (!hit) return;
      p1 -= hit->normal * (hit->depth + ra - inner);
    } else {
      const auto t = timeOfImpact(Circle{p0, inner}, p1 - p0, box, 1.0f);
      if (!t || !(*t < 1.0f)) return;
      p1 = p0 + (p1 - p0) * *t;  // touching with the inner radius
      p1 += outwardNormal(box, p1) * (ra - inner);
    }
    Vec2& v = state_[a].v;
    const Vec2 n = outwardNormal(box, p1);
    const float vn = dot(v, n);
    if (vn < 0.0f) v -= n * ((1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, r.b))) * vn);
  };
  for (std::uint32_t c = 0; c < indexBuffers_.size(); ++c) {
    for (const std::uint32_t k : indexBuffers_[c]) guard(rows_[k]);
  }
  for (const Row& r : extraRows_) {
    if (r.kind == kBox || r.kind == kKinematic) guard(r);
  }
}

void ContactSolver::finishPositions(BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (bodies.awake[i] != 0) state_[i].p += state_[i].corr + state_[i].v * s.dt;
      if (kinematic::isKinematic(bodies, i)) state_[i].p += state_[i].v * s.dt;
    }
  });
  const bool corrected = s.positionPasses > 0;
  const std::uint32_t calm = corrected ? correctPositions(bodies, s, tasks) : 0;
  // Calm contacts (a pile's): nonlinear passes, each overlap measured from
  // the current positions.
  for (std::uint32_t pass = 0; calm != 0 && pass < s.positionPasses; ++pass) {
    const std::uint32_t moved =
        forEachRow(tasks, kResting, [&](Row& r) { return isCalm(s, r) && settle(bodies, s, r); });
    if (moved == 0) break;
  }
  // A closed world's walls first, then the boxes: a ball whose impact
  // passes ran out may end outside the world, and its path to the clamped
  // end is the one that must not cross a box.
  auto clampToWalls = [&](std::uint32_t i) {
    Vec2& p = state_[i].p;
    const float r = bodies.radius[i];
    p.x = std::clamp(p.x, s.bounds.min.x + r, s.bounds.max.x - r);
    p.y = std::clamp(p.y, s.bounds.min.y + r, s.bounds.max.y - r);
  };
  if (bodies.boxCount != 0) {
    if (s.closedWorld) {
      tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) {
          if (bodies.awake[i] != 0) clampToWalls(i);
        }
      });
    }
    guardBoxes(bodies, s, tasks);
  }
  tasks.parallelFor(n, kBodyGrain, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (kinematic::isKinematic(bodies, i)) {  // where its velocity took it
        bodies.px[i] = state_[i].p.x;
        bodies.py[i] = state_[i].p.y;
        if (bodies.w[i] != 0.0f) {  // a spinning kinematic ball turns at the game's rate
          bodies.angle[i] = std::remainder(bodies.angle[i] + bodies.w[i] * s.dt, kTwoPi);
        }
      }
      if (bodies.awake[i] == 0) continue;
      if (s.closedWorld) clampToWalls(i);  // after a guard's last push
      const Vec2 p = state_[i].p;
      bodies.px[i] = p.x;
      bodies.py[i] = p.y;
      bodies.vx[i] = state_[i].v.x;
      bodies.vy[i] = state_[i].v.y;
      if (s.friction) bodies.w[i] = spin_[i];
      if (bodies.w[i] != 0.0f) {
        bodies.angle[i] = std::remainder(bodies.angle[i] + bodies.w[i] * s.dt, kTwoPi);
      }
    }
  });
  // What persists: the iterations' impulses and whether the pair touched;
  // then the extra contacts join the canonical list.
  std::atomic<std::uint32_t> pushed{0};
  tasks.parallelFor(static_cast<std::uint32_t>(rows_.size()), kBodyGrain,
                    [&](std::uint32_t begin, std::uint32_t end) {
                      std::uint32_t local = 0;
                      for (std::uint32_t k = begin; k < end; ++k) {
                        const Row& r = rows_[k];
                        Contact& c = contacts_[r.contact];
                        c.lambda = r.lambda;
                        c.shift = corrected ? shiftRows_[k].shift : r.shift;
                        c.tangent = s.friction ? frictionRows_[k].lambda : 0.0f;
                        c.rolling = s.friction ? frictionRows_[k].rollLambda : 0.0f;
                        c.touched = r.touched;
                        local += r.lambda > 0.0f ? 1u : 0u;
                      }
                      pushed.fetch_add(local, std::memory_order_relaxed);
                    });
  pushed_ = pushed.load(std::memory_order_relaxed);
  if (extra_.empty()) return;
  for (std::size_t k = 0; k < extra_.size(); ++k) {
    extra_[k].touched = extraRows_[k].touched;
    extra_[k].shift = extraRows_[k].shift;
  }
  std::sort(extra_.begin(), extra_.end());
  const auto mid = static_cast<std::ptrdiff_t>(contacts_.size());
  contacts_.insert(contacts_.end(), extra_.begin(), extra_.end());
  std::inplace_merge(contacts_.begin(), contacts_.begin() + mid, contacts_.end());
}

}  // namespace quadbin
