// World: settings that change after creation (setGravity, setRadius).
#include "world/world_impl.hpp"

namespace quadbin {

Vec2 World::gravity() const noexcept { return impl_ ? impl_->def.gravity : Vec2{}; }

void World::setGravity(Vec2 gravity) {
  Impl& w = live("setGravity");
  const auto use = w.claimChange("setGravity");
  WorldDef next = w.def;
  next.gravity = gravity;
  const std::string why = validate::worldDef(next);
  if (!why.empty()) w.refuse("setGravity: " + why);
  // Every ball's scaled gravity stays within the limit.
  const BodyStore& b = w.bodies;
  for (std::uint32_t i = 0; i < b.size(); ++i) {
    if (b.gravityScale[i] == 1.0f) continue;
    const std::string scaled = validate::gravityScale(b.gravityScale[i], gravity, "gravityScale");
    if (!scaled.empty()) {
      w.refuse(fmt::format("setGravity: {}'s {}", describe(w.bodyIdAt(i)), scaled));
    }
  }
  if (gravity == w.def.gravity) return;
  w.def.gravity = gravity;
  w.bodies.wakeAll();  // what rested under the old gravity may not under the new
  w.markMoved();
}

void World::setRadius(BodyId id, float radius) {
  Impl& w = live("setRadius");
  const auto use = w.claimChange("setRadius");
  const std::uint32_t i = w.denseIndex(id, "setRadius");
  BodyStore& b = w.bodies;
  if (!b.isCircle(i)) {
    w.refuse(fmt::format("setRadius: {} is a box; only balls and kinematic balls have a radius",
                         describe(id)));
  }
  // The checks createBody runs on a radius, and the mass at the same
  // density (a ball's mass scales with its area).
  const Vec2 p{b.px[i], b.py[i]};
  validate::BodyValues v = b.values(i);
  v.radius = radius;
  v.halfExtents = {radius, radius};
  const bool ball = b.isBall(i);
  const double area = (double{radius} * radius) / (double{b.radius[i]} * b.radius[i]);
  const double mass = ball ? double{b.mass[i]} * area : 0.0;
  v.mass = static_cast<float>(std::min(mass, 1e30));
  if (std::isfinite(radius) && radius > 0.0f) {
    w.check(validate::body(v, "setRadius: "));
  } else {
    w.refuse(fmt::format("setRadius: radius = {} must be finite and > 0", radius));
  }
  if (ball) w.check(validate::insideBounds(p, radius, w.def, "setRadius: position"));
  w.admitMove(i, {p - Vec2{radius, radius}, p + Vec2{radius, radius}});
  if (ball) w.wake(i);
  const float old = b.radius[i];
  b.radius[i] = radius;
  b.hx[i] = radius;
  b.hy[i] = radius;
  if (ball) {
    b.mass[i] = static_cast<float>(mass);
    b.invMass[i] = 1.0f / b.mass[i];
  }
  if (radius >= b.maxRadius) {
    b.maxRadius = radius;
  } else if (old >= b.maxRadius) {
    b.maxRadius = *std::max_element(b.radius.begin(), b.radius.end());
  }
  w.markBodiesChanged(i, i + 1);
}

}  // namespace quadbin

namespace quadbin {

float World::gravityScale(BodyId id) const {
  Impl& w = live("gravityScale");
  const auto use = w.claimRead("gravityScale");
  return w.bodies.gravityScale[w.denseIndex(id, "gravityScale")];
}

void World::setGravityScale(BodyId id, float scale) {
  Impl& w = live("setGravityScale");
  const auto use = w.claimChange("setGravityScale");
  const std::uint32_t i = w.denseIndex(id, "setGravityScale");
  w.check(validate::gravityScale(scale, w.def.gravity, "setGravityScale scale"));
  if (w.bodies.gravityScale[i] == scale) return;
  w.bodies.setGravityScale(i, scale);
  if (w.bodies.isBall(i)) w.wake(i);
}

}  // namespace quadbin
