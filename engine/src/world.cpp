#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <mutex>
#include <numbers>
#include <quadbin/broadphase/brute_force.hpp>
#include <quadbin/engine/world.hpp>
#include <quadbin/error.hpp>
#include <quadbin/narrowphase/contact.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <string>

#include "body_store.hpp"
#include "contact_solver.hpp"
#include "filtering.hpp"
#include "forces.hpp"
#include "islands.hpp"
#include "kinematic.hpp"
#include "log_internal.hpp"
#include "query_delta.hpp"
#include "sensor_set.hpp"
#include "snapshot.hpp"
#include "validate.hpp"
#include "world_draw.hpp"

namespace quadbin {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// World ids: unique per process, never 0 (a default BodyId's world).
std::atomic<std::uint32_t> nextWorldId{1};
std::uint32_t makeWorldId() noexcept {
  std::uint32_t id = 0;
  while (id == 0) id = nextWorldId.fetch_add(1, std::memory_order_relaxed);
  return id;
}

std::string describe(BodyId id) {
  return fmt::format("BodyId{{index = {}, generation = {}, world = {}}}", id.index, id.generation,
                     id.world);
}

using Clock = std::chrono::steady_clock;
double millisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

// One per world, so its padding costs nothing worth reordering the fields
// (grouped by concern) for.
struct World::Impl {                            // NOLINT(clang-analyzer-optin.performance.Padding)
  const std::uint32_t worldId = makeWorldId();  // carried by every BodyId made here
  WorldDef def;
  BodyStore bodies;                   // dense structure of arrays
  BodyFilters filters;                // beside bodies: collision filters, user data
  std::vector<std::uint32_t> slotOf;  // dense index -> slot

  // Slots give BodyIds their stable identity across swap-removal.
  std::vector<std::uint32_t> denseOf;  // slot -> dense index, kNone when free
  std::vector<std::uint32_t> generation;
  std::vector<std::uint32_t> freeSlots;

  // The systems this world made, by thread count: setThreadCount reuses
  // them. oneTBB (2021.8) never gives back an arena that has run work (about
  // 7 KiB each, measured), so a new system per call grew without bound;
  // kept here, the cost is bounded by the distinct counts used (<= 1025).
  // Declared before `tasks`, which the constructor takes from it.
  std::vector<std::pair<std::uint32_t, std::shared_ptr<TaskSystem>>> madeTasks;
  std::shared_ptr<TaskSystem> tasks;  // the step's parallel work runs here
  std::unique_ptr<BroadPhase> broad;
  ContactSolver solver;
  Islands islands;
  // Who uses the world: every member that can throw claims it first, with
  // one compare-and-swap on this word, and a call that finds it taken is
  // refused (no window between the check and the claim). kStepping or
  // kChanging: one caller alone (step; a member that changes the world);
  // otherwise the number of readers (throwing accessors, queries), any
  // number at once.
  static constexpr std::uint32_t kIdle = 0;
  static constexpr std::uint32_t kStepping = UINT32_MAX;
  static constexpr std::uint32_t kChanging = UINT32_MAX - 1;
  std::atomic<std::uint32_t> users{kIdle};

  // Step scratch, kept between steps so a step allocates nothing once warm.
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;

  // Touching pairs by (slot, generation), sorted; the previous step's set
  // turns into begin/end events.
  std::vector<TouchKey> touching, previousTouching, sleepingTouch, touchMerged;
  OrderedBuffers<std::uint64_t> touchBuffers;
  std::vector<std::uint64_t> touchKeys, touchScratch;
  std::vector<std::uint32_t> touchCounts;
  std::vector<ContactEvent> beginEvents, endEvents;
  // The step's events and touching set, made here and swapped in only once
  // nothing can fail any more.
  std::vector<ContactEvent> nextBegin, nextEnd;
  bool touchingChanged = false;
  // Sensors, hit events, pre-solve and the contacts of destroyed bodies
  // that end at the next step (sensor_set.hpp).
  SensorSet sensors;
  PreSolveFn preSolve;
  ContactGate gate;
  std::vector<TouchKey> pendingEnd;  // sorted
  std::vector<ContactHitEvent> hitEvents, nextHits;
  OrderedBuffers<ContactHitEvent> hitBuffers;
  float stepDt = 0.0f;
  [[nodiscard]] IdMap idMap() const noexcept { return {slotOf, generation, worldId}; }

  // What a step that throws puts back (the strong guarantee): the bodies
  // as they were, and an empty broad phase of the same type to take the
  // place of one whose update failed half way. Kept between steps.
  BodySnapshot undo;
  std::unique_ptr<BroadPhase> spareBroad;
  bool broadUpdating = false;  // set while the step's broad phase updates
  StepStats stats;

  std::atomic<bool> warnedRefusal{false};  // queries may refuse from many threads
  bool warnedOutside = false;
  bool warnedBruteForce = false;

  // Spatial queries run on the broad phase refreshed with the bodies' tight
  // boxes, once, by the first query after anything moved. Queries from many
  // threads at once are safe: the first refreshes under the lock, the rest
  // wait for it and then only read.
  std::mutex queryMutex;
  std::atomic<bool> queryFresh{false};
  // A ray tests every changed body: once a ray was cast since the last
  // refill, the delta refills at QueryDelta::rayLimit instead of limit.
  std::atomic<bool> raysAsked{false};
  std::vector<AABB> queryBoxes;
  // Bodies changed since the broad phase last took the tight boxes: queries
  // check them apart until there are too many (query_delta.hpp).
  QueryDelta queryDelta;

  // positions() and velocities(): the dense x, y pairs as Vec2, copied
  // from the bodies' columns by the first call after they change (the same
  // double-checked refresh as the query index).
  std::mutex viewMutex;
  std::atomic<bool> positionsFresh{false}, velocitiesFresh{false};
  std::vector<Vec2> positionView, velocityView;
  void markMoved() noexcept {
    positionsFresh.store(false, std::memory_order_release);
    velocitiesFresh.store(false, std::memory_order_release);
  }
  std::span<const Vec2> view(std::vector<Vec2>& out, std::atomic<bool>& fresh,
                             const std::vector<float>& xs, const std::vector<float>& ys);

  explicit Impl(const WorldDef& d)
      : def(d),
        tasks(d.taskSystem ? d.taskSystem : taskSystemFor(d.threadCount)),
        broad(freshBroadPhase(d.broadPhase)) {
    solver.filters = &filters;
  }

  [[nodiscard]] std::unique_ptr<BroadPhase> freshBroadPhase(BroadPhaseType type) const {
    auto made = makeBroadPhase(type);
    made->setBounds(def.bounds);
    made->setTaskSystem(tasks);
    return made;
  }

  // The system of `threadCount` threads this world made before, or a new one.
  std::shared_ptr<TaskSystem> taskSystemFor(std::uint32_t threadCount) {
    for (const auto& [count, system] : madeTasks) {
      if (count == threadCount) return system;
    }
    auto system = makeTaskSystem(threadCount);
    madeTasks.emplace_back(threadCount, system);
    return system;
  }

  // A claim on the world for one call, released when it ends.
  class Use {
   public:
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    ~Use() {
      if (as_ == kIdle) {
        w_.users.fetch_sub(1, std::memory_order_release);
      } else {
        w_.users.store(kIdle, std::memory_order_release);
      }
    }

   private:
    friend struct Impl;
    Use(Impl& w, std::uint32_t as) noexcept : w_(w), as_(as) {}
    Impl& w_;
    std::uint32_t as_;  // kStepping or kChanging alone; kIdle: one reader
  };
  // The world for `what` alone (as kStepping or kChanging), or Error.
  [[nodiscard]] Use claimAlone(std::uint32_t as, const char* what) {
    std::uint32_t seen = kIdle;
    if (!users.compare_exchange_strong(seen, as, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
      refuseBusy(what, seen);
    }
    return {*this, as};
  }
  [[nodiscard]] Use claimChange(const char* what) { return claimAlone(kChanging, what); }
  // The world for reading, beside other readers, or Error.
  [[nodiscard]] Use claimRead(const char* what) {
    std::uint32_t seen = users.load(std::memory_order_relaxed);
    do {
      if (seen >= kChanging) refuseBusy(what, seen);
    } while (!users.compare_exchange_weak(seen, seen + 1, std::memory_order_acquire,
                                          std::memory_order_relaxed));
    return {*this, kIdle};
  }
  [[noreturn]] void refuseBusy(const char* what, std::uint32_t seen) {
    std::string message;
    if (seen == kStepping) {
      message = fmt::format(
          "{}: called while World::step runs; nothing may be called on a world during its step "
          "(see docs/concurrency.md)",
          what);
    } else if (seen == kChanging) {
      message = fmt::format(
          "{}: called while another call changes this world (createBody, destroyBody, set...); "
          "a world must not be used from another thread while it changes (see "
          "docs/concurrency.md)",
          what);
    } else {
      message = fmt::format(
          "{}: called while {} other call(s) read this world (queries or accessors); nothing "
          "may change a world while other threads read it (see docs/concurrency.md)",
          what, seen);
    }
    logRefusal(message);
    throw Error(message);
  }

  void markChanged() noexcept {
    queryDelta.invalidate();
    queryFresh.store(false, std::memory_order_release);
    markMoved();
  }
  // Only the tight boxes of dense bodies [first, end) changed: queries see
  // them through the delta, refilling the structure only when it is full.
  void markBodiesChanged(std::uint32_t first, std::uint32_t end) noexcept {
    queryDelta.changed(first, end, bodies);
    if (deltaFull()) queryFresh.store(false, std::memory_order_release);
    markMoved();
  }
  [[nodiscard]] bool deltaFull() const noexcept {
    return queryDelta.needsRebuild() ||
           (raysAsked.load(std::memory_order_relaxed) &&
            queryDelta.needsRebuildForRays(static_cast<std::uint32_t>(bodies.size())));
  }
  void refreshQueryIndex() {
    if (queryFresh.load(std::memory_order_acquire)) return;
    const std::lock_guard lock(queryMutex);
    if (queryFresh.load(std::memory_order_relaxed)) return;
    if (deltaFull()) {
      queryDelta.invalidate();
      raysAsked.store(false, std::memory_order_relaxed);
      bodies.tightBoxes(queryBoxes, *tasks);
      try {
        broad->update(queryBoxes);
      } catch (...) {
        // It may be half updated: an empty one takes its place (queryFresh
        // stays false, so the next query fills it).
        if (spareBroad) broad = std::move(spareBroad);
        throw;
      }
      queryDelta.rebuilt(bodies);
    }
    queryFresh.store(true, std::memory_order_release);
  }
  [[nodiscard]] std::optional<RayHit> hit(const Ray& ray, std::uint32_t i) const;
  // The spatial queries (world.cpp's last section); filter null: every body.
  void queryBox(const AABB& box, std::vector<BodyId>& out, const QueryFilter* filter);
  void queryRadius(Vec2 center, float radius, std::vector<BodyId>& out, const QueryFilter* filter);
  void raycastAll(const Ray& ray, std::vector<RayHit>& out, const QueryFilter* filter);
  void nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out, const QueryFilter* filter);
  // The dense index of filter->ignore (kNone when there is none), or Error.
  std::uint32_t ignored(const QueryFilter* filter, const char* what) {
    if (filter == nullptr || filter->ignore.isNull()) return kNone;
    return denseIndex(filter->ignore, what);
  }
  // Whether a query with `filter` reports dense body i.
  [[nodiscard]] bool reports(const QueryFilter* filter, std::uint32_t skip,
                             std::uint32_t i) const noexcept {
    return filter == nullptr || (i != skip && filters.accepts(*filter, i));
  }

  void logRefusal(const std::string& message) {
    if (!warnedRefusal.exchange(true, std::memory_order_relaxed)) {
      logger()->warn("refused: {} (later refusals are logged at debug level)", message);
    } else {
      logger()->debug("refused: {}", message);
    }
  }
  [[noreturn]] void refuse(const std::string& message) {
    logRefusal(message);
    throw Error(message);
  }

  // The invariant the input limits (quadbin/engine/limits.hpp) promise:
  // checked after every step in debug builds.
  [[nodiscard]] bool allFinite() const noexcept {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (!std::isfinite(bodies.px[i]) || !std::isfinite(bodies.py[i]) ||
          !std::isfinite(bodies.vx[i]) || !std::isfinite(bodies.vy[i]) ||
          !std::isfinite(bodies.w[i])) {
        return false;
      }
    }
    return true;
  }
  // denseIndex for a member that takes balls only.
  std::uint32_t ballIndex(BodyId id, const char* what) {
    const std::uint32_t i = denseIndex(id, what);
    if (!bodies.isBall(i)) {
      refuse(fmt::format("{}: {} is a static box and cannot move", what, describe(id)));
    }
    return i;
  }
  // Refuses with the reason a validate:: check gave, if any.
  void check(const std::string& why) {
    if (!why.empty()) refuse(why);
  }

  [[nodiscard]] bool isValid(BodyId id) const noexcept {
    return id.world == worldId && id.index < denseOf.size() && denseOf[id.index] != kNone &&
           generation[id.index] == id.generation;
  }
  // The caller holds a claim (Use).
  std::uint32_t denseIndex(BodyId id, const char* what) {
    if (id.world != worldId) {
      refuse(fmt::format("{}: {} is not from this world (id {}){}", what, describe(id), worldId,
                         id.isNull() ? ": a null id" : ""));
    }
    if (!isValid(id)) {
      refuse(
          fmt::format("{}: {} is stale (its body was destroyed) or unknown", what, describe(id)));
    }
    return denseOf[id.index];
  }

  void requireInside(Vec2 p, float r, const char* what) { check(outside(p, r, what)); }
  // Why a ball does not fit inside a closed world, or "".
  [[nodiscard]] std::string outside(Vec2 p, float r, const char* what) const {
    if (def.boundary != Boundary::Closed) return {};
    const AABB& b = def.bounds;
    if (p.x - r < b.min.x || p.x + r > b.max.x || p.y - r < b.min.y || p.y + r > b.max.y) {
      return fmt::format(
          "{} = ({}, {}) with radius {} does not fit inside the closed world "
          "[{}, {}] x [{}, {}]",
          what, p.x, p.y, r, b.min.x, b.max.x, b.min.y, b.max.y);
    }
    return {};
  }
  // Why createBody refuses `d`, or "".
  [[nodiscard]] std::string refusal(const BodyDef& d) const {
    std::string why = validate::bodyDef(d);
    if (why.empty() && d.type == BodyType::Ball) {
      why = outside(d.position, d.radius, "BodyDef.position");
    }
    return why;
  }
  // Adds a body from a def that refusal() accepted (createBody; createBodies
  // writes its bodies by index): nothing throws but allocation.
  BodyId insert(const BodyDef& d);
  // Replaces the whole state with a restored snapshot's; nothing throws.
  void commit(snapshots::State&& s, WorldDef&& newDef,
              std::unique_ptr<BroadPhase> newBroad) noexcept;

  [[nodiscard]] BodyId bodyIdAt(std::uint32_t dense) const {
    const std::uint32_t slot = slotOf[dense];
    return {slot, generation[slot], worldId};
  }

  void step(float dt);
  void rollBack(const StepStats& before, bool moved) noexcept;
  bool someAsleep = false;            // set by step(): a sleeping ball may need waking
  std::uint32_t movingKinematic = 0;  // set by step(): kinematic bodies with a velocity or spin
  // The step's stages, in order (docs/architecture.md).
  void integrate(const SolverSettings& s);
  void findPairs();
  void checkCrowding(std::uint64_t limit);
  void narrowPhase(const SolverSettings& s);
  void solve(const SolverSettings& s);
  void finishPositions(const SolverSettings& s);
  void sleep(const SolverSettings& s);
  void countOutside();
  void updateEvents();
  void addPendingEnds();
  [[nodiscard]] SolverSettings settingsFor(float dt) const;
  /// Wakes the island of dense body i (a static box: every island, since
  /// moving or removing it may leave any of them unsupported).
  void wake(std::uint32_t i) noexcept {
    if (bodies.isBall(i)) {
      bodies.wakeIsland(i);
    } else {
      bodies.wakeAll();
    }
  }
};

World::World(const WorldDef& def) {
  if (const std::string why = validate::worldDef(def); !why.empty()) {
    logger()->warn("refused input: {}", why);
    throw Error(why);
  }
  impl_ = std::make_unique<Impl>(def);
  // Only now that the world exists: a refused def changes nothing.
  if (def.logLevel) setLogLevel(*def.logLevel);
}

World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

World::Impl& World::live(const char* what) const {
  if (!impl_) {
    const std::string message = fmt::format(
        "World::{}: this world was moved from; it holds no bodies and refuses every call but "
        "the noexcept accessors until a World is assigned to it",
        what);
    logger()->warn("refused call: {}", message);
    throw Error(message);
  }
  return *impl_;
}

BodyId World::createBody(const BodyDef& d) {
  Impl& w = live("createBody");
  const auto use = w.claimChange("createBody");
  w.check(w.refusal(d));
  return w.insert(d);
}

BodyId World::Impl::insert(const BodyDef& d) {
  const bool ball = d.type == BodyType::Ball;
  const float radius = kinematic::radiusOf(d);
  const float mass = ball ? validate::ballMass(d) : std::numeric_limits<float>::infinity();
  const Vec2 half = radius > 0.0f ? Vec2{radius, radius} : d.halfExtents;
  std::uint32_t slot = 0;
  if (!freeSlots.empty()) {
    slot = freeSlots.back();
    freeSlots.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(denseOf.size());
    denseOf.push_back(kNone);
    generation.push_back(0);
  }
  const auto dense = static_cast<std::uint32_t>(slotOf.size());
  bodies.push(d.type, d.position, kinematic::velocityOf(d), half, radius, mass, d.friction,
              d.rollingResistance);
  filters.push(d.filter, d.userData);
  bodies.setMaterial(dense, d.restitution.value_or(def.restitution), ball ? d.linearDamping : 0.0f,
                     ball ? d.angularDamping : 0.0f);
  slotOf.push_back(slot);
  denseOf[slot] = dense;
  bodies.setSensor(dense, d.isSensor);
  markBodiesChanged(dense, dense + 1);
  return {slot, generation[slot], worldId};
}

void World::destroyBody(BodyId id) {
  Impl& w = live("destroyBody");
  const auto use = w.claimChange("destroyBody");
  const std::uint32_t dense = w.denseIndex(id, "destroyBody");
  const auto last = static_cast<std::uint32_t>(w.slotOf.size() - 1);
  w.wake(dense);  // what rested on it must fall
  w.bodies.swapRemove(dense);
  w.filters.swapRemove(dense);
  w.solver.forget();  // the last body's index changed
  // TODO: rename the moved body in the persistent contacts instead, so that
  // a destroy keeps warm starting and colours.
  const std::uint32_t movedSlot = w.slotOf[last];
  w.slotOf[dense] = movedSlot;
  w.denseOf[movedSlot] = dense;
  w.slotOf.pop_back();
  w.denseOf[id.index] = kNone;
  ++w.generation[id.index];
  w.freeSlots.push_back(id.index);
  w.markBodiesChanged(dense, dense + 1);  // the last body took its place
  // A destroyed body's contacts and sensor overlaps end with events at the
  // next step (they name its old id).
  auto gone = [&](const TouchKey& k) { return k.slotA == id.index || k.slotB == id.index; };
  for (const TouchKey& k : w.previousTouching) {
    if (gone(k))
      w.pendingEnd.insert(std::upper_bound(w.pendingEnd.begin(), w.pendingEnd.end(), k), k);
  }
  std::erase_if(w.previousTouching, gone);
  w.sensors.forgetBody(id.index);
}

bool World::isValid(BodyId id) const noexcept { return impl_ && impl_->isValid(id); }
std::uint32_t World::id() const noexcept { return impl_ ? impl_->worldId : 0; }

BodyType World::type(BodyId id) const {
  Impl& w = live("type");
  const auto use = w.claimRead("type");
  return w.bodies.type[w.denseIndex(id, "type")];
}
Vec2 World::position(BodyId id) const {
  Impl& w = live("position");
  const auto use = w.claimRead("position");
  const std::uint32_t i = w.denseIndex(id, "position");
  return {w.bodies.px[i], w.bodies.py[i]};
}
Vec2 World::velocity(BodyId id) const {
  Impl& w = live("velocity");
  const auto use = w.claimRead("velocity");
  const std::uint32_t i = w.denseIndex(id, "velocity");
  return {w.bodies.vx[i], w.bodies.vy[i]};
}
float World::radius(BodyId id) const {
  Impl& w = live("radius");
  const auto use = w.claimRead("radius");
  return w.bodies.radius[w.denseIndex(id, "radius")];
}
float World::mass(BodyId id) const {
  Impl& w = live("mass");
  const auto use = w.claimRead("mass");
  return w.bodies.mass[w.denseIndex(id, "mass")];
}
AABB World::bounds(BodyId id) const {
  Impl& w = live("bounds");
  const auto use = w.claimRead("bounds");
  return w.bodies.tightBox(w.denseIndex(id, "bounds"));
}

void World::setPosition(BodyId id, Vec2 p) {
  Impl& w = live("setPosition");
  const auto use = w.claimChange("setPosition");
  const std::uint32_t i = w.denseIndex(id, "setPosition");
  w.check(validate::position(p, w.bodies.radius[i], "setPosition position"));
  if (w.bodies.type[i] == BodyType::Ball) {
    w.requireInside(p, w.bodies.radius[i], "setPosition position");
  }
  w.wake(i);
  w.bodies.px[i] = p.x;
  w.bodies.py[i] = p.y;
  w.markBodiesChanged(i, i + 1);
}

void World::setVelocity(BodyId id, Vec2 v) {
  Impl& w = live("setVelocity");
  const auto use = w.claimChange("setVelocity");
  const std::uint32_t i = w.denseIndex(id, "setVelocity");
  w.check(validate::velocity(v, "setVelocity velocity"));
  if (w.bodies.type[i] == BodyType::StaticBox) {
    w.refuse(fmt::format("setVelocity: {} is a static box and cannot move", describe(id)));
  }
  // A kinematic body wakes the balls in its way when it reaches them.
  if (w.bodies.isBall(i)) w.wake(i);
  w.bodies.vx[i] = v.x;
  w.bodies.vy[i] = v.y;
  w.markMoved();
}

float World::angularVelocity(BodyId id) const {
  Impl& w = live("angularVelocity");
  const auto use = w.claimRead("angularVelocity");
  return w.bodies.w[w.denseIndex(id, "angularVelocity")];
}

void World::setAngularVelocity(BodyId id, float angularVelocity) {
  Impl& w = live("setAngularVelocity");
  const auto use = w.claimChange("setAngularVelocity");
  const std::uint32_t i = w.denseIndex(id, "setAngularVelocity");
  w.check(validate::angularVelocity(angularVelocity, w.bodies.radius[i],
                                    "setAngularVelocity angularVelocity"));
  if (w.bodies.type[i] == BodyType::StaticBox) {
    w.refuse(fmt::format("setAngularVelocity: {} is a static box and cannot turn", describe(id)));
  }
  if (!w.bodies.isCircle(i)) {
    w.refuse(
        fmt::format("setAngularVelocity: {} is a kinematic box and cannot turn; only balls "
                    "and kinematic balls spin",
                    describe(id)));
  }
  w.wake(i);
  w.bodies.w[i] = angularVelocity;
}

float World::angle(BodyId id) const {
  Impl& w = live("angle");
  const auto use = w.claimRead("angle");
  return w.bodies.angle[w.denseIndex(id, "angle")];
}

float World::friction(BodyId id) const {
  Impl& w = live("friction");
  const auto use = w.claimRead("friction");
  return w.bodies.friction[w.denseIndex(id, "friction")];
}

void World::setFriction(BodyId id, float friction) {
  Impl& w = live("setFriction");
  const auto use = w.claimChange("setFriction");
  const std::uint32_t i = w.denseIndex(id, "setFriction");
  w.check(validate::friction(friction, "setFriction friction"));
  w.bodies.setFriction(i, friction);
}

std::uint64_t World::userData(BodyId id) const {
  Impl& w = live("userData");
  const auto use = w.claimRead("userData");
  return w.filters.userData[w.denseIndex(id, "userData")];
}

void World::setUserData(BodyId id, std::uint64_t value) {
  Impl& w = live("setUserData");
  const auto use = w.claimChange("setUserData");
  w.filters.userData[w.denseIndex(id, "setUserData")] = value;
}

Filter World::filter(BodyId id) const {
  Impl& w = live("filter");
  const auto use = w.claimRead("filter");
  return w.filters.filter[w.denseIndex(id, "filter")];
}

void World::setFilter(BodyId id, const Filter& filter) {
  Impl& w = live("setFilter");
  const auto use = w.claimChange("setFilter");
  const std::uint32_t i = w.denseIndex(id, "setFilter");
  if (w.filters.filter[i] == filter) return;
  w.wake(i);  // what rested on it may now fall through
  w.filters.setFilter(i, filter);
}

bool World::isAwake(BodyId id) const {
  Impl& w = live("isAwake");
  const auto use = w.claimRead("isAwake");
  return w.bodies.awake[w.denseIndex(id, "isAwake")] != 0;
}

void World::setAwake(BodyId id, bool awake) {
  Impl& w = live("setAwake");
  const auto use = w.claimChange("setAwake");
  const std::uint32_t i = w.denseIndex(id, "setAwake");
  if (!w.bodies.isBall(i)) return;
  w.markMoved();  // falling asleep zeroes the velocity
  if (awake) {
    w.bodies.wakeIsland(i);
  } else if (w.bodies.awake[i] != 0) {
    w.bodies.sleepIsland(&i, 1);
  }
}

// ---- materials, damping and forces (forces.cpp) -----------------------------

float World::restitution(BodyId id) const {
  Impl& w = live("restitution");
  const auto use = w.claimRead("restitution");
  return w.bodies.restitution[w.denseIndex(id, "restitution")];
}
float World::linearDamping(BodyId id) const {
  Impl& w = live("linearDamping");
  const auto use = w.claimRead("linearDamping");
  return w.bodies.linearDamping[w.denseIndex(id, "linearDamping")];
}
float World::angularDamping(BodyId id) const {
  Impl& w = live("angularDamping");
  const auto use = w.claimRead("angularDamping");
  return w.bodies.angularDamping[w.denseIndex(id, "angularDamping")];
}
Vec2 World::force(BodyId id) const {
  Impl& w = live("force");
  const auto use = w.claimRead("force");
  const std::uint32_t i = w.denseIndex(id, "force");
  return {w.bodies.fx[i], w.bodies.fy[i]};
}

void World::setRestitution(BodyId id, float restitution) {
  Impl& w = live("setRestitution");
  const auto use = w.claimChange("setRestitution");
  const std::uint32_t i = w.denseIndex(id, "setRestitution");
  w.check(validate::restitution(restitution, "setRestitution restitution"));
  BodyStore& b = w.bodies;
  b.setMaterial(i, restitution, b.linearDamping[i], b.angularDamping[i]);
}

void World::setLinearDamping(BodyId id, float linearDamping) {
  Impl& w = live("setLinearDamping");
  const auto use = w.claimChange("setLinearDamping");
  const std::uint32_t i = w.ballIndex(id, "setLinearDamping");
  w.check(validate::damping(linearDamping, "setLinearDamping linearDamping"));
  BodyStore& b = w.bodies;
  b.setMaterial(i, b.restitution[i], linearDamping, b.angularDamping[i]);
}

void World::setAngularDamping(BodyId id, float angularDamping) {
  Impl& w = live("setAngularDamping");
  const auto use = w.claimChange("setAngularDamping");
  const std::uint32_t i = w.ballIndex(id, "setAngularDamping");
  w.check(validate::damping(angularDamping, "setAngularDamping angularDamping"));
  BodyStore& b = w.bodies;
  b.setMaterial(i, b.restitution[i], b.linearDamping[i], angularDamping);
}

void World::applyForce(BodyId id, Vec2 force) {
  Impl& w = live("applyForce");
  const auto use = w.claimChange("applyForce");
  const std::uint32_t i = w.ballIndex(id, "applyForce");
  w.check(forces::forceRefusal(w.bodies, i, force));
  w.wake(i);
  w.bodies.fx[i] += force.x;
  w.bodies.fy[i] += force.y;
  w.bodies.forcesPending = true;
}

void World::applyLinearImpulse(BodyId id, Vec2 impulse) {
  Impl& w = live("applyLinearImpulse");
  const auto use = w.claimChange("applyLinearImpulse");
  const std::uint32_t i = w.ballIndex(id, "applyLinearImpulse");
  w.check(validate::velocity(impulse, "applyLinearImpulse impulse"));
  const Vec2 v = forces::velocityAfterImpulse(w.bodies, i, impulse);
  w.check(validate::velocity(v, "applyLinearImpulse: the velocity after the impulse"));
  w.wake(i);
  w.bodies.vx[i] = v.x;
  w.bodies.vy[i] = v.y;
  w.markMoved();
}

void World::applyAngularImpulse(BodyId id, float impulse) {
  Impl& w = live("applyAngularImpulse");
  const auto use = w.claimChange("applyAngularImpulse");
  const std::uint32_t i = w.ballIndex(id, "applyAngularImpulse");
  if (!std::isfinite(impulse)) {
    w.refuse(fmt::format("applyAngularImpulse impulse = {} is not finite", impulse));
  }
  const float spin = forces::spinAfterImpulse(w.bodies, i, impulse);
  w.check(validate::angularVelocity(spin, w.bodies.radius[i],
                                    "applyAngularImpulse: the angular velocity after the impulse"));
  w.wake(i);
  w.bodies.w[i] = spin;
}

void World::explode(Vec2 center, float radius, float impulse) {
  Impl& w = live("explode");
  const auto use = w.claimChange("explode");
  w.check(validate::queryPoint(center, "explode center"));
  w.check(validate::queryRadius(radius, "explode radius"));
  if (!(radius > 0.0f)) w.refuse(fmt::format("explode radius = {} must be > 0", radius));
  if (!std::isfinite(impulse) || impulse < 0.0f) {
    w.refuse(fmt::format("explode impulse = {} must be finite and >= 0", impulse));
  }
  // The query path: the broad phase on the bodies' tight boxes.
  w.refreshQueryIndex();
  std::vector<std::uint32_t> found;
  w.broad->query(AABB::fromCircle(center, radius), found);
  w.queryDelta.mergeBox(AABB::fromCircle(center, radius),
                        static_cast<std::uint32_t>(w.bodies.size()), found);
  std::vector<std::pair<std::uint32_t, Vec2>> hit;
  w.check(forces::explosionVelocities(w.bodies, found, center, radius, impulse, hit));
  for (const auto& [i, v] : hit) {
    w.wake(i);
    w.bodies.vx[i] = v.x;
    w.bodies.vy[i] = v.y;
  }
  if (!hit.empty()) w.markMoved();
}

void World::step(float dt) {
  Impl& w = live("step");
  const auto use = w.claimAlone(Impl::kStepping, "step");
  w.check(validate::dt(dt));
  w.step(dt);
  assert(w.allFinite() && "a step left a position or velocity that is not finite");
}

bool World::isStepping() const noexcept {
  return impl_ && impl_->users.load(std::memory_order_acquire) == Impl::kStepping;
}
TaskSystem& World::taskSystem() const noexcept {
  return impl_ ? *impl_->tasks : serialTaskSystem();
}

SolverSettings World::Impl::settingsFor(float dt) const {
  SolverSettings s;
  s.dt = dt;
  s.restitution = def.restitution;
  s.restitutionThreshold = def.restitutionThreshold.value_or(2.0f * length(def.gravity) * dt);
  s.closedWorld = def.boundary == Boundary::Closed;
  s.bounds = def.bounds;
  s.velocityIterations = def.velocityIterations;
  s.impactPasses = def.solverPasses;
  s.positionPasses = def.positionPasses;
  s.friction = bodies.frictionBalls > 0;
  s.wallFriction = def.wallFriction;
  return s;
}

// The step, as the pipeline docs/architecture.md draws: each stage a
// function with its own timer in StepStats.
void World::Impl::step(float dt) {
  const auto start = Clock::now();
  const auto n = static_cast<std::uint32_t>(slotOf.size());
  if (!warnedBruteForce && def.broadPhase == BroadPhaseType::BruteForce && n > 5000) {
    logger()->warn(
        "BruteForce broad phase with {} bodies costs n^2/2 box tests per step; "
        "pick a spatial structure in WorldDef.broadPhase",
        n);
    warnedBruteForce = true;
  }
  std::uint32_t awake = 0;
  std::uint32_t balls = 0;
  movingKinematic = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    awake += bodies.awake[i];
    balls += bodies.isBall(i) ? 1u : 0u;
    movingKinematic += kinematic::isMoving(bodies, i) ? 1u : 0u;
  }
  someAsleep = awake < balls;
  const bool active = awake > 0 || movingKinematic > 0;  // something moves
  const StepStats before = stats;
  const SolverSettings settings = settingsFor(dt);
  stepDt = dt;
  if (active) {
    // Strong guarantee: everything the step may change is saved (or made
    // aside and swapped in at the end), before it changes anything; these
    // may allocate, but only while the world grows.
    undo.save(bodies, *tasks);
    if (!spareBroad) spareBroad = freshBroadPhase(def.broadPhase);
  }
  try {
    stats = {};
    stats.awakeBodies = awake;
    if (active) {  // a world that sleeps whole costs (almost) nothing
      markChanged();
      auto timed = [](double& ms, auto&& stage) {
        const auto t0 = Clock::now();
        stage();
        ms = millisSince(t0);
      };
      timed(stats.integrateMs, [&] { integrate(settings); });
      timed(stats.broadPhaseMs, [&] { findPairs(); });
      timed(stats.narrowPhaseMs, [&] { narrowPhase(settings); });
      timed(stats.solverMs, [&] { solve(settings); });
      timed(stats.positionMs, [&] { finishPositions(settings); });
      if (def.enableSleep) timed(stats.sleepMs, [&] { sleep(settings); });
      countOutside();
    }
    const auto t0 = Clock::now();
    updateEvents();
    stats.eventsMs = millisSince(t0);
  } catch (...) {
    rollBack(before, active);
    throw;
  }
  // Nothing fails from here on: the step's events become the world's.
  beginEvents.swap(nextBegin);
  endEvents.swap(nextEnd);
  if (touchingChanged) previousTouching.swap(touching);
  hitEvents.swap(nextHits);
  sensors.commit();
  pendingEnd.clear();
  forces::clearForces(bodies);  // used by this step (or by none: the ball slept)
  stats.totalMs = millisSince(start);
}

// A step threw (out of memory, the task system, a refused state): the world
// as before the call. The bodies come back bit for bit; the solver forgets
// its persistent contacts (as after destroyBody: the next step starts them
// cold) and a broad phase whose update failed is replaced by an empty one,
// refilled by the next step or query.
// TODO: keep the solver's persistent contacts too, so that the steps after
// a failed one equal those of a world whose step never failed (needs a
// save/restore in ContactSolver).
void World::Impl::rollBack(const StepStats& before, bool moved) noexcept {
  stats = before;
  if (!moved) return;  // only the events were being made, aside
  assert(undo.px.size() == bodies.size());
  undo.restore(bodies);
  solver.forget();
  if (broadUpdating && spareBroad) broad = std::move(spareBroad);
  broadUpdating = false;
  markChanged();
}

// Gravity first (symplectic Euler), then each ball's box grows by the
// distance it can travel this step, in every direction: a ball that
// bounces keeps its speed and so stays inside its box.
void World::Impl::integrate(const SolverSettings& s) {
  forces::integrateVelocities(bodies, def.gravity, s.dt, *tasks);
  // Static boxes are grown by what a ball may outrun its own box by before
  // it is looked at again, so that every box such a ball can reach has a
  // contact (and the guard against entering it).
  bodies.sweptBoxes(s.dt, ContactSolver::kEscapeTolerance * bodies.maxRadius, boxes, *tasks);
}

void World::Impl::findPairs() {
  const std::uint64_t limit = limits::maxPairs(boxes.size());
  checkCrowding(limit);
  broadUpdating = true;  // a failure from here on may leave it half updated
  broad->update(boxes);
  pairs.clear();
  broad->findPairs(pairs);
  broadUpdating = false;
  // TODO: hand the limit to BroadPhase::findPairs, so that a crowd
  // checkCrowding misses stops at the limit instead of after all its pairs.
  if (pairs.size() > limit) {
    refuse(fmt::format(
        "step: the broad phase found {} candidate pairs among {} bodies, more than the limit of "
        "{} (limits::maxPairs: {} per body, at least {}; docs/limits.md); the step was not "
        "taken and the world is unchanged: spread the bodies out or remove some",
        pairs.size(), boxes.size(), limit, limits::kMaxPairsPerBody, limits::kMinPairLimit));
  }
  stats.candidatePairs = static_cast<std::uint32_t>(pairs.size());
  filters.filterPairs(pairs, *tasks);  // rejected pairs never reach the narrow phase
}

// Refuses, before the broad phase runs, a step whose swept boxes already
// prove it would pass the pair limit: k boxes that all contain one point
// overlap pairwise, k (k - 1) / 2 pairs. A few sample points (centres of
// bodies spread over the dense order) are counted in one pass over the
// boxes: a crowd piled on one spot (a million balls at one point) is
// refused in O(n), not after enumerating its n^2 / 2 pairs.
void World::Impl::checkCrowding(std::uint64_t limit) {
  const std::uint64_t n = boxes.size();
  if (n * (n - 1) / 2 <= limit) return;  // too few bodies to pass it
  constexpr std::uint32_t kSamples = 4;
  std::array<Vec2, kSamples> at{};
  for (std::uint32_t k = 0; k < kSamples; ++k) {
    at[k] = boxes[(2 * std::uint64_t{k} + 1) * n / (2 * std::uint64_t{kSamples})].center();
  }
  std::array<std::atomic<std::uint64_t>, kSamples> inside{};
  tasks->parallelFor(
      static_cast<std::uint32_t>(n), 16384, [&](std::uint32_t begin, std::uint32_t end) {
        std::array<std::uint32_t, kSamples> count{};
        for (std::uint32_t i = begin; i < end; ++i) {
          const AABB& b = boxes[i];
          for (std::uint32_t k = 0; k < kSamples; ++k) {
            count[k] +=
                b.min.x < at[k].x && at[k].x < b.max.x && b.min.y < at[k].y && at[k].y < b.max.y
                    ? 1u
                    : 0u;
          }
        }
        for (std::uint32_t k = 0; k < kSamples; ++k) {
          if (count[k] != 0) inside[k].fetch_add(count[k], std::memory_order_relaxed);
        }
      });
  for (std::uint32_t k = 0; k < kSamples; ++k) {
    const std::uint64_t c = inside[k].load(std::memory_order_relaxed);
    if (c * (c - (c > 0 ? 1 : 0)) / 2 <= limit) continue;
    refuse(fmt::format(
        "step: {} of the {} bodies' swept boxes contain the point ({}, {}), so the broad phase "
        "would find at least {} candidate pairs, more than the limit of {} (limits::maxPairs: {} "
        "per body, at least {}; docs/limits.md); the step was not taken and the world is "
        "unchanged: spread the bodies out or remove some",
        c, n, at[k].x, at[k].y, c * (c - 1) / 2, limit, limits::kMaxPairsPerBody,
        limits::kMinPairLimit));
  }
}

void World::Impl::narrowPhase(const SolverSettings& s) {
  if (someAsleep) {
    stats.awakeBodies += solver.wakeTouched(bodies, s.dt, pairs, *tasks);
    if (movingKinematic > 0) stats.awakeBodies += kinematic::wakeTouched(bodies, s.dt, pairs);
  }
  gate = {&bodies, idMap(), &preSolve};
  solver.filter = gate.filter();
  solver.buildContacts(bodies, s, pairs, *tasks);
  stats.colours = solver.colourCount();
}

void World::Impl::solve(const SolverSettings& s) {
  const SolverResult result = solver.solve(bodies, s, *broad, boxes, *tasks);
  stats.impulses = result.impulses;
  if (result.unresolvedEscapes > 0 && !solver.warnedEscapes) {
    logger()->warn(
        "{} balls gained speed in collisions faster than the step could follow; "
        "overlaps are corrected next step. Consider a smaller dt.",
        result.unresolvedEscapes);
    solver.warnedEscapes = true;
  }
}

void World::Impl::finishPositions(const SolverSettings& s) {
  solver.finishPositions(bodies, s, *tasks);
  stats.impulses += solver.pushedContacts();
}

void World::Impl::sleep(const SolverSettings& s) {
  if (movingKinematic > 0) kinematic::keepAwake(bodies, solver.contacts());
  islands.update(bodies, solver.contacts(), s.dt, def.sleepThreshold, def.timeToSleep, *tasks);
}

// Bodies outside the bounds (open worlds only: closed worlds clamp balls).
// Counted per range (one atomic add each); the first one is logged once.
void World::Impl::countOutside() {
  std::atomic<std::uint32_t> outside{0};
  tasks->parallelFor(static_cast<std::uint32_t>(bodies.size()), 4096,
                     [&](std::uint32_t begin, std::uint32_t end) {
                       std::uint32_t count = 0;
                       for (std::uint32_t i = begin; i < end; ++i) {
                         count += contains(def.bounds, Vec2{bodies.px[i], bodies.py[i]}) ? 0u : 1u;
                       }
                       if (count != 0) outside.fetch_add(count, std::memory_order_relaxed);
                     });
  stats.bodiesOutside = outside.load(std::memory_order_relaxed);
  if (stats.bodiesOutside > 0 && !warnedOutside) {
    std::uint32_t i = 0;
    while (contains(def.bounds, Vec2{bodies.px[i], bodies.py[i]})) ++i;
    logger()->warn(
        "body {} left the world bounds at ({}, {}); it is still simulated "
        "(reported once per world)",
        slotOf[i], bodies.px[i], bodies.py[i]);
    warnedOutside = true;
  }
}

// Into nextBegin, nextEnd and touching: step() swaps them in at the end.
void World::Impl::updateEvents() {
  nextBegin.clear();
  nextEnd.clear();
  nextHits.clear();
  touchingChanged = false;
  if (stats.awakeBodies == 0) {  // nothing moved: the same pairs touch
    stats.contacts = static_cast<std::uint32_t>(previousTouching.size());
    addPendingEnds();
    sensors.updateAsleep(worldId);
    return;
  }
  // Touching pairs as keys slotA << bits | slotB (slotA < slotB), gathered
  // per chunk of contacts, radix-sorted: a slot pair is unique, so this is
  // the TouchKey order.
  TaskSystem& ts = *tasks;
  const std::span<const ContactSolver::Contact> contacts = solver.contacts();
  const auto count = static_cast<std::uint32_t>(contacts.size());
  const auto slotBits = static_cast<unsigned>(std::bit_width(denseOf.size()));
  constexpr std::uint32_t kChunk = 16384;
  touchBuffers.reset(chunkCount(count, kChunk));
  forEachChunk(ts, count, kChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const ContactSolver::Contact& con = contacts[k];
      if (!con.touched || con.b >= ContactSolver::kWallBase) continue;
      std::uint32_t sa = slotOf[con.a], sb = slotOf[con.b];
      if (sb < sa) std::swap(sa, sb);
      touchBuffers[c].push_back((std::uint64_t{sa} << slotBits) | sb);
    }
  });
  touchKeys.clear();
  touchBuffers.appendTo(ts, touchKeys);
  parallelRadixSort(ts, touchKeys, touchScratch, touchCounts, 2 * slotBits);
  touching.resize(touchKeys.size());
  const std::uint64_t lowMask = (std::uint64_t{1} << slotBits) - 1;
  ts.parallelFor(static_cast<std::uint32_t>(touchKeys.size()), 4096,
                 [&](std::uint32_t begin, std::uint32_t end) {
                   for (std::uint32_t k = begin; k < end; ++k) {
                     const auto sa = static_cast<std::uint32_t>(touchKeys[k] >> slotBits);
                     const auto sb = static_cast<std::uint32_t>(touchKeys[k] & lowMask);
                     touching[k] = {sa, generation[sa], sb, generation[sb]};
                   }
                 });
  // Pairs that touched when they fell asleep still touch: no end event.
  auto asleep = [&](std::uint32_t slot) {
    const std::uint32_t i = denseOf[slot];
    return bodies.awake[i] == 0 && bodies.isBall(i);
  };
  sleepingTouch.clear();
  for (const TouchKey& k : previousTouching) {
    if (asleep(k.slotA) && asleep(k.slotB)) sleepingTouch.push_back(k);
  }
  if (!sleepingTouch.empty()) {
    // (A pair that fell asleep in this step is in both lists.)
    touchMerged.clear();
    std::set_union(touching.begin(), touching.end(), sleepingTouch.begin(), sleepingTouch.end(),
                   std::back_inserter(touchMerged));
    touching.swap(touchMerged);
  }
  stats.contacts = static_cast<std::uint32_t>(touching.size());

  auto toEvent = [&](const TouchKey& k) {
    return ContactEvent{{k.slotA, k.genA, worldId}, {k.slotB, k.genB, worldId}};
  };
  // Merge walk over the two sorted sets.
  std::size_t i = 0, j = 0;
  while (i < touching.size() || j < previousTouching.size()) {
    if (j == previousTouching.size() ||
        (i < touching.size() && touching[i] < previousTouching[j])) {
      nextBegin.push_back(toEvent(touching[i++]));
    } else if (i == touching.size() || previousTouching[j] < touching[i]) {
      nextEnd.push_back(toEvent(previousTouching[j++]));
    } else {
      ++i;
      ++j;
    }
  }
  touchingChanged = true;
  addPendingEnds();
  // Begin events' geometry and hit events, from the velocities the step
  // started with (saved for the strong guarantee, before gravity).
  const EventGeometry geometry{bodies,    undo.vx, undo.vy, undo.awake, def.gravity * stepDt,
                               def.bounds};
  for (ContactEvent& e : nextBegin) geometry.fill(e, denseOf[e.a.index], denseOf[e.b.index]);
  geometry.hits(solver.contacts(), idMap(), def.hitEventThreshold, hitBuffers, nextHits, *tasks);
  sensors.update(bodies, undo.px, undo.py, pairs, idMap(), *tasks);
}

// The contacts of bodies destroyed since the last step end now, in order.
void World::Impl::addPendingEnds() {
  if (pendingEnd.empty()) return;
  for (const TouchKey& k : pendingEnd) {
    nextEnd.push_back(ContactEvent{{k.slotA, k.genA, worldId}, {k.slotB, k.genB, worldId}});
  }
  std::sort(nextEnd.begin(), nextEnd.end(), [](const ContactEvent& l, const ContactEvent& r) {
    return TouchKey{l.a.index, l.a.generation, l.b.index, l.b.generation} <
           TouchKey{r.a.index, r.a.generation, r.b.index, r.b.generation};
  });
}

// The noexcept accessors answer for a moved-from world as for an empty one.
std::span<const ContactEvent> World::contactBeginEvents() const noexcept {
  if (!impl_) return {};
  return impl_->beginEvents;
}
std::span<const ContactEvent> World::contactEndEvents() const noexcept {
  if (!impl_) return {};
  return impl_->endEvents;
}
std::span<const ContactHitEvent> World::contactHitEvents() const noexcept {
  if (!impl_) return {};
  return impl_->hitEvents;
}
std::span<const SensorEvent> World::sensorBeginEvents() const noexcept {
  if (!impl_) return {};
  return impl_->sensors.beginEvents();
}
std::span<const SensorEvent> World::sensorEndEvents() const noexcept {
  if (!impl_) return {};
  return impl_->sensors.endEvents();
}
bool World::isSensor(BodyId id) const {
  Impl& w = live("isSensor");
  const auto use = w.claimRead("isSensor");
  return w.bodies.sensor[w.denseIndex(id, "isSensor")] != 0;
}
void World::setPreSolve(PreSolveFn fn) {
  Impl& w = live("setPreSolve");
  const auto use = w.claimChange("setPreSolve");
  w.preSolve = std::move(fn);
}
const StepStats& World::stats() const noexcept {
  static const StepStats kNoStep;
  return impl_ ? impl_->stats : kNoStep;
}
std::uint32_t World::bodyCount() const noexcept {
  return impl_ ? static_cast<std::uint32_t>(impl_->slotOf.size()) : 0;
}
BodyId World::bodyAt(std::uint32_t i) const {
  Impl& w = live("bodyAt");
  const auto use = w.claimRead("bodyAt");
  if (i >= w.slotOf.size()) {
    w.refuse(fmt::format("bodyAt: index {} >= bodyCount() = {}", i, w.slotOf.size()));
  }
  return w.bodyIdAt(i);
}
const WorldDef& World::def() const noexcept {
  static const WorldDef kDefault;
  return impl_ ? impl_->def : kDefault;
}
const BroadPhase& World::broadPhase() const noexcept {
  static const BruteForce kEmpty;  // holds nothing: every query finds nothing
  if (!impl_) return kEmpty;
  return *impl_->broad;
}

void World::setBroadPhase(BroadPhaseType type) {
  Impl& w = live("setBroadPhase");
  const auto use = w.claimChange("setBroadPhase");
  w.check(validate::broadPhaseType(type, "setBroadPhase type"));
  auto broad = w.freshBroadPhase(type);
  w.spareBroad = nullptr;  // of the old type: the next step makes one
  w.broad = std::move(broad);
  w.def.broadPhase = type;
  w.warnedBruteForce = false;
  w.markChanged();  // the query index is the broad phase: empty now
}

void World::setThreadCount(std::uint32_t threadCount) {
  Impl& w = live("setThreadCount");
  const auto use = w.claimChange("setThreadCount");
  w.check(validate::threadCount(threadCount, "setThreadCount threadCount"));
  w.tasks = w.taskSystemFor(threadCount);  // the game's own system, if any, is let go
  w.broad->setTaskSystem(w.tasks);
  if (w.spareBroad) w.spareBroad->setTaskSystem(w.tasks);
  w.def.threadCount = threadCount;
  w.def.taskSystem = nullptr;
}

double World::kineticEnergy() const noexcept {
  if (!impl_) return 0.0;
  const BodyStore& b = impl_->bodies;
  double e = 0.0;
  for (std::size_t i = 0; i < b.px.size(); ++i) {
    if (b.type[i] != BodyType::Ball) continue;
    const double vx = b.vx[i], vy = b.vy[i], r = b.radius[i], w = b.w[i];
    // A solid disc: I = m r^2 / 2.
    e += 0.5 * static_cast<double>(b.mass[i]) * (vx * vx + vy * vy + 0.5 * r * r * w * w);
  }
  return e;
}

Vec2 World::momentum() const noexcept {
  if (!impl_) return {};
  const BodyStore& b = impl_->bodies;
  double mx = 0.0, my = 0.0;
  for (std::size_t i = 0; i < b.px.size(); ++i) {
    if (b.type[i] != BodyType::Ball) continue;
    mx += static_cast<double>(b.mass[i]) * b.vx[i];
    my += static_cast<double>(b.mass[i]) * b.vy[i];
  }
  return {static_cast<float>(mx), static_cast<float>(my)};
}

// ---- bulk arrays ------------------------------------------------------------

std::vector<BodyId> World::createBodies(std::span<const BodyDef> defs) {
  Impl& w = live("createBodies");
  const auto use = w.claimChange("createBodies");
  const std::size_t count = defs.size();
  if (count >= std::size_t{kNone} - w.denseOf.size()) {
    w.refuse(fmt::format("createBodies: {} bodies would overflow the 32-bit body slots", count));
  }
  // Every def checked first, in parallel; the lowest refused index wins.
  std::atomic<std::size_t> firstBad{count};
  w.tasks->parallelFor(static_cast<std::uint32_t>(count), 4096,
                       [&](std::uint32_t begin, std::uint32_t end) {
                         for (std::uint32_t k = begin; k < end; ++k) {
                           if (w.refusal(defs[k]).empty()) continue;
                           std::size_t seen = firstBad.load(std::memory_order_relaxed);
                           while (k < seen && !firstBad.compare_exchange_weak(seen, k)) {
                           }
                           return;
                         }
                       });
  if (const std::size_t bad = firstBad.load(); bad < count) {
    w.refuse(fmt::format("createBodies: defs[{}]: {}", bad, w.refusal(defs[bad])));
  }
  // Room for all of them first (the only step that can throw), then the
  // slots createBody would hand out one call after another: the free ones
  // from the back of the list, then new ones; each body written by index,
  // in parallel.
  std::vector<BodyId> ids(count);
  const auto first = static_cast<std::uint32_t>(w.slotOf.size());
  const std::size_t total = first + count;
  const std::size_t reused = std::min(count, w.freeSlots.size());
  const auto firstNewSlot = static_cast<std::uint32_t>(w.denseOf.size());
  w.bodies.reserve(total);
  w.filters.reserve(total);
  w.slotOf.reserve(total);
  w.denseOf.reserve(firstNewSlot + count - reused);
  w.generation.reserve(firstNewSlot + count - reused);
  w.bodies.resize(total);
  w.filters.resize(total);
  w.slotOf.resize(total);
  w.denseOf.resize(firstNewSlot + count - reused, kNone);
  w.generation.resize(firstNewSlot + count - reused, 0);
  const std::size_t freeCount = w.freeSlots.size();
  w.tasks->parallelFor(
      static_cast<std::uint32_t>(count), 4096, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t k = begin; k < end; ++k) {
          const BodyDef& d = defs[k];
          const bool ball = d.type == BodyType::Ball;
          const float radius = kinematic::radiusOf(d);
          const float mass = ball ? validate::ballMass(d) : std::numeric_limits<float>::infinity();
          const std::uint32_t slot = k < reused
                                         ? w.freeSlots[freeCount - 1 - k]
                                         : firstNewSlot + static_cast<std::uint32_t>(k - reused);
          const std::uint32_t dense = first + k;
          w.bodies.set(dense, d.type, d.position, kinematic::velocityOf(d),
                       radius > 0.0f ? Vec2{radius, radius} : d.halfExtents, radius, mass,
                       d.friction, d.rollingResistance);
          w.bodies.sensor[dense] = d.isSensor ? 1 : 0;
          w.filters.set(dense, d.filter, d.userData);
          // Counted by finishBulk (setMaterial's count is not for threads).
          w.bodies.restitution[dense] = d.restitution.value_or(w.def.restitution);
          w.bodies.linearDamping[dense] = ball ? d.linearDamping : 0.0f;
          w.bodies.angularDamping[dense] = ball ? d.angularDamping : 0.0f;
          w.slotOf[dense] = slot;
          w.denseOf[slot] = dense;
          ids[k] = {slot, w.generation[slot], w.worldId};
        }
      });
  w.freeSlots.resize(w.freeSlots.size() - reused);
  w.bodies.finishBulk(first);
  w.filters.finishBulk(first);
  w.markBodiesChanged(first, static_cast<std::uint32_t>(w.bodies.size()));
  return ids;
}

std::span<const Vec2> World::Impl::view(std::vector<Vec2>& out, std::atomic<bool>& fresh,
                                        const std::vector<float>& xs,
                                        const std::vector<float>& ys) {
  if (!fresh.load(std::memory_order_acquire)) {
    const std::lock_guard lock(viewMutex);
    if (!fresh.load(std::memory_order_relaxed)) {
      out.resize(xs.size());
      tasks->parallelFor(static_cast<std::uint32_t>(xs.size()), 16384,
                         [&](std::uint32_t begin, std::uint32_t end) {
                           for (std::uint32_t i = begin; i < end; ++i) out[i] = {xs[i], ys[i]};
                         });
      fresh.store(true, std::memory_order_release);
    }
  }
  return out;
}

std::span<const Vec2> World::positions() const {
  Impl& w = live("positions");
  const auto use = w.claimRead("positions");
  return w.view(w.positionView, w.positionsFresh, w.bodies.px, w.bodies.py);
}
std::span<const Vec2> World::velocities() const {
  Impl& w = live("velocities");
  const auto use = w.claimRead("velocities");
  return w.view(w.velocityView, w.velocitiesFresh, w.bodies.vx, w.bodies.vy);
}
std::span<const float> World::radii() const {
  Impl& w = live("radii");
  const auto use = w.claimRead("radii");
  return w.bodies.radius;
}

// ---- snapshots (the format: snapshot.cpp, docs/snapshots.md) ---------------

std::vector<std::byte> World::snapshot() const {
  Impl& w = live("snapshot");
  const auto use = w.claimRead("snapshot");
  return snapshots::write({w.def, w.bodies, w.slotOf, w.generation, w.freeSlots,
                           w.solver.contacts(), w.solver.colourUse(), w.previousTouching,
                           w.pendingEnd, w.sensors.overlaps(), w.sensors.pendingEnd(), w.filters});
}

void World::restore(std::span<const std::byte> buffer) {
  Impl& w = live("restore");
  const auto use = w.claimChange("restore");
  snapshots::State s;
  try {
    s = snapshots::read(buffer);
  } catch (const Error& e) {
    w.refuse(e.what());
  }
  // The snapshot's simulation, on this world's threads and log level.
  WorldDef def = s.def;
  def.threadCount = w.def.threadCount;
  def.taskSystem = w.def.taskSystem;
  def.logLevel = w.def.logLevel;
  if (const std::string why = validate::worldDef(def); !why.empty()) {
    w.refuse("World::restore: the snapshot's " + why);
  }
  // The broad phase is rebuilt from the bodies at the next step: the narrow
  // phase puts its pairs in canonical order, so its history does not matter.
  auto broad = makeBroadPhase(def.broadPhase);
  broad->setBounds(def.bounds);
  broad->setTaskSystem(w.tasks);
  w.commit(std::move(s), std::move(def), std::move(broad));
}

void World::Impl::commit(snapshots::State&& s, WorldDef&& newDef,
                         std::unique_ptr<BroadPhase> newBroad) noexcept {
  def = std::move(newDef);
  bodies = std::move(s.bodies);
  filters.assign(std::move(s.filters));
  slotOf = std::move(s.slotOf);
  denseOf = std::move(s.denseOf);
  generation = std::move(s.generation);
  freeSlots = std::move(s.freeSlots);
  solver.restoreState(std::move(s.contacts), std::move(s.colourUse));
  previousTouching = std::move(s.touching);
  beginEvents.clear();
  endEvents.clear();
  hitEvents.clear();
  pendingEnd = std::move(s.pendingEnd);
  sensors.restoreState(std::move(s.sensorOverlaps), std::move(s.sensorPendingEnd));
  stats = {};
  broad = std::move(newBroad);
  warnedBruteForce = false;
  markChanged();
}

// ---- spatial queries -------------------------------------------------------

void World::draw(WorldDraw& out, const WorldDrawOptions& options) const {
  Impl& w = live("draw");
  const auto use = w.claimRead("draw");
  if (options.region) w.check(validate::queryBox(*options.region, "draw region"));
  w.refreshQueryIndex();
  drawWorld({w.bodies, w.slotOf, w.generation, w.worldId, w.def, *w.broad, w.queryDelta,
             w.sensors.overlaps(), w.denseOf, *w.tasks},
            options, out);
}

void World::queryBox(const AABB& box, std::vector<BodyId>& out) const {
  live("queryBox").queryBox(box, out, nullptr);
}
void World::queryBox(const AABB& box, std::vector<BodyId>& out, const QueryFilter& filter) const {
  live("queryBox").queryBox(box, out, &filter);
}
void World::Impl::queryBox(const AABB& box, std::vector<BodyId>& out, const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead("queryBox");
  w.check(validate::queryBox(box, "queryBox box"));
  const std::uint32_t skip = w.ignored(filter, "queryBox filter.ignore");
  w.refreshQueryIndex();
  // Per-thread scratch: a query loop allocates nothing once warm.
  thread_local std::vector<std::uint32_t> found;
  found.clear();
  w.broad->query(box, found);
  w.queryDelta.mergeBox(box, static_cast<std::uint32_t>(w.bodies.size()), found);
  const BodyStore& b = w.bodies;
  std::erase_if(found, [&](std::uint32_t i) {
    if (!w.reports(filter, skip, i)) return true;
    if (b.radius[i] == 0.0f) return !touches(b.tightBox(i), box);  // a static or kinematic box
    const Vec2 c{b.px[i], b.py[i]};
    return lengthSquared(c - closestPoint(box, c)) > b.radius[i] * b.radius[i];
  });
  std::sort(found.begin(), found.end());
  out.clear();
  for (const std::uint32_t i : found) out.push_back(w.bodyIdAt(i));
}

void World::queryRadius(Vec2 center, float radius, std::vector<BodyId>& out) const {
  live("queryRadius").queryRadius(center, radius, out, nullptr);
}
void World::queryRadius(Vec2 center, float radius, std::vector<BodyId>& out,
                        const QueryFilter& filter) const {
  live("queryRadius").queryRadius(center, radius, out, &filter);
}
void World::Impl::queryRadius(Vec2 center, float radius, std::vector<BodyId>& out,
                              const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead("queryRadius");
  w.check(validate::queryPoint(center, "queryRadius center"));
  w.check(validate::queryRadius(radius, "queryRadius radius"));
  const std::uint32_t skip = w.ignored(filter, "queryRadius filter.ignore");
  w.refreshQueryIndex();
  // Per-thread scratch: a query loop allocates nothing once warm.
  thread_local std::vector<std::uint32_t> found;
  found.clear();
  w.broad->query(AABB::fromCircle(center, radius), found);
  w.queryDelta.mergeBox(AABB::fromCircle(center, radius),
                        static_cast<std::uint32_t>(w.bodies.size()), found);
  const BodyStore& b = w.bodies;
  std::erase_if(found, [&](std::uint32_t i) {
    if (!w.reports(filter, skip, i)) return true;
    if (b.radius[i] == 0.0f) {  // a static or kinematic box
      return lengthSquared(center - closestPoint(b.tightBox(i), center)) > radius * radius;
    }
    const float reach = radius + b.radius[i];
    return lengthSquared(Vec2{b.px[i], b.py[i]} - center) > reach * reach;
  });
  std::sort(found.begin(), found.end());
  out.clear();
  for (const std::uint32_t i : found) out.push_back(w.bodyIdAt(i));
}

std::optional<RayHit> World::Impl::hit(const Ray& ray, std::uint32_t i) const {
  const Vec2 back = -normalizeOr(ray.direction);
  if (bodies.radius[i] == 0.0f) {  // a static or kinematic box
    const AABB box = bodies.tightBox(i);
    const auto t = quadbin::raycast(ray, box);
    if (!t) return std::nullopt;
    const Vec2 p = ray.at(*t);
    return RayHit{bodyIdAt(i), *t, p, *t > 0.0f ? outwardNormal(box, p) : back};
  }
  const Vec2 c{bodies.px[i], bodies.py[i]};
  const auto t = quadbin::raycast(ray, Circle{c, bodies.radius[i]});
  if (!t) return std::nullopt;
  const Vec2 p = ray.at(*t);
  return RayHit{bodyIdAt(i), *t, p, *t > 0.0f ? normalizeOr(p - c, back) : back};
}

void World::raycastAll(const Ray& ray, std::vector<RayHit>& out) const {
  live("raycast").raycastAll(ray, out, nullptr);
}
void World::raycastAll(const Ray& ray, std::vector<RayHit>& out, const QueryFilter& filter) const {
  live("raycast").raycastAll(ray, out, &filter);
}
void World::Impl::raycastAll(const Ray& ray, std::vector<RayHit>& out, const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead("raycast");
  w.check(validate::ray(ray, "raycast"));
  const std::uint32_t skip = w.ignored(filter, "raycast filter.ignore");
  w.raysAsked.store(true, std::memory_order_relaxed);
  w.refreshQueryIndex();
  std::vector<std::uint32_t> found;
  w.broad->queryRay(ray, found);
  w.queryDelta.mergeAll(static_cast<std::uint32_t>(w.bodies.size()), found);
  std::sort(found.begin(), found.end());
  out.clear();
  std::vector<std::uint32_t> dense;
  for (const std::uint32_t i : found) {
    if (!w.reports(filter, skip, i)) continue;
    if (auto h = w.hit(ray, i)) {
      out.push_back(*h);
      dense.push_back(i);
    }
  }
  // Closest first; equal distances in creation order.
  std::vector<std::uint32_t> order(out.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return out[a].t != out[b].t ? out[a].t < out[b].t : dense[a] < dense[b];
  });
  std::vector<RayHit> sorted;
  sorted.reserve(out.size());
  for (const std::uint32_t k : order) sorted.push_back(out[k]);
  out.swap(sorted);
}

std::optional<RayHit> World::raycast(const Ray& ray) const {
  std::vector<RayHit> hits;
  raycastAll(ray, hits);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}
std::optional<RayHit> World::raycast(const Ray& ray, const QueryFilter& filter) const {
  std::vector<RayHit> hits;
  raycastAll(ray, hits, filter);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}

void World::nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out) const {
  live("nearest").nearest(point, k, out, nullptr);
}
void World::nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out,
                    const QueryFilter& filter) const {
  live("nearest").nearest(point, k, out, &filter);
}
void World::Impl::nearest(Vec2 point, std::uint32_t k, std::vector<BodyId>& out,
                          const QueryFilter* filter) {
  Impl& w = *this;
  const auto use = w.claimRead("nearest");
  w.check(validate::queryPoint(point, "nearest point"));
  w.check(validate::nearestCount(k, "nearest k"));
  const std::uint32_t skip = w.ignored(filter, "nearest filter.ignore");
  out.clear();
  const auto n = static_cast<std::uint32_t>(w.bodies.size());
  if (n == 0) return;
  k = std::min(k, n);
  w.refreshQueryIndex();
  const BodyStore& b = w.bodies;
  auto distance = [&](std::uint32_t i) {
    if (b.radius[i] == 0.0f) return length(point - closestPoint(b.tightBox(i), point));
    return std::max(0.0f, length(Vec2{b.px[i], b.py[i]} - point) - b.radius[i]);
  };
  // Search squares that double until they hold k bodies within their
  // half-size: a body outside the square is farther than that from the
  // point, so those k are the nearest.
  const AABB& bounds = w.def.bounds;
  float r = std::sqrt(bounds.area() * static_cast<float>(k) / static_cast<float>(n));
  if (!(r > 0.0f) || !std::isfinite(r)) r = 1.0f;
  std::vector<std::uint32_t> found;
  std::vector<std::pair<float, std::uint32_t>> near;
  for (;;) {
    found.clear();
    w.broad->query(AABB::fromCircle(point, r), found);
    w.queryDelta.mergeBox(AABB::fromCircle(point, r), n, found);
    near.clear();
    for (const std::uint32_t i : found) {
      if (!w.reports(filter, skip, i)) continue;
      const float d = distance(i);
      if (d <= r) near.emplace_back(d, i);
    }
    if (near.size() >= k || found.size() >= n || !std::isfinite(r * 2.0f)) break;
    r *= 2.0f;
  }
  if (near.size() < k) {
    // Unbounded growth stopped (float range): rank every body.
    near.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
      if (w.reports(filter, skip, i)) near.emplace_back(distance(i), i);
    }
  }
  std::sort(near.begin(), near.end());
  k = std::min(k, static_cast<std::uint32_t>(near.size()));  // a filter may accept fewer
  for (std::uint32_t j = 0; j < k; ++j) out.push_back(w.bodyIdAt(near[j].second));
}

}  // namespace quadbin
