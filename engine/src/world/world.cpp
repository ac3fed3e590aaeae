// World: construction, moves, world-wide settings and snapshots.
#include "world/world_impl.hpp"

namespace quadbin {

namespace {

std::atomic<std::uint32_t> nextWorldId{1};

}  // namespace

std::uint32_t makeWorldId() noexcept {
  std::uint32_t id = 0;
  while (id == 0) id = nextWorldId.fetch_add(1, std::memory_order_relaxed);
  return id;
}

std::string describe(BodyId id) {
  return fmt::format("BodyId{{index = {}, generation = {}, world = {}}}", id.index, id.generation,
                     id.world);
}

World::World(const WorldDef& def) {
  if (const std::string why = validate::worldDef(def); !why.empty()) {
    logger()->warn("refused input: {}", why);
    throw Error(why);
  }
  try {
    (void)makeBroadPhase(def.broadPhase, def.broadPhaseOptions);  // its options, checked
  } catch (const Error& e) {
    const std::string why = std::string("WorldDef.broadPhaseOptions: ") + e.what();
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

bool World::isValid(BodyId id) const noexcept { return impl_ && impl_->isValid(id); }
std::uint32_t World::id() const noexcept { return impl_ ? impl_->worldId : 0; }

void World::step(float dt) {
  Impl& w = live();
  const auto use = w.claimAlone(Impl::kStepping, "step");
  w.check(validate::dt(dt));
  w.step(dt);
  assert(w.allFinite() && "a step left a position or velocity that is not finite");
}

bool World::isStepping() const noexcept { return impl_ && impl_->guard.stepping(); }
TaskSystem& World::taskSystem() const noexcept {
  return impl_ ? *impl_->tasks : serialTaskSystem();
}

const StepStats& World::stats() const noexcept {
  static const StepStats kNoStep;
  return impl_ ? impl_->stats : kNoStep;
}
std::uint32_t World::bodyCount() const noexcept { return impl_ ? impl_->ids.size() : 0; }
BodyId World::bodyAt(std::uint32_t i) const {
  Impl& w = live();
  const auto use = w.claimRead();
  if (i >= w.ids.size()) {
    w.refuse(fmt::format("{}: index {} >= bodyCount() = {}", __func__, i, w.ids.size()));
  }
  return w.bodyIdAt(i);
}
const WorldDef& World::def() const noexcept {
  static const WorldDef kDefault;
  return impl_ ? impl_->settings.def() : kDefault;
}
const BroadPhase& World::broadPhase() const noexcept {
  static const BruteForce kEmpty;  // holds nothing: every query finds nothing
  if (!impl_) return kEmpty;
  return *impl_->broad;
}

BroadPhaseType World::activeBroadPhase() const noexcept {
  if (!impl_) return def().broadPhase;
  return impl_->activeType();
}

void World::setBroadPhase(BroadPhaseType type) {
  Impl& w = live();
  const auto use = w.claimChange();
  w.check(validate::broadPhaseType(type, "setBroadPhase type"));
  std::unique_ptr<BroadPhase> broad;
  try {
    broad = w.freshBroadPhase(type);
  } catch (const Error& e) {
    w.refuse(std::string(__func__) + ": WorldDef.broadPhaseOptions: " + e.what());
  }
  w.spareBroad = nullptr;  // of the old type: the next step makes one
  w.broad = std::move(broad);
  w.settings.setBroadPhase(type);       // may warn of a brute force again
  w.lastActive = BroadPhaseType::Auto;  // a new structure: its first pick is not a switch
  w.markChanged();                      // the query index is the broad phase: empty now
}

void World::setThreadCount(std::uint32_t threadCount) {
  Impl& w = live();
  const auto use = w.claimChange();
  w.check(validate::threadCount(threadCount, "setThreadCount threadCount"));
  w.tasks = w.taskSystemFor(threadCount);  // the game's own system, if any, is let go
  w.broad->setTaskSystem(w.tasks);
  if (w.spareBroad) w.spareBroad->setTaskSystem(w.tasks);
  w.settings.setThreadCount(threadCount);
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

// ---- snapshots (the format: snapshot.cpp, docs/snapshots.md) ---------------

std::vector<std::byte> World::snapshot() const {
  Impl& w = live();
  const auto use = w.claimRead();
  ContactEvents::Settled touch;
  w.events.settled(touch);
  return snapshots::write({w.settings.def(), w.bodies, w.ids.slotOf(), w.ids.generation(),
                           w.ids.freeSlots(), w.contactSet.contacts(), w.contactSet.colourUse(),
                           touch.touching, touch.pendingEnd, w.sensors.overlaps(),
                           w.sensors.pendingEnd(), w.filters});
}

void World::restore(std::span<const std::byte> buffer) {
  Impl& w = live();
  const auto use = w.claimChange();
  snapshots::State s;
  try {
    s = snapshots::read(buffer);
  } catch (const Error& e) {
    w.refuse(e.what());
  }
  // The snapshot's simulation, on this world's threads and log level.
  WorldDef def = w.settings.restoredFrom(s.def);
  if (const std::string why = validate::worldDef(def); !why.empty()) {
    w.refuse("World::restore: the snapshot's " + why);
  }
  // The broad phase is rebuilt from the bodies at the next step: the narrow
  // phase puts its pairs in canonical order, so its history does not matter.
  const std::uint64_t pairCount = w.pairBudget.checkRestored(w.budgetEnv(), s.bodies);
  auto broad = makeBroadPhase(def.broadPhase, def.broadPhaseOptions);
  broad->setBounds(def.bounds);
  broad->setTaskSystem(w.tasks);
  w.commit(std::move(s), std::move(def), std::move(broad));
  w.pairBudget.restored(w.bodies.size(), pairCount);
}

void World::Impl::commit(snapshots::State&& s, WorldDef&& newDef,
                         std::unique_ptr<BroadPhase> newBroad) noexcept {
  settings.replace(std::move(newDef));
  bodies = std::move(s.bodies);
  filters.assign(std::move(s.filters));
  ids.restore(std::move(s.slotOf), std::move(s.denseOf), std::move(s.generation),
              std::move(s.freeSlots));
  contactSet.restoreState(std::move(s.contacts), std::move(s.colourUse));
  events.restore(std::move(s.touching), std::move(s.pendingEnd));
  sensors.restoreState(std::move(s.sensorOverlaps), std::move(s.sensorPendingEnd));
  stats = {};
  pairBudget.reset();
  broad = std::move(newBroad);
  lastActive = BroadPhaseType::Auto;
  markChanged();
}

}  // namespace quadbin
