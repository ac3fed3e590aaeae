#include <algorithm>
#include <cmath>
#include <limits>
#include <quadbin/narrowphase.hpp>

namespace quadbin {
namespace {

bool finite(Vec2 p) noexcept { return std::isfinite(p.x) && std::isfinite(p.y); }

// Outward normal of a counter-clockwise edge along d: d turned clockwise.
Vec2 outwardOf(Vec2 d) noexcept { return normalizeOr(Vec2{d.y, -d.x}); }

Vec2 closestOnSegment(Vec2 a, Vec2 b, Vec2 q) noexcept {
  const Vec2 d = b - a;
  const float dd = dot(d, d);
  const float u = dd > 0.0f ? std::clamp(dot(q - a, d) / dd, 0.0f, 1.0f) : 0.0f;
  return a + d * u;
}

// The signed distance of q past polygon edge i (> 0 outside the edge), and
// the edge where it is largest.
struct Separation {
  float distance = -std::numeric_limits<float>::infinity();
  int edge = 0;
};
Separation maxSeparation(const Hull& h, Vec2 q) noexcept {
  Separation s;
  for (int i = 0; i < h.count; ++i) {
    const float d = dot(q - h.vertices[i], h.normals[i]);
    if (d > s.distance) s = {d, i};
  }
  return s;
}

// Closest point of a polygon's boundary to q, in the hull's frame.
Vec2 closestOnBoundary(const Hull& h, Vec2 q) noexcept {
  Vec2 best = h.vertices[0];
  float bestD2 = std::numeric_limits<float>::infinity();
  for (int i = 0; i < h.count; ++i) {
    const Vec2 p = closestOnSegment(h.vertices[i], h.vertices[(i + 1) % h.count], q);
    const float d2 = lengthSquared(q - p);
    if (d2 < bestD2) best = p, bestD2 = d2;
  }
  return best;
}

// Which feature of a segment is nearest to q (its frame), and whether the
// segment owns q (a chain's segment leaves the region of a shared vertex
// to one of its two segments, see Hull).
enum class Feature : std::uint8_t { Face, Start, End };
struct SegmentRegion {
  Feature feature;
  bool owned;
};
SegmentRegion regionOf(const Hull& h, Vec2 q) noexcept {
  const Vec2 a = h.vertices[0], b = h.vertices[1];
  const Vec2 d = b - a;
  const float along = dot(q - a, d);
  if (along < 0.0f) {
    // Before the start: a chain's previous segment owns what its face sees.
    return {Feature::Start, !h.hasPrev || dot(q - a, a - h.prev) >= 0.0f};
  }
  const float beyond = dot(q - b, d);
  if (beyond > 0.0f || (beyond == 0.0f && h.hasNext)) return {Feature::End, !h.hasNext};
  return {Feature::Face, true};
}

// The interval of t in [lo, hi] over which the ray is inside a convex piece
// made of half-planes dot(p - at, m) <= c, and at most one disc.
class Interval {
 public:
  Interval(const Ray& ray, float hi) noexcept : ray_(ray), hi_(hi) {}
  // dot(ray.at(t) - p0, m) <= c
  void halfPlane(Vec2 p0, Vec2 m, float c) noexcept {
    const float s = dot(ray_.origin - p0, m) - c;
    const float k = dot(ray_.direction, m);
    if (k == 0.0f) {
      if (s > 0.0f) empty_ = true;
      return;
    }
    const float t = -s / k;
    if (k > 0.0f) {
      hi_ = std::min(hi_, t);
    } else {
      lo_ = std::max(lo_, t);
    }
  }
  void disc(Vec2 center, float r) noexcept {
    const Vec2 m = ray_.origin - center;
    const float cc = dot(m, m) - r * r;
    const float a = dot(ray_.direction, ray_.direction);
    if (a == 0.0f) {
      if (cc > 0.0f) empty_ = true;
      return;
    }
    const float b = dot(m, ray_.direction);
    const float disc = b * b - a * cc;
    if (disc < 0.0f) {
      empty_ = true;
      return;
    }
    const float root = std::sqrt(disc);
    // The smaller root without cancellation when it is close to 0.
    if (cc <= 0.0f) {
      hi_ = std::min(hi_, (-b + root) / a);
    } else {
      if (b >= 0.0f) {  // outside and not approaching: never inside
        empty_ = true;
        return;
      }
      lo_ = std::max(lo_, cc / (-b + root));
      hi_ = std::min(hi_, (-b + root) / a);
    }
  }
  [[nodiscard]] std::optional<float> entry() const noexcept {
    if (empty_ || !(lo_ <= hi_)) return std::nullopt;
    return lo_;
  }

 private:
  const Ray& ray_;
  float lo_ = 0.0f;
  float hi_;
  bool empty_ = false;
};

void keepEarliest(std::optional<float>& best, std::optional<float> t) noexcept {
  if (t && (!best || *t < *best)) best = t;
}

std::optional<float> raycastSegment(const Ray& ray, const Hull& h, float r) noexcept {
  const Vec2 a = h.vertices[0], b = h.vertices[1];
  const Vec2 d = b - a, n = h.normals[0];
  std::optional<float> best;
  {  // the face's band: 0 <= along <= |d|^2, |dot(p - a, n)| <= r
    Interval band(ray, ray.maxT);
    band.halfPlane(a, -d, 0.0f);
    band.halfPlane(b, d, 0.0f);
    band.halfPlane(a, n, r);
    band.halfPlane(a, -n, r);
    keepEarliest(best, band.entry());
  }
  if (r > 0.0f) {
    Interval start(ray, ray.maxT);
    start.halfPlane(a, d, 0.0f);
    if (h.hasPrev) start.halfPlane(a, h.prev - a, 0.0f);
    start.disc(a, r);
    keepEarliest(best, start.entry());
    if (!h.hasNext) {
      Interval end(ray, ray.maxT);
      end.halfPlane(b, -d, 0.0f);
      end.disc(b, r);
      keepEarliest(best, end.entry());
    }
  }
  return best;
}

std::optional<float> raycastPolygon(const Ray& ray, const Hull& h, float r) noexcept {
  std::optional<float> best;
  {
    Interval inside(ray, ray.maxT);
    for (int i = 0; i < h.count; ++i) inside.halfPlane(h.vertices[i], h.normals[i], 0.0f);
    keepEarliest(best, inside.entry());
  }
  if (r > 0.0f) {
    for (int i = 0; i < h.count; ++i) {
      const Vec2 a = h.vertices[i], b = h.vertices[(i + 1) % h.count];
      const Vec2 d = b - a, n = h.normals[i];
      Interval band(ray, ray.maxT);
      band.halfPlane(a, -d, 0.0f);
      band.halfPlane(b, d, 0.0f);
      band.halfPlane(a, n, r);
      band.halfPlane(a, -n, 0.0f);
      keepEarliest(best, band.entry());
      Interval corner(ray, ray.maxT);
      corner.disc(a, r);
      keepEarliest(best, corner.entry());
    }
  }
  return best;
}

}  // namespace

std::optional<Hull> makePolygon(std::span<const Vec2> points, Vec2 origin) noexcept {
  const std::size_t n = points.size();
  if (n < 3 || n > static_cast<std::size_t>(Hull::kMaxVertices) || !finite(origin)) {
    return std::nullopt;
  }
  Hull h;
  h.count = static_cast<std::uint8_t>(n);
  float twiceArea = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    if (!finite(points[i])) return std::nullopt;
    twiceArea += cross(points[i] - origin, points[(i + 1) % n] - origin);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from = twiceArea >= 0.0f ? i : n - 1 - i;
    h.vertices[i] = points[from] - origin;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 d = h.vertices[(i + 1) % n] - h.vertices[i];
    if (!(lengthSquared(d) > 0.0f) || !finite(d)) return std::nullopt;
    h.normals[i] = outwardOf(d);
  }
  // Strictly convex: every other vertex strictly inside each edge's line
  // (refuses repeated and collinear points, and a polygon that winds twice).
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i || j == (i + 1) % n) continue;
      if (!(dot(h.vertices[j] - h.vertices[i], h.normals[i]) < 0.0f)) return std::nullopt;
    }
  }
  return h;
}

std::optional<Hull> makeSegment(Vec2 a, Vec2 b, Vec2 origin) noexcept {
  if (!finite(a) || !finite(b) || !finite(origin)) return std::nullopt;
  const Vec2 d = b - a;
  if (!(lengthSquared(d) > 0.0f) || !finite(d)) return std::nullopt;
  Hull h;
  h.count = 2;
  h.vertices[0] = a - origin;
  h.vertices[1] = b - origin;
  h.normals[0] = normalizeOr(Vec2{-d.y, d.x});
  h.normals[1] = -h.normals[0];
  return h;
}

Hull makeBox(Vec2 half, float angle) noexcept {
  const float c = std::cos(angle), s = std::sin(angle);
  const auto turn = [c, s](Vec2 p) { return Vec2{c * p.x - s * p.y, s * p.x + c * p.y}; };
  Hull h;
  h.count = 4;
  const Vec2 corners[4] = {
      {-half.x, -half.y}, {half.x, -half.y}, {half.x, half.y}, {-half.x, half.y}};
  const Vec2 normals[4] = {{0.0f, -1.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}};
  for (int i = 0; i < 4; ++i) {
    h.vertices[i] = turn(corners[i]);
    h.normals[i] = turn(normals[i]);
  }
  return h;
}

AABB bounds(const Hull& hull, Vec2 at) noexcept {
  AABB box{hull.vertices[0], hull.vertices[0]};
  for (int i = 1; i < hull.count; ++i) {
    box.min = min(box.min, hull.vertices[i]);
    box.max = max(box.max, hull.vertices[i]);
  }
  return {box.min + at, box.max + at};
}

bool touches(const Hull& hull, Vec2 at, const AABB& box) noexcept {
  if (!quadbin::touches(bounds(hull, at), box)) return false;
  const Vec2 corners[4] = {box.min, {box.max.x, box.min.y}, box.max, {box.min.x, box.max.y}};
  for (int i = 0; i < hull.count; ++i) {
    float nearest = std::numeric_limits<float>::infinity();
    for (const Vec2 c : corners)
      nearest = std::min(nearest, dot(c - at - hull.vertices[i], hull.normals[i]));
    if (nearest > 0.0f) return false;  // the whole box beyond edge i
  }
  return true;
}

Vec2 closestPoint(const Hull& hull, Vec2 at, Vec2 p) noexcept {
  const Vec2 q = p - at;
  if (hull.isSegment()) return at + closestOnSegment(hull.vertices[0], hull.vertices[1], q);
  if (maxSeparation(hull, q).distance <= 0.0f) return p;
  return at + closestOnBoundary(hull, q);
}

HullSide sideOf(const Hull& hull, Vec2 at, Vec2 p) noexcept {
  const Vec2 q = p - at;
  Vec2 nearest;
  bool owned = true;
  if (hull.isSegment()) {
    const SegmentRegion region = regionOf(hull, q);
    owned = region.owned;
    nearest = region.feature == Feature::Start ? hull.vertices[0]
              : region.feature == Feature::End
                  ? hull.vertices[1]
                  : closestOnSegment(hull.vertices[0], hull.vertices[1], q);
  } else {
    const Separation s = maxSeparation(hull, q);
    // Inside: out through the nearest edge.
    if (s.distance <= 0.0f) return {-hull.normals[s.edge], s.distance, true};
    nearest = closestOnBoundary(hull, q);
  }
  const Vec2 d = nearest - q;
  const float dist = length(d);
  return {dist > 0.0f ? d / dist : -hull.normals[0], dist, owned};
}

std::optional<Contact> collide(const Circle& a, const Hull& hull, Vec2 at) noexcept {
  const HullSide side = sideOf(hull, at, a.center);
  if (!side.owned || side.distance > a.radius) return std::nullopt;
  const Vec2 n = side.normal;
  if (side.distance < 0.0f) {  // inside a polygon: the point on the nearest edge
    return Contact{n, a.radius - side.distance, a.center + n * side.distance};
  }
  return Contact{n, a.radius - side.distance, a.center + n * ((a.radius + side.distance) * 0.5f)};
}

Vec2 outwardNormal(const Hull& hull, Vec2 at, Vec2 p) noexcept {
  const Vec2 q = p - at;
  if (hull.isSegment()) {
    const Vec2 cp = closestOnSegment(hull.vertices[0], hull.vertices[1], q);
    const Vec2 side =
        dot(q - hull.vertices[0], hull.normals[0]) >= 0.0f ? hull.normals[0] : hull.normals[1];
    return normalizeOr(q - cp, side);
  }
  const Separation s = maxSeparation(hull, q);
  if (s.distance <= 0.0f) return hull.normals[s.edge];
  return normalizeOr(q - closestOnBoundary(hull, q), hull.normals[s.edge]);
}

std::optional<float> raycastRounded(const Ray& ray, const Hull& hull, Vec2 at,
                                    float radius) noexcept {
  const Ray local{ray.origin - at, ray.direction, ray.maxT};
  return hull.isSegment() ? raycastSegment(local, hull, radius)
                          : raycastPolygon(local, hull, radius);
}

std::optional<float> timeOfImpact(const Circle& a, Vec2 va, const Hull& hull, Vec2 at,
                                  float tMax) noexcept {
  return raycastRounded(Ray{a.center, va, tMax}, hull, at, a.radius);
}

}  // namespace quadbin
