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
#include <quadbin/narrowphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/trace.hpp>
#include <string>

#include "bodies/body_store.hpp"
#include "bodies/filtering.hpp"
#include "bodies/forces.hpp"
#include "bodies/kinematic.hpp"
#include "bodies/outline.hpp"
#include "bodies/solid.hpp"
#include "bodies/validate.hpp"
#include "contacts/contact_set.hpp"
#include "contacts/escapee_query.hpp"
#include "events/contact_events.hpp"
#include "events/sensor_set.hpp"
#include "queries/query_index.hpp"
#include "snapshot/snapshot.hpp"
#include "solver/impact_solver.hpp"
#include "solver/position_solver.hpp"
#include "solver/step_rows.hpp"
#include "solver/velocity_solver.hpp"
#include "step/islands.hpp"
#include "world/array_views.hpp"
#include "world/body_ids.hpp"
#include "world/call_guard.hpp"
#include "world/log_internal.hpp"
#include "world/pair_budget.hpp"
#include "world/settings.hpp"
#include "world/space_order.hpp"
#include "world/world_draw.hpp"

namespace quadbin {

inline constexpr std::uint32_t kNone = UINT32_MAX;

// World ids: unique per process, never 0 (a default BodyId's world).
std::uint32_t makeWorldId() noexcept;

// One per world, so its padding costs nothing worth reordering the fields
// (grouped by concern) for.
struct World::Impl {                            // NOLINT(clang-analyzer-optin.performance.Padding)
  const std::uint32_t worldId = makeWorldId();  // carried by every BodyId made here
  WorldSettings settings;  // the WorldDef as changed since, warnings logged once
  BodyStore bodies;        // dense structure of arrays
  BodyFilters filters;     // beside bodies: collision filters, user data
  BodyIds ids;             // handles: slots, generations, dense indices

  // The systems this world made, by thread count: setThreadCount reuses
  // them. oneTBB (2021.8) never gives back an arena that has run work (about
  // 7 KiB each, measured), so a new system per call grew without bound;
  // kept here, the cost is bounded by the distinct counts used (<= 1025).
  // Declared before `tasks`, which the constructor takes from it.
  std::vector<std::pair<std::uint32_t, std::shared_ptr<TaskSystem>>> madeTasks;
  std::shared_ptr<TaskSystem> tasks;  // the step's parallel work runs here
  std::unique_ptr<BroadPhase> broad;
  // The step's contacts and solvers, each a stage or a few of the step
  // (step/world_step.cpp), sharing one step's rows.
  StepRows stepRows;
  ContactSet contactSet{stepRows};
  EscapeeQuery escapees{stepRows};
  VelocitySolver velocity{stepRows};
  ImpactSolver impacts{stepRows};
  PositionSolver positions{stepRows};
  Islands islands;
  // Who uses the world, and the calls refused (call_guard.hpp).
  CallGuard guard;
  Refusals refusals;
  static constexpr std::uint32_t kStepping = CallGuard::kStepping;
  static constexpr std::uint32_t kChanging = CallGuard::kChanging;

  // Step scratch, kept between steps so a step allocates nothing once warm.
  std::vector<AABB> boxes;
  BodyStore::Probes crowdProbes;  // the swept boxes' crowd counts (checkCrowding)
  std::vector<Pair> pairs;
  // The dense indices of a call's ids and their sorted slots
  // (distinctBodies; kept: a warm call allocates nothing), and
  // setPositions' boxes.
  std::vector<std::uint32_t> manyDense, manySlots;
  std::vector<AABB> manyBoxes;
  // setBodyOrder's: by dense index, 1 where `at` names it, 2 once its body came
  // (zero between calls: ClearedMarks).
  std::vector<std::uint8_t> orderMarks;
  Permutation::Spare spareMaps;  // setBodyOrder(at, bodies)'s index maps, the identity

  // Contact events and the touching pairs they come from (contact_events.hpp).
  ContactEvents events;
  // Sensors, pre-solve (sensor_set.hpp).
  SensorSet sensors;
  PreSolveFn preSolve;
  ContactGate gate;
  [[nodiscard]] IdMap idMap() const noexcept { return {ids.slotOf(), ids.generation(), worldId}; }

  // What a step that throws puts back (the strong guarantee): the bodies
  // as they were, and an empty broad phase of the same type to take the
  // place of one whose update failed half way. Kept between steps.
  BodySnapshot undo;
  std::unique_ptr<BroadPhase> spareBroad;
  bool broadUpdating = false;  // set while the step's broad phase updates
  StepStats stats;

  // The pair limit kept at the door (pair_budget.hpp).
  PairBudget pairBudget;
  [[nodiscard]] PairBudget::Env budgetEnv() noexcept {
    return {bodies, queries, queryStructure(), tasks, refusals};
  }
  /// Body i, a chain's segment, leaves its chain: it and its neighbours
  /// stop deferring to each other at their shared vertices.
  void leaveChain(std::uint32_t i) noexcept;
  // destroyBody's removal of a live body, its room reserved (world_bodies.cpp).
  void removeBody(BodyId id, bool contactsAside);
  // The dense indices of `ids` (manyDense), each live and given once, or
  // refused naming `call`.
  std::span<const std::uint32_t> distinctBodies(std::span<const BodyId> ids, const char* call);
  // setPosition's checks of dense body i at p (named `what` in a
  // refusal); its tight box there.
  AABB movedBox(std::uint32_t i, Vec2 p, const char* what);
  // Dense body i to p, after the checks and the pair limit: out of its
  // chain if it moves, its island woken, the queries told.
  void place(std::uint32_t i, Vec2 p);

  // What the spatial queries search (query_index.hpp).
  QueryIndex queries;
  [[nodiscard]] QueryStructure queryStructure() noexcept { return {broad, spareBroad}; }

  // positions(), velocities() and contacts() (array_views.hpp).
  ArrayViews views;
  void markMoved() noexcept { views.moved(); }
  // contacts(): the touching pairs with their geometry (world_contacts.cpp).
  std::span<const ContactData> contactData();

  explicit Impl(const WorldDef& d)
      : settings(d),
        tasks(d.taskSystem ? d.taskSystem : taskSystemFor(d.threadCount)),
        broad(freshBroadPhase(d.broadPhase)) {
    contactSet.filters = &filters;
  }

  // The structure `broad` steps with: Auto's pick, or its own type.
  [[nodiscard]] BroadPhaseType activeType() const noexcept {
    if (broad->type() != BroadPhaseType::Auto) return broad->type();
    return static_cast<const AutoBroadPhase&>(*broad).active();
  }
  // Auto's pick at the last update, to log when it switches.
  BroadPhaseType lastActive = BroadPhaseType::Auto;

  [[nodiscard]] std::unique_ptr<BroadPhase> freshBroadPhase(BroadPhaseType type) const {
    auto made = makeBroadPhase(type, settings.def().broadPhaseOptions);
    made->setBounds(settings.def().bounds);
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

  using Use = CallGuard::Use;
  // The world for `what` alone (as kStepping or kChanging), or Error.
  [[nodiscard]] Use claimAlone(std::uint32_t as, const char* what) {
    return guard.claimAlone(as, what, refusals);
  }
  [[nodiscard]] Use claimChange(const char* what = __builtin_FUNCTION()) {
    return claimAlone(kChanging, what);
  }
  // The world for reading, beside other readers, or Error.
  [[nodiscard]] Use claimRead(const char* what = __builtin_FUNCTION()) {
    return guard.claimRead(what, refusals);
  }

  void markChanged() noexcept {
    queries.invalidate();
    markMoved();
  }
  // Only the tight boxes of dense bodies [first, end) changed.
  void markBodiesChanged(std::uint32_t first, std::uint32_t end) noexcept {
    queries.changed(first, end, bodies);
    markMoved();
  }
  void refreshQueryIndex() { queries.refresh(bodies, *tasks); }
  void refreshQueryStructure() { queries.refreshStructure(queryStructure()); }
  // The bodies whose tight box may touch `box` (after refreshQueryIndex),
  // appended to `found` in no particular order.
  void candidates(const AABB& box, std::vector<std::uint32_t>& found) {
    queries.candidates(box, static_cast<std::uint32_t>(bodies.size()), queryStructure(), found);
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
  // Whether a query with `filter` reports dense body i (never a disabled one).
  [[nodiscard]] bool reports(const QueryFilter* filter, std::uint32_t skip,
                             std::uint32_t i) const noexcept {
    return bodies.enabled[i] != 0 &&
           (filter == nullptr || (i != skip && filters.accepts(*filter, i)));
  }

  void logRefusal(const std::string& message) { refusals.log(message); }
  [[noreturn]] void refuse(const std::string& message) { refusals.refuse(message); }

  // The invariant the input limits (quadbin::limits, quadbin/engine/world_def.hpp) promise:
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
  std::uint32_t ballIndex(BodyId id, const char* what = __builtin_FUNCTION()) {
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

  [[nodiscard]] bool isValid(BodyId id) const noexcept { return ids.isValid(id, worldId); }
  // The caller holds a claim (Use).
  std::uint32_t denseIndex(BodyId id, const char* what = __builtin_FUNCTION()) {
    if (id.world != worldId) {
      refuse(fmt::format("{}: {} is not from this world (id {}){}", what, describe(id), worldId,
                         id.isNull() ? ": a null id" : ""));
    }
    if (!isValid(id)) {
      refuse(
          fmt::format("{}: {} is stale (its body was destroyed) or unknown", what, describe(id)));
    }
    return ids.dense(id);
  }

  void requireInside(Vec2 p, float r, const char* what) { check(outside(p, r, what)); }
  // Why a ball does not fit inside a closed world, or "".
  [[nodiscard]] std::string outside(Vec2 p, float r, const char* what) const {
    return validate::insideBounds(p, r, settings.def(), what);
  }
  // Why createBody refuses `d`, or "".
  [[nodiscard]] std::string refusal(const BodyDef& d) const {
    std::string why = validate::bodyDef(d);
    if (why.empty() && d.type == BodyType::Ball) {
      why = outside(d.position, d.radius, "BodyDef.position");
    }
    if (why.empty())
      why = validate::gravityScale(d.gravityScale, settings.def().gravity, "BodyDef.gravityScale");
    return why;
  }
  // Adds a body from a def that refusal() accepted (createBody; createBodies
  // writes its bodies by index): nothing throws but allocation.
  BodyId insert(const BodyDef& d);
  // optimizeLayout (world_layout.cpp): the bodies in Morton order.
  void reorderBodies();
  // The renumbering in Morton order, with room made for it (may throw;
  // changes nothing a game sees); nullopt when the bodies are in that order
  // already.
  [[nodiscard]] std::optional<Renumbering> renumbering();
  // Before renumber(r): what an undo trims the colours back to, and room
  // for the colours and the contacts' renumbering (may throw).
  void prepare(Renumbering& r);
  // Applies or undoes r in place.
  void renumber(const Renumbering& r, Permutation::Direction d) noexcept;
  // The renumbering a step began with (WorldDef::autoLayout) until the
  // step ends, for rollBack.
  std::optional<Renumbering> renumberedFrom;
  double keepSpaceOrder();
  void undoRenumbering() noexcept;
  // Replaces the whole state with a restored snapshot's; nothing throws.
  void commit(snapshots::State&& s, WorldDef&& newDef,
              std::unique_ptr<BroadPhase> newBroad) noexcept;

  [[nodiscard]] BodyId bodyIdAt(std::uint32_t dense) const { return ids.idAt(dense, worldId); }

  void step(float dt);
  void stepInRegion(float dt);
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
  // What step() begins by counting: awake balls, balls, kinematic bodies,
  // and any bit of any angular velocity (-0 counts, as sleepIsland writes
  // +0).
  struct BodyCounts {
    std::uint32_t awake, balls, kinematics, spinBits;
  };
  BodyCounts countBodies();
  void buildContacts(const SolverSettings& s);
  void solve(const SolverSettings& s);
  void integratePositions(const SolverSettings& s);
  void correctPositions(const SolverSettings& s);
  void clampPositions(const SolverSettings& s);
  void sleep(const SolverSettings& s);
  void warnOutside();
  void updateEvents();
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
