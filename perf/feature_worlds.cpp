#include "feature_worlds.hpp"

#include <algorithm>
#include <array>
#include <quadbin/engine/world_draw.hpp>
#include <utility>

namespace quadbin::perf {

namespace {

// The force feature's acceleration, units/s^2.
constexpr float kForceAcceleration = 10.0f;

struct FeatureText {
  Feature feature;
  std::string_view name;
  std::string_view how;
};

constexpr std::array<FeatureText, 12> kFeatures{{
    {Feature::Baseline, "baseline", "the scene as Workload B steps it (no feature on)"},
    {Feature::Filter, "filter",
     "every ball a Filter: category i % 4, mask without category (i + 2) % 4 (a quarter of "
     "the category pairs never collide)"},
    {Feature::Sensors, "sensors",
     "16 static sensor boxes, each 1/8 of the world's side, a quarter of its area in all; "
     "sensor begin and end events read every step"},
    {Feature::Materials, "materials",
     "restitution per ball (0.8, 0.85, 0.9, 0.95, 1 in turn) and linear damping 0.05"},
    {Feature::Friction, "friction", "friction 0.5 on every ball (walls: WorldDef's 0.6)"},
    {Feature::Kinematic, "kinematic",
     "4 kinematic paddles (1/100 x 1/5 of the side) moving up and down at 1/10 of the side "
     "per second, turned by setVelocity every second"},
    {Feature::Events, "events",
     "contact begin, end and hit events read (every event visited) every step"},
    {Feature::PreSolve, "presolve", "a pre-solve callback that keeps every contact"},
    {Feature::Force, "force",
     "applyForce on every ball every step (10 units/s^2 along x, the sign alternating)"},
    {Feature::Draw, "draw",
     "World::draw (balls, static boxes, walls: the default options) into a WorldDraw that "
     "counts the callbacks, every step"},
    {Feature::Disabled, "disabled",
     "one ball in 100 disabled (World::setEnabled): every candidate pair is then checked"},
    {Feature::Outlines, "outlines",
     "16 static boxes turned by 30 degrees and 16 static segments at 45 degrees, each 1/32 "
     "of the side, on a 4 x 4 grid (the contacts with them included)"},
}};

// Counts what World::draw reports.
class CountingDraw final : public WorldDraw {
 public:
  void ball(const DrawnBall& /*ball*/) override { ++count; }
  void staticBox(const DrawnBox& /*box*/) override { ++count; }
  void walls(const AABB& /*bounds*/) override { ++count; }
  std::uint64_t count = 0;
};

World makeFeatureWorld(const scenes::Scene& scene, scenes::SceneKind kind,
                       std::shared_ptr<TaskSystem> tasks) {
  WorldDef def = scenes::worldDefFor(kind);
  def.taskSystem = std::move(tasks);
  def.logLevel = LogLevel::Error;
  return scenes::makeWorld(scene, def);
}

}  // namespace

const std::vector<Feature>& allFeatures() {
  static const std::vector<Feature> all = [] {
    std::vector<Feature> v;
    v.reserve(kFeatures.size());
    for (const auto& f : kFeatures) v.push_back(f.feature);
    return v;
  }();
  return all;
}

std::string_view featureName(Feature f) noexcept {
  return kFeatures[static_cast<std::size_t>(f)].name;
}

std::string_view featureHow(Feature f) noexcept {
  return kFeatures[static_cast<std::size_t>(f)].how;
}

std::optional<Feature> parseFeature(std::string_view name) noexcept {
  for (const auto& f : kFeatures) {
    if (f.name == name) return f.feature;
  }
  return std::nullopt;
}

FeatureWorld::FeatureWorld(Feature feature, const scenes::Scene& scene, scenes::SceneKind kind,
                           std::shared_ptr<TaskSystem> tasks)
    : feature_(feature), world_(makeFeatureWorld(scene, kind, std::move(tasks))) {
  setUp(scene);
}

void FeatureWorld::setUp(const scenes::Scene& scene) {
  balls_.reserve(world_.bodyCount());
  for (std::uint32_t i = 0; i < world_.bodyCount(); ++i) balls_.push_back(world_.bodyAt(i));
  for (std::size_t i = 0; i < balls_.size(); ++i) {
    const BodyId id = balls_[i];
    switch (feature_) {
      case Feature::Filter: {
        const std::uint64_t category = 1ull << (i % 4);
        const std::uint64_t rejected = 1ull << ((i + 2) % 4);
        world_.setFilter(id, Filter{category, ~rejected, 0});
        break;
      }
      case Feature::Materials:
        world_.setRestitution(id, 0.8f + 0.05f * static_cast<float>(i % 5));
        world_.setLinearDamping(id, 0.05f);
        break;
      case Feature::Friction:
        world_.setFriction(id, 0.5f);
        break;
      case Feature::Disabled:
        if (i % 100 == 0) world_.setEnabled(id, false);
        break;
      default:
        break;
    }
  }
  if (feature_ == Feature::Kinematic) addPaddles(scene);
  if (feature_ == Feature::Sensors) addSensors(scene);
  if (feature_ == Feature::Outlines) addOutlines(scene);
  if (feature_ == Feature::PreSolve) {
    world_.setPreSolve([](BodyId /*a*/, BodyId /*b*/, Vec2 /*normal*/) { return true; });
  }
  if (feature_ == Feature::Force) {
    masses_.reserve(balls_.size());
    for (const BodyId id : balls_) masses_.push_back(world_.mass(id));
  }
}

void FeatureWorld::addPaddles(const scenes::Scene& scene) {
  const AABB w = scene.world;
  const float side = std::min(w.max.x - w.min.x, w.max.y - w.min.y);
  const float halfWidth = std::max(0.5f, side * 0.005f);
  const float halfHeight = side * 0.1f;
  paddleSpeed_ = side * 0.1f;
  for (int k = 1; k <= 4; ++k) {
    const Vec2 c{w.min.x + side * 0.2f * static_cast<float>(k), w.min.y + side * 0.5f};
    const AABB box{{c.x - halfWidth, c.y - halfHeight}, {c.x + halfWidth, c.y + halfHeight}};
    const float vy = k % 2 == 0 ? paddleSpeed_ : -paddleSpeed_;
    paddles_.push_back(world_.createBody(BodyDef::kinematicBox(box, {0.0f, vy})));
  }
}

void FeatureWorld::addOutlines(const scenes::Scene& scene) {
  const AABB w = scene.world;
  const Vec2 size = w.extents();
  const float side = std::min(size.x, size.y) / 32.0f;
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 4; ++col) {
      const Vec2 c{w.min.x + size.x * (0.125f + 0.25f * static_cast<float>(col)),
                   w.min.y + size.y * (0.125f + 0.25f * static_cast<float>(row))};
      (void)world_.createBody(BodyDef::staticBox(c, {side * 0.5f, side * 0.25f}, 0.5236f));
      const Vec2 offset{side, side};
      const Vec2 d{side * 0.3536f, side * 0.3536f};
      (void)world_.createBody(BodyDef::staticSegment(c + offset - d, c + offset + d));
    }
  }
}

void FeatureWorld::addSensors(const scenes::Scene& scene) {
  const AABB w = scene.world;
  const Vec2 size = w.extents();
  for (int row = 0; row < 4; ++row) {
    for (int col = 0; col < 4; ++col) {
      const Vec2 c{w.min.x + size.x * (0.125f + 0.25f * static_cast<float>(col)),
                   w.min.y + size.y * (0.125f + 0.25f * static_cast<float>(row))};
      const Vec2 half = size * (1.0f / 16.0f);
      BodyDef def = BodyDef::staticBox({c - half, c + half});
      def.isSensor = true;
      (void)world_.createBody(def);
    }
  }
}

void FeatureWorld::beforeStep() {
  if (feature_ == Feature::Force) {
    const float a = (steps_ % 2 == 0) ? kForceAcceleration : -kForceAcceleration;
    for (std::size_t i = 0; i < balls_.size(); ++i) {
      world_.applyForce(balls_[i], {a * masses_[i], 0.0f});
    }
    work_ += balls_.size();
  } else if (feature_ == Feature::Kinematic && steps_ > 0 && steps_ % 60 == 0) {
    // Every second each paddle turns back.
    for (const BodyId id : paddles_) {
      const Vec2 v = world_.velocity(id);
      world_.setVelocity(id, {v.x, -v.y});
    }
  }
}

void FeatureWorld::afterStep() {
  if (feature_ == Feature::Events) {
    // Visit every event, as a game that plays sounds or scores would.
    for (const auto& e : world_.contactBeginEvents()) work_ += e.approachSpeed >= 0.0f ? 1 : 0;
    for (const auto& e : world_.contactEndEvents()) work_ += e.a.isNull() ? 0 : 1;
    for (const auto& e : world_.contactHitEvents()) work_ += e.approachSpeed > 0.0f ? 1 : 0;
  } else if (feature_ == Feature::Sensors) {
    for (const auto& e : world_.sensorBeginEvents()) work_ += e.visitor.isNull() ? 0 : 1;
    for (const auto& e : world_.sensorEndEvents()) work_ += e.visitor.isNull() ? 0 : 1;
  } else if (feature_ == Feature::Draw) {
    CountingDraw counter;
    world_.draw(counter, WorldDrawOptions{});
    work_ += counter.count;
  }
}

void FeatureWorld::step() {
  beforeStep();
  world_.step(static_cast<float>(scenes::kDefaultDt));
  afterStep();
  ++steps_;
}

}  // namespace quadbin::perf
