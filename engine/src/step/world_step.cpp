// World::Impl::step and its stages (docs/architecture.md).
#include <quadbin/tasks/one_region.hpp>

#include "world/world_impl.hpp"

namespace quadbin {

namespace {

using Clock = std::chrono::steady_clock;
// The smallest chunk of bodies a pass of the contacts stage takes.
constexpr std::uint32_t kBodiesPerTask = 4096;
double millisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

SolverSettings World::Impl::settingsFor(float dt) const {
  SolverSettings s;
  s.dt = dt;
  s.restitution = settings.def().restitution;
  s.restitutionThreshold =
      settings.def().restitutionThreshold.value_or(2.0f * length(settings.def().gravity) * dt);
  s.closedWorld = settings.def().boundary == Boundary::Closed;
  s.bounds = settings.def().bounds;
  s.velocityIterations = settings.def().velocityIterations;
  s.impactPasses = settings.def().solverPasses;
  s.positionPasses = settings.def().positionPasses;
  s.friction = bodies.frictionBalls > 0;
  s.wallFriction = settings.def().wallFriction;
  s.kinematic = hasKinematic;
  s.spin = spinning;
  s.gravity = settings.def().gravity;
  return s;
}

// The whole step in one region (inOneRegion): every stage's parallel
// passes, the broad phase's and the solver's included, are its phases, a
// barrier each instead of a region's start and join (tens of
// microseconds on many cores); below a few thousand bodies the passes run
// inline and no region starts.
void World::Impl::step(float dt) {
  // As wide as the solver's blocks of 512 rows can use where the contacts
  // are about as many as the bodies (the region's width is every nested
  // pass's too).
  const std::uint32_t n = ids.size();
  const std::uint32_t width = n <= kBodiesPerTask ? 1 : chunkCount(n, kRowBlock);
  inOneRegion(*tasks, width, [&](TaskSystem&) { stepInRegion(dt); });
}

// The step, as the pipeline docs/architecture.md draws: each stage a
// function with its own timer in StepStats.
void World::Impl::stepInRegion(float dt) {
  const auto start = Clock::now();
  std::optional<TraceStage> traced(std::in_place, *tasks, "setup");  // for quadbin-perf predict
  const std::uint32_t n = ids.size();
  if (settings.def().broadPhase == BroadPhaseType::BruteForce && n > 5000 &&
      settings.warnOnce(WorldSettings::Warning::BruteForce)) {
    logger()->warn(
        "BruteForce broad phase with {} bodies costs n^2/2 box tests per step; "
        "pick a spatial structure in WorldDef.broadPhase",
        n);
  }
  const BodyCounts counts = countBodies();
  const std::uint32_t awake = counts.awake, balls = counts.balls, kinematics = counts.kinematics;
  const std::uint32_t spinBits = counts.spinBits;
  movingKinematic = 0;
  for (std::uint32_t i = 0; kinematics > 0 && i < n; ++i) {
    movingKinematic += kinematic::isMoving(bodies, i) ? 1u : 0u;  // enabled ones
  }
  hasKinematic = kinematics > 0;
  spinning = spinBits != 0 || bodies.frictionBalls > 0;
  someAsleep = awake < balls;
  const bool active = awake > 0 || movingKinematic > 0;  // something moves
  const StepStats before = stats;
  const SolverSettings solverSettings = settingsFor(dt);
  settings.stepping(dt);
  const double layoutMs = active ? keepSpaceOrder() : 0.0;
  if (active) {
    // Strong guarantee: everything the step may change is saved (or made
    // aside and swapped in at the end), before it changes anything; these
    // may allocate, but only while the world grows. Spin and angle are
    // saved only where something spins, rest times where balls may sleep
    // or wake, the island links where a ball may wake (the sleep stage
    // saves them before it links an island).
    const bool wakes = someAsleep || movingKinematic > 0;
    const bool writeBack = !hasKinematic && !spinning;  // clampPositions saves px, py
    try {
      undo.save(bodies, {!writeBack, spinning, settings.def().enableSleep || wakes, wakes}, *tasks);
      if (!spareBroad) spareBroad = freshBroadPhase(settings.def().broadPhase);
    } catch (...) {
      undoRenumbering();
      throw;
    }
  }
  try {
    stats = {};
    stats.layoutMs = layoutMs;
    stats.awakeBodies = awake;
    if (active) {  // a world that sleeps whole costs (almost) nothing
      markChanged();
      runStages(solverSettings);
      warnOutside();
    }
    const auto t0 = Clock::now();
    traced.emplace(*tasks, "events");
    updateEvents();
    stats.eventsMs = millisSince(t0);
  } catch (...) {
    rollBack(before, active);
    throw;
  }
  // Nothing fails from here on: the step's events become the world's.
  traced.emplace(*tasks, "finish");
  if (active) {
    pairBudget.counted(stats.candidatePairs);
    // The broad phase holds the step's boxes: the queries' structure until
    // something changes (where a refill costs more than its cleared memory
    // and the broad phase answers a small box without a pass over all).
    if (n >= QueryIndex::kAdoptFrom && activeType() != BroadPhaseType::BruteForce) {
      queries.stepped(boxes, escapees.grown());
    }
  }
  contactSet.commit();
  renumberedFrom.reset();  // the step went through: nothing to undo
  events.commit();
  sensors.commit();
  forces::clearForces(bodies);  // used by this step (or by none: the ball slept)
  stats.totalMs = millisSince(start);
}

// One pass that vectorizes, in chunks: what moves, what the world holds
// (sums and a bitwise or: the same for any thread count). Nothing has
// changed yet if it throws.
World::Impl::BodyCounts World::Impl::countBodies() {
  const std::uint32_t n = ids.size();
  std::atomic<std::uint32_t> awakeSum{0}, ballSum{0}, kinematicSum{0}, spinSum{0};
  forEachChunk(*tasks, n, kBodyChunk, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t a = 0, b = 0, k = 0, w = 0;
    for (std::uint32_t i = begin; i < end; ++i) {
      a += bodies.awake[i];
      b += bodies.type[i] == BodyType::Ball ? 1u : 0u;
      k += bodies.type[i] == BodyType::Kinematic ? 1u : 0u;
      w |= std::bit_cast<std::uint32_t>(bodies.w[i]);
    }
    awakeSum.fetch_add(a, std::memory_order_relaxed);
    ballSum.fetch_add(b, std::memory_order_relaxed);
    kinematicSum.fetch_add(k, std::memory_order_relaxed);
    spinSum.fetch_or(w, std::memory_order_relaxed);
  });
  return {awakeSum.load(std::memory_order_relaxed), ballSum.load(std::memory_order_relaxed),
          kinematicSum.load(std::memory_order_relaxed), spinSum.load(std::memory_order_relaxed)};
}

// The stages of a step in which something moves, in order, each timed.
void World::Impl::runStages(const SolverSettings& s) {
  // Each stage timed, and named for a task trace (quadbin-perf predict).
  auto timed = [this](double& ms, std::string_view name, auto&& stage) {
    const TraceStage traced(*tasks, name);
    const auto t0 = Clock::now();
    stage();
    ms = millisSince(t0);
  };
  timed(stats.integrateMs, "integrate", [&] { integrate(s); });
  timed(stats.sweptBoxesMs, "swept boxes", [&] { sweptBoxes(s); });
  timed(stats.broadPhaseMs, "broad phase", [&] { findPairs(); });
  timed(stats.contactsMs, "contacts", [&] { buildContacts(s); });
  timed(stats.solverMs, "solve", [&] { solve(s); });
  timed(stats.integratePositionsMs, "integrate positions", [&] { integratePositions(s); });
  timed(stats.positionCorrectionMs, "position correction", [&] { correctPositions(s); });
  timed(stats.wallClampMs, "wall clamp", [&] { clampPositions(s); });
  stats.positionMs = stats.integratePositionsMs + stats.positionCorrectionMs + stats.wallClampMs;
  if (settings.def().enableSleep) timed(stats.sleepMs, "sleep", [&] { sleep(s); });
}

// A step threw (out of memory, the task system, a refused state): the world
// as before the call. The bodies come back bit for bit, the solver's
// persistent contacts and colours too (ContactSet::rollBack), and a
// broad phase whose update failed is replaced by an empty one, refilled by
// the next step or query: the steps after a failed one are those of a world
// whose step never failed.
void World::Impl::rollBack(const StepStats& before, bool moved) noexcept {
  stats = before;
  if (!moved) return;  // only the events were being made, aside
  assert(undo.px.size() == bodies.size());
  undo.restore(bodies);
  contactSet.rollBack(bodies);
  if (broadUpdating && spareBroad) broad = std::move(spareBroad);
  broadUpdating = false;
  undoRenumbering();
  markChanged();
}

// The numbering the failed step began with, if keepSpaceOrder changed it.
void World::Impl::undoRenumbering() noexcept {
  if (!renumberedFrom) return;
  renumber(*renumberedFrom, Permutation::Direction::Undo);
  renumberedFrom.reset();
}

// WorldDef::autoLayout: the bodies renumbered in space order when the last
// step's contacts say they are scattered in memory (space_order.hpp),
// before the step changes anything (a failure here leaves the world as it
// was; rollBack swaps the numbering back if the step fails later). The
// milliseconds it took.
double World::Impl::keepSpaceOrder() {
  if (!settings.def().autoLayout || !space_order::scattered(contactSet.contacts())) return 0.0;
  const auto t0 = Clock::now();
  renumberedFrom = renumbering();
  if (renumberedFrom) renumber(*renumberedFrom, Permutation::Direction::Apply);
  return millisSince(t0);
}

// Gravity, forces and damping into the velocities (symplectic Euler: the
// positions move with the solved velocities, in integratePositions).
void World::Impl::integrate(const SolverSettings& s) {
  forces::integrateVelocities(bodies, settings.def().gravity, s.dt, *tasks);
}

// Each ball's box grows by the distance it can travel this step, in every
// direction: a ball that bounces keeps its speed and so stays inside its
// box.
void World::Impl::sweptBoxes(const SolverSettings& s) {
  // Static boxes are grown by what a ball may outrun its own box by before
  // it is looked at again, so that every box such a ball can reach has a
  // contact (and the guard against entering it).
  const float staticMargin = ContactSet::kEscapeTolerance * bodies.maxRadius;
  // The crowd check's points (checkCrowding): centres of boxes spread over
  // the dense order, looked up as the boxes are made.
  const std::uint64_t n = bodies.size();
  crowdProbes.count =
      n * (n - (n > 0 ? 1 : 0)) / 2 > limits::maxPairs(n) ? BodyStore::Probes::kMax : 0;
  for (std::uint32_t k = 0; k < crowdProbes.count; ++k) {
    const auto i = static_cast<std::uint32_t>((2 * std::uint64_t{k} + 1) * n /
                                              (2 * std::uint64_t{crowdProbes.count}));
    crowdProbes.at[k] = bodies.sweptBox(i, s.dt, staticMargin, s.kinematic).center();
  }
  bodies.sweptBoxes(s.dt, staticMargin, s.kinematic, boxes, *tasks, &crowdProbes);
}

void World::Impl::findPairs() {
  const std::uint64_t limit = limits::maxPairs(boxes.size());
  checkCrowding(limit);
  broadUpdating = true;  // a failure from here on may leave it half updated
  broad->update(boxes);
  if (const BroadPhaseType now = activeType(); now != lastActive) {
    if (settings.def().broadPhase == BroadPhaseType::Auto && lastActive != BroadPhaseType::Auto) {
      logger()->info("broad phase Auto switched from {} to {} at {} bodies", toString(lastActive),
                     toString(now), boxes.size());
    }
    lastActive = now;
  }
  broad->findPairsInto(pairs);
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
  // Rejected pairs (filters, disabled bodies) never reach the narrow phase.
  filters.filterPairs(pairs, bodies.enabled, bodies.disabledCount > 0, *tasks);
}

// Refuses, before the broad phase runs, a step whose swept boxes already
// prove it would pass the pair limit: k boxes that all contain one point
// overlap pairwise, k (k - 1) / 2 pairs. A few sample points (centres of
// bodies spread over the dense order) were counted as the swept boxes were
// made (sweptBoxes): a crowd piled on one spot (a million balls at one
// point) is refused in O(n), not after enumerating its n^2 / 2 pairs.
void World::Impl::checkCrowding(std::uint64_t limit) {
  const std::uint64_t n = boxes.size();
  for (std::uint32_t k = 0; k < crowdProbes.count; ++k) {
    const std::uint64_t c = crowdProbes.inside[k];
    if (c * (c - (c > 0 ? 1 : 0)) / 2 <= limit) continue;
    const Vec2 at = crowdProbes.at[k];
    refuse(fmt::format(
        "step: {} of the {} bodies' swept boxes contain the point ({}, {}), so the broad phase "
        "would find at least {} candidate pairs, more than the limit of {} (limits::maxPairs: {} "
        "per body, at least {}; docs/limits.md); the step was not taken and the world is "
        "unchanged: spread the bodies out or remove some",
        c, n, at.x, at.y, c * (c - 1) / 2, limit, limits::kMaxPairsPerBody, limits::kMinPairLimit));
  }
}

// The step's contacts from the candidate pairs: sleeping islands within
// reach wake, then the pairs that can touch within the step (a distance
// test on the swept gap) and the walls become contacts, in canonical order,
// with the last step's impulses and colours. The exact shape tests (time of
// impact) run in the solve stage.
void World::Impl::buildContacts(const SolverSettings& s) {
  if (someAsleep) {
    stats.awakeBodies += contactSet.wakeTouched(bodies, s.dt, pairs, *tasks);
    if (movingKinematic > 0) stats.awakeBodies += kinematic::wakeTouched(bodies, s.dt, pairs);
  }
  gate = {&bodies, idMap(), &preSolve};
  contactSet.filter = gate.filter();
  // Its passes over bodies, pairs and contacts, and the serial work
  // between them, in one region.
  const std::uint32_t width =
      std::max(passWidth(pairs.size()), chunkCount(ids.size(), kBodiesPerTask));
  inOneRegion(*tasks, width, [&](TaskSystem& team) { contactSet.build(bodies, s, pairs, team); });
  stats.colours = contactSet.colourCount();
}

// The solve: resting contacts, then rounds of exact impacts, each followed
// by the escapee re-query (balls that collisions made faster than their
// swept box allowed may reach bodies the broad phase did not pair them
// with: their bigger boxes are queried again), then the pairs still
// approaching stopped. Each part is a stage of its own in a task trace.
void World::Impl::solve(const SolverSettings& s) {
  std::optional<TraceStage> traced;  // each part named (quadbin-perf predict)
  stepRows.beginSolve(bodies, *tasks);
  escapees.beginSolve();
  impacts.beginSolve();
  velocity.solveResting(bodies, s, contactSet.contacts(), *tasks);
  std::uint32_t impulses = 0, unresolved = 0;
  for (std::uint32_t round = 0; round < EscapeeQuery::kRounds; ++round) {
    traced.emplace(*tasks, "impacts");
    impulses += impacts.solve(bodies, s, *tasks);
    traced.emplace(*tasks, "escapees");
    const std::uint32_t found = escapees.find(bodies, s, *tasks);
    if (found == 0) break;
    if (round == EscapeeQuery::kRounds - 1) {
      unresolved = found;
      break;
    }
    escapees.lookAgain(bodies, s, *broad, boxes, contactSet, *tasks);
  }
  traced.emplace(*tasks, "impacts");
  velocity.stopApproaching(s, impacts.impactsLeft(), *tasks);
  stats.impulses = impulses;
  if (unresolved > 0 && !escapees.warned) {
    logger()->warn(
        "{} balls gained speed in collisions faster than the step could follow; "
        "overlaps are corrected next step. Consider a smaller dt.",
        unresolved);
    escapees.warned = true;
  }
}

void World::Impl::integratePositions(const SolverSettings& s) {
  positions.integratePositions(bodies, s, *tasks);
}

void World::Impl::correctPositions(const SolverSettings& s) {
  positions.correctOverlaps(bodies, s, *tasks);
}

// The walls of a closed world and the static-box guard, then the bodies
// and the contacts written back for the next step.
void World::Impl::clampPositions(const SolverSettings& s) {
  stats.bodiesOutside = positions.clampPositions(bodies, s, undo, *tasks);
  contactSet.store(s, *tasks);
  stats.impulses += contactSet.pushedContacts();
}

void World::Impl::sleep(const SolverSettings& s) {
  if (movingKinematic > 0) kinematic::keepAwake(bodies, contactSet.contacts());
  islands.update(bodies, contactSet.contacts(), s.dt, settings.def().sleepThreshold,
                 settings.def().timeToSleep, undo, *tasks);
}

// Bodies outside the bounds (open worlds only: closed worlds clamp balls),
// counted by the wall clamp's last pass (PositionSolver::clampPositions):
// the first one is logged, once per world.
void World::Impl::warnOutside() {
  if (stats.bodiesOutside > 0 && settings.warnOnce(WorldSettings::Warning::Outside)) {
    std::uint32_t i = 0;
    while (contains(settings.def().bounds, Vec2{bodies.px[i], bodies.py[i]})) ++i;
    logger()->warn(
        "body {} left the world bounds at ({}, {}); it is still simulated "
        "(reported once per world)",
        ids.slotOf()[i], bodies.px[i], bodies.py[i]);
  }
}

}  // namespace quadbin
