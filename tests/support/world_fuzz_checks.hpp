#pragma once
// The World API fuzzer's checks after its calls (world_fuzz.hpp, which
// includes this file after Program): the events of a step, copies of the
// world stepping, the invariants against the model.
#include <algorithm>
#include <cmath>
#include <string>

#include "world_fuzz.hpp"

namespace quadbin::test::fuzz::world {

// The events of the step just taken.
inline std::string Program::checkEvents() const {
  const World& w = *w_;
  auto solid = [&](BodyId id) { return w.type(id) != BodyType::Kinematic; };
  auto contactRules = [&](BodyId a, BodyId b) -> const char* {
    if (w.isSensor(a) || w.isSensor(b)) return "a sensor in a contact event";
    if (!shouldCollide(w.filter(a), w.filter(b))) return "a filtered pair in a contact event";
    if (w.type(a) != BodyType::Ball && w.type(b) != BodyType::Ball) {
      return "a contact event without a ball";
    }
    if (preSolveOn_ && solid(a) && solid(b) && !preSolve(a, b, {})) {
      return "a contact the pre-solve hook switched off in an event";
    }
    return nullptr;
  };
  for (const ContactEvent& e : w.contactBeginEvents()) {
    if (!isAlive(e.a) || !isAlive(e.b)) return "a contact begin event names a dead body";
    if (e.a.index >= e.b.index) return "a contact begin event with a.index >= b.index";
    if (const char* why = contactRules(e.a, e.b)) return why;
  }
  for (const ContactEvent& e : w.contactEndEvents()) {
    for (const BodyId id : {e.a, e.b}) {
      if (!isAlive(id) && !isRecentlyDead(id) && !unknownEnds_) {
        return "a contact end event names an old body";
      }
    }
  }
  for (const ContactHitEvent& e : w.contactHitEvents()) {
    if (!isAlive(e.a)) return "a hit event names a dead body";
    if (e.b.isNull()) {
      if (e.wall == WallSide::None || def_.boundary != Boundary::Closed) {
        return "a wall hit without a wall";
      }
      if (w.type(e.a) == BodyType::Kinematic) return "a kinematic body hit a wall";
      continue;
    }
    if (!isAlive(e.b) || e.wall != WallSide::None) return "a body hit names a dead body or a wall";
    if (const char* why = contactRules(e.a, e.b)) return why;
  }
  for (const SensorEvent& e : w.sensorBeginEvents()) {
    if (!isAlive(e.sensor) || !isAlive(e.visitor)) return "a sensor begin event names a dead body";
    if (!w.isSensor(e.sensor) || w.isSensor(e.visitor) || w.type(e.visitor) != BodyType::Ball) {
      return "a sensor begin event breaks the sensor rule";
    }
  }
  for (const SensorEvent& e : w.sensorEndEvents()) {
    for (const BodyId id : {e.sensor, e.visitor}) {
      if (!isAlive(id) && !isRecentlyDead(id) && !unknownEnds_) {
        return "a sensor end event names an old body";
      }
    }
  }
  return {};
}

// No accepted call leaves a world that cannot step: a copy of the world
// steps, and every position and velocity stays finite.
inline std::string Program::checkSteps() {
  try {
    stepper_->restore(w_->snapshot());
  } catch (const Error& e) {
    return std::string("the world's own snapshot was refused: ") + e.what();
  }
  try {
    stepper_->step(1.0f / 60.0f);
  } catch (const Error& e) {
    return std::string("the calls so far left a world that cannot step: ") + e.what();
  }
  for (std::uint32_t i = 0; i < stepper_->bodyCount(); ++i) {
    const BodyId id = stepper_->bodyAt(i);
    const Vec2 p = stepper_->position(id), v = stepper_->velocity(id);
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(v.x) || !std::isfinite(v.y)) {
      return "the calls so far left a world whose step gives a value that is not finite";
    }
  }
  return {};
}

inline std::string Program::checkInvariants() const {
  const World& w = *w_;
  if (w.bodyCount() != alive_.size()) return "bodyCount differs from the model";
  for (std::size_t i = 0; i < alive_.size(); ++i) {
    const BodyId id = alive_[i];
    if (!w.isValid(id)) return "a live body's id is not valid";
    const Vec2 p = w.position(id), v = w.velocity(id);
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(v.x) || !std::isfinite(v.y)) {
      return "a position or velocity is not finite";
    }
    // The whole ball, give or take rounding (a few ulps of the coordinates).
    const float r = std::max(0.0f, w.radius(id) * 0.999f - def_.bounds.max.x * 1e-6f);
    if (def_.boundary == Boundary::Closed && w.type(id) == BodyType::Ball &&
        !(def_.bounds.min.x <= p.x - r && p.x + r <= def_.bounds.max.x &&
          def_.bounds.min.y <= p.y - r && p.y + r <= def_.bounds.max.y)) {
      return "a ball is outside a closed world";
    }
    if (w.userData(id) != userData_[i]) return "userData differs from the model";
  }
  for (const BodyId id : dead_) {
    if (w.isValid(id)) return "a destroyed body's id is valid";
  }
  if (w.isValid(foreign_) || w.isValid(BodyId{})) return "a foreign or null id is valid";
  return {};
}

}  // namespace quadbin::test::fuzz::world
