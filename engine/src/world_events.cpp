// Contact events: the events stage of the step and their accessors.
#include "world_impl.hpp"

namespace quadbin {

// Into nextBegin, nextEnd and touching: step() swaps them in at the end.
void World::Impl::updateEvents() {
  nextBegin.clear();
  nextEnd.clear();
  nextHits.clear();
  touchingChanged = false;
  if (stats.awakeBodies == 0) {  // nothing moved: the same pairs touch
    stats.contacts = static_cast<std::uint32_t>(previousTouching.size());
    addPendingEnds();
    sensors.updateAsleep(worldId);
    return;
  }
  findTouching();
  diffTouching();
  touchingChanged = true;
  addPendingEnds();
  // Begin events' geometry and hit events, from the velocities the step
  // started with (saved for the strong guarantee, before gravity).
  const EventGeometry geometry{bodies,    undo.vx, undo.vy, undo.awake, def.gravity * stepDt,
                               def.bounds};
  tasks->parallelFor(static_cast<std::uint32_t>(nextBegin.size()), 1024,
                     [&](std::uint32_t begin, std::uint32_t end) {
                       for (std::uint32_t k = begin; k < end; ++k) {
                         ContactEvent& e = nextBegin[k];
                         geometry.fill(e, denseOf[e.a.index], denseOf[e.b.index]);
                       }
                     });
  geometry.hits(solver.contacts(), idMap(), def.hitEventThreshold, hitBuffers, hitSort, nextHits,
                *tasks);
  sensors.update(bodies, undo.px, undo.py, pairs, idMap(), *tasks);
}

// The pairs touching at the end of the step, sorted, into touching (with
// the pairs that sleep touching); stats.contacts counts them.
void World::Impl::findTouching() {
  // Touching pairs as keys slotA << bits | slotB (slotA < slotB), gathered
  // per chunk of contacts, radix-sorted: a slot pair is unique, so this is
  // the TouchKey order.
  TaskSystem& ts = *tasks;
  const std::span<const ContactSolver::Contact> contacts = solver.contacts();
  const auto count = static_cast<std::uint32_t>(contacts.size());
  const auto slotBits = static_cast<unsigned>(std::bit_width(denseOf.size()));
  constexpr std::uint32_t kChunk = 16384;
  touchBuffers.reset(chunkCount(count, kChunk));
  forEachChunk(ts, count, kChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const ContactSolver::Contact& con = contacts[k];
      if (!con.touched || ContactSolver::isWall(con.b)) continue;
      std::uint32_t sa = slotOf[con.a], sb = slotOf[con.b];
      if (sb < sa) std::swap(sa, sb);
      touchBuffers[c].push_back((std::uint64_t{sa} << slotBits) | sb);
    }
  });
  touchKeys.clear();
  touchBuffers.appendTo(ts, touchKeys);
  // While slots and dense indices are in the same order (no body destroyed
  // out of order) the keys come out of the canonical contacts sorted.
  if (!std::is_sorted(touchKeys.begin(), touchKeys.end())) {
    parallelRadixSort(ts, touchKeys, touchScratch, touchCounts, 2 * slotBits);
  }
  touching.resize(touchKeys.size());
  const std::uint64_t lowMask = (std::uint64_t{1} << slotBits) - 1;
  ts.parallelFor(static_cast<std::uint32_t>(touchKeys.size()), 4096,
                 [&](std::uint32_t begin, std::uint32_t end) {
                   for (std::uint32_t k = begin; k < end; ++k) {
                     const auto sa = static_cast<std::uint32_t>(touchKeys[k] >> slotBits);
                     const auto sb = static_cast<std::uint32_t>(touchKeys[k] & lowMask);
                     touching[k] = {sa, generation[sa], sb, generation[sb]};
                   }
                 });
  // Pairs that touched when they fell asleep still touch: no end event.
  // (No ball sleeps when none slept as the step began and none may fall
  // asleep in it: then there is nothing to look for.)
  auto asleep = [&](std::uint32_t slot) {
    const std::uint32_t i = denseOf[slot];
    return bodies.awake[i] == 0 && bodies.isBall(i);
  };
  sleepingTouch.clear();
  for (std::size_t k = 0; (someAsleep || def.enableSleep) && k < previousTouching.size(); ++k) {
    const TouchKey& key = previousTouching[k];
    if (asleep(key.slotA) && asleep(key.slotB)) sleepingTouch.push_back(key);
  }
  if (!sleepingTouch.empty()) {
    // (A pair that fell asleep in this step is in both lists.)
    touchMerged.clear();
    std::set_union(touching.begin(), touching.end(), sleepingTouch.begin(), sleepingTouch.end(),
                   std::back_inserter(touchMerged));
    touching.swap(touchMerged);
  }
  stats.contacts = static_cast<std::uint32_t>(touching.size());
}

// Begin and end events: the pairs in only one of touching and
// previousTouching, in TouchKey order. A merge walk per chunk of touching
// (a constant size, never the thread count), each with the part of
// previousTouching before its end, in parallel; the chunks' events joined
// in order are the one walk's.
void World::Impl::diffTouching() {
  auto toEvent = [&](const TouchKey& k) {
    return ContactEvent{{k.slotA, k.genA, worldId}, {k.slotB, k.genB, worldId}};
  };
  constexpr std::uint32_t kChunk = 16384;
  const auto now = static_cast<std::uint32_t>(touching.size());
  const std::uint32_t chunks = std::max(1u, chunkCount(now, kChunk));
  beginBuffers.reset(chunks);
  endBuffers.reset(chunks);
  // Where chunk c's part of previousTouching starts (the last: its end).
  auto previousAt = [&](std::uint32_t c) {
    if (c == 0) return previousTouching.begin();
    if (c == chunks) return previousTouching.end();
    return std::lower_bound(previousTouching.begin(), previousTouching.end(),
                            touching[std::size_t{c} * kChunk]);
  };
  tasks->forkJoin(chunks, [&](std::uint32_t c) {
    auto i = touching.begin() + std::min(now, c * kChunk);
    const auto iEnd = touching.begin() + std::min(now, (c + 1) * kChunk);
    auto j = previousAt(c);
    const auto jEnd = previousAt(c + 1);
    std::vector<ContactEvent>& begins = beginBuffers[c];
    std::vector<ContactEvent>& ends = endBuffers[c];
    while (i != iEnd && j != jEnd) {
      if (*i < *j) {
        begins.push_back(toEvent(*i++));
      } else if (*j < *i) {
        ends.push_back(toEvent(*j++));
      } else {
        ++i;
        ++j;
      }
    }
    for (; i != iEnd; ++i) begins.push_back(toEvent(*i));
    for (; j != jEnd; ++j) ends.push_back(toEvent(*j));
  });
  beginBuffers.appendTo(*tasks, nextBegin);
  endBuffers.appendTo(*tasks, nextEnd);
}

// The contacts of bodies destroyed since the last step end now, in order.
void World::Impl::addPendingEnds() {
  if (pendingEnd.empty()) return;
  for (const TouchKey& k : pendingEnd) {
    nextEnd.push_back(ContactEvent{{k.slotA, k.genA, worldId}, {k.slotB, k.genB, worldId}});
  }
  std::sort(nextEnd.begin(), nextEnd.end(), [](const ContactEvent& l, const ContactEvent& r) {
    return TouchKey{l.a.index, l.a.generation, l.b.index, l.b.generation} <
           TouchKey{r.a.index, r.a.generation, r.b.index, r.b.generation};
  });
}

// The noexcept accessors answer for a moved-from world as for an empty one.
std::span<const ContactEvent> World::contactBeginEvents() const noexcept {
  if (!impl_) return {};
  return impl_->beginEvents;
}
std::span<const ContactEvent> World::contactEndEvents() const noexcept {
  if (!impl_) return {};
  return impl_->endEvents;
}
std::span<const ContactHitEvent> World::contactHitEvents() const noexcept {
  if (!impl_) return {};
  return impl_->hitEvents;
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
  Impl& w = live("isSensor");
  const auto use = w.claimRead("isSensor");
  return w.bodies.sensor[w.denseIndex(id, "isSensor")] != 0;
}
void World::setPreSolve(PreSolveFn fn) {
  Impl& w = live("setPreSolve");
  const auto use = w.claimChange("setPreSolve");
  w.preSolve = std::move(fn);
}

}  // namespace quadbin
