// Kinematic bodies: shape tests against a moving shape (see kinematic.hpp).
#include "bodies/kinematic.hpp"
#include "bodies/outline.hpp"
#include "bodies/solid.hpp"

#include <quadbin/narrowphase.hpp>

namespace quadbin::kinematic {

namespace {
// As guardBoxes: a path that only grazes the body does not enter it.
constexpr float kGuardTolerance = 1e-3f;

bool round(const BodyStore& b, std::uint32_t k) noexcept { return b.radius[k] > 0.0f; }
}  // namespace

Touch touch(const BodyStore& b, std::uint32_t k, Vec2 center, float angle, Vec2 p,
            float r) noexcept {
  Touch t;
  if (round(b, k)) {
    const Vec2 d = center - p;
    const float dist = length(d);
    if (dist > 0.0f) t.normal = d / dist;
    t.gap = dist - r - b.radius[k];
    return t;
  }
  const solid::Touch s = solid::touch(solid::at(b, k, center, angle), p, r);
  t.normal = s.normal;
  t.gap = s.gap;
  return t;
}

bool turns(const BodyStore& b, std::uint32_t k) noexcept {
  return b.w[k] != 0.0f && b.shape[k] != kNoHull;
}

float reachOf(const BodyStore& b, std::uint32_t k) noexcept {
  const Hull* h = b.hullOf(k);
  return h != nullptr ? outline::reachOf(*h) : 0.0f;
}

Vec2 surfaceVelocity(const BodyStore& b, std::uint32_t k, Vec2 vk, Vec2 center, Vec2 q) noexcept {
  if (!turns(b, k)) return vk;
  const Vec2 arm = q - center;
  return vk + Vec2{-arm.y, arm.x} * b.w[k];
}

std::optional<float> timeOfImpact(const BodyStore& b, std::uint32_t k, Vec2 center, float angle,
                                  Vec2 vk, const Circle& ball, Vec2 v, float tMax) noexcept {
  if (round(b, k)) return quadbin::timeOfImpact(ball, v, Circle{center, b.radius[k]}, vk, tMax);
  if (!turns(b, k)) {
    // In the body's frame the body stands still and the ball moves at v - vk.
    return solid::timeOfImpact(ball, v - vk, solid::at(b, k, center, angle), tMax);
  }
  // A turning outline: conservative advancement. No point of the body
  // closes on the ball faster than |v - vk| + |w| reach, so stepping by
  // gap / that speed never steps past the first touch.
  const float speed = length(v - vk) + std::abs(b.w[k]) * reachOf(b, k);
  const float close = kGuardTolerance * ball.radius;
  float t = 0.0f;
  for (int i = 0; i < 64; ++i) {
    const float gap =
        touch(b, k, center + vk * t, angle + b.w[k] * t, ball.center + v * t, ball.radius).gap;
    if (gap <= close) return t;
    if (!(speed > 0.0f)) return std::nullopt;
    t += gap / speed;
    if (!(t <= tMax)) return std::nullopt;
  }
  return t;  // still closing in after 64 steps: touching within the tolerance's scale
}

void guard(const BodyStore& b, const SolverSettings& s, std::uint32_t a, std::uint32_t k,
           Vec2 center0, Vec2 center1, Vec2 p0, Vec2& p1, Vec2& v) noexcept {
  const float ra = b.radius[a];
  const float inner = ra * (1.0f - kGuardTolerance);  // grazing is not entering
  const float angle0 = b.angle[k], turn = turns(b, k) ? b.w[k] * s.dt : 0.0f;
  const float angle1 = angle0 + turn;
  if (touch(b, k, center0, angle0, p0, inner).gap < 0.0f) {
    // It started the step overlapping the body: only its end is guarded.
    const Touch end = touch(b, k, center1, angle1, p1, inner);
    if (!(end.gap < 0.0f)) return;
    p1 += end.normal * (end.gap - (ra - inner));
  } else {
    // The path in the body's frame (carried and turned back), against the
    // body where it started.
    const float c = std::cos(turn), sn = std::sin(turn);
    const Vec2 carried = center1 - center0;
    const auto toStart = [&](Vec2 q) {
      if (turn == 0.0f) return q - carried;
      const Vec2 d = q - center1;
      return center0 + Vec2{c * d.x + sn * d.y, -sn * d.x + c * d.y};
    };
    const auto toEnd = [&](Vec2 q) {
      if (turn == 0.0f) return q + carried;
      const Vec2 d = q - center0;
      return center1 + Vec2{c * d.x - sn * d.y, sn * d.x + c * d.y};
    };
    const Vec2 q1 = toStart(p1);
    // (A body that turns stands still in that frame at its start angle.)
    const auto t = turn != 0.0f ? solid::timeOfImpact(Circle{p0, inner}, q1 - p0,
                                                      solid::at(b, k, center0, angle0), 1.0f)
                                : timeOfImpact(b, k, center0, angle0, Vec2{}, Circle{p0, inner},
                                               q1 - p0, 1.0f);
    if (!t || !(*t < 1.0f)) return;
    p1 = toEnd(p0 + (q1 - p0) * *t);  // touching with the inner radius, where the body ended
    p1 -= touch(b, k, center1, angle1, p1, inner).normal * (ra - inner);
  }
  const Vec2 n = touch(b, k, center1, angle1, p1, ra).normal;  // from the ball to the body
  const Vec2 vk = surfaceVelocity(b, k, {b.vx[k], b.vy[k]}, center1, p1 + n * ra);
  const float vn = dot(vk - v, n);  // < 0: approaching
  if (vn < 0.0f) v += n * ((1.0f + s.restitutionFor(-vn, s.restitutionOf(b, a, k))) * vn);
}

std::uint32_t wakeTouched(BodyStore& b, float dt, std::span<const Pair> pairs) noexcept {
  std::uint32_t woke = 0;
  for (const Pair& pair : pairs) {
    std::uint32_t i = pair.a, k = pair.b;
    if (isKinematic(b, i)) std::swap(i, k);
    if (!b.isBall(i) || b.awake[i] != 0 || !isMoving(b, k)) continue;
    const float r = b.radius[i];
    const float gap = touch(b, k, {b.px[k], b.py[k]}, b.angle[k], {b.px[i], b.py[i]}, r).gap;
    const float reach = (length(Vec2{b.vx[k], b.vy[k]}) + std::abs(b.w[k]) * reachOf(b, k)) * dt +
                        contacts::kSlop * r;
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
