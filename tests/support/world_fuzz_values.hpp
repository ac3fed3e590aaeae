#pragma once
// The World API fuzzer's arguments (ordinary values, the limits' edges and
// hostile ones; filters; the pre-solve hook) and its brute-force references
// (the model's state, queryBox by brute force, a counting debug draw).

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <quadbin/engine/world_draw.hpp>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

#include "broadphase_fuzz.hpp"  // fuzz::Source

namespace quadbin::test::fuzz::world {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A float from ordinary values, the limits' edges and hostile ones.
inline float value(Source& src, float ordinary) {
  switch (src.below(12)) {
    case 0:
      return std::numeric_limits<float>::quiet_NaN();
    case 1:
      return src.below(2) ? kInf : -kInf;
    case 2: {
      static const float kEdges[] = {0.0f, -0.0f, 1e-40f, 1e-6f,  1e7f,  -1e7f,
                                     1e8f, 1e9f,  1e30f,  -1e30f, 3e38f, 1e-9f};
      return kEdges[src.below(sizeof kEdges / sizeof kEdges[0])];
    }
    default:
      return static_cast<float>((src.unit() * 2.0 - 1.0) * ordinary);
  }
}
// Mostly an ordinary value in [0, ordinary), sometimes value()'s.
inline float magnitude(Source& src, float ordinary) {
  return src.below(4) == 0 ? value(src, ordinary) : static_cast<float>(src.unit()) * ordinary;
}
inline Vec2 point(Source& src, const AABB& bounds) {
  if (src.below(6) == 0) return {value(src, 1e3f), value(src, 1e3f)};
  return {bounds.min.x + static_cast<float>(src.unit()) * (bounds.max.x - bounds.min.x),
          bounds.min.y + static_cast<float>(src.unit()) * (bounds.max.y - bounds.min.y)};
}
// A filter from a few categories (so that pairs do collide and do not),
// sometimes any bits.
// An outline for a static or kinematic def (BodyDef::outline): ordinary,
// 2 to 8 points on a circle in order (a segment or a convex polygon, a few
// of them refused as too thin); wild, any count up to 11 (9 and more are
// refused) and points anywhere.
inline void outline(Source& src, BodyDef& d, float size, bool wild) {
  const std::uint32_t n = wild ? src.below(12) : 2 + src.below(7);
  d.outlineCount = static_cast<std::uint8_t>(n);
  const float r = 0.1f + static_cast<float>(src.unit()) * size * 0.1f;
  for (std::uint32_t k = 0; k < d.outline.size(); ++k) {
    const float turn = (static_cast<float>(k) + 0.4f * static_cast<float>(src.unit())) /
                       static_cast<float>(std::max(n, 1u));
    d.outline[k] = wild ? Vec2{value(src, size), value(src, size)}
                        : Vec2{std::cos(6.2832f * turn), std::sin(6.2832f * turn)} * r;
  }
  if (d.type == BodyType::Kinematic && src.below(4) != 0) d.radius = 0.0f;
}

inline Filter filter(Source& src) {
  Filter f;
  if (src.below(3) == 0) return f;
  f.categoryBits = src.below(8) == 0 ? src.next() : 1ull << src.below(3);
  f.maskBits = src.below(3) == 0 ? ~0ull : src.next() & 7u;
  f.groupIndex = static_cast<std::int32_t>(src.below(5)) - 2;
  return f;
}
inline bool accepts(const QueryFilter& q, const Filter& body) {
  return (body.categoryBits & q.maskBits) != 0 && (body.maskBits & q.categoryBits) != 0;
}

// The pre-solve hook the programs set: a pure function of the ids,
// symmetric in a and b, that switches a quarter of the contacts off.
inline bool preSolve(BodyId a, BodyId b, Vec2 /*normal*/) { return (a.index + b.index) % 4 != 0; }

// What a refused call must leave as it was: the snapshot's bytes (the
// whole simulation state) and what the snapshot does not hold (the events
// of the last step, the broad phase in use).
struct State {
  std::vector<std::byte> bytes;
  std::vector<std::uint32_t> events;
  friend bool operator==(const State&, const State&) = default;
};
inline State state(const World& w) {
  State s{w.snapshot(), {w.bodyCount()}};
  auto& d = s.events;
  for (const ContactEvent& e : w.contactBeginEvents()) d.insert(d.end(), {e.a.index, e.b.index});
  for (const ContactEvent& e : w.contactEndEvents()) d.insert(d.end(), {e.a.index, e.b.index});
  for (const ContactHitEvent& e : w.contactHitEvents()) d.insert(d.end(), {e.a.index, e.b.index});
  for (const SensorEvent& e : w.sensorBeginEvents()) d.insert(d.end(), {e.sensor.index});
  for (const SensorEvent& e : w.sensorEndEvents()) d.insert(d.end(), {e.visitor.index});
  d.push_back(static_cast<std::uint32_t>(w.def().broadPhase));
  return s;
}

// Each outline's vertices in world coordinates (World::draw's polygons),
// by id index.
struct OutlineDraw final : WorldDraw {
  void polygon(const DrawnPolygon& p) override {
    vertices[p.id.index].assign(p.vertices.begin(), p.vertices.end());
  }
  std::map<std::uint32_t, std::vector<Vec2>> vertices;
};

// Whether an outline (a segment, or a counter-clockwise convex polygon)
// and the box are apart (+1), share a point (-1), or are so near the
// boundary (against the coordinates' size) that float rounding may decide
// either way (0). Separating axes in double: the box's two and the
// outline's edge normals.
inline int outlineApart(const std::vector<Vec2>& v, const AABB& box) {
  double lo[2] = {v[0].x, v[0].y}, hi[2] = {v[0].x, v[0].y}, scale = 0.0;
  for (const Vec2 p : v) {
    lo[0] = std::min<double>(lo[0], p.x), hi[0] = std::max<double>(hi[0], p.x);
    lo[1] = std::min<double>(lo[1], p.y), hi[1] = std::max<double>(hi[1], p.y);
    scale = std::max({scale, std::fabs(double{p.x}), std::fabs(double{p.y})});
  }
  scale = std::max({scale, std::fabs(double{box.min.x}), std::fabs(double{box.max.x}),
                    std::fabs(double{box.min.y}), std::fabs(double{box.max.y})});
  double gap =
      std::max({box.min.x - hi[0], lo[0] - box.max.x, box.min.y - hi[1], lo[1] - box.max.y});
  const Vec2 corners[4] = {box.min, {box.max.x, box.min.y}, box.max, {box.min.x, box.max.y}};
  const std::size_t edges = v.size() == 2 ? 1 : v.size();
  for (std::size_t k = 0; k < edges; ++k) {
    const Vec2 a = v[k], b = v[(k + 1) % v.size()];
    const double dx = double{b.x} - a.x, dy = double{b.y} - a.y, len = std::hypot(dx, dy);
    if (!(len > 0.0)) continue;
    const double nx = dy / len, ny = -dx / len;  // outward for counter-clockwise
    double below = kInf, above = -kInf;
    for (const Vec2 c : corners) {
      const double d = (c.x - double{a.x}) * nx + (c.y - double{a.y}) * ny;
      below = std::min(below, d), above = std::max(above, d);
    }
    gap = std::max(gap, below);                      // the box beyond the edge
    if (v.size() == 2) gap = std::max(gap, -above);  // or on a segment's other side
  }
  const double doubt = 1e-5 * scale;
  return gap > doubt ? 1 : gap < -doubt ? -1 : 0;
}

// Whether `found` is what queryBox must return: the enabled bodies whose
// shape touches the box and that the filter accepts, in dense order (balls
// and boxes by the same float tests as World's; an outline by
// outlineApart, either answer allowed where rounding may decide).
inline bool matchesQueryBox(const World& w, const AABB& box, const std::optional<QueryFilter>& q,
                            const std::vector<BodyId>& found) {
  OutlineDraw outlines;
  w.draw(outlines, WorldDrawOptions{});
  std::size_t next = 0;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    int hit = 0;  // 1 must be found, 0 must not, -1 either
    if (!w.isEnabled(id) || (q && (id == q->ignore || !accepts(*q, w.filter(id))))) {
      hit = 0;
    } else if (const auto o = outlines.vertices.find(id.index); o != outlines.vertices.end()) {
      const int apart = outlineApart(o->second, box);
      hit = apart > 0 ? 0 : apart < 0 ? 1 : -1;
    } else if (w.radius(id) == 0.0f) {  // a static or kinematic box
      hit = touches(w.bounds(id), box) ? 1 : 0;
    } else {
      const Vec2 c = w.position(id);
      const float r = w.radius(id);
      hit = lengthSquared(c - closestPoint(box, c)) <= r * r ? 1 : 0;
    }
    const bool reported = next < found.size() && found[next] == id;
    if (reported) ++next;
    if ((hit == 1 && !reported) || (hit == 0 && reported)) return false;
  }
  return next == found.size();
}

// Counts what World::draw shows and checks each id.
struct CountingDraw final : WorldDraw {
  explicit CountingDraw(const World& w) : world(&w) {}
  void ball(const DrawnBall& b) override {
    ++bodies;
    if (!world->isValid(b.id) || world->type(b.id) != b.type) ++bad;
  }
  void staticBox(const DrawnBox& b) override {
    ++bodies;
    if (!world->isValid(b.id)) ++bad;
  }
  void polygon(const DrawnPolygon& p) override {
    ++bodies;
    const bool shaped = p.vertices.size() == (p.closed ? p.vertices.size() : 2u) &&
                        p.vertices.size() >= 2 && p.vertices.size() <= BodyDef::kMaxOutline;
    if (!world->isValid(p.id) || world->type(p.id) != p.type || !shaped) ++bad;
  }
  void walls(const AABB& /*bounds*/) override { ++wallCalls; }
  void contact(const DrawnContact& c) override {
    if (!world->isValid(c.a) || (!c.b.isNull() && !world->isValid(c.b))) ++bad;
  }
  void sensorOverlap(BodyId sensor, BodyId visitor, Vec2 /*point*/) override {
    if (!world->isValid(sensor) || !world->isValid(visitor)) ++bad;
  }
  void aabb(BodyId id, const AABB& /*box*/) override {
    if (!world->isValid(id)) ++bad;
  }
  const World* world;
  std::uint32_t bodies = 0, wallCalls = 0, bad = 0;
};

}  // namespace quadbin::test::fuzz::world
