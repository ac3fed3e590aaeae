// Hulls (segments, chain segments, convex polygons) against brute-force
// references computed in double: dense sampling of the edges for closest
// points, and a dense march along the ray for times of impact.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <quadbin/narrowphase.hpp>
#include <random>
#include <tuple>
#include <vector>

using namespace quadbin;

namespace {

using Rng = std::mt19937;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kPi = std::numbers::pi_v<float>;

float uniform(Rng& rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(rng);
}
Vec2 randomPoint(Rng& rng, float lo, float hi) {
  return {uniform(rng, lo, hi), uniform(rng, lo, hi)};
}
Vec2 rotate(Vec2 v, float angle) {
  const float c = std::cos(angle), s = std::sin(angle);
  return {c * v.x - s * v.y, s * v.x + c * v.y};
}

// A hull's outline in world coordinates: counter-clockwise when closed (a
// polygon), otherwise a polyline (a segment or a whole chain).
struct Outline {
  std::vector<DVec2> pts;
  bool closed = false;
  [[nodiscard]] std::size_t edges() const { return closed ? pts.size() : pts.size() - 1; }
  [[nodiscard]] DVec2 a(std::size_t i) const { return pts[i]; }
  [[nodiscard]] DVec2 b(std::size_t i) const { return pts[(i + 1) % pts.size()]; }
  [[nodiscard]] DVec2 outward(std::size_t i) const {  // of edge i of a polygon
    const DVec2 d = b(i) - a(i);
    return DVec2{d.y, -d.x} / length(d);
  }
};

bool inside(const Outline& o, DVec2 p) {
  if (!o.closed) return false;
  for (std::size_t i = 0; i < o.edges(); ++i) {
    if (cross(o.b(i) - o.a(i), p - o.a(i)) < 0.0) return false;
  }
  return true;
}

// The nearest edge: its distance, point and index, and the next one's distance.
struct Nearest {
  double dist = kInf;
  DVec2 point;
  std::size_t edge = 0;
  double second = kInf;
};
Nearest nearestEdge(const Outline& o, DVec2 p) {
  Nearest n;
  for (std::size_t i = 0; i < o.edges(); ++i) {
    const DVec2 a = o.a(i), e = o.b(i) - a;
    const DVec2 q = a + e * std::clamp(dot(p - a, e) / dot(e, e), 0.0, 1.0);
    const double d = length(p - q);
    n.second = std::min(n.second, std::max(d, n.dist));
    if (d < n.dist) n.dist = d, n.point = q, n.edge = i;
  }
  return n;
}

// Closest point by sampling: 2000 points per edge, then 200 around the best.
DVec2 sampledClosest(const Outline& o, DVec2 p) {
  if (inside(o, p)) return p;
  constexpr int kCoarse = 2000, kFine = 200;
  DVec2 best{kInf, kInf};
  for (std::size_t i = 0; i < o.edges(); ++i) {
    const DVec2 a = o.a(i), d = o.b(i) - a;
    auto sample = [&](double lo, double hi, int n) {  // the best u in [lo, hi]
      double bestU = lo;
      for (int k = 0; k <= n; ++k) {
        const double u = lo + (hi - lo) * k / n;
        if (lengthSquared(a + d * u - p) < lengthSquared(a + d * bestU - p)) bestU = u;
      }
      return bestU;
    };
    const double u = sample(0, 1, kCoarse), step = 1.0 / kCoarse;
    const DVec2 q = a + d * sample(std::max(0.0, u - step), std::min(1.0, u + step), kFine);
    if (lengthSquared(q - p) < lengthSquared(best - p)) best = q;
  }
  return best;
}

// A convex polygon: counter-clockwise points on a turned ellipse.
std::vector<Vec2> randomConvex(Rng& rng, int n) {
  const Vec2 c = randomPoint(rng, -4, 4);
  const float ax = uniform(rng, 1, 4), ay = ax * uniform(rng, 0.5f, 1), turn = uniform(rng, 0, 7);
  const float start = uniform(rng, 0, 7);
  std::vector<Vec2> pts;
  for (int k = 0; k < n; ++k) {
    const float t = start + 2 * kPi * (float(k) + 0.5f * uniform(rng, 0, 1)) / float(n);
    pts.push_back(c + rotate({ax * std::cos(t), ay * std::sin(t)}, turn));
  }
  return pts;
}

struct Sample {
  Hull hull;
  Vec2 at;
  Outline ref;
};
// A random segment or polygon (given in either winding), built relative to
// one origin and placed at another.
std::optional<Sample> randomHull(Rng& rng, bool segment) {
  const Vec2 origin = randomPoint(rng, -3, 3), at = randomPoint(rng, -3, 3);
  std::vector<Vec2> pts;
  std::optional<Hull> hull;
  if (segment) {
    do pts = {randomPoint(rng, -5, 5), randomPoint(rng, -5, 5)};
    while (length(pts[1] - pts[0]) < 0.5f);
    hull = makeSegment(pts[0], pts[1], origin);
  } else {
    pts = randomConvex(rng, std::uniform_int_distribution<int>(3, 8)(rng));
    std::vector<Vec2> given = pts;
    if (rng() % 2) std::reverse(given.begin(), given.end());
    hull = makePolygon(given, origin);
  }
  if (!hull) return std::nullopt;
  Sample s{*hull, at, {{}, !segment}};
  for (Vec2 p : pts) s.ref.pts.push_back(DVec2(p) - DVec2(origin) + DVec2(at));
  return s;
}

testing::AssertionResult near(Vec2 got, DVec2 want, double tolerance) {
  if (length(DVec2(got) - want) <= tolerance) return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << "got (" << got.x << ", " << got.y << "), want (" << want.x << ", " << want.y << ")";
}

// A random point within `spread` of the middle of the hull's vertices.
Vec2 nearHull(Rng& rng, const Sample& s, float spread) {
  DVec2 mid;
  for (DVec2 p : s.ref.pts) mid += p / double(s.ref.pts.size());
  return Vec2(mid) + randomPoint(rng, -spread, spread);
}

// Counter-clockwise, unit outward normals, vertices matching `expected`
// (any starting vertex).
void expectWellFormedPolygon(const Hull& h, const std::vector<Vec2>& expected) {
  ASSERT_EQ(h.count, expected.size());
  EXPECT_FALSE(h.hasPrev || h.hasNext);
  std::vector<bool> used(expected.size());
  for (int i = 0; i < h.count; ++i) {
    const Vec2 v = h.vertices[i], e = h.vertices[(i + 1) % h.count] - v;
    const auto match = std::find_if(expected.begin(), expected.end(), [&](Vec2 p) {
      return bool(near(v, p, 1e-5 * (1 + length(p))));
    });
    ASSERT_NE(match, expected.end()) << "vertex " << i << " (" << v.x << ", " << v.y << ")";
    EXPECT_FALSE(used[match - expected.begin()]) << "vertex " << i << " twice";
    used[match - expected.begin()] = true;
    EXPECT_GT(cross(e, h.vertices[(i + 2) % h.count] - h.vertices[(i + 1) % h.count]), 0.0f);
    const Vec2 n = h.normals[i];
    EXPECT_TRUE(near(n, DVec2{e.y, -e.x} / length(DVec2(e)), 1e-5)) << "normal " << i;
    for (int j = 0; j < h.count; ++j) {
      if (j == i || j == (i + 1) % h.count) continue;
      EXPECT_LT(dot(h.vertices[j] - v, n), 0.0f) << i << j;
    }
  }
}

// A ray from origin towards target, stopping short of it or running past.
Ray aimedRay(Rng& rng, Vec2 origin, Vec2 target) {
  const float speed = uniform(rng, 0.5f, 3), dist = length(target - origin);
  return {origin, (target - origin) / dist * speed, dist / speed * uniform(rng, 0.3f, 1.5f)};
}

// A march along the ray in 20000 steps against a signed distance: the first
// sample within r, and whether the ray only grazes the grown shape. Samples
// that the distance proves far (it is 1-Lipschitz) are skipped.
struct March {
  std::optional<double> first;
  double dt = 0, gap0 = 0;
  bool grazing = false, shallow = false;
};
template <class Distance>
March march(const Ray& ray, double r, Distance distance) {
  constexpr int kSteps = 20000;
  const DVec2 o = ray.origin, d = ray.direction;
  const double speed = length(d);
  March m;
  m.dt = double(ray.maxT) / kSteps;
  const double margin = std::max(1e-3, 2 * speed * m.dt);
  auto gapAt = [&](int k) { return distance(o + d * (m.dt * k)) - r; };
  double minGap = kInf;
  m.gap0 = gapAt(0);
  for (int k = 0; k <= kSteps;) {
    const double gap = gapAt(k);
    minGap = std::min(minGap, gap);
    if (gap <= 0 && !m.first) {
      m.first = m.dt * k;  // entering at an angle under 3 degrees is ill-conditioned in t
      m.shallow = k > 0 && gapAt(k - 1) - gap < 0.05 * speed * m.dt;
    }
    if (gap < -margin) break;
    const double skip = speed > 0 ? std::floor((gap - 2 * margin) / (speed * m.dt)) : kSteps;
    k += 1 + int(std::clamp(skip, 0.0, double(kSteps)));
  }
  m.grazing = std::abs(minGap) < margin;
  return m;
}
// The checks of a ray result against the march.
template <class Distance>
void expectMatchesMarch(std::optional<float> t, const March& m, double r, const Ray& ray,
                        Distance distance) {
  ASSERT_EQ(t.has_value(), m.first.has_value()) << (t ? *t : -1.0f);
  if (!t) return;
  if (*m.first == 0.0) {
    EXPECT_TRUE(m.gap0 > -1e-4 || *t == 0.0f) << *t;  // starts inside: 0
    return;
  }
  EXPECT_NEAR(distance(DVec2(ray.at(*t))), r, 3e-4) << "t = " << *t << ", march " << *m.first;
  if (m.shallow) return;
  EXPECT_LE(*t, *m.first + 3e-4);
  EXPECT_GE(*t, *m.first - m.dt - 3e-4);
}

// A chain (a collinear joint, a left turn, a right turn) as segments built
// relative to kChainOrigin, each knowing its neighbours.
constexpr std::array<Vec2, 5> kChain{{{0, 0}, {1, 0}, {2, 0}, {3, 0.2f}, {4, -0.5f}}};
constexpr Vec2 kChainOrigin{0.25f, 0.5f};
std::vector<Hull> makeChain() {
  std::vector<Hull> segments;
  for (std::size_t i = 0; i + 1 < kChain.size(); ++i) {
    Hull s = makeSegment(kChain[i], kChain[i + 1], kChainOrigin).value();
    if (i > 0) s.hasPrev = true, s.prev = kChain[i - 1] - kChainOrigin;
    if (i + 2 < kChain.size()) s.hasNext = true, s.next = kChain[i + 2] - kChainOrigin;
    segments.push_back(s);
  }
  return segments;
}
Outline chainOutline() { return {{kChain.begin(), kChain.end()}, false}; }
Outline edgeOutline(const Outline& o, std::size_t i) { return {{o.a(i), o.b(i)}, false}; }

// How many times a circle at q of radius r touches the chain: the local
// minima of the distance along the polyline that lie within r. Nothing when
// q is too near a region border or r to say.
std::optional<int> chainTouches(const Outline& o, DVec2 q, double r) {
  const std::size_t m = o.edges();
  std::vector<double> u(m);
  for (std::size_t i = 0; i < m; ++i) {
    const DVec2 d = o.b(i) - o.a(i);
    u[i] = dot(q - o.a(i), d) / dot(d, d);
    if (std::abs(u[i]) * length(d) < 1e-3 || std::abs(u[i] - 1) * length(d) < 1e-3) return {};
  }
  int touches = 0;
  for (std::size_t i = 0; i < m; ++i) {
    std::optional<DVec2> feature;  // an inner vertex counts with the segment after it
    if (u[i] > 0 && u[i] < 1) feature = o.a(i) + (o.b(i) - o.a(i)) * u[i];
    if (u[i] <= 0 && (i == 0 || u[i - 1] >= 1)) feature = o.a(i);
    if (u[i] >= 1 && i == m - 1) feature = o.b(i);
    if (!feature) continue;
    const double dist = length(q - *feature);
    if (std::abs(dist - r) < 2e-4) return {};
    touches += dist <= r;
  }
  return touches;
}

}  // namespace

TEST(HullMake, PolygonEitherWindingIsCounterClockwise) {
  Rng rng(1);
  for (int i = 0; i < 300 && !HasFailure(); ++i) {
    std::vector<Vec2> pts = randomConvex(rng, 3 + i % 6), expected;
    if (i % 2) std::reverse(pts.begin(), pts.end());
    const Vec2 origin = randomPoint(rng, -3, 3);
    for (Vec2 p : pts) expected.push_back(p - origin);
    const auto hull = makePolygon(pts, origin);
    ASSERT_TRUE(hull) << "case " << i;
    expectWellFormedPolygon(*hull, expected);
  }
  const std::vector<Vec2> clockwise{{0, 0}, {0, 1}, {1, 0}};
  expectWellFormedPolygon(makePolygon(clockwise, {1, 1}).value(), {{-1, -1}, {-1, 0}, {0, -1}});
}

TEST(HullMake, PolygonRefusesBadInput) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Vec2> nine, star;  // the star turns left at every vertex but winds twice
  for (int k = 0; k < 9; ++k) nine.push_back(rotate({2, 0}, 2 * kPi / 9 * float(k)));
  for (int k = 0; k < 5; ++k) star.push_back(rotate({0, 1}, 4 * kPi / 5 * float(k)));
  // Too few, too many, not finite, a repeat, the first again, collinear
  // points, a dart.
  const std::vector<std::vector<Vec2>> bad{{},
                                           {{0, 0}, {1, 0}},
                                           nine,
                                           {{0, 0}, {1, 0}, {nan, 1}},
                                           {{0, 0}, {inf, 0}, {0, 1}},
                                           {{0, 0}, {1, 0}, {1, 0}, {1, 1}},
                                           {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}},
                                           {{0, 0}, {0.5f, 0}, {1, 0}, {1, 1}},
                                           {{0, 0}, {1, 1}, {2, 2}},
                                           {{0, 0}, {4, 2}, {0, 4}, {1, 2}},
                                           star};
  for (std::size_t i = 0; i < bad.size(); ++i) {
    EXPECT_FALSE(makePolygon(bad[i], {})) << "case " << i;
    const std::vector<Vec2> reversed(bad[i].rbegin(), bad[i].rend());
    EXPECT_FALSE(makePolygon(reversed, {})) << "reversed case " << i;
  }
}

TEST(HullMake, SegmentAndBox) {
  const Hull s = makeSegment({1, 2}, {4, 6}, {1, 1}).value();
  EXPECT_TRUE(s.isSegment() && !s.hasPrev && !s.hasNext);
  EXPECT_EQ(s.vertices[0], (Vec2{0, 1}));
  EXPECT_EQ(s.vertex(1, {1, 1}), (Vec2{4, 6}));
  EXPECT_TRUE(near(s.normals[0], {-0.8, 0.6}, 1e-6));  // left of a -> b
  EXPECT_TRUE(near(s.normals[1], {0.8, -0.6}, 1e-6));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(makeSegment({1, 2}, {1, 2}, {}) || makeSegment({nan, 2}, {1, 3}, {}) ||
               makeSegment({0, 0}, {1, inf}, {}));
  for (float angle : {0.0f, 0.3f, kPi / 2, -1.2f, 3.0f}) {
    std::vector<Vec2> corners{{-2, -0.5f}, {2, -0.5f}, {2, 0.5f}, {-2, 0.5f}};
    for (Vec2& c : corners) c = rotate(c, angle);
    expectWellFormedPolygon(makeBox({2, 0.5f}, angle), corners);
  }
}

TEST(HullQueries, BoundsAndClosestPointMatchSampling) {
  Rng rng(3);
  int insideCount = 0;
  for (int i = 0; i < 80; ++i) {
    const auto s = randomHull(rng, i % 3 == 0);
    ASSERT_TRUE(s);
    DVec2 lo{kInf, kInf}, hi = -lo;
    for (DVec2 p : s->ref.pts) lo = min(lo, p), hi = max(hi, p);
    const AABB b = bounds(s->hull, s->at);
    EXPECT_TRUE(near(b.min, lo, 1e-5) && near(b.max, hi, 1e-5)) << "case " << i;
    for (int j = 0; j < 6; ++j) {
      const Vec2 p = nearHull(rng, *s, 7);
      const DVec2 want = sampledClosest(s->ref, p);
      insideCount += want == DVec2(p);
      EXPECT_TRUE(near(closestPoint(s->hull, s->at, p), want, 3e-4)) << "case " << i;
    }
  }
  EXPECT_GT(insideCount, 10);
}

// collide(), sideOf() and outwardNormal() against the nearest edge.
TEST(HullCollide, CircleMatchesReference) {
  Rng rng(4);
  int outside = 0, inPolygon = 0, apart = 0;
  for (int i = 0; i < 300; ++i) {
    const auto s = randomHull(rng, i % 3 == 0);
    ASSERT_TRUE(s);
    for (int j = 0; j < 10; ++j) {
      const Circle c{nearHull(rng, *s, 6), uniform(rng, 0.1f, 2.5f)};
      const DVec2 q = c.center;
      const double r = c.radius;
      const Nearest n = nearestEdge(s->ref, q);
      const auto got = collide(c, s->hull, s->at);
      const HullSide side = sideOf(s->hull, s->at, c.center);
      SCOPED_TRACE(testing::Message() << "case " << i << " centre " << q.x << ", " << q.y);
      if (inside(s->ref, q)) {
        if (n.second - n.dist < 1e-3) continue;
        ++inPolygon;
        ASSERT_TRUE(got);
        const DVec2 out = s->ref.outward(n.edge);
        EXPECT_TRUE(near(got->normal, -out, 1e-4));
        EXPECT_NEAR(got->depth, r + n.dist, 2e-4);
        EXPECT_TRUE(near(outwardNormal(s->hull, s->at, c.center), out, 1e-4));
        EXPECT_NEAR(side.distance, -n.dist, 2e-4);
        continue;
      }
      EXPECT_NEAR(side.distance, n.dist, 2e-4);
      if (n.dist > 1e-2) {
        const DVec2 normal = (n.point - q) / n.dist;
        EXPECT_TRUE(near(outwardNormal(s->hull, s->at, c.center), -normal, 1e-3));
        EXPECT_TRUE(near(side.normal, normal, 1e-3));
        if (got) {
          EXPECT_TRUE(near(got->normal, normal, 1e-3));
          EXPECT_TRUE(near(got->point, (q + normal * r + n.point) * 0.5, 5e-4));
        }
      }
      if (std::abs(n.dist - r) < 2e-4) continue;
      ASSERT_EQ(got.has_value(), n.dist <= r) << "distance " << n.dist;
      (got ? outside : apart) += 1;
      if (got) {
        EXPECT_NEAR(got->depth, r - n.dist, 2e-4);
      }
    }
  }
  EXPECT_GT(outside, 200);
  EXPECT_GT(inPolygon, 80);
  EXPECT_GT(apart, 300);
}

// touches(Hull, AABB) against edge-box slab tests and the box's centre.
TEST(HullQueries, TouchesABox) {
  Rng rng(6);
  int yes = 0, no = 0;
  for (int i = 0; i < 600; ++i) {
    const auto s = randomHull(rng, i % 3 == 0);
    ASSERT_TRUE(s);
    const AABB box = AABB::fromCenterHalf(nearHull(rng, *s, 6), randomPoint(rng, 0.1f, 2));
    auto reference = [&](float grow) {
      const AABB b = box.expanded(grow);
      bool any = inside(s->ref, DVec2(b.center()));
      for (std::size_t e = 0; e < s->ref.edges(); ++e) {
        const Vec2 a(s->ref.a(e));
        any = any || raycast(Ray{a, Vec2(s->ref.b(e)) - a, 1}, b).has_value();
      }
      return any;
    };
    if (reference(-1e-4f) != reference(1e-4f)) continue;
    EXPECT_EQ(touches(s->hull, s->at, box), reference(0)) << "case " << i;
    (reference(0) ? yes : no) += 1;
  }
  EXPECT_GT(yes, 50);
  EXPECT_GT(no, 100);
}

TEST(ChainCollide, OneContactPerTouch) {
  const std::vector<Hull> chain = makeChain();
  const Outline poly = chainOutline();
  Rng rng(8);
  int single = 0, atJoints = 0, none = 0, twice = 0;
  for (int i = 0; i < 4000; ++i) {
    const Vec2 p = i % 2 ? kChain[1 + i % 3] + randomPoint(rng, -0.45f, 0.45f)  // near a joint
                         : Vec2{uniform(rng, -0.8f, 4.8f), uniform(rng, -1.4f, 1.0f)};
    const Circle c{p, uniform(rng, 0.1f, 0.6f)};
    const DVec2 q = c.center;
    const auto expected = chainTouches(poly, q, c.radius);
    if (!expected) continue;
    SCOPED_TRACE(testing::Message() << "case " << i << ": (" << q.x << ", " << q.y << ") r "
                                    << c.radius << " touches " << *expected);
    std::vector<Contact> contacts;
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const auto got = collide(c, chain[k], kChainOrigin);
      if (!got) continue;
      for (const Contact& other : contacts) EXPECT_FALSE(near(got->normal, other.normal, 1e-3));
      contacts.push_back(*got);  // a real touch: on this segment, r - depth away
      const DVec2 touch = q + DVec2(got->normal) * (c.radius - double(got->depth));
      EXPECT_LT(nearestEdge(edgeOutline(poly, k), touch).dist, 2e-4) << "segment " << k;
    }
    // One contact per touch: two in a concave corner where the ball rests
    // on both segments (what keeps it there), one on a joint's convex side.
    ASSERT_EQ(contacts.size(), std::size_t(*expected));
    (*expected == 0 ? none : *expected == 1 ? single : twice) += 1;
    if (*expected == 0) continue;
    const Nearest n = nearestEdge(poly, q);
    const auto deepest = std::max_element(contacts.begin(), contacts.end(),
                                          [](auto& x, auto& y) { return x.depth < y.depth; });
    EXPECT_NEAR(deepest->depth, c.radius - n.dist, 2e-4);
    if (*expected > 1) continue;
    const bool atStart = n.edge > 0 && length(n.point - poly.a(n.edge)) < 1e-9;
    atJoints += atStart || (n.edge + 1 < poly.edges() && length(n.point - poly.b(n.edge)) < 1e-9);
    if (n.dist > 1e-2) {
      EXPECT_TRUE(near(deepest->normal, (n.point - q) / n.dist, 1e-3));
    }
  }
  EXPECT_GT(single, 800);
  EXPECT_GT(atJoints, 25);
  EXPECT_GT(twice, 25);
  EXPECT_GT(none, 500);
}

TEST(ChainCollide, Joints) {
  const std::vector<Hull> chain = makeChain();
  const std::tuple<Circle, Vec2, float> cases[] = {
      {{{1, 0.5f}, 0.5f}, {0, -1}, 0},        // touching the collinear joint
      {{{1, -0.3f}, 0.5f}, {0, 1}, 0.2f},     // and from below
      {{{3, 0.6f}, 0.5f}, {0, -1}, 0.1f},     // over the convex joint (3, 0.2)
      {{{2, -0.3f}, 0.5f}, {0, 1}, 0.2f},     // under the convex joint (2, 0), on a border
      {{{1.9f, 0.3f}, 0.5f}, {0, -1}, 0.2f},  // in the concave corner, nearer the first
      {{{-0.3f, 0}, 0.5f}, {1, 0}, 0.2f},     // the chain's first end
      {{{2, 3}, 0.5f}, {}, -1},               // far: none
      {{{-1, 0}, 0.5f}, {}, -1},
  };
  for (const auto& [circle, normal, depth] : cases) {
    std::vector<Contact> all;
    for (const Hull& s : chain) {
      if (auto got = collide(circle, s, kChainOrigin)) all.push_back(*got);
    }
    ASSERT_EQ(all.size(), depth < 0 ? 0u : 1u) << circle.center.x << ", " << circle.center.y;
    if (all.empty()) continue;
    EXPECT_TRUE(near(all[0].normal, normal, 1e-5));
    EXPECT_NEAR(all[0].depth, depth, 1e-5f);
  }
}

TEST(HullRaycast, MatchesMarch) {
  Rng rng(9);
  int hits = 0, misses = 0, atStart = 0;
  for (int i = 0; i < 300; ++i) {
    const bool segment = i % 3 == 0;
    const auto s = randomHull(rng, segment);
    ASSERT_TRUE(s);
    const float r = !segment && i % 4 == 1 ? 0.0f : uniform(rng, 0.05f, 1.5f);
    const Ray ray = aimedRay(rng, randomPoint(rng, -12, 12), randomPoint(rng, -5, 5));
    auto distance = [&](DVec2 p) {  // signed: < 0 inside a polygon
      return (inside(s->ref, p) ? -1 : 1) * nearestEdge(s->ref, p).dist;
    };
    const March m = march(ray, r, distance);
    if (m.grazing) continue;
    const auto t = raycastRounded(ray, s->hull, s->at, r);
    SCOPED_TRACE(testing::Message() << "case " << i << " r " << r);
    expectMatchesMarch(t, m, r, ray, distance);
    EXPECT_EQ(timeOfImpact(Circle{ray.origin, r}, ray.direction, s->hull, s->at, ray.maxT), t);
    (m.first ? (*m.first == 0 ? atStart : hits) : misses) += 1;
  }
  EXPECT_GT(hits, 30);
  EXPECT_GT(misses, 60);
  EXPECT_GT(atStart, 3);
}

// The chain's segments together: the march against the polyline. Each
// alone: what its collide() owns (a contact just after its t, none before).
TEST(ChainRaycast, SegmentsMatchMarchAndCollide) {
  const std::vector<Hull> chain = makeChain();
  const Outline poly = chainOutline();
  Rng rng(10);
  int hits = 0, misses = 0;
  for (int i = 0; i < 400; ++i) {
    const float r = uniform(rng, 0.05f, 0.8f);
    const Vec2 origin = randomPoint(rng, -2, 6) - Vec2{0, 2};
    const Ray ray = aimedRay(rng, origin, {uniform(rng, -0.5f, 4.5f), uniform(rng, -1, 0.6f)});
    auto distance = [&](DVec2 p) { return nearestEdge(poly, p).dist; };
    const March m = march(ray, r, distance);
    if (m.grazing) continue;
    SCOPED_TRACE(testing::Message() << "case " << i << " r " << r);
    std::optional<float> first;
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const auto t = raycastRounded(ray, chain[k], kChainOrigin, r);
      for (int j = 0; j <= 100; ++j) {
        const float before = ray.maxT * float(j) / 100;
        if (t && before > *t - 1e-3f) break;
        EXPECT_FALSE(collide(Circle{ray.at(before), r - 1e-4f}, chain[k], kChainOrigin)) << k;
      }
      if (!t) continue;
      first = std::min(first.value_or(*t), *t);
      const Vec2 after = ray.at(std::min(*t + 1e-4f, ray.maxT));
      EXPECT_TRUE(collide(Circle{after, r + 1e-3f}, chain[k], kChainOrigin)) << k << " " << *t;
    }
    expectMatchesMarch(first, m, r, ray, distance);
    (m.first ? hits : misses) += 1;
  }
  EXPECT_GT(hits, 100);
  EXPECT_GT(misses, 50);
}

TEST(HullAnalytic, ContactsAndTimesOfImpact) {
  const Hull s = makeSegment({0, 0}, {2, 0}, {1, 1}).value();
  const auto on = collide(Circle{{2, 0}, 0.5f}, s, {2, 1});  // on the segment: out to the left
  ASSERT_TRUE(on);
  EXPECT_EQ(on->normal, -s.normals[0]);
  EXPECT_FLOAT_EQ(on->depth, 0.5f);
  EXPECT_FALSE(collide(Circle{{2, 0.6f}, 0.5f}, s, {2, 1}));
  const Hull floor = makeSegment({-5, 0}, {5, 0}, {}).value();
  auto toi = [](Circle c, Vec2 v, const Hull& h, Vec2 at, float tMax) {
    return timeOfImpact(c, v, h, at, tMax).value_or(-1.0f);
  };
  EXPECT_NEAR(toi({{0, 5}, 1}, {0, -10}, floor, {}, 1), 0.4f, 1e-6f);
  EXPECT_NEAR(toi({{0, 5}, 1}, {0, -10}, floor, {0, -1}, 1), 0.5f, 1e-6f);
  EXPECT_NEAR(toi({{0, -5}, 1}, {0, 10}, floor, {}, 1), 0.4f, 1e-6f);  // two-sided
  EXPECT_FALSE(timeOfImpact({{0, 5}, 1}, {0, -10}, floor, {}, 0.3f));
  // The end cap: the centre (x, 0.5) is 1 from (-5, 0).
  EXPECT_NEAR(toi({{-10, 0.5f}, 1}, {10, 0}, floor, {}, 2), (5 - std::sqrt(0.75f)) / 10, 1e-5f);
  EXPECT_FALSE(timeOfImpact({{-10, 1.1f}, 1}, {10, 0}, floor, {}, 2));
  const Hull diagonal = makeSegment({-5, -5}, {5, 5}, {}).value();
  EXPECT_NEAR(toi({{0, 5}, 1}, {0, -10}, diagonal, {}, 1), (5 - std::sqrt(2.0f)) / 10, 1e-5f);
  EXPECT_EQ(toi({{0, 1}, 1}, {0, -10}, floor, {}, 1), 0.0f);   // touching
  EXPECT_EQ(toi({{3, 0.2f}, 1}, {0, 1}, floor, {}, 1), 0.0f);  // overlapping, leaving
  EXPECT_FALSE(timeOfImpact({{0, 2}, 1}, {0, 0}, floor, {}, 1));
  EXPECT_EQ(toi({{0, 0.5f}, 1}, {0, 0}, floor, {}, 1), 0.0f);
  EXPECT_NEAR(toi({{0, 0}, 1}, {1, 0}, makeBox({1, 1}, 0), {10, 0}, 100), 8.0f, 1e-5f);
  EXPECT_NEAR(toi({{0, 0}, 1}, {1, 0}, makeBox({1, 1}, kPi / 4), {10, 0}, 100), 9 - std::sqrt(2.0f),
              1e-4f);
  const std::array<Vec2, 3> triangle{{{0, 0}, {2, 0}, {0, 2}}};
  const Hull tri = makePolygon(triangle, {}).value();
  EXPECT_NEAR(raycastRounded(Ray{{-5, 0.5f}, {1, 0}, 10}, tri, {}, 0).value_or(-1), 5, 1e-5f);
  EXPECT_FALSE(raycastRounded(Ray{{-5, 0.5f}, {1, 0}, 4.9f}, tri, {}, 0));
  EXPECT_FALSE(raycastRounded(Ray{{-5, 2.5f}, {1, 0}, 10}, tri, {}, 0));
  EXPECT_EQ(raycastRounded(Ray{{0.5f, 0.5f}, {1, 0}, 10}, tri, {}, 0), 0.0f);  // inside
  EXPECT_EQ(raycastRounded(Ray{{0.5f, 0.5f}, {-1, 0}, 10}, tri, {}, 0.25f), 0.0f);
}
