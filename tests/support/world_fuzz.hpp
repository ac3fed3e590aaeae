#pragma once
// A fuzzer of the World API: a program of random calls (docs/testing.md, "Fuzzers", lists them)
// with arguments drawn from ordinary values, the limits' edges and hostile ones (NaN, infinities,
// 1e30, bad enum values, foreign, stale and null ids, corrupt buffers). After every call it checks
// the invariants: the body count, the valid ids and the user data match a model of the calls that
// succeeded; positions and velocities are finite, balls inside a closed world's bounds; queryBox
// equals brute force; a copy of the world steps, its values finite (no accepted call leaves a dead
// world); a refused call (quadbin::Error) left the world's snapshot bytes and events as they were;
// the events of a step name live (or just destroyed) bodies and never a filtered, sensor or
// pre-solve-rejected contact. Each program runs twice, on 1 and on 3 threads, and must end in the
// same snapshot bytes. Shared by the GoogleTest suite (seeded programs, the committed corpus) and
// the libFuzzer target (programs read from the fuzzer's bytes).

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

#include "broadphase_fuzz.hpp"    // fuzz::Source
#include "snapshot_fuzz.hpp"      // mutate, seal, checkRestore
#include "world_fuzz_values.hpp"  // arguments, the brute-force references

namespace quadbin::test::fuzz {

namespace world {

// One program on one world. `alternate`: the determinism twin, which
// starts on 3 threads instead of 1 and maps every valid setThreadCount
// argument to another one.
class Program {
 public:
  Program(Source& src, std::uint32_t maxBodies, bool alternate)
      : src_(src), maxBodies_(maxBodies), alternate_(alternate) {}

  std::string run(std::uint32_t calls, std::vector<std::byte>& finalState);

 private:
  BodyId anyId();
  [[nodiscard]] bool isAlive(BodyId id) const {
    return std::find(alive_.begin(), alive_.end(), id) != alive_.end();
  }
  [[nodiscard]] bool isRecentlyDead(BodyId id) const {
    return std::find(recentlyDead_.begin(), recentlyDead_.end(), id) != recentlyDead_.end();
  }
  BodyDef bodyDef();
  void created(BodyId id, std::uint64_t userData) {
    alive_.push_back(id);
    userData_.push_back(userData);
  }
  std::string call(std::uint32_t op, bool& mustSucceed, bool& mustRefuse);
  std::string createBodies(bool& mustRefuse);
  std::string destroyBody(bool& mustSucceed);
  std::string step(bool& mustSucceed);
  std::string query();
  std::string setter();
  std::string push();
  std::string roundTrip();
  std::string restoreBad(bool& mustSucceed, bool& mustRefuse);
  std::string draw();
  std::string optimizeLayout();
  [[nodiscard]] std::string checkEvents() const;
  [[nodiscard]] std::string checkInvariants() const;
  std::string checkSteps();

  Source& src_;
  std::uint32_t maxBodies_;
  bool alternate_;
  WorldDef def_;
  std::unique_ptr<World> w_, other_, shadow_, copy_, stepper_;
  BodyId foreign_;
  std::vector<BodyId> alive_, dead_, recentlyDead_;  // recently: since the last step
  std::vector<std::uint64_t> userData_;              // the model, parallel to alive_
  bool preSolveOn_ = false;
  bool unknownEnds_ = false;  // a restored world's next end events may name bodies never seen
  std::vector<BodyId> found_;
  std::vector<RayHit> hits_;
};

inline BodyId Program::anyId() {
  switch (src_.below(8)) {
    case 0:
      return foreign_;
    case 1:
      return BodyId{};
    case 2:
    case 3:
      if (!dead_.empty()) return dead_[src_.below(static_cast<std::uint32_t>(dead_.size()))];
      [[fallthrough]];
    default:
      if (!alive_.empty()) return alive_[src_.below(static_cast<std::uint32_t>(alive_.size()))];
      return BodyId{};
  }
}

// A body of any kind, with any of the options: a third of them with
// hostile values anywhere, the rest with ordinary ones (which may still be
// refused, e.g. a ball that does not fit inside a closed world).
inline BodyDef Program::bodyDef() {
  const float size = def_.bounds.max.x;
  const bool wild = src_.below(3) == 0;
  auto any = [&](float ordinary) {
    return wild ? value(src_, ordinary) : static_cast<float>((src_.unit() * 2.0 - 1.0) * ordinary);
  };
  auto positive = [&](float ordinary) {
    return wild ? magnitude(src_, ordinary) : static_cast<float>(src_.unit()) * ordinary;
  };
  BodyDef d;
  const std::uint32_t kind = src_.below(10);
  d.type = kind == 0 && wild ? static_cast<BodyType>(7)
           : kind < 3        ? BodyType::StaticBox
           : kind < 5        ? BodyType::Kinematic
                             : BodyType::Ball;
  d.position = wild ? point(src_, def_.bounds)
                    : Vec2{size * 0.05f + static_cast<float>(src_.unit()) * size * 0.9f,
                           size * 0.05f + static_cast<float>(src_.unit()) * size * 0.9f};
  d.radius = wild ? value(src_, 10.0f) : 0.5f + static_cast<float>(src_.unit()) * size * 0.03f;
  if (kind == 4) d.radius = 0.0f;  // a kinematic box
  d.halfExtents = {0.1f + positive(size / 10), 0.1f + positive(size / 10)};
  // Kinematic balls mostly as kinematicBall makes them (no half extents).
  if (kind == 3 && src_.below(4) != 0) d.halfExtents = BodyDef{}.halfExtents;
  if (d.type != BodyType::Ball && src_.below(3) == 0) outline(src_, d, size, wild);
  if (d.type != BodyType::StaticBox) d.velocity = {any(30.0f), any(30.0f)};
  if (src_.below(4) == 0) d.isSensor = true;
  if (src_.below(2) != 0) d.userData = src_.next();
  if (src_.below(2) != 0) d.filter = filter(src_);
  if (src_.below(3) == 0) {  // materials
    if (src_.below(2) != 0) d.restitution = positive(1.0f);
    d.friction = positive(1.0f);
    d.rollingResistance = positive(0.1f);
    d.linearDamping = positive(2.0f);
    d.angularDamping = positive(2.0f);
    if (src_.below(2) != 0) d.mass = positive(10.0f);
    if (src_.below(3) == 0) d.gravityScale = any(2.0f);
    if (wild && src_.below(4) == 0) d.density = value(src_, 3.0f);
  }
  return d;
}

inline std::string Program::createBodies(bool& mustRefuse) {
  std::vector<BodyDef> defs(1 + src_.below(8));
  for (BodyDef& d : defs) d = bodyDef();
  if (src_.below(4) == 0) {  // one def that every rule refuses
    defs[src_.below(static_cast<std::uint32_t>(defs.size()))].position.x = world::kInf;
    mustRefuse = true;
  }
  if (alive_.size() + defs.size() > maxBodies_) return {};
  // The shadow world, restored to this one's state, creates the same
  // bodies one by one: the same ids and the same state, or a refusal.
  shadow_->restore(w_->snapshot());
  std::vector<BodyId> one;
  bool shadowRefused = false;
  try {
    for (const BodyDef& d : defs) one.push_back(shadow_->createBody(d));
  } catch (const Error&) {
    shadowRefused = true;
  }
  std::vector<BodyId> ids;
  try {
    ids = w_->createBodies(defs);
  } catch (const Error&) {
    if (!shadowRefused) return "createBodies refused defs that createBody accepts one by one";
    throw;
  }
  if (shadowRefused) return "createBodies accepted defs that createBody refuses";
  if (ids.size() != defs.size()) return "createBodies returned the wrong number of ids";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (!w_->isValid(ids[i])) return "createBodies returned an invalid id";
    if (ids[i].index != one[i].index || ids[i].generation != one[i].generation) {
      return "createBodies gave other ids than createBody one by one";
    }
    created(ids[i], defs[i].userData);
  }
  if (shadow_->snapshot() != w_->snapshot()) {
    return "createBodies made another state than createBody one by one";
  }
  return {};
}

inline std::string Program::destroyBody(bool& mustSucceed) {
  const BodyId id = anyId();
  mustSucceed = isAlive(id);
  w_->destroyBody(id);
  if (!mustSucceed) return "destroyBody of a dead, foreign or null id succeeded";
  const auto at = std::find(alive_.begin(), alive_.end(), id) - alive_.begin();
  alive_.erase(alive_.begin() + at);
  userData_.erase(userData_.begin() + at);
  dead_.push_back(id);
  recentlyDead_.push_back(id);
  return {};
}

inline std::string Program::step(bool& mustSucceed) {
  const std::uint32_t pick = src_.below(8);
  const float dt = pick == 0 ? value(src_, 1.0f) : pick == 1 ? 0.1f : 1.0f / 60.0f;
  mustSucceed = pick != 0;
  w_->step(dt);
  std::string failure = checkEvents();
  recentlyDead_.clear();
  unknownEnds_ = false;
  return failure;
}

inline std::string Program::query() {
  found_.clear();
  const Vec2 a = point(src_, def_.bounds), b = point(src_, def_.bounds);
  std::optional<QueryFilter> q;
  if (src_.below(2) != 0) {
    q.emplace();
    q->categoryBits = src_.below(4) == 0 ? src_.next() : 1ull << src_.below(3);
    q->maskBits = src_.below(3) == 0 ? ~0ull : src_.next() & 7u;
    if (src_.below(2) != 0) q->ignore = anyId();
  }
  switch (src_.below(5)) {
    case 0: {
      const AABB box{{std::min(a.x, b.x), std::min(a.y, b.y)},
                     {std::max(a.x, b.x), std::max(a.y, b.y)}};
      const AABB asked = src_.below(8) == 0 ? AABB{box.max, box.min} : box;
      q ? w_->queryBox(asked, found_, *q) : w_->queryBox(asked, found_);
      if (!matchesQueryBox(*w_, box, q, found_)) return "queryBox differs from brute force";
      break;
    }
    case 1: {
      const float r = value(src_, 30.0f);
      q ? w_->queryRadius(a, r, found_, *q) : w_->queryRadius(a, r, found_);
      break;
    }
    case 2: {
      const Ray ray{a, b - a, src_.below(4) == 0 ? value(src_, 2.0f) : 1.0f};
      q ? w_->raycastAll(ray, hits_, *q) : w_->raycastAll(ray, hits_);
      const std::optional<RayHit> first = q ? w_->raycast(ray, *q) : w_->raycast(ray);
      if (first.has_value() != !hits_.empty() || (first && first->t != hits_.front().t)) {
        return "raycast differs from raycastAll's first hit";
      }
      for (const RayHit& h : hits_) {
        if (h.wall == WallSide::None) {
          found_.push_back(h.body);
        } else if (!h.body.isNull() || def_.boundary != Boundary::Closed) {
          return "a wall hit with a body, or in an open world";
        }
      }
      break;
    }
    default: {
      const std::uint32_t k = src_.below(5);
      q ? w_->nearest(a, k, found_, *q) : w_->nearest(a, k, found_);
      break;
    }
  }
  for (const BodyId id : found_) {
    if (!isAlive(id)) return "a query returned a body that does not exist";
    if (q && (id == q->ignore || !accepts(*q, w_->filter(id)))) {
      return "a query returned a body its QueryFilter refuses";
    }
  }
  return {};
}

// The per-body settings: user data, filter, materials, spin, type.
inline std::string Program::setter() {
  const BodyId id = anyId();
  switch (src_.below(11)) {
    case 0: {
      const std::uint64_t v = src_.next();
      w_->setUserData(id, v);
      userData_[std::find(alive_.begin(), alive_.end(), id) - alive_.begin()] = v;
      break;
    }
    case 1: {
      const Filter f = filter(src_);
      w_->setFilter(id, f);
      if (w_->filter(id) != f) return "filter differs from setFilter's";
      break;
    }
    case 2:
      w_->setRestitution(id, magnitude(src_, 1.0f));
      break;
    case 3:
      w_->setLinearDamping(id, magnitude(src_, 2.0f));
      break;
    case 4:
      w_->setAngularDamping(id, magnitude(src_, 2.0f));
      break;
    case 5:
      w_->setFriction(id, magnitude(src_, 1.0f));
      break;
    case 6:
      w_->setRadius(id, magnitude(src_, 3.0f));
      break;
    case 7:
      w_->setGravity({value(src_, 30.0f), value(src_, 30.0f)});
      break;
    case 8:
      w_->setGravityScale(id, value(src_, 2.0f));
      break;
    case 9:  // a type (3: not a BodyType), or in or out of the simulation
      if (src_.below(2) == 0) w_->setType(id, static_cast<BodyType>(src_.below(4)));
      if (src_.below(2) == 0) w_->setEnabled(id, src_.below(3) != 0);
      break;
    default:
      w_->setAngularVelocity(id, value(src_, 5.0f));
      break;
  }
  return {};
}

// Forces, impulses and blasts.
inline std::string Program::push() {
  switch (src_.below(4)) {
    case 0:
      w_->applyForce(anyId(), {value(src_, 500.0f), value(src_, 500.0f)});
      break;
    case 1:
      w_->applyLinearImpulse(anyId(), {value(src_, 20.0f), value(src_, 20.0f)});
      break;
    case 2:
      w_->applyAngularImpulse(anyId(), value(src_, 5.0f));
      break;
    default:
      w_->explode(point(src_, def_.bounds), magnitude(src_, def_.bounds.max.x / 4),
                  magnitude(src_, 20.0f));
      break;
  }
  return {};
}

// A copy restored from a snapshot, stepped alongside, stays identical.
inline std::string Program::roundTrip() {
  const std::vector<std::byte> bytes = w_->snapshot();
  World& copy = *copy_;  // on 2 threads; made once, as worlds are costly to make
  copy.restore(bytes);
  copy.setPreSolve(preSolveOn_ ? PreSolveFn(&preSolve) : PreSolveFn());
  if (copy.snapshot() != bytes) return "a restored copy's snapshot differs";
  for (std::uint32_t i = 1 + src_.below(3); i > 0; --i) {
    w_->step(1.0f / 60.0f);
    copy.step(1.0f / 60.0f);
    if (std::string f = checkEvents(); !f.empty()) return f;
    recentlyDead_.clear();
    unknownEnds_ = false;
  }
  if (copy.snapshot() != w_->snapshot()) return "a restored copy stepped alongside differs";
  return {};
}

// A truncated, corrupted or foreign buffer is refused; the world's own
// snapshot restores to itself; a mutated one resealed (its checksum
// recomputed, as a crafted buffer has it) is refused or gives a world that
// is its own snapshot and steps (checkRestore), which the model then
// follows.
inline std::string Program::restoreBad(bool& mustSucceed, bool& mustRefuse) {
  std::vector<std::byte> bytes = w_->snapshot();
  if (src_.below(3) == 0) {
    for (std::uint32_t m = 1 + src_.below(3); m > 0; --m) mutate(src_, bytes);
    seal(bytes);
    bool accepted = false;
    if (std::string f = checkRestore(*copy_, bytes, &accepted); !f.empty()) return f;
    if (!accepted) {
      mustRefuse = true;
      w_->restore(bytes);
      return {};
    }
    w_->restore(bytes);
    // The model takes the restored world as it is: its settings, bodies and
    // ids (a mutated generation may make an old id valid again), and end
    // events at the next step for bodies the model never saw.
    def_ = w_->def();
    alive_.clear();
    userData_.clear();
    for (std::uint32_t i = 0; i < w_->bodyCount(); ++i) {
      created(w_->bodyAt(i), w_->userData(w_->bodyAt(i)));
    }
    dead_.clear();
    recentlyDead_.clear();
    unknownEnds_ = true;
    return {};
  }
  switch (src_.below(4)) {
    case 0:
      bytes.resize(src_.below(static_cast<std::uint32_t>(bytes.size())));
      mustRefuse = true;
      break;
    case 1:
      bytes[src_.below(static_cast<std::uint32_t>(bytes.size()))] ^=
          static_cast<std::byte>(1 + src_.below(255));
      mustRefuse = true;
      break;
    case 2:  // a few bytes of noise
      bytes.resize(src_.below(64));
      for (std::byte& b : bytes) b = static_cast<std::byte>(src_.below(256));
      mustRefuse = true;
      break;
    default: {
      mustSucceed = true;
      w_->restore(bytes);
      if (w_->snapshot() != bytes) return "restoring the world's own snapshot changed it";
      return {};
    }
  }
  w_->restore(bytes);
  return {};
}

inline std::string Program::draw() {
  WorldDrawOptions options;
  options.contacts = src_.below(2) != 0;
  options.sensorOverlaps = src_.below(2) != 0;
  options.aabbs = src_.below(2) != 0;
  const bool whole = src_.below(3) != 0;
  if (!whole) {
    const Vec2 a = point(src_, def_.bounds), b = point(src_, def_.bounds);
    options.region =
        AABB{{std::min(a.x, b.x), std::min(a.y, b.y)}, {std::max(a.x, b.x), std::max(a.y, b.y)}};
  }
  CountingDraw out(*w_);
  w_->draw(out, options);
  if (out.bad != 0) return "draw showed an invalid id";
  if (whole && out.bodies != w_->bodyCount()) return "draw did not show every body once";
  if (whole && out.wallCalls != (def_.boundary == Boundary::Closed ? 1u : 0u)) {
    return "draw showed the walls a wrong number of times";
  }
  return {};
}

inline std::string Program::call(std::uint32_t op, bool& mustSucceed, bool& mustRefuse) {
  switch (op) {
    case 0:
    case 1: {
      if (alive_.size() >= maxBodies_) return {};
      const BodyDef d = bodyDef();
      const BodyId id = w_->createBody(d);
      if (!w_->isValid(id)) return "createBody returned an invalid id";
      created(id, d.userData);
      return {};
    }
    case 2:
      return destroyBody(mustSucceed);
    case 3: {  // one body, or a few at once (a stale id or one given twice: none moves)
      const std::uint32_t many = src_.below(4) == 0 ? src_.below(4) + 1 : 0;
      if (many == 0) w_->setPosition(anyId(), point(src_, def_.bounds));
      std::vector<BodyId> ids(many);
      std::vector<Vec2> to(many);
      for (std::uint32_t k = 0; k < many; ++k) ids[k] = anyId(), to[k] = point(src_, def_.bounds);
      if (many != 0) w_->setPositions(ids, to);
      return {};
    }
    case 4:
      w_->setVelocity(anyId(), {value(src_, 50.0f), value(src_, 50.0f)});
      return {};
    case 5:
      return query();
    case 6: {
      const auto types = allBroadPhaseTypes();
      const std::uint32_t t = src_.below(static_cast<std::uint32_t>(types.size()) + 1);
      w_->setBroadPhase(t == types.size() ? static_cast<BroadPhaseType>(99) : types[t]);
      return {};
    }
    case 7: {
      std::uint32_t n = src_.below(5);
      n = n == 4 ? 5000 : n == 0 ? 1 : n;
      if (alternate_ && n <= 3) n = n % 3 + 1;
      w_->setThreadCount(n);
      return {};
    }
    case 8:
      w_->setAwake(anyId(), src_.below(2) != 0);
      return {};
    case 9:
      return createBodies(mustRefuse);
    case 10:
    case 11:
      return setter();
    case 12:
      return push();
    case 13:
      preSolveOn_ = src_.below(2) != 0;
      w_->setPreSolve(preSolveOn_ ? PreSolveFn(&preSolve) : PreSolveFn());
      return {};
    case 14:
      return roundTrip();
    case 15:
      return restoreBad(mustSucceed, mustRefuse);
    case 16:
      return draw();
    case 17:
      mustSucceed = true;
      return optimizeLayout();
    default:
      return step(mustSucceed);
  }
}

// optimizeLayout renumbers the dense order only: every body keeps, by
// id, its state bit for bit, and bodyAt lists each live body once.
inline std::string Program::optimizeLayout() {
  // Position, velocity, angular velocity and angle as bits, then awake, enabled.
  auto kept = [&](BodyId id) {
    const Vec2 p = w_->position(id), v = w_->velocity(id);
    std::array<std::uint32_t, 7> k{};
    const float f[] = {p.x, p.y, v.x, v.y, w_->angularVelocity(id), w_->angle(id)};
    for (std::size_t i = 0; i < 6; ++i) k[i] = std::bit_cast<std::uint32_t>(f[i]);
    k[6] = (w_->isAwake(id) ? 1u : 0u) | (w_->isEnabled(id) ? 2u : 0u);
    return k;
  };
  std::vector<std::array<std::uint32_t, 7>> before;
  for (const BodyId id : alive_) before.push_back(kept(id));
  w_->optimizeLayout();
  for (std::size_t i = 0; i < alive_.size(); ++i) {
    if (kept(alive_[i]) != before[i]) return "optimizeLayout changed a body's state";
  }
  std::vector<BodyId> listed;
  for (std::uint32_t i = 0; i < w_->bodyCount(); ++i) listed.push_back(w_->bodyAt(i));
  auto byId = [](BodyId l, BodyId r) {
    return l.index != r.index ? l.index < r.index : l.generation < r.generation;
  };
  std::vector<BodyId> model = alive_;
  std::sort(listed.begin(), listed.end(), byId);
  std::sort(model.begin(), model.end(), byId);
  if (listed != model) return "after optimizeLayout bodyAt does not list each live body once";
  return {};
}

inline std::string Program::run(std::uint32_t calls, std::vector<std::byte>& finalState) {
  def_.logLevel = LogLevel::Off;
  const float size = src_.below(2) ? 100.0f : 1e4f;
  def_.bounds = {{0, 0}, {size, size}};
  def_.boundary = src_.below(3) == 0 ? Boundary::Open : Boundary::Closed;
  if (src_.below(2)) def_.gravity = {0, -static_cast<float>(src_.unit() * 50.0)};
  def_.enableSleep = src_.below(2) != 0;
  def_.timeToSleep = 0.05f;
  def_.threadCount = 1;
  if (src_.below(2) != 0) def_.hitEventThreshold = 0.0f;
  const auto types = allBroadPhaseTypes();
  def_.broadPhase = types[src_.below(static_cast<std::uint32_t>(types.size()))];
  try {
    w_ = std::make_unique<World>(def_);
    other_ = std::make_unique<World>(def_);  // ids from another world must be refused
    shadow_ = std::make_unique<World>(def_);
    copy_ = std::make_unique<World>(def_);
    copy_->setThreadCount(2);
    stepper_ = std::make_unique<World>(def_);  // checkSteps' copy, on 1 thread
  } catch (const Error& e) {
    return std::string("a valid WorldDef was refused: ") + e.what();
  }
  if (alternate_) w_->setThreadCount(3);
  foreign_ = other_->createBody(BodyDef::ball({size / 2, size / 2}, 1.0f));

  for (std::uint32_t i = 0; i < calls && !src_.exhausted(); ++i) {
    const State before = state(*w_);
    const std::uint32_t op = src_.below(20);
    bool refused = false, mustSucceed = false, mustRefuse = false;
    std::string failure;
    try {
      failure = call(op, mustSucceed, mustRefuse);
    } catch (const Error& e) {
      refused = true;
      if (mustSucceed)
        return "op " + std::to_string(op) + ": a valid call was refused: " + e.what();
      if (std::string(e.what()).empty()) return "op " + std::to_string(op) + ": no message";
    }
    if (failure.empty() && mustRefuse && !refused) failure = "a call every rule refuses succeeded";
    if (failure.empty() && refused && state(*w_) != before) {
      failure = "a refused call changed the world";
    }
    if (failure.empty()) failure = checkInvariants();
    if (failure.empty()) failure = checkSteps();
    if (!failure.empty()) return "op " + std::to_string(op) + ": " + failure;
  }
  finalState = w_->snapshot();
  return {};
}

}  // namespace world

/// Runs one program twice, on 1 and on 3 threads; returns what went wrong,
/// or an empty string.
inline std::string runWorld(Source& src, std::uint32_t calls, std::uint32_t maxBodies) {
  Source twin = src;
  std::vector<std::byte> one, three;
  if (std::string f = world::Program(src, maxBodies, false).run(calls, one); !f.empty()) return f;
  if (std::string f = world::Program(twin, maxBodies, true).run(calls, three); !f.empty()) {
    return "on 3 threads: " + f;
  }
  if (one != three) return "the program ends in other snapshot bytes on 1 and on 3 threads";
  return {};
}

}  // namespace quadbin::test::fuzz

// Program's checks, defined apart.
#include "world_fuzz_checks.hpp"  // IWYU pragma: keep
