// Contact events: the events stage of the step and their accessors.
#include <quadbin/tasks/one_region.hpp>

#include "world/world_impl.hpp"

namespace quadbin {

// The events stage: the step's contact events (made apart: step() commits
// them at the end), their geometry, hit events and sensor events.
void World::Impl::updateEvents() {
  if (stats.awakeBodies == 0) {  // nothing moved: the same pairs touch
    stats.contacts = events.sameAsLastStep(worldId);
    sensors.updateAsleep(worldId);
    return;
  }
  // Each part's passes and the serial work between them in one region.
  const std::uint32_t width = passWidth(contactSet.contacts().size());
  inOneRegion(*tasks, width, [&](TaskSystem& team) {
    stats.contacts =
        events.update({bodies, contactSet.contacts(), ids.slotOf(), ids.denseOf(), ids.generation(),
                       worldId, someAsleep || settings.def().enableSleep},
                      team);
  });
  // Begin events' geometry and hit events, from the velocities the step
  // started with (saved for the strong guarantee, before gravity).
  const EventGeometry geometry{bodies,
                               undo.vx,
                               undo.vy,
                               undo.awake,
                               settings.def().gravity * settings.stepDt(),
                               settings.def().bounds};
  const TraceStage traceGeometry(*tasks, "event geometry");
  const std::span<ContactEvent> begins = events.nextBegin();
  // Grain 256: a 100,000-ball step begins a few thousand contacts, which
  // grain 1,024 cut into two or three tasks.
  tasks->parallelFor(static_cast<std::uint32_t>(begins.size()), 256,
                     [&](std::uint32_t begin, std::uint32_t end) {
                       for (std::uint32_t k = begin; k < end; ++k) {
                         ContactEvent& e = begins[k];
                         geometry.fill(e, ids.denseOf()[e.a.index], ids.denseOf()[e.b.index]);
                       }
                     });
  const TraceStage traceHits(*tasks, "hit events");
  inOneRegion(*tasks, width, [&](TaskSystem& team) {
    events.findHits(geometry, contactSet.contacts(), idMap(), settings.def().hitEventThreshold,
                    team);
  });
  const TraceStage traceSensors(*tasks, "sensor events");
  sensors.update(bodies, undo.px, undo.py, pairs, idMap(), *tasks);
}

// The noexcept accessors answer for a moved-from world as for an empty one.
std::span<const ContactEvent> World::contactBeginEvents() const noexcept {
  if (!impl_) return {};
  return impl_->events.begins();
}
std::span<const ContactEvent> World::contactEndEvents() const noexcept {
  if (!impl_) return {};
  return impl_->events.ends();
}
std::span<const ContactHitEvent> World::contactHitEvents() const noexcept {
  if (!impl_) return {};
  return impl_->events.hits();
}
std::span<const SensorEvent> World::sensorBeginEvents() const noexcept {
  if (!impl_) return {};
  return impl_->sensors.beginEvents();
}
std::span<const SensorEvent> World::sensorEndEvents() const noexcept {
  if (!impl_) return {};
  return impl_->sensors.endEvents();
}
bool World::isSensor(BodyId id) const {
  Impl& w = live();
  const auto use = w.claimRead();
  return w.bodies.sensor[w.denseIndex(id)] != 0;
}
void World::setPreSolve(PreSolveFn fn) {
  Impl& w = live();
  const auto use = w.claimChange();
  w.preSolve = std::move(fn);
}

}  // namespace quadbin
