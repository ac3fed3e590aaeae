// The velocity solver (see velocity_solver.hpp); the shock pass is in
// velocity_shock.cpp.
#include "solver/velocity_solver.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "bodies/kinematic.hpp"

namespace quadbin {

using enum StepRows::Kind;
using enum StepRows::Group;

namespace {

// Under gravity, where the shock pass runs (see orderForShock), the normal
// impulses of the contacts with friction are over-relaxed (successive
// over-relaxation of the sequential impulses) in every sweep but the
// last, which takes the plain step: a pile's support climbs several rows
// per sweep instead of one or two, where 8 plain sweeps let a
// 10,000-ball pile creep and slump for seconds after it landed
// (docs/physics.md, "Tall piles"). The plain last sweep keeps an isolated
// contact exact. Frictionless contacts keep the plain sweeps: with
// nothing to hold them sideways, an overshoot sets them sliding.
constexpr float kOverRelaxation = 1.8f;

}  // namespace

// Sequential impulses: each contact aims for its target normal speed with
// a non-negative total impulse, contact after contact. With friction, a
// contact first stops its sliding, with a tangent impulse within the cone
// |tangent| <= mu * normal of the normal impulse it has so far (as Box2D).
std::uint32_t VelocitySolver::sweep(TaskSystem& tasks, StepRows::Group lastGroup,
                                    std::uint32_t iterations, bool friction, float relaxation) {
  assert(relaxation == 1.0f || friction);  // over-relaxed rows are those with friction
  BallState* st = step_.state.data();
  FrictionRow* fr = step_.frictionRows.data();
  float* spin = step_.spin.data();
  const Row* base = step_.rows.data();
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
    float vt = (vb.x - va.x) * -r.ny + (vb.y - va.y) * r.nx - spin[r.a] * f.ra - wb * f.rb;
    if (f.turn != 0.0f) vt += f.turn;
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
  // leaves the next one nothing to do. The end-of-pass hook runs between
  // two sweeps, before the next one is published to the threads: it sets
  // the next sweep's relaxation.
  float relax = iterations > 1 ? relaxation : 1.0f;
  std::uint32_t pass = 0, changedRows = 0;
  step_.passesOverRows(
      tasks, lastGroup, step_.rows.data(), 0, iterations,
      [st, fr, base, friction, &slide, &relax](Row& r) {
        const bool slid = friction && slide(r);
        const Vec2 va = st[r.a].v;
        const Vec2 vb = r.kind == kBall || r.kind == kKinematic ? st[r.b].v : Vec2{};
        const float vn = (vb.x - va.x) * r.nx + (vb.y - va.y) * r.ny;
        const float w = relax != 1.0f && fr[&r - base].mu > 0.0f ? relax : 1.0f;
        const float total = std::max(r.lambda + w * r.mEff * (r.target - vn), 0.0f);
        const float d = total - r.lambda;
        if (d == 0.0f) return slid;
        r.lambda = total;
        const Vec2 p{r.nx * d, r.ny * d};
        st[r.a].v = va - p * r.ima;
        if (r.kind == kBall) st[r.b].v = vb + p * r.imb;
        return true;
      },
      pre,
      [&relax, &pass, &changedRows, iterations](std::uint32_t changed) {
        if (++pass + 1 >= iterations) relax = 1.0f;
        changedRows += changed;
        return untilUnchanged(changed);
      });
  return changedRows;
}

// Friction rows for the resting rows, warm started from the last step's
// tangent impulses (applied here, after the normal ones).
void VelocitySolver::buildFriction(const BodyStore& bodies, const SolverSettings& s,
                                   std::span<const contacts::Contact> contacts, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  step_.spin.resize(n);
  tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) step_.spin[i] = bodies.w[i];
  });
  step_.frictionRows.resize(step_.rows.size());
  // In the colour loop's split (see correctPositions).
  step_.forEachRow(tasks, kApart, [&](const Row& r) {
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
        if (kinematic::turns(bodies, r.b)) {  // an outline: w x arm where they touch
          const Vec2 centre{bodies.px[r.b], bodies.py[r.b]};
          const Vec2 q = Vec2{bodies.px[r.a], bodies.py[r.a]} + Vec2{r.nx, r.ny} * f.ra;
          const Vec2 turn = kinematic::surfaceVelocity(bodies, r.b, {}, centre, q);
          f.turn = dot(turn, Vec2{-r.ny, r.nx});
        }
      }
      f.tMass = 1.0f / (r.ima + r.imb + f.ra * f.ra * f.ia + f.rb * f.rb * f.ib);
      const float cone = f.mu * r.lambda;  // r.lambda: as warm started
      f.lambda = std::clamp(contacts[r.contact].tangent, -cone, cone);
      const float rollB = r.kind == kBall ? bodies.rolling[r.b] : 0.0f;
      const float lever = r.kind == kBall ? std::min(f.ra, f.rb) : f.ra;
      f.roll = std::max(bodies.rolling[r.a], rollB) * lever;
      f.rollMass = 1.0f / (f.ia + f.ib);
      const float most = f.roll * r.lambda;
      f.rollLambda = std::clamp(contacts[r.contact].rolling, -most, most);
    }
    step_.frictionRows[step_.rowIndex(r)] = f;
    return false;
  });
  BallState* st = step_.state.data();
  FrictionRow* fr = step_.frictionRows.data();
  float* spin = step_.spin.data();
  const Row* base = step_.rows.data();
  step_.forEachRow(tasks, kResting, [st, fr, spin, base](Row& r) {
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

void VelocitySolver::solveResting(const BodyStore& bodies, const SolverSettings& s,
                                  std::span<const contacts::Contact> contacts, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  // Resting contacts: the last step's impulses first (warm starting), then
  // the sweeps. What they push is theirs: impacts leave it alone.
  BallState* st = step_.state.data();
  std::uint32_t changed = step_.forEachRow(tasks, kResting, [st](Row& r) {
    if (r.lambda == 0.0f) return false;
    const Vec2 p{r.nx * r.lambda, r.ny * r.lambda};
    st[r.a].v -= p * r.ima;
    if (r.kind == kBall) st[r.b].v += p * r.imb;
    return true;
  });
  if (s.friction) {
    buildFriction(bodies, s, contacts, tasks);
    ++changed;  // (its warm start may have)
  }
  changed += sweep(tasks, kResting, s.velocityIterations, s.friction,
                   shockPasses(s) ? kOverRelaxation : 1.0f);
  // Under gravity: one more pass, bottom-up (velocity_shock.cpp).
  if (orderForShock(bodies, s, tasks)) {
    propagateShock(s);
    ++changed;
  }
  // The fastest each ball went: its speed before (beginSolve) or after
  // these rows. Where they changed no velocity (a gas's touching pairs
  // move apart), that is its speed: one pass over the balls fewer.
  if (changed == 0) return;
  tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      step_.maxSpeed[i] = std::max(step_.maxSpeed[i], length(step_.state[i].v));
    }
  });
}

// When the passes ran out, touching pairs may still approach (a pile
// struck from above, a crowd whose collisions outnumber the passes).
// Where there is a restitution threshold (gravity, or one set), they stop
// approaching here, inelastically, so that a pile comes to rest instead
// of buzzing. Without one (no gravity, e = 1: billiards, gases) they are
// left to the next step's impacts, and the kinetic energy is kept.
void VelocitySolver::stopApproaching(const SolverSettings& s, bool impactsLeft, TaskSystem& tasks) {
  if (impactsLeft && s.restitutionThreshold > 0.0f) {
    sweep(tasks, kTouchingCollision, std::max(1u, s.velocityIterations / 2), s.friction, 1.0f);
  }
}

}  // namespace quadbin
