// Chipmunk2D 7's cpSpace as a Workload B peer: "chipmunk-hash" (its spatial
// hash, cells 2 mean radii wide, 10 cells per ball as its documentation
// suggests) and "chipmunk-bbtree" (its default bounding-box tree). The
// scene's balls as bodies of mass pi r^2 with one circle shape each
// (elasticity 1, friction 0), four segments on the scene's bounds on the
// static body (elasticity 1, friction 0), no gravity, no damping, no
// sleeping (Chipmunk's default), cpSpaceSetIterations(velocityIterations),
// Chipmunk's default collision slop and bias.
#include <chipmunk/chipmunk.h>

#include <cmath>
#include <numbers>

#include "world_peer_factories.hpp"

namespace quadbin::perf {

namespace {

// The spatial hash's cells per ball ("about 10x the number of objects").
constexpr int kHashCellsPerBall = 10;

bool isBall(const cpBody* body) {
  return cpBodyGetType(const_cast<cpBody*>(body)) == CP_BODY_TYPE_DYNAMIC;
}

class ChipmunkWorldPeer final : public WorldStepper {
 public:
  ChipmunkWorldPeer(const scenes::Scene& scene, const WorldDef& def, bool spatialHash)
      : space_(cpSpaceNew()) {
    cpSpaceSetGravity(space_, cpv(def.gravity.x, def.gravity.y));
    cpSpaceSetIterations(space_, static_cast<int>(def.velocityIterations));
    if (spatialHash && scene.size() > 0) {
      double sumR = 0.0;
      for (const double r : scene.r) sumR += r;
      cpSpaceUseSpatialHash(space_, 2.0 * sumR / static_cast<double>(scene.size()),
                            static_cast<int>(scene.size()) * kHashCellsPerBall);
    }
    cpBody* walls = cpSpaceGetStaticBody(space_);
    const cpVect corners[4] = {cpv(scene.minX, scene.minY), cpv(scene.maxX, scene.minY),
                               cpv(scene.maxX, scene.maxY), cpv(scene.minX, scene.maxY)};
    for (int i = 0; i < 4; ++i) {
      cpShape* wall = cpSegmentShapeNew(walls, corners[i], corners[(i + 1) % 4], 0.0);
      cpShapeSetElasticity(wall, def.restitution);
      cpShapeSetFriction(wall, 0.0);
      shapes_.push_back(cpSpaceAddShape(space_, wall));
    }
    bodies_.reserve(scene.size());
    for (std::size_t i = 0; i < scene.size(); ++i) {
      const double r = scene.r[i];
      const double mass = std::numbers::pi * r * r;
      cpBody* body =
          cpSpaceAddBody(space_, cpBodyNew(mass, cpMomentForCircle(mass, 0.0, r, cpvzero)));
      cpBodySetPosition(body, cpv(scene.x[i], scene.y[i]));
      cpBodySetVelocity(body, cpv(scene.vx[i], scene.vy[i]));
      cpShape* shape = cpCircleShapeNew(body, r, cpvzero);
      cpShapeSetElasticity(shape, def.restitution);
      cpShapeSetFriction(shape, 0.0);
      shapes_.push_back(cpSpaceAddShape(space_, shape));
      bodies_.push_back(body);
      radii_.push_back(r);
    }
  }

  // The space first, then its shapes and bodies: removing them from the
  // space one by one filters its arbiter cache each time, quadratic in the
  // contacts (minutes at clustered 100,000).
  ~ChipmunkWorldPeer() override {
    cpSpaceFree(space_);
    for (cpShape* s : shapes_) cpShapeFree(s);
    for (cpBody* b : bodies_) cpBodyFree(b);
  }

  void step(double dt) override { cpSpaceStep(space_, dt); }

  // Each ball's arbiters of the last step that touch another ball: every
  // pair is seen from both balls.
  [[nodiscard]] std::uint32_t contacts() const override {
    std::uint64_t ends = 0;
    for (cpBody* body : bodies_) {
      cpBodyEachArbiter(
          body,
          [](cpBody*, cpArbiter* arb, void* data) {
            CP_ARBITER_GET_BODIES(arb, a, b);
            if (isBall(a) && isBall(b) && cpArbiterGetCount(arb) > 0) {
              ++*static_cast<std::uint64_t*>(data);
            }
          },
          &ends);
    }
    return static_cast<std::uint32_t>(ends / 2);
  }

  void state(BallState& out) const override {
    out = {};
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      const cpVect p = cpBodyGetPosition(bodies_[i]), v = cpBodyGetVelocity(bodies_[i]);
      out.x.push_back(p.x);
      out.y.push_back(p.y);
      out.vx.push_back(v.x);
      out.vy.push_back(v.y);
      out.r.push_back(radii_[i]);
    }
  }

 private:
  cpSpace* space_;
  std::vector<cpBody*> bodies_;
  std::vector<cpShape*> shapes_;
  std::vector<double> radii_;
};

}  // namespace

std::unique_ptr<WorldStepper> makeChipmunkHashPeer(const scenes::Scene& scene,
                                                   const WorldDef& def) {
  return std::make_unique<ChipmunkWorldPeer>(scene, def, true);
}

std::unique_ptr<WorldStepper> makeChipmunkBBTreePeer(const scenes::Scene& scene,
                                                     const WorldDef& def) {
  return std::make_unique<ChipmunkWorldPeer>(scene, def, false);
}

std::string chipmunkEngineName() {
  // cpVersionString: "7.0.3" -> "chipmunk-7".
  const std::string version = cpVersionString;
  return "chipmunk-" + version.substr(0, version.find('.'));
}

}  // namespace quadbin::perf
