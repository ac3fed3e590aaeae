#include <algorithm>
#include <cmath>
#include <quadbin/narrowphase.hpp>

namespace quadbin {

std::optional<Contact> collide(const Circle& a, const Circle& b) noexcept {
  const Vec2 d = b.center - a.center;
  const float r = a.radius + b.radius;
  const float dist2 = lengthSquared(d);
  if (dist2 > r * r) return std::nullopt;
  const float dist = std::sqrt(dist2);
  const Vec2 n = dist > 0.0f ? d / dist : Vec2{1.0f, 0.0f};
  const Vec2 deepA = a.center + n * a.radius;
  const Vec2 deepB = b.center - n * b.radius;
  return Contact{n, r - dist, (deepA + deepB) * 0.5f};
}

std::optional<Contact> collide(const Circle& a, const AABB& b) noexcept {
  const Vec2 c = a.center;
  const Vec2 q = closestPoint(b, c);
  const Vec2 d = q - c;
  const float dist2 = lengthSquared(d);
  if (dist2 > a.radius * a.radius) return std::nullopt;
  if (dist2 > 0.0f) {
    const float dist = std::sqrt(dist2);
    const Vec2 n = d / dist;
    return Contact{n, a.radius - dist, (c + n * a.radius + q) * 0.5f};
  }
  // Centre inside (or on the border of) the box: leave through the nearest face.
  const Vec2 out = outwardNormal(b, c);
  const float toFace = out.x != 0.0f ? (out.x > 0.0f ? b.max.x - c.x : c.x - b.min.x)
                                     : (out.y > 0.0f ? b.max.y - c.y : c.y - b.min.y);
  return Contact{-out, a.radius + toFace, c + out * toFace};
}

std::optional<Contact> collide(const AABB& a, const AABB& b) noexcept {
  if (!touches(a, b)) return std::nullopt;
  const float overlapX = std::min(a.max.x, b.max.x) - std::max(a.min.x, b.min.x);
  const float overlapY = std::min(a.max.y, b.max.y) - std::max(a.min.y, b.min.y);
  const Vec2 d = b.center() - a.center();
  const AABB common = intersectionOf(a, b);
  if (overlapX <= overlapY) {
    return Contact{{d.x < 0.0f ? -1.0f : 1.0f, 0.0f}, overlapX, common.center()};
  }
  return Contact{{0.0f, d.y < 0.0f ? -1.0f : 1.0f}, overlapY, common.center()};
}

std::optional<float> timeOfImpact(const Circle& a, Vec2 va, const Circle& b, Vec2 vb,
                                  float tMax) noexcept {
  // b seen from a: a ray from b's centre relative to a, against a circle of
  // the summed radius at the origin.
  const Ray ray{b.center - a.center, vb - va, tMax};
  return raycast(ray, Circle{{0.0f, 0.0f}, a.radius + b.radius});
}

std::optional<float> timeOfImpact(const Circle& a, Vec2 va, const AABB& box, float tMax) noexcept {
  return raycastRounded(Ray{a.center, va, tMax}, box, a.radius);
}

Vec2 outwardNormal(const AABB& box, Vec2 p) noexcept {
  const Vec2 d = p - closestPoint(box, p);
  if (lengthSquared(d) > 0.0f) return normalizeOr(d);
  const float toLeft = p.x - box.min.x, toRight = box.max.x - p.x;
  const float toBottom = p.y - box.min.y, toTop = box.max.y - p.y;
  float best = toLeft;
  Vec2 out{-1.0f, 0.0f};
  if (toRight < best) best = toRight, out = {1.0f, 0.0f};
  if (toBottom < best) best = toBottom, out = {0.0f, -1.0f};
  if (toTop < best) out = {0.0f, 1.0f};
  return out;
}

std::optional<float> raycastRounded(const Ray& ray, const AABB& box, float radius) noexcept {
  const auto t = raycast(ray, box.expanded(radius));
  if (!t) return std::nullopt;
  // Entering through a corner square of the grown box: the true shape there
  // is the quarter circle around the box's corner.
  const Vec2 p = ray.at(*t);
  const bool left = p.x<box.min.x, right = p.x> box.max.x;
  const bool below = p.y<box.min.y, above = p.y> box.max.y;
  if ((left || right) && (below || above)) {
    const Vec2 corner{left ? box.min.x : box.max.x, below ? box.min.y : box.max.y};
    return raycast(ray, Circle{corner, radius});
  }
  return t;
}

}  // namespace quadbin
