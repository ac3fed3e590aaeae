#pragma once
// Internal to the narrow phase: what the contacts stage (contact_set.cpp)
// and the escapee re-query (escapee_query.cpp) both run per pair, inline.

#include <algorithm>
#include <cmath>
#include <quadbin/narrowphase.hpp>

#include "bodies/ball_geometry.hpp"
#include "bodies/kinematic.hpp"
#include "bodies/solid.hpp"
#include "contacts/contact_set.hpp"

namespace quadbin {

template <class Emit>
void ContactSet::addCandidate(const BodyStore& bodies, std::uint32_t i, std::uint32_t j,
                              bool keepSleeping, Emit&& emit) const {
  using contacts::kSlop;
  if (!bodies.isBall(i)) std::swap(i, j);
  if (!bodies.isBall(i)) return;  // two static boxes
  const bool ballJ = bodies.isBall(j);
  // Only pairs with an awake ball; of two balls both awake, unless the
  // other is kept (an escapee's contacts: the sleeping ball wakes).
  const bool awakeI = bodies.awake[i] != 0, awakeJ = !ballJ || bodies.awake[j] != 0;
  if (keepSleeping ? !(awakeI || awakeJ) : !(awakeI && awakeJ)) return;
  const Vec2 c{bodies.px[i], bodies.py[i]};
  const float r = bodies.radius[i];
  float gap = 0.0f, reach = 0.0f;
  if (ballJ) {
    if (j < i) std::swap(i, j);
    gap = length(Vec2{bodies.px[j], bodies.py[j]} - c) - r - bodies.radius[j];
    reach = step_.margin[i] + step_.margin[j];
    if ((crowded_[i] | crowded_[j]) != 0) reach += kShiftReach * std::min(r, bodies.radius[j]);
  } else {
    gap = bodies.shape[j] == kNoHull ? length(c - closestPoint(bodies.tightBox(j), c)) - r
                                     : solid::touch(solid::of(bodies, j), c, r).gap;
    reach = step_.margin[i] + step_.margin[j] +
            kEscapeTolerance * r;  // step_.margin[j]: a kinematic body's
  }
  // Keep the pair when the gap can close within the step (with a little
  // slack for rounding, and the slop under which resting contacts count as
  // touching), for two balls in a crowd also by the shift passes.
  if (gap <= reach * 1.001f + kSlop * r) {
    if (filter.allows != nullptr && !filter.allows(filter.context, i, j)) return;
    emit(i, j);
  }
}

template <class Emit>
void ContactSet::addWalls(const BodyStore& bodies, const SolverSettings& s, std::uint32_t i,
                          Emit&& emit) const {
  using contacts::kSlop;
  using contacts::wall;
  const float reach = bodies.radius[i] * (1.0f + kSlop) + step_.margin[i];
  if (bodies.px[i] - reach <= s.bounds.min.x) emit(i, wall(0));
  if (bodies.px[i] + reach >= s.bounds.max.x) emit(i, wall(1));
  if (bodies.py[i] - reach <= s.bounds.min.y) emit(i, wall(2));
  if (bodies.py[i] + reach >= s.bounds.max.y) emit(i, wall(3));
}

namespace contacts {
// Where a ball (centre pa, radius ra) meets a static or kinematic body b:
// the rare kinds, out of line so that makeRow stays small enough to inline.
struct BodyTouch {
  Vec2 n;
  float gap = 0.0f;
  Vec2 vb;             // the body's surface velocity where the ball touches it
  bool turns = false;  // vb holds a turning outline's w x arm beside its translation
};
[[gnu::noinline]] inline BodyTouch touchBody(const BodyStore& bodies, std::uint32_t b, Vec2 pa,
                                             float ra) {
  if (bodies.type[b] == BodyType::Kinematic) {
    const Vec2 centre{bodies.px[b], bodies.py[b]}, vk{bodies.vx[b], bodies.vy[b]};
    const kinematic::Touch t = kinematic::touch(bodies, b, centre, bodies.angle[b], pa, ra);
    if (!kinematic::turns(bodies, b)) return {t.normal, t.gap, vk};
    return {t.normal, t.gap, kinematic::surfaceVelocity(bodies, b, vk, centre, pa + t.normal * ra),
            true};
  }
  const solid::Touch t = solid::touch(solid::of(bodies, b), pa, ra);
  return {t.normal, t.gap, {}};
}
}  // namespace contacts

// Inlined into the row loop and written in place, every field once: a
// call per contact, its prologue and the copy of a returned row cost as
// much as the row itself.
[[gnu::always_inline]] inline void ContactSet::makeRow(const BodyStore& bodies,
                                                       const SolverSettings& s, const Contact& c,
                                                       std::uint32_t k, Row& r) const {
  using contacts::isWall;
  using contacts::kSlop;
  using contacts::wallSide;
  const std::uint32_t a = c.a, b = c.b;
  const Vec2 pa{bodies.px[a], bodies.py[a]};
  const float ra = bodies.radius[a];
  r.a = a;
  r.b = b;
  r.contact = k;
  r.checked = 0;
  r.ima = bodies.invMass[a];
  r.imb = 0.0f;
  Vec2 n{1.0f, 0.0f}, vb{};
  float gap = 0.0f, slop = kSlop * ra;
  bool turning = false;  // a turning outline: its surface moves beside its translation
  if (isWall(b)) {
    const std::uint32_t side = wallSide(b);
    r.kind = StepRows::kWall;
    const float sign = side % 2 == 0 ? -1.0f : 1.0f;
    n = side < 2 ? Vec2{sign, 0.0f} : Vec2{0.0f, sign};
    gap = s.wallGap(pa, ra, side);
  } else if (bodies.isBall(b)) {
    r.kind = StepRows::kBall;
    r.imb = bodies.invMass[b];
    const Vec2 d = Vec2{bodies.px[b], bodies.py[b]} - pa;
    const float dist = length(d);
    n = dist > 0.0f ? d / dist : apartDirection(a, b);
    gap = dist - ra - bodies.radius[b];
    slop = kSlop * std::min(ra, bodies.radius[b]);
    vb = {bodies.vx[b], bodies.vy[b]};
  } else {
    r.kind = bodies.type[b] == BodyType::Kinematic ? StepRows::kKinematic : StepRows::kBox;
    const contacts::BodyTouch t = contacts::touchBody(bodies, b, pa, ra);
    n = t.n;
    gap = t.gap;
    vb = t.vb;
    turning = t.turns;
  }
  r.nx = n.x;
  r.ny = n.y;
  r.mEff = 1.0f / (r.ima + r.imb);
  const float vn = dot(vb - Vec2{bodies.vx[a], bodies.vy[a]}, n);
  // Touching contacts that approach slower than the restitution threshold
  // are the iterations'; collisions (faster) are impacts, exact.
  const bool touching = gap <= slop;
  // A contact that held something up in the last step (a pile, a stack)
  // stays resting whatever its speed: losing its impulse would drop what
  // it carries.
  const bool collision = vn < 0.0f && s.restitutionFor(-vn, s.restitutionOf(bodies, a, b)) > 0.0f &&
                         !(c.lambda > 0.0f);
  r.group =
      touching ? (collision ? StepRows::kTouchingCollision : StepRows::kResting) : StepRows::kApart;
  r.touched = touching ? 1 : 0;
  r.target = gap > 0.0f ? -gap / s.dt : 0.0f;  // may close the gap, no more
  // The iterations see a kinematic body's translation (StepRows::state):
  // a turning outline's surface closes on the ball by w x arm more.
  if (turning) r.target -= dot(vb - Vec2{bodies.vx[b], bodies.vy[b]}, n);
  r.lambda = r.group == StepRows::kResting ? c.lambda : 0.0f;
  r.shift = c.shift;
}

}  // namespace quadbin
