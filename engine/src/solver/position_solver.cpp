// The position solver: position correction, the static-box guard and the
// end of the step's positions (see position_solver.hpp).
#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <quadbin/narrowphase.hpp>

#include "bodies/kinematic.hpp"
#include "bodies/solid.hpp"
#include "bodies/state_range.hpp"
#include "solver/position_solver.hpp"

namespace quadbin {

using contacts::wallSide;
using enum StepRows::Kind;
using enum StepRows::Group;

namespace {
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
// Without a restitution threshold (gases, crowds) the shift passes aim for
// this clearance, a fraction of the smaller radius, beyond touching where a
// pair overlaps or was pushed apart in the last step: a pair
// left exactly touching is overlapped again by the next step's motion,
// while one left a hair apart is not, and a packed crowd spreads faster
// (docs/perf.md, issue 10). With a threshold (piles) they aim for
// touching, as a resting pile's contacts must.
constexpr float kClearance = 0.02f;
constexpr float kGentle = 0.2f;
constexpr float kMaxLift = 0.5f;

// The bodies [begin, end) whose centre (px, py: where the step leaves
// them) is outside `bounds`, added to `outside` (once per range, an
// integer: the same sum for any thread count).
void addOutside(const float* px, const float* py, const AABB& bounds, std::uint32_t begin,
                std::uint32_t end, std::atomic<std::uint32_t>& outside) noexcept {
  std::uint32_t count = 0;
  for (std::uint32_t i = begin; i < end; ++i)
    count += contains(bounds, Vec2{px[i], py[i]}) ? 0u : 1u;
  if (count != 0) outside.fetch_add(count, std::memory_order_relaxed);
}
// An overlap under this fraction of the smaller radius does not keep the
// settling passes going.
constexpr float kSettled = 1e-3f;
// guardBoxes(): a path that only grazes a box (by this fraction of the
// radius) does not enter it.
constexpr float kGuardTolerance = 1e-3f;
constexpr float kTwoPi = 6.28318530717958647692f;
}  // namespace

// One pass of nonlinear Gauss-Seidel on a calm contact: the pair is moved
// apart along the line of centres by kGentle of its overlap if it is
// loaded, else by all of it (at most kMaxLift of the smaller radius), in
// inverse proportion to the masses.
bool PositionSolver::settle(const BodyStore& bodies, const SolverSettings& s, Row& r) {
  const std::uint32_t a = r.a;
  const Vec2 pa = step_.state[a].p;
  const float ra = bodies.radius[a];
  const float share = r.lambda > 0.0f ? kGentle : 1.0f;
  auto lift = [share](float overlap, float radius) {
    return std::min(overlap * share, kMaxLift * radius);
  };
  if (r.kind == kBall) {
    const float rb = bodies.radius[r.b];
    const Vec2 d = step_.state[r.b].p - pa;
    const float dist = length(d);
    const float overlap = ra + rb - dist;
    if (!(overlap > 0.0f)) return false;
    const float smaller = std::min(ra, rb);
    const Vec2 n = dist > 0.0f ? d / dist : Vec2{r.nx, r.ny};
    const float push = lift(overlap, smaller) * r.mEff;
    step_.state[a].p -= n * (push * r.ima);
    step_.state[r.b].p += n * (push * r.imb);
    return overlap > kSettled * smaller;
  }
  if (r.kind == kKinematic) {  // where the body ends the step
    const kinematic::Touch t = kinematic::touch(bodies, r.b, step_.state[r.b].p,
                                                kinematic::angleAt(bodies, r.b, s.dt), pa, ra);
    if (!(t.gap < 0.0f)) return false;
    step_.state[a].p -= t.normal * lift(-t.gap, ra);
    return -t.gap > kSettled * ra;
  }
  if (r.kind == kBox) {
    const auto hit = solid::collide(Circle{pa, ra}, solid::of(bodies, r.b));
    if (!hit || !(hit->depth > 0.0f)) return false;
    step_.state[a].p -= hit->normal * lift(hit->depth, ra);
    return hit->depth > kSettled * ra;
  }
  const float gap = s.wallGap(pa, ra, wallSide(r.b));
  if (!(gap < 0.0f)) return false;
  step_.state[a].p += Vec2{r.nx, r.ny} * gap;  // back inside, all the way: a wall does not give
  return false;
}

PositionSolver::ShiftRow PositionSolver::makeShiftRow(const BodyStore& bodies,
                                                      const SolverSettings& s, Row& r,
                                                      std::uint32_t staticSlot) const {
  const Vec2 pa = step_.state[r.a].p;
  const float ra = bodies.radius[r.a];
  Vec2 n{r.nx, r.ny};
  float gap = 0.0f, smaller = ra;
  if (r.kind == kBall) {
    const float rb = bodies.radius[r.b];
    const Vec2 d = step_.state[r.b].p - pa;
    const float dist = length(d);
    if (dist > 0.0f) n = d / dist;
    gap = dist - ra - rb;
    smaller = std::min(ra, rb);
  } else if (r.kind == kKinematic) {  // where the body ends the step
    const kinematic::Touch t = kinematic::touch(bodies, r.b, step_.state[r.b].p,
                                                kinematic::angleAt(bodies, r.b, s.dt), pa, ra);
    n = t.normal;
    gap = t.gap;
  } else if (r.kind == kBox) {  // a box or an outline
    const solid::Touch t = solid::touch(solid::of(bodies, r.b), pa, ra);
    n = t.normal;
    gap = t.gap;
  } else {
    gap = s.wallGap(pa, ra, wallSide(r.b));
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
  // The clearance only for a pair that overlaps or was pushed apart in the
  // last step (a crowd's): a free collision's geometry is left exact.
  if (!calm && !(s.restitutionThreshold > 0.0f) && (gap < 0.0f || r.shift > 0.0f)) {
    out.goal = std::min(out.goal + kClearance * smaller, kMaxShift * smaller);
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

// The shift rows (rows, then the extra rows) made from where the balls
// end the step, each row's warm start applied to the shifts as it is made.
// The shifts start from zero (integratePositions cleared them); colour
// after colour, no two rows of a colour touch one ball, and the extra
// rows follow the overflow group, serially: the order of a loop of its own
// over the rows, in the region that makes them. Returns the calm rows;
// `any`: some row has work (an overlap to remove or a shift impulse to
// start from).
std::uint32_t PositionSolver::makeShiftRows(const BodyStore& bodies, const SolverSettings& s,
                                            TaskSystem& tasks, bool& any) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const auto rowCount = static_cast<std::uint32_t>(step_.rows.size());
  const auto extraCount = static_cast<std::uint32_t>(step_.extraRows.size());
  step_.shiftRows.resize(std::size_t{rowCount} + extraCount);
  auto acts = [](const ShiftRow& r) { return r.goal > 0.0f || r.shift > 0.0f; };
  assert(shift_.size() == std::size_t{n} + 1);
  Vec2* sh = shift_.data();
  auto warmStart = [sh](const ShiftRow& r) {
    if (r.shift == 0.0f) return;
    const Vec2 p{r.nx * r.shift, r.ny * r.shift};
    sh[r.a] -= p * r.ima;
    if (r.imb != 0.0f) sh[r.b] += p * r.imb;
  };
  // Rows in the colour loop's order and split (each thread makes the rows
  // it solved and wrote: handing cache lines from core to core costs more
  // than the work on them); the hits are the calm rows.
  std::atomic<bool> active{false};
  const BallState* st = step_.state.data();
  const std::uint32_t calm = step_.forEachRow(
      tasks, kApart,
      [&](Row& r) {
        ShiftRow& out = step_.shiftRows[step_.rowIndex(r)];
        out = makeShiftRow(bodies, s, r, n);
        if (acts(out) && !active.load(std::memory_order_relaxed)) {
          active.store(true, std::memory_order_relaxed);
        }
        warmStart(out);
        return isCalm(s, r);
      },
      [st, sh](const Row& r) {  // a row reads both balls' states and shifts
        prefetch(&st[r.a]);
        prefetch(&sh[r.a]);
        if (r.kind == kBall) {
          prefetch(&st[r.b]);
          prefetch(&sh[r.b]);
        }
      });
  any = active.load(std::memory_order_relaxed);
  for (std::uint32_t e = 0; e < extraCount; ++e) {
    ShiftRow& out = step_.shiftRows[rowCount + e];
    out = makeShiftRow(bodies, s, step_.extraRows[e], n);
    any = any || acts(out);
    warmStart(out);
  }
  return calm;
}

// Sequential impulses on position shifts: each contact aims for its goal
// (its normal shift) with a non-negative total impulse, mass-weighted, so
// the shifts keep the centre of mass; velocities are untouched, so no
// kinetic energy is added.
std::uint32_t PositionSolver::correctPositions(const BodyStore& bodies, const SolverSettings& s,
                                               TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const auto rowCount = static_cast<std::uint32_t>(step_.rows.size());
  const auto extraCount = static_cast<std::uint32_t>(step_.extraRows.size());
  bool any = false;
  const std::uint32_t calm = makeShiftRows(bodies, s, tasks, any);
  Vec2* sh = shift_.data();
  if (!any) return calm;  // nothing overlaps: no shift (and no warm start was applied)
  // The passes in one parallel region, until one changes nothing. Where
  // no contact is calm the settling passes have nothing to do, and these
  // take their passes too (a crowd: docs/physics.md).
  const std::uint32_t calmRows = calm;
  const std::uint32_t passes = calmRows == 0 ? 2 * s.positionPasses : s.positionPasses;
  step_.passesOverRows(
      tasks, kApart, step_.shiftRows.data(), extraCount, passes,
      [sh](ShiftRow& r) {
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
      },
      [sh](const ShiftRow& r) {
        prefetch(&sh[r.a]);
        prefetch(&sh[r.b]);
      },
      untilUnchanged);
  // The shifts move the balls. Where nothing runs between here and the
  // write-back (no settling passes, no boxes to guard, no kinematic bodies
  // or spin: writeBack's path), that pass adds them, one region fewer.
  shiftPending_ = calmRows == 0 && bodies.boxCount == 0 && !s.kinematic && !s.spin;
  if (!shiftPending_) {
    tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) step_.state[i].p += shift_[i];
    });
  }
  // The rows' shift impulses are read from step_.shiftRows when the contacts
  // are stored (ContactSet::store); the extra rows keep theirs here.
  for (std::uint32_t e = 0; e < extraCount; ++e) {
    step_.extraRows[e].shift = step_.shiftRows[rowCount + e].shift;
  }
  return calmRows;
}

// The last word on static boxes: a ball's straight path from where it
// started the step to where it ends must not enter a box it has a contact
// with. In a crowd, a collision after the ball's impact with the box,
// impact passes that ran out or a position shift could carry it in or
// through. Where the path enters, the ball stops where it first touches
// the box and its velocity into the box is reflected as in an impact.
// Serially, in row order: the box contacts are few, and one ball's box
// contacts are guarded one after the other.
void PositionSolver::guardBoxes(const BodyStore& bodies, const SolverSettings& s,
                                TaskSystem& tasks) {
  const auto rowCount = static_cast<std::uint32_t>(step_.rows.size());
  indexBuffers_.reset(chunkCount(rowCount, kContactChunk));
  forEachChunk(tasks, rowCount, kContactChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 for (std::uint32_t k = begin; k < end; ++k) {
                   if (step_.rows[k].kind == kBox || step_.rows[k].kind == kKinematic) {
                     indexBuffers_[c].push_back(k);
                   }
                 }
               });
  auto guard = [&](const Row& r) {
    const std::uint32_t a = r.a;
    if (r.kind == kKinematic) {
      const Vec2 start{bodies.px[r.b], bodies.py[r.b]};
      kinematic::guard(bodies, s, a, r.b, start, step_.state[r.b].p, {bodies.px[a], bodies.py[a]},
                       step_.state[a].p, step_.state[a].v);
      return;
    }
    const float ra = bodies.radius[a];
    const solid::Solid box = solid::of(bodies, r.b);
    const Vec2 p0{bodies.px[a], bodies.py[a]};
    Vec2& p1 = step_.state[a].p;
    const float inner = ra * (1.0f - kGuardTolerance);  // grazing is not entering
    if (solid::collide(Circle{p0, inner}, box)) {
      // It started the step overlapping the box: only its end is guarded.
      const auto hit = solid::collide(Circle{p1, inner}, box);
      if (!hit) return;
      p1 -= hit->normal * (hit->depth + ra - inner);
    } else {
      const auto t = solid::timeOfImpact(Circle{p0, inner}, p1 - p0, box, 1.0f);
      if (!t || !(*t < 1.0f)) return;
      p1 = p0 + (p1 - p0) * *t;  // touching with the inner radius
      p1 += solid::outwardNormal(box, p1) * (ra - inner);
    }
    Vec2& v = step_.state[a].v;
    const Vec2 n = solid::outwardNormal(box, p1);
    const float vn = dot(v, n);
    if (vn < 0.0f) v -= n * ((1.0f + s.restitutionFor(-vn, s.restitutionOf(bodies, a, r.b))) * vn);
  };
  for (std::uint32_t c = 0; c < indexBuffers_.size(); ++c) {
    for (const std::uint32_t k : indexBuffers_[c]) guard(step_.rows[k]);
  }
  for (const Row& r : step_.extraRows) {
    if (r.kind == kBox || r.kind == kKinematic) guard(r);
  }
}

// Also clears the position correction's shifts (one per ball and the
// static slot) in the same pass over the balls.
void PositionSolver::integratePositions(const BodyStore& bodies, const SolverSettings& s,
                                        TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  shiftPending_ = false;
  Vec2* sh = nullptr;
  if (s.positionPasses > 0) {
    shift_.resize(std::size_t{n} + 1);
    shift_[n] = Vec2{};
    sh = shift_.data();
  }
  if (s.kinematic) {
    tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) {
        if (bodies.awake[i] != 0) step_.state[i].p += step_.state[i].corr + step_.state[i].v * s.dt;
        if (kinematic::isKinematic(bodies, i)) step_.state[i].p += step_.state[i].v * s.dt;
      }
      if (sh != nullptr) std::fill(sh + begin, sh + end, Vec2{});
    });
    return;
  }
  const float dt = s.dt;  // locals: the stores could alias them
  const std::uint8_t* awake = bodies.awake.data();
  BallState* state = step_.state.data();
  tasks.parallelFor(n, bodyPassGrain(n), [=](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (awake[i] != 0) state[i].p += state[i].corr + state[i].v * dt;
    }
    if (sh != nullptr) std::fill(sh + begin, sh + end, Vec2{});
  });
}

void PositionSolver::correctOverlaps(const BodyStore& bodies, const SolverSettings& s,
                                     TaskSystem& tasks) {
  const bool corrected = s.positionPasses > 0;
  const std::uint32_t calm = corrected ? correctPositions(bodies, s, tasks) : 0;
  // Calm contacts (a pile's): nonlinear passes, each overlap measured from
  // the current positions.
  if (calm == 0) return;
  step_.passesOverRows(
      tasks, kResting, step_.rows.data(), 0, s.positionPasses,
      [&](Row& r) { return isCalm(s, r) && settle(bodies, s, r); }, [](const Row&) {},
      untilUnchanged);
}

std::uint32_t PositionSolver::clampPositions(BodyStore& bodies, const SolverSettings& s,
                                             BodySnapshot& undo, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  // A closed world's walls first, then the boxes: a ball whose impact
  // passes ran out may end outside the world, and its path to the clamped
  // end is the one that must not cross a box.
  auto clampToWalls = [&](std::uint32_t i) {
    Vec2& p = step_.state[i].p;
    const float r = bodies.radius[i];
    p.x = std::clamp(p.x, s.bounds.min.x + r, s.bounds.max.x - r);
    p.y = std::clamp(p.y, s.bounds.min.y + r, s.bounds.max.y - r);
  };
  if (bodies.boxCount != 0) {
    if (s.closedWorld) {
      tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) {
          if (bodies.awake[i] != 0) clampToWalls(i);
        }
      });
    }
    guardBoxes(bodies, s, tasks);
  }
  if (!s.kinematic && !s.spin) {  // the common case: positions and velocities only
    return writeBack(bodies, s, undo, tasks);
  }
  assert(!shiftPending_);
  std::atomic<std::uint32_t> outside{0};
  tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (kinematic::isKinematic(bodies, i)) {  // where its velocity took it
        Vec2 p = step_.state[i].p, held = step_.state[i].v;
        range::holdInside(p, held, bodies.radius[i]);  // its velocity is the game's
        step_.state[i].p = p;
        bodies.px[i] = p.x;
        bodies.py[i] = p.y;
        if (bodies.w[i] != 0.0f) {  // a spinning kinematic ball turns at the game's rate
          bodies.angle[i] = std::remainder(bodies.angle[i] + bodies.w[i] * s.dt, kTwoPi);
        }
      }
      if (bodies.awake[i] == 0) continue;
      if (s.closedWorld) clampToWalls(i);  // after a guard's last push
      Vec2 p = step_.state[i].p, v = step_.state[i].v;
      range::holdInside(p, v, bodies.radius[i]);
      range::capSpeed(v);
      step_.state[i].p = p;
      step_.state[i].v = v;
      bodies.px[i] = p.x;
      bodies.py[i] = p.y;
      bodies.vx[i] = v.x;
      bodies.vy[i] = v.y;
      if (s.friction) bodies.w[i] = step_.spin[i];
      range::capSpin(bodies.w[i], bodies.radius[i]);
      if (bodies.w[i] != 0.0f) {
        bodies.angle[i] = std::remainder(bodies.angle[i] + bodies.w[i] * s.dt, kTwoPi);
      }
    }
    addOutside(bodies.px.data(), bodies.py.data(), s.bounds, begin, end, outside);
  });
  return outside.load(std::memory_order_relaxed);
}

// clampPositions' last pass in a world without kinematic bodies in which
// nothing spins: w and angle stay as they are (0 and unchanged). The
// positions of every body go to undo's arrays, swapped in at the end: the
// old ones become the step's save (a failure before the swap left the
// bodies' untouched). Everything the loop reads is a local: the stores to
// float arrays could otherwise alias the settings and the vectors, which
// would be reloaded for every body.
std::uint32_t PositionSolver::writeBack(BodyStore& bodies, const SolverSettings& s,
                                        BodySnapshot& undo, TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const bool closed = s.closedWorld;
  const AABB bounds = s.bounds;
  const std::uint8_t* awake = bodies.awake.data();
  const float* radius = bodies.radius.data();
  BallState* state = step_.state.data();
  assert(!undo.saved.positions && undo.px.size() == n && undo.py.size() == n);
  const float* oldX = bodies.px.data();
  const float* oldY = bodies.py.data();
  float* px = undo.px.data();
  float* py = undo.py.data();
  float* vx = bodies.vx.data();
  float* vy = bodies.vy.data();
  const Vec2* shift = shiftPending_ ? shift_.data() : nullptr;  // correctPositions left them
  shiftPending_ = false;
  std::atomic<std::uint32_t> outside{0};
  std::atomic<std::uint32_t>* out = &outside;
  tasks.parallelFor(n, bodyPassGrain(n), [=](std::uint32_t begin, std::uint32_t end) {
    if (shift != nullptr) {
      for (std::uint32_t i = begin; i < end; ++i) state[i].p += shift[i];
    }
    for (std::uint32_t i = begin; i < end; ++i) {
      if (awake[i] == 0) {
        px[i] = oldX[i];
        py[i] = oldY[i];
        continue;
      }
      Vec2 p = state[i].p;
      Vec2 v = state[i].v;
      const float r = radius[i];
      if (closed) {  // after a guard's last push, as clampToWalls
        p.x = std::clamp(p.x, bounds.min.x + r, bounds.max.x - r);
        p.y = std::clamp(p.y, bounds.min.y + r, bounds.max.y - r);
      }
      range::holdInside(p, v, r);
      range::capSpeed(v);
      state[i].p = p;
      px[i] = p.x;
      py[i] = p.y;
      vx[i] = v.x;
      vy[i] = v.y;
    }
    addOutside(px, py, bounds, begin, end, *out);
  });
  bodies.px.swap(undo.px);
  bodies.py.swap(undo.py);
  undo.saved.positions = true;
  return outside.load(std::memory_order_relaxed);
}

}  // namespace quadbin
