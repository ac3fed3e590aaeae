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

// Brute force of queryBox: the enabled bodies whose shape touches the box
// and that the filter accepts, in dense order (the same float tests as
// World's).
inline std::vector<BodyId> bruteQueryBox(const World& w, const AABB& box,
                                         const std::optional<QueryFilter>& q) {
  std::vector<BodyId> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    if (!w.isEnabled(id)) continue;
    if (q && (id == q->ignore || !accepts(*q, w.filter(id)))) continue;
    bool hit = false;
    if (w.radius(id) == 0.0f) {  // a static or kinematic box
      hit = touches(w.bounds(id), box);
    } else {
      const Vec2 c = w.position(id);
      const float r = w.radius(id);
      hit = lengthSquared(c - closestPoint(box, c)) <= r * r;
    }
    if (hit) out.push_back(id);
  }
  return out;
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
