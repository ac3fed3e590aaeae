// World: settings that change after creation (setGravity, setRadius).
#include "world/world_impl.hpp"

namespace quadbin {

Vec2 World::gravity() const noexcept { return impl_ ? impl_->settings.def().gravity : Vec2{}; }

void World::setGravity(Vec2 gravity) {
  Impl& w = live();
  const auto use = w.claimChange();
  WorldDef next = w.settings.def();
  next.gravity = gravity;
  const std::string why = validate::worldDef(next);
  if (!why.empty()) w.refuse(std::string(__func__) + ": " + why);
  // Every ball's scaled gravity stays within the limit.
  const BodyStore& b = w.bodies;
  for (std::uint32_t i = 0; i < b.size(); ++i) {
    if (b.gravityScale[i] == 1.0f) continue;
    const std::string scaled = validate::gravityScale(b.gravityScale[i], gravity, "gravityScale");
    if (!scaled.empty()) {
      w.refuse(fmt::format("{}: {}'s {}", __func__, describe(w.bodyIdAt(i)), scaled));
    }
  }
  if (gravity == w.settings.def().gravity) return;
  w.settings.setGravity(gravity);
  w.bodies.wakeAll();  // what rested under the old gravity may not under the new
  w.markMoved();
}

void World::setRadius(BodyId id, float radius) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  BodyStore& b = w.bodies;
  if (!b.isCircle(i)) {
    w.refuse(fmt::format("{}: {} is a box; only balls and kinematic balls have a radius", __func__,
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
    w.check(validate::body(v, std::string(__func__) + ": "));
  } else {
    w.refuse(fmt::format("{}: radius = {} must be finite and > 0", __func__, radius));
  }
  if (ball) w.check(validate::insideBounds(p, radius, w.settings.def(), "setRadius: position"));
  w.pairBudget.admitMove(w.budgetEnv(), i, {p - Vec2{radius, radius}, p + Vec2{radius, radius}},
                         w.bodyIdAt(i), __func__);
  if (ball) w.wake(i);
  const float old = b.radius[i];
  b.radius[i] = radius;
  b.hx[i] = radius;
  b.hy[i] = radius;
  if (ball) {
    b.mass[i] = static_cast<float>(mass);
    b.invMass[i] = 1.0f / b.mass[i];
  }
  b.noteRadius(radius);
  b.dropRadius(old);
  w.markBodiesChanged(i, i + 1);
}

}  // namespace quadbin

namespace quadbin {

float World::gravityScale(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.gravityScale[w.denseIndex(id)];
}

void World::setGravityScale(BodyId id, float scale) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  w.check(validate::gravityScale(scale, w.settings.def().gravity, "setGravityScale scale"));
  if (w.bodies.gravityScale[i] == scale) return;
  w.bodies.setGravityScale(i, scale);
  if (w.bodies.isBall(i)) w.wake(i);
}

}  // namespace quadbin

namespace quadbin {

namespace {

const char* typeName(BodyType t) {
  switch (t) {
    case BodyType::Ball:
      return "Ball";
    case BodyType::StaticBox:
      return "StaticBox";
    case BodyType::Kinematic:
      return "Kinematic";
  }
  return "?";
}

}  // namespace

void World::setType(BodyId id, BodyType type) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  BodyStore& b = w.bodies;
  const BodyType from = b.type[i];
  const bool circle = b.isCircle(i);
  const bool ball = type == BodyType::Ball;
  if (type == from) return;
  if (circle ? type == BodyType::StaticBox : ball) {
    w.refuse(fmt::format("{}: {} is a {}; {} can be {} or Kinematic, not {}", __func__,
                         describe(id), circle ? "circle" : "box", circle ? "a circle" : "a box",
                         circle ? "Ball" : "StaticBox", typeName(type)));
  }
  // The body as createBody would make it with the new type.
  validate::BodyValues v = b.values(i);
  v.type = type;
  if (ball) {
    BodyDef d;  // BodyDef's default density
    d.radius = b.radius[i];
    v.mass = validate::ballMass(d);
  } else {
    v.linearDamping = v.angularDamping = 0.0f;
    v.force = {};
  }
  if (type == BodyType::StaticBox) {
    v.velocity = {};
    v.angularVelocity = 0.0f;
  }
  w.check(validate::body(v, std::string(__func__) + ": "));  // refuses a value that is no BodyType
  if (ball)
    w.check(validate::insideBounds(v.position, v.radius, w.settings.def(), "setType: position"));
  // Nothing fails from here on. What rested on it must see the change
  // (wake), and its contacts, of another kind now, end before its type
  // changes (the next step finds those that still touch).
  w.wake(i);
  w.contactSet.dropContactsOf(b, i);
  // A ball made kinematic is no longer one that sensors see: its overlaps
  // end (end events at the next step), as a disabled body's do.
  if (from == BodyType::Ball) w.sensors.forgetVisitor(id.index);
  if (type != b.type[i]) w.leaveChain(i);
  b.setType(i, type, v.mass);
  w.markBodiesChanged(i, i + 1);
}

bool World::isEnabled(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.enabled[w.denseIndex(id)] != 0;
}

void World::setEnabled(BodyId id, bool enabled) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t i = w.denseIndex(id);
  BodyStore& b = w.bodies;
  if ((b.enabled[i] != 0) == enabled) return;
  if (enabled) {  // the next step finds its pairs (and wakes what it reaches)
    b.setEnabled(i, true);
    b.awake[i] = b.isBall(i) ? 1 : 0;
  } else {
    // Its touching pairs and sensor overlaps end, as a destroyed body's do:
    // the next step reports their end events, whether or not anything
    // moves then. What rested on it must fall (a ball's island wakes, a
    // box wakes every island), and its contacts end.
    w.events.reserveDestroy();  // may throw: nothing has changed yet
    w.events.bodyDestroyed(id.index);
    w.sensors.forgetBody(id.index);
    w.wake(i);
    w.contactSet.dropContactsOf(b, i);
    w.leaveChain(i);
    b.awake[i] = 0;
    b.setEnabled(i, false);
  }
  b.restTime[i] = 0.0f;
  w.markBodiesChanged(i, i + 1);
}

}  // namespace quadbin
