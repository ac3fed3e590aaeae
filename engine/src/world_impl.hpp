#pragma once
// Internal to the engine: World::Impl, the state behind a World, shared by
// the world_*.cpp files (docs/architecture.md lists what each holds).

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
#include <optional>
#include <quadbin/broadphase/auto.hpp>
#include <quadbin/broadphase/brute_force.hpp>
#include <quadbin/engine/world.hpp>
#include <quadbin/error.hpp>
#include <quadbin/narrowphase/contact.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/trace.hpp>
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

inline constexpr std::uint32_t kNone = UINT32_MAX;

// World ids: unique per process, never 0 (a default BodyId's world).
std::uint32_t makeWorldId() noexcept;
std::string describe(BodyId id);

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
  OrderedBuffers<ContactEvent> beginBuffers, endBuffers;  // diffTouching's, per chunk
  bool touchingChanged = false;
  // Sensors, hit events, pre-solve and the contacts of destroyed bodies
  // that end at the next step (sensor_set.hpp).
  SensorSet sensors;
  PreSolveFn preSolve;
  ContactGate gate;
  std::vector<TouchKey> pendingEnd;  // sorted
  std::vector<ContactHitEvent> hitEvents, nextHits;
  OrderedBuffers<ContactHitEvent> hitBuffers;
  HitSortSpace hitSort;
  float stepDt = 0.0f;
  [[nodiscard]] IdMap idMap() const noexcept { return {slotOf, generation, worldId}; }

  // What a step that throws puts back (the strong guarantee): the bodies
  // as they were, and an empty broad phase of the same type to take the
  // place of one whose update failed half way. Kept between steps.
  BodySnapshot undo;
  std::unique_ptr<BroadPhase> spareBroad;
  bool broadUpdating = false;  // set while the step's broad phase updates
  StepStats stats;

  // The pairs of overlapping boxes the bodies are known to have
  // (world_crowding.cpp): the last step's candidate pairs, then what each
  // call since added or took away, so that a call that would leave a world
  // whose step the pair limit refuses is refused instead. Unset where no
  // world of that many bodies can pass the limit (n (n - 1) / 2 pairs at
  // most), or where nothing has counted them yet.
  std::optional<std::uint64_t> knownPairs;
  std::vector<std::uint32_t> crowdFound;
  std::vector<AABB> crowdBoxes;
  [[nodiscard]] static bool pairsMayPassLimit(std::uint64_t n) noexcept;
  // Bodies whose tight box overlaps `box` (strictly), dense `self` left out.
  std::uint64_t overlapsOf(const AABB& box, std::uint32_t self);
  // knownPairs, counted first if unset.
  std::uint64_t knownPairCount();
  [[noreturn]] void refusePairs(std::uint64_t total, std::uint64_t n, const std::string& what);
  // Each refuses the call (Error, nothing changed) when it would pass the
  // pair limit, else updates knownPairs: a body about to be created from
  // `d`, bodies from `defs`, dense body i about to move to `box`.
  void admitBody(const BodyDef& d);
  void admitBodies(std::span<const BodyDef> defs);
  void admitMove(std::uint32_t i, const AABB& box);
  // Dense body i is about to be destroyed.
  void forgetBody(std::uint32_t i);
  // The pairs of a snapshot's bodies, or Error when past the limit.
  std::uint64_t checkRestoredPairs(const BodyStore& restored);

  std::atomic<bool> warnedRefusal{false};  // queries may refuse from many threads
  bool warnedOutside = false;
  bool warnedBruteForce = false;

  // Spatial queries run on the bodies' tight boxes, taken once by the first
  // query after anything moved (a refill of the delta's index; the broad
  // phase takes them only when a query needs it). Queries from many
  // threads at once are safe: the first refreshes under the lock, the rest
  // wait for it and then only read.
  std::mutex queryMutex;
  std::atomic<bool> queryFresh{false};
  // Whether the broad phase holds queryBoxes. A refill fills only the
  // delta's index (small queries never ask the structure); a large box, a
  // ray, an explosion or a draw update the structure first, once per
  // refill.
  std::atomic<bool> structureFresh{false};
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
    contactsFresh.store(false, std::memory_order_release);
  }
  // contacts(): the touching pairs with their geometry (world_contacts.cpp),
  // made by the first call after a change, under viewMutex.
  std::atomic<bool> contactsFresh{false};
  std::vector<ContactData> contactView;
  std::span<const ContactData> contactData();
  std::span<const Vec2> view(std::vector<Vec2>& out, std::atomic<bool>& fresh,
                             const std::vector<float>& xs, const std::vector<float>& ys);

  explicit Impl(const WorldDef& d)
      : def(d),
        tasks(d.taskSystem ? d.taskSystem : taskSystemFor(d.threadCount)),
        broad(freshBroadPhase(d.broadPhase)) {
    solver.filters = &filters;
  }

  // The structure `broad` steps with: Auto's pick, or its own type.
  [[nodiscard]] BroadPhaseType activeType() const noexcept {
    if (broad->type() != BroadPhaseType::Auto) return broad->type();
    return static_cast<const AutoBroadPhase&>(*broad).active();
  }
  // Auto's pick at the last update, to log when it switches.
  BroadPhaseType lastActive = BroadPhaseType::Auto;

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
      structureFresh.store(false, std::memory_order_relaxed);
      bodies.tightBoxes(queryBoxes, *tasks);
      queryDelta.rebuilt(queryBoxes);
    }
    queryFresh.store(true, std::memory_order_release);
  }
  // After refreshQueryIndex: the broad phase holds the refill's boxes, for
  // what the delta's index cannot answer alone.
  void refreshQueryStructure() {
    if (structureFresh.load(std::memory_order_acquire)) return;
    const std::lock_guard lock(queryMutex);
    if (structureFresh.load(std::memory_order_relaxed)) return;
    try {
      broad->update(queryBoxes);
    } catch (...) {
      // It may be half updated: an empty one takes its place (structureFresh
      // stays false, so the next call fills it).
      if (spareBroad) broad = std::move(spareBroad);
      throw;
    }
    structureFresh.store(true, std::memory_order_release);
  }
  // The bodies whose tight box may touch `box` (after refreshQueryIndex),
  // appended to `found` in no particular order: from the delta's index
  // where it can answer, else from the structure and the delta.
  void candidates(const AABB& box, std::vector<std::uint32_t>& found) {
    const auto n = static_cast<std::uint32_t>(bodies.size());
    if (queryDelta.answer(box, n, found)) return;
    refreshQueryStructure();
    broad->query(box, found);
    queryDelta.mergeBox(box, n, found);
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
    return validate::insideBounds(p, r, def, what);
  }
  // Why createBody refuses `d`, or "".
  [[nodiscard]] std::string refusal(const BodyDef& d) const {
    std::string why = validate::bodyDef(d);
    if (why.empty() && d.type == BodyType::Ball) {
      why = outside(d.position, d.radius, "BodyDef.position");
    }
    if (why.empty())
      why = validate::gravityScale(d.gravityScale, def.gravity, "BodyDef.gravityScale");
    return why;
  }
  // Adds a body from a def that refusal() accepted (createBody; createBodies
  // writes its bodies by index): nothing throws but allocation.
  BodyId insert(const BodyDef& d);
  // optimizeLayout (world_layout.cpp): the bodies in Morton order.
  void reorderBodies();
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
  bool hasKinematic = false;          // set by step(): some kinematic body
  bool spinning = false;              // set by step(): some w != 0, or friction is on
  // The step's stages, in order (docs/architecture.md), each timed into its
  // StepStats field by runStages.
  void runStages(const SolverSettings& s);
  void integrate(const SolverSettings& s);
  void sweptBoxes(const SolverSettings& s);
  void findPairs();
  void checkCrowding(std::uint64_t limit);
  void buildContacts(const SolverSettings& s);
  void solve(const SolverSettings& s);
  void integratePositions(const SolverSettings& s);
  void correctPositions(const SolverSettings& s);
  void clampPositions(const SolverSettings& s);
  void sleep(const SolverSettings& s);
  void countOutside();
  void updateEvents();
  void findTouching();
  void diffTouching();
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

}  // namespace quadbin
