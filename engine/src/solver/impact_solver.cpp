// The impact solver (see impact_solver.hpp).
#include "solver/impact_solver.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <quadbin/geometry.hpp>
#include <quadbin/narrowphase.hpp>

#include "bodies/kinematic.hpp"
#include "bodies/solid.hpp"

namespace quadbin {

using contacts::wall;
using contacts::wallSide;
using enum StepRows::Kind;
using enum StepRows::Group;

void ImpactSolver::rub(const BodyStore& bodies, std::uint32_t a, const ImpactOther& b, Vec2 n,
                       float jn, float mu, float t) {
  const Vec2 tangent{-n.y, n.x};  // as the resting rows' t = perp(n)
  const float ra = bodies.radius[a], rb = b.radius;
  const float ima = bodies.invMass[a], imb = b.invMass;
  const Vec2 va = step_.state[a].v;
  const Vec2 vb = b.velocity;
  const float wb = b.spins && rb > 0.0f ? step_.spin[b.index] : 0.0f;
  // Relative sliding of the contact point (ra n from a, -rb n from b).
  const float vt = dot(vb - va, tangent) - step_.spin[a] * ra - wb * rb;
  // Solid discs: inverse inertia 2 / (m r^2), so r^2 / I = 2 / m.
  const float ia = 2.0f * ima / (ra * ra);
  const float ib = imb > 0.0f ? 2.0f * imb / (rb * rb) : 0.0f;
  const float most = mu * jn;
  const float d = std::clamp(-vt / (ima + imb + 2.0f * ima + 2.0f * imb), -most, most);
  if (!(d != 0.0f)) return;
  step_.applyImpulse(a, tangent * (-d * ima), t);
  step_.spin[a] -= ia * ra * d;
  if (imb > 0.0f) {
    step_.applyImpulse(b.index, tangent * (d * imb), t);
    step_.spin[b.index] -= ib * rb * d;
  }
}

// The row's inverse masses are the bodies' (makeRow): one random read less
// per ball.
bool ImpactSolver::impactBalls(const BodyStore& bodies, const SolverSettings& s, const Row& r) {
  const std::uint32_t a = r.a, b = r.b;
  const float t0 = std::max(step_.state[a].tLast, step_.state[b].tLast);
  const Vec2 pa = step_.positionAt(a, t0), pb = step_.positionAt(b, t0);
  const Vec2 va = step_.state[a].v, vb = step_.state[b].v;
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
  step_.applyImpulse(a, n * (-j * ima), t);
  step_.applyImpulse(b, n * (j * imb), t);
  if (s.friction) {
    const float mu = std::sqrt(bodies.friction[a] * bodies.friction[b]);
    if (mu > 0.0f) rub(bodies, a, {b, bodies.radius[b], imb, step_.state[b].v, true}, n, j, mu, t);
  }
  return true;
}

bool ImpactSolver::impactBox(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                             std::uint32_t box) {
  const float t0 = step_.state[a].tLast;
  const Vec2 pa = step_.positionAt(a, t0);
  const Vec2 v = step_.state[a].v;
  const solid::Solid shape = solid::of(bodies, box);
  const auto toi = solid::timeOfImpact(Circle{pa, bodies.radius[a]}, v, shape, s.dt - t0);
  if (!toi) return false;
  const Vec2 n = solid::outwardNormal(shape, pa + v * *toi);
  const float vn = dot(v, n);
  if (vn >= 0.0f) return false;
  const float dv = -(1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, box))) * vn;
  step_.applyImpulse(a, n * dv, t0 + *toi);
  if (s.friction) {
    const float mu = std::sqrt(bodies.friction[a] * bodies.friction[box]);
    if (mu > 0.0f) {
      rub(bodies, a, {}, -n, dv / bodies.invMass[a], mu, t0 + *toi);
    }
  }
  return true;
}

bool ImpactSolver::impactWall(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                              std::uint32_t side) {
  const float t0 = step_.state[a].tLast;
  const Vec2 p = step_.positionAt(a, t0);
  const float r = bodies.radius[a];
  const bool xAxis = side < 2;
  const bool lowSide = side % 2 == 0;
  const float pos = xAxis ? p.x : p.y;
  const float vel = xAxis ? step_.state[a].v.x : step_.state[a].v.y;
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
  step_.applyImpulse(a, xAxis ? Vec2{dvn, 0.0f} : Vec2{0.0f, dvn}, t);
  if (s.friction) {
    const float mu = std::sqrt(s.wallFriction * bodies.friction[a]);
    if (mu > 0.0f) {
      const float out = lowSide ? -1.0f : 1.0f;  // from the ball towards the wall
      rub(bodies, a, {}, xAxis ? Vec2{out, 0.0f} : Vec2{0.0f, out},
          std::abs(dvn) / bodies.invMass[a], mu, t);
    }
  }
  return true;
}

// A ball against a kinematic body: time of impact in relative motion, and
// the ball's velocity relative to the body reflected (infinite mass).
bool ImpactSolver::impactKinematic(const BodyStore& bodies, const SolverSettings& s,
                                   std::uint32_t a, std::uint32_t k) {
  const float t0 = step_.state[a].tLast;
  const Vec2 pa = step_.positionAt(a, t0), pk = step_.positionAt(k, t0);
  const Vec2 va = step_.state[a].v, vk = step_.state[k].v;
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
  step_.applyImpulse(a, n * dv, t0 + *toi);
  if (s.friction) {
    const float mu = std::sqrt(bodies.friction[a] * bodies.friction[k]);
    if (mu > 0.0f) {
      rub(bodies, a, {k, bodies.radius[k], 0.0f, vs, true}, n, -dv / bodies.invMass[a], mu,
          t0 + *toi);
    }
  }
  return true;
}

// Inlined: the impact passes' row function, whose early outs skip most rows.
[[gnu::always_inline]] inline bool ImpactSolver::impact(const BodyStore& bodies,
                                                        const SolverSettings& s, Row& r) {
  // Contacts the iterations pushed are theirs for this step.
  if (r.lambda != 0.0f) return false;
  // Nothing changed since the last check: the same answer (none).
  if (step_.state[r.a].changed <= r.checked &&
      (r.kind != kBall || step_.state[r.b].changed <= r.checked)) {
    return false;
  }
  r.checked = step_.clock;
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

std::uint32_t ImpactSolver::solve(const BodyStore& bodies, const SolverSettings& s,
                                  TaskSystem& tasks) {
  std::uint32_t total = 0;
  bool ranOut = true;
  // The passes in one parallel region; the end of a pass (the extra rows,
  // few: serially) runs on one thread, between two passes.
  step_.passesOverRows(
      tasks, kApart, step_.rows.data(), 0, s.impactPasses,
      [&](Row& r) { return impact(bodies, s, r); },
      [this](const Row& r) {
        if (r.lambda != 0.0f) return;  // impact() skips it
        prefetch(&step_.state[r.a]);
        if (r.kind == kBall || r.kind == kKinematic) prefetch(&step_.state[r.b]);
      },
      [&](std::uint32_t hits) {
        ++step_.clock;
        for (Row& r : step_.extraRows) hits += impact(bodies, s, r) ? 1u : 0u;
        total += hits;
        ranOut = hits != 0;
        return ranOut;
      });
  if (ranOut) impactsLeft_ = true;
  return total;
}

}  // namespace quadbin
