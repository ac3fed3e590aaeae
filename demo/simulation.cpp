#include "simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <vector>

namespace demo {

namespace {

quadbin::WorldDef worldDef(const Options& o) {
  quadbin::WorldDef def;
  def.broadPhase = o.broadPhase;
  def.threadCount = o.threads;
  def.logLevel = quadbin::LogLevel::Warn;
  return def;
}

// A centre for a ball of radius r inside the bounds (a closed world refuses
// balls that do not fit).
quadbin::Vec2 inside(const quadbin::AABB& b, quadbin::Vec2 p, float r) {
  const float x = std::clamp(p.x, b.min.x + r, std::max(b.min.x + r, b.max.x - r));
  const float y = std::clamp(p.y, b.min.y + r, std::max(b.min.y + r, b.max.y - r));
  return {x, y};
}

// The options' world: the reference scene's, or the pinball table's bounds
// and physics (its bodies come with the Pinball).
quadbin::World makeWorld(const Options& o, const quadbin::scenes::Scene& scene) {
  if (o.pinball) return quadbin::World(Pinball::worldDef(worldDef(o)));
  return quadbin::scenes::makeWorld(scene, worldDef(o));
}

// Only the balls (category 1), not the pinball table's pieces.
quadbin::QueryFilter ballsOnly() {
  quadbin::QueryFilter f;
  f.maskBits = 1;
  return f;
}

}  // namespace

Simulation::Simulation(const Options& options)
    : options_(options),
      scene_(options.pinball ? quadbin::scenes::Scene{}
                             : quadbin::scenes::generate(options.scene, options.n, options.seed)),
      world_(makeWorld(options, scene_)) {
  if (options_.pinball) pinball_.emplace(world_, options_.n, options_.seed);
}

void Simulation::reset() {
  const quadbin::BroadPhaseType type = broadPhase();
  const std::uint32_t threads = world_.def().threadCount;
  Options o = options_;
  o.broadPhase = type;
  o.threads = threads;
  world_ = makeWorld(o, scene_);
  pinball_.reset();
  if (o.pinball) pinball_.emplace(world_, o.n, o.seed);
  steps_ = 0;
  added_ = 0;
  grabbed_.reset();
}

void Simulation::step() {
  if (const auto ball = grabbed()) {
    // Velocity that reaches the target in one step, capped so that a fast
    // mouse does not fling the ball through the whole world.
    const quadbin::Vec2 p = world_.position(*ball);
    quadbin::Vec2 v = (target_ - p) / kDt;
    const float speed = std::sqrt(dot(v, v));
    const float maxSpeed = 400.0f;
    if (speed > maxSpeed) v = v * (maxSpeed / speed);
    world_.setVelocity(*ball, v);
  }
  if (pinball_) pinball_->update(world_);
  const auto start = std::chrono::steady_clock::now();
  world_.step(kDt);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  stepMs_ = steps_ == 0 ? ms : 0.9 * stepMs_ + 0.1 * ms;
  ++steps_;
}

void Simulation::addScene(const quadbin::scenes::Scene& s, float scale) {
  const quadbin::AABB& b = world_.def().bounds;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto r = static_cast<float>(s.r[i]);
    const quadbin::Vec2 p{b.min.x + static_cast<float>(s.x[i]) * scale,
                          b.min.y + static_cast<float>(s.y[i]) * scale};
    world_.createBody(quadbin::BodyDef::ball(
        inside(b, p, r), r, {static_cast<float>(s.vx[i]), static_cast<float>(s.vy[i])}));
  }
}

void Simulation::addBalls(std::uint32_t count) {
  if (pinball_) {
    pinball_->queue(count);
    return;
  }
  // A scene of `count` balls of the same kind, stretched over these bounds.
  ++added_;
  const auto batch = quadbin::scenes::generate(options_.scene, count, options_.seed + added_);
  const quadbin::AABB& b = world_.def().bounds;
  const double side = std::max(batch.maxX - batch.minX, batch.maxY - batch.minY);
  const auto scale =
      static_cast<float>(std::min(b.max.x - b.min.x, b.max.y - b.min.y) / std::max(side, 1e-9));
  addScene(batch, scale);
}

void Simulation::removeBalls(std::uint32_t count) {
  if (pinball_) count = pinball_->unqueue(count);
  // The last balls in dense order (the world keeps it in space order, so
  // the pinball table's pieces may be anywhere in it).
  std::vector<quadbin::BodyId> gone;
  for (std::uint32_t i = world_.bodyCount(); i-- > 0 && gone.size() < count;) {
    const quadbin::BodyId id = world_.bodyAt(i);
    if (world_.type(id) == quadbin::BodyType::Ball) gone.push_back(id);
  }
  for (const quadbin::BodyId id : gone) {
    if (grabbed_ && *grabbed_ == id) grabbed_.reset();
    world_.destroyBody(id);
  }
}

void Simulation::burst(quadbin::Vec2 at, std::uint32_t count) {
  // Sunflower spiral: area per ball constant, so neighbours sit about one
  // diameter apart and the burst starts without overlaps.
  const float r = options_.scene == quadbin::scenes::SceneKind::Mixed ? 1.5f : 1.0f;
  const quadbin::AABB& b = world_.def().bounds;
  const float golden = std::numbers::pi_v<float> * (3.0f - std::sqrt(5.0f));
  for (std::uint32_t k = 0; k < count; ++k) {
    const float angle = static_cast<float>(k) * golden;
    const float dist = 2.1f * r * std::sqrt(static_cast<float>(k) + 0.5f);
    const quadbin::Vec2 dir{std::cos(angle), std::sin(angle)};
    const quadbin::Vec2 p = inside(b, at + dir * dist, r);
    const quadbin::Vec2 v = dir * (20.0f + 2.0f * dist);
    if (!pinball_) {
      world_.createBody(quadbin::BodyDef::ball(p, r, v));
    } else if (pinball_->onField(world_, p, r)) {
      world_.createBody(Pinball::ball(p, v));
    }
  }
}

std::optional<quadbin::BodyId> Simulation::pick(quadbin::Vec2 at, float reach) const {
  std::vector<quadbin::BodyId> near;
  world_.nearest(at, 1, near, ballsOnly());
  if (near.empty()) return std::nullopt;
  const quadbin::Vec2 d = world_.position(near[0]) - at;
  if (std::sqrt(dot(d, d)) - world_.radius(near[0]) > reach) return std::nullopt;
  return near[0];
}

std::string_view Simulation::sceneName() const noexcept {
  return pinball_ ? "pinball" : quadbin::scenes::toString(options_.scene);
}

std::uint32_t Simulation::ballCount() const noexcept {
  return world_.bodyCount() - (pinball_ ? pinball_->tableBodies() : 0);
}

std::uint32_t Simulation::waitingBalls() const noexcept {
  return pinball_ ? pinball_->waiting() : 0;
}

std::optional<quadbin::BodyId> Simulation::grabbed() const {
  if (grabbed_ && world_.isValid(*grabbed_)) return grabbed_;
  return std::nullopt;
}

}  // namespace demo
