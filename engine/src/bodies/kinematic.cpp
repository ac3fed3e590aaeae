// Kinematic bodies: shape tests against a moving shape (see kinematic.hpp).
#include "bodies/kinematic.hpp"
#include "bodies/solid.hpp"

#include <quadbin/narrowphase.hpp>

namespace quadbin::kinematic {

namespace {
// As guardBoxes: a path that only grazes the body does not enter it.
constexpr float kGuardTolerance = 1e-3f;

bool round(const BodyStore& b, std::uint32_t k) noexcept { return b.radius[k] > 0.0f; }
}  // namespace

Touch touch(const BodyStore& b, std::uint32_t k, Vec2 center, Vec2 p, float r) noexcept {
  Touch t;
  if (round(b, k)) {
    const Vec2 d = center - p;
    const float dist = length(d);
    if (dist > 0.0f) t.normal = d / dist;
    t.gap = dist - r - b.radius[k];
    return t;
  }
  const solid::Touch s = solid::touch(solid::at(b, k, center), p, r);
  t.normal = s.normal;
  t.gap = s.gap;
  return t;
}

std::optional<float> timeOfImpact(const BodyStore& b, std::uint32_t k, Vec2 center, Vec2 vk,
                                  const Circle& ball, Vec2 v, float tMax) noexcept {
  if (round(b, k)) return quadbin::timeOfImpact(ball, v, Circle{center, b.radius[k]}, vk, tMax);
  // In the box's frame the box stands still and the ball moves at v - vk.
  return solid::timeOfImpact(ball, v - vk, solid::at(b, k, center), tMax);
}

void guard(const BodyStore& b, const SolverSettings& s, std::uint32_t a, std::uint32_t k,
           Vec2 center0, Vec2 center1, Vec2 p0, Vec2& p1, Vec2& v) noexcept {
  const float ra = b.radius[a];
  const float inner = ra * (1.0f - kGuardTolerance);  // grazing is not entering
  const Vec2 carried = center1 - center0;
  if (touch(b, k, center0, p0, inner).gap < 0.0f) {
    // It started the step overlapping the body: only its end is guarded.
    const Touch end = touch(b, k, center1, p1, inner);
    if (!(end.gap < 0.0f)) return;
    p1 += end.normal * (end.gap - (ra - inner));
  } else {
    // The path in the body's frame, against the body where it started.
    const Vec2 q1 = p1 - carried;
    const auto t = timeOfImpact(b, k, center0, Vec2{}, Circle{p0, inner}, q1 - p0, 1.0f);
    if (!t || !(*t < 1.0f)) return;
    p1 = p0 + (q1 - p0) * *t + carried;  // touching with the inner radius, where the body ended
    p1 -= touch(b, k, center1, p1, inner).normal * (ra - inner);
  }
  const Vec2 vk{b.vx[k], b.vy[k]};
  const Vec2 n = touch(b, k, center1, p1, ra).normal;  // from the ball to the body
  const float vn = dot(vk - v, n);                     // < 0: approaching
  if (vn < 0.0f) v += n * ((1.0f + s.restitutionFor(-vn, s.restitutionOf(b, a, k))) * vn);
}

std::uint32_t wakeTouched(BodyStore& b, float dt, std::span<const Pair> pairs) noexcept {
  std::uint32_t woke = 0;
  for (const Pair& pair : pairs) {
    std::uint32_t i = pair.a, k = pair.b;
    if (isKinematic(b, i)) std::swap(i, k);
    if (!b.isBall(i) || b.awake[i] != 0 || !isMoving(b, k)) continue;
    const float r = b.radius[i];
    const float gap = touch(b, k, {b.px[k], b.py[k]}, {b.px[i], b.py[i]}, r).gap;
    const float reach = length(Vec2{b.vx[k], b.vy[k]}) * dt + contacts::kSlop * r;
    if (gap <= reach) woke += b.wakeIsland(i);
  }
  return woke;
}

void keepAwake(BodyStore& b, std::span<const contacts::Contact> contacts) noexcept {
  for (const contacts::Contact& c : contacts) {
    if (c.touched != 0 && !contacts::isWall(c.b) && isMoving(b, c.b)) b.restTime[c.a] = 0.0f;
  }
}

}  // namespace quadbin::kinematic
