// Box2D 2.4.1's b2World as a Workload B peer ("box2d-world"): the scene's
// balls as dynamic bodies with one circle fixture each (density 1, friction
// 0, restitution 1, restitutionThreshold 0), four two-sided edges on the
// scene's bounds (friction 0, restitution 1), no gravity, sleeping off,
// continuous physics as b2World has it by default (TOI against the static
// walls), b2World::Step(dt, velocityIterations, 3).
#include <box2d/box2d.h>

#include <cmath>
#include <limits>

#include "world_peer_factories.hpp"

namespace quadbin::perf {

namespace {

// Box2D's recommended position iterations (b2World::Step's documentation).
constexpr int32 kPositionIterations = 3;

class Box2dWorldPeer final : public WorldStepper {
 public:
  Box2dWorldPeer(const scenes::Scene& scene, const WorldDef& def)
      : world_(b2Vec2(def.gravity.x, def.gravity.y)),
        velocityIterations_(static_cast<int32>(def.velocityIterations)) {
    world_.SetAllowSleeping(false);
    b2BodyDef wallsDef;
    b2Body* walls = world_.CreateBody(&wallsDef);
    const auto x0 = static_cast<float>(scene.minX);
    const auto y0 = static_cast<float>(scene.minY);
    const auto x1 = static_cast<float>(scene.maxX);
    const auto y1 = static_cast<float>(scene.maxY);
    const b2Vec2 corners[4] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    for (int i = 0; i < 4; ++i) {
      b2EdgeShape edge;
      edge.SetTwoSided(corners[i], corners[(i + 1) % 4]);
      b2FixtureDef fd;
      fd.shape = &edge;
      fd.friction = 0.0f;
      fd.restitution = def.restitution;
      fd.restitutionThreshold = 0.0f;
      walls->CreateFixture(&fd);
    }
    bodies_.reserve(scene.size());
    for (std::size_t i = 0; i < scene.size(); ++i) {
      b2BodyDef bd;
      bd.type = b2_dynamicBody;
      bd.position.Set(static_cast<float>(scene.x[i]), static_cast<float>(scene.y[i]));
      bd.linearVelocity.Set(static_cast<float>(scene.vx[i]), static_cast<float>(scene.vy[i]));
      bd.allowSleep = false;
      b2Body* body = world_.CreateBody(&bd);
      b2CircleShape circle;
      circle.m_radius = static_cast<float>(scene.r[i]);
      b2FixtureDef fd;
      fd.shape = &circle;
      fd.density = 1.0f;
      fd.friction = 0.0f;
      fd.restitution = def.restitution;
      fd.restitutionThreshold = def.restitutionThreshold.value_or(0.0f);
      body->CreateFixture(&fd);
      bodies_.push_back(body);
      radii_.push_back(scene.r[i]);
    }
  }

  void step(double dt) override {
    world_.Step(static_cast<float>(dt), velocityIterations_, kPositionIterations);
  }

  [[nodiscard]] std::uint32_t contacts() const override {
    std::uint32_t count = 0;
    for (const b2Contact* c = world_.GetContactList(); c; c = c->GetNext()) {
      if (c->IsTouching() && c->GetFixtureA()->GetBody()->GetType() == b2_dynamicBody &&
          c->GetFixtureB()->GetBody()->GetType() == b2_dynamicBody) {
        ++count;
      }
    }
    return count;
  }

  void state(BallState& out) const override {
    out = {};
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      const b2Vec2 p = bodies_[i]->GetPosition(), v = bodies_[i]->GetLinearVelocity();
      out.x.push_back(p.x);
      out.y.push_back(p.y);
      out.vx.push_back(v.x);
      out.vy.push_back(v.y);
      out.r.push_back(radii_[i]);
    }
  }

  // b2Profile mapped onto World's stages: broadphase (fixtures synchronised,
  // new contacts found), collide (the narrow phase of every contact), the
  // solver's init, velocity iterations and TOI, the position iterations;
  // the rest of b2World::Solve (islands, integration) as "integrate".
  // Box2D has no sleep stage here (sleeping off) and no events stage.
  [[nodiscard]] std::optional<StageTimes> stageTimes() const override {
    const b2Profile& p = world_.GetProfile();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    StageTimes t;
    t.broadPhaseMs = p.broadphase;
    t.narrowPhaseMs = p.collide;
    t.solverMs = p.solveInit + p.solveVelocity + p.solveTOI;
    t.positionMs = p.solvePosition;
    t.integrateMs = std::max(
        0.0, double{p.solve} - p.solveInit - p.solveVelocity - p.solvePosition - p.broadphase);
    t.sleepMs = nan;
    t.eventsMs = nan;
    return t;
  }

 private:
  b2World world_;
  int32 velocityIterations_;
  std::vector<b2Body*> bodies_;
  std::vector<double> radii_;
};

}  // namespace

std::unique_ptr<WorldStepper> makeBox2dWorldPeer(const scenes::Scene& scene, const WorldDef& def) {
  return std::make_unique<Box2dWorldPeer>(scene, def);
}

std::string box2dEngineName() {
  return "box2d-" + std::to_string(b2_version.major) + "." + std::to_string(b2_version.minor);
}

}  // namespace quadbin::perf
