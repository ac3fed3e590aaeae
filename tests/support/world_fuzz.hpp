#pragma once
// A fuzzer of the World API: a program of random calls (create, destroy,
// setPosition, setVelocity, setAwake, step, the queries, setBroadPhase,
// setThreadCount), with arguments drawn from ordinary values, the limits'
// edges and hostile ones (NaN, infinities, 1e30, bad enum values, foreign,
// stale and null ids). After every call it checks the invariants: the body
// count and which ids are valid match a model of the calls that succeeded,
// every position and velocity is finite, queryBox equals brute force, and
// a refused call (quadbin::Error) left the world bit for bit as it was.
// Shared by the GoogleTest suite (seeded programs, the committed corpus)
// and the libFuzzer target (programs read from the fuzzer's bytes).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

#include "broadphase_fuzz.hpp"  // fuzz::Source

namespace quadbin::test::fuzz {

namespace world {

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
inline Vec2 point(Source& src, const AABB& bounds) {
  if (src.below(6) == 0) return {value(src, 1e3f), value(src, 1e3f)};
  return {bounds.min.x + static_cast<float>(src.unit()) * (bounds.max.x - bounds.min.x),
          bounds.min.y + static_cast<float>(src.unit()) * (bounds.max.y - bounds.min.y)};
}

// Everything the API shows of the world, as bits: two equal digests are
// the same state.
inline std::vector<std::uint32_t> digest(const World& w) {
  std::vector<std::uint32_t> d{w.bodyCount()};
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    const Vec2 p = w.position(id), v = w.velocity(id);
    d.insert(d.end(), {id.index, id.generation, std::bit_cast<std::uint32_t>(p.x),
                       std::bit_cast<std::uint32_t>(p.y), std::bit_cast<std::uint32_t>(v.x),
                       std::bit_cast<std::uint32_t>(v.y), w.isAwake(id) ? 1u : 0u});
  }
  for (const ContactEvent& e : w.contactBeginEvents()) d.insert(d.end(), {e.a.index, e.b.index});
  for (const ContactEvent& e : w.contactEndEvents()) d.insert(d.end(), {e.a.index, e.b.index});
  d.push_back(static_cast<std::uint32_t>(w.def().broadPhase));
  return d;
}

// Brute force of queryBox: the bodies whose shape touches the box, in
// dense order (the same float tests as World's).
inline std::vector<BodyId> bruteQueryBox(const World& w, const AABB& box) {
  std::vector<BodyId> out;
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    bool hit = false;
    if (w.type(id) == BodyType::StaticBox) {
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

}  // namespace world

/// Runs one program; returns what went wrong, or an empty string.
inline std::string runWorld(Source& src, std::uint32_t calls, std::uint32_t maxBodies) {
  using namespace world;
  WorldDef def;
  def.logLevel = LogLevel::Off;
  const float size = src.below(2) ? 100.0f : 1e4f;
  def.bounds = {{0, 0}, {size, size}};
  def.boundary = src.below(3) == 0 ? Boundary::Open : Boundary::Closed;
  if (src.below(2)) def.gravity = {0, -static_cast<float>(src.unit() * 50.0)};
  def.enableSleep = src.below(2) != 0;
  def.timeToSleep = 0.05f;
  def.threadCount = 1;
  const auto types = allBroadPhaseTypes();
  def.broadPhase = types[src.below(static_cast<std::uint32_t>(types.size()))];
  std::unique_ptr<World> made;
  try {
    made = std::make_unique<World>(def);
  } catch (const Error& e) {
    return std::string("a valid WorldDef was refused: ") + e.what();
  }
  World& w = *made;
  World other(def);  // ids from another world must be refused
  const BodyId foreign = other.createBody(BodyDef::ball({size / 2, size / 2}, 1.0f));

  std::vector<BodyId> alive, dead;
  std::vector<BodyId> found;
  std::vector<RayHit> hits;
  auto anyId = [&]() -> BodyId {
    switch (src.below(8)) {
      case 0:
        return foreign;
      case 1:
        return BodyId{};
      case 2:
      case 3:
        if (!dead.empty()) return dead[src.below(static_cast<std::uint32_t>(dead.size()))];
        [[fallthrough]];
      default:
        if (!alive.empty()) return alive[src.below(static_cast<std::uint32_t>(alive.size()))];
        return BodyId{};
    }
  };
  auto isAlive = [&](BodyId id) {
    return std::find(alive.begin(), alive.end(), id) != alive.end();
  };
  std::string what;  // the call, for messages

  for (std::uint32_t call = 0; call < calls && !src.exhausted(); ++call) {
    const auto before = digest(w);
    bool refused = false;
    bool mustSucceed = false;  // a call every rule accepts
    try {
      switch (src.below(10)) {
        case 0:
        case 1: {
          what = "createBody";
          if (alive.size() >= maxBodies) break;
          BodyDef d;
          const std::uint32_t kind = src.below(8);
          d.type = kind == 0  ? static_cast<BodyType>(7)
                   : kind < 3 ? BodyType::StaticBox
                              : BodyType::Ball;
          d.position = point(src, def.bounds);
          d.radius = src.below(4) == 0 ? value(src, 10.0f) : 0.5f + static_cast<float>(src.unit());
          d.halfExtents = {std::abs(value(src, size / 4)), std::abs(value(src, size / 4))};
          if (d.type == BodyType::Ball) d.velocity = {value(src, 50.0f), value(src, 50.0f)};
          const BodyId id = w.createBody(d);
          if (!w.isValid(id)) return "createBody returned an invalid id";
          alive.push_back(id);
          break;
        }
        case 2: {
          what = "destroyBody";
          const BodyId id = anyId();
          mustSucceed = isAlive(id);
          w.destroyBody(id);
          if (!mustSucceed) return "destroyBody of a dead, foreign or null id succeeded";
          alive.erase(std::find(alive.begin(), alive.end(), id));
          dead.push_back(id);
          break;
        }
        case 3:
          what = "setPosition";
          w.setPosition(anyId(), point(src, def.bounds));
          break;
        case 4:
          what = "setVelocity";
          w.setVelocity(anyId(), {value(src, 50.0f), value(src, 50.0f)});
          break;
        case 5: {
          what = "step";
          const std::uint32_t pick = src.below(8);
          const float dt = pick == 0 ? value(src, 1.0f) : pick == 1 ? 0.1f : 1.0f / 60.0f;
          mustSucceed = pick != 0;
          w.step(dt);
          break;
        }
        case 6: {
          what = "query";
          found.clear();
          const Vec2 a = point(src, def.bounds), b = point(src, def.bounds);
          switch (src.below(4)) {
            case 0: {
              const AABB box{{std::min(a.x, b.x), std::min(a.y, b.y)},
                             {std::max(a.x, b.x), std::max(a.y, b.y)}};
              w.queryBox(src.below(8) == 0 ? AABB{box.max, box.min} : box, found);
              if (found != bruteQueryBox(w, box)) return "queryBox differs from brute force";
              break;
            }
            case 1:
              w.queryRadius(a, value(src, 30.0f), found);
              break;
            case 2:
              w.raycastAll(Ray{a, b - a, src.below(4) == 0 ? value(src, 2.0f) : 1.0f}, hits);
              break;
            default:
              w.nearest(a, src.below(5), found);
              break;
          }
          for (const BodyId id : found) {
            if (!isAlive(id)) return "a query returned a body that does not exist";
          }
          break;
        }
        case 7: {
          what = "setBroadPhase";
          const std::uint32_t t = src.below(static_cast<std::uint32_t>(types.size()) + 1);
          w.setBroadPhase(t == types.size() ? static_cast<BroadPhaseType>(99) : types[t]);
          break;
        }
        case 8: {
          what = "setThreadCount";
          const std::uint32_t n = src.below(5);
          w.setThreadCount(n == 4 ? 5000 : n == 0 ? 1 : n);
          break;
        }
        default:
          what = "setAwake";
          w.setAwake(anyId(), src.below(2) != 0);
          break;
      }
    } catch (const Error& e) {
      refused = true;
      if (mustSucceed) return what + ": a valid call was refused: " + e.what();
      if (std::string(e.what()).empty()) return what + ": an Error without a message";
    }
    // The invariants.
    if (refused && digest(w) != before) return what + ": a refused call changed the world";
    if (w.bodyCount() != alive.size()) return what + ": bodyCount differs from the model";
    for (const BodyId id : alive) {
      if (!w.isValid(id)) return what + ": a live body's id is not valid";
      const Vec2 p = w.position(id), v = w.velocity(id);
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(v.x) ||
          !std::isfinite(v.y)) {
        return what + ": a position or velocity is not finite";
      }
    }
    for (const BodyId id : dead) {
      if (w.isValid(id)) return what + ": a destroyed body's id is valid";
    }
    if (w.isValid(foreign) || w.isValid(BodyId{})) return what + ": a foreign or null id is valid";
  }
  return {};
}

}  // namespace quadbin::test::fuzz
