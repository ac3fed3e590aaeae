// Contact events: the touching pairs after a step and their begin, end and
// hit events (contact_events.hpp).
#include "events/contact_events.hpp"

#include "bodies/capacity.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>
#include <iterator>

namespace quadbin {

namespace {

ContactEvent toEvent(const TouchKey& k, std::uint32_t worldId) {
  return ContactEvent{{k.slotA, k.genA, worldId}, {k.slotB, k.genB, worldId}};
}

}  // namespace

void ContactEvents::clearNext() noexcept {
  nextBegin_.clear();
  nextEnd_.clear();
  nextHits_.clear();
  touchingChanged_ = false;
}

std::uint32_t ContactEvents::sameAsLastStep(std::uint32_t worldId) {
  settle();
  clearNext();
  addPendingEnds(worldId);
  return static_cast<std::uint32_t>(touching_.size());
}

std::uint32_t ContactEvents::update(const Touching& in, TaskSystem& tasks) {
  // Not clearNext(): the begin, end and hit events are assigned whole
  // (diffTouching, findHits), over last time's, not cleared first.
  touchingChanged_ = false;
  settle();
  findTouching(in, tasks);
  diffTouching(in.worldId, tasks);
  touchingChanged_ = true;
  addPendingEnds(in.worldId);
  return static_cast<std::uint32_t>(nextTouching_.size());
}

// The pairs touching at the end of the step, sorted, into nextTouching_
// (with the pairs that sleep touching).
void ContactEvents::findTouching(const Touching& in, TaskSystem& ts) {
  // Touching pairs as keys slotA << bits | slotB (slotA < slotB), gathered
  // per chunk of contacts, radix-sorted: a slot pair is unique, so this is
  // the TouchKey order.
  const auto count = static_cast<std::uint32_t>(in.contacts.size());
  const auto slotBits = static_cast<unsigned>(std::bit_width(in.denseOf.size()));
  const std::uint32_t chunk = passChunk(count);
  const std::uint32_t chunks = chunkCount(count, chunk);
  touchBuffers_.reset(chunks);
  // Each chunk notes whether its keys came out in order (checked as they
  // are made); the chunks' boundaries are checked after.
  inOrder_.assign(chunks, 1);
  forEachChunk(ts, count, chunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::vector<std::uint64_t>& keys = touchBuffers_[c];
    for (std::uint32_t k = begin; k < end; ++k) {
      const contacts::Contact& con = in.contacts[k];
      if (!con.touched || contacts::isWall(con.b)) continue;
      std::uint32_t sa = in.slotOf[con.a], sb = in.slotOf[con.b];
      if (sb < sa) std::swap(sa, sb);
      const std::uint64_t key = (std::uint64_t{sa} << slotBits) | sb;
      if (!keys.empty() && key < keys.back()) inOrder_[c] = 0;
      keys.push_back(key);
    }
  });
  const bool sorted = touchBuffers_.joinedInOrder(inOrder_, std::less<>{});
  touchBuffers_.assignTo(ts, touchKeys_);
  // While slots and dense indices are in the same order (no body
  // destroyed out of order, no renumbering) the keys come out of the
  // canonical contacts sorted; otherwise they are sorted first. Then the
  // keys become touch keys.
  if (!sorted) parallelRadixSort(ts, touchKeys_, touchScratch_, touchCounts_, 2 * slotBits);
  const auto keyCount = static_cast<std::uint32_t>(touchKeys_.size());
  nextTouching_.resize(keyCount);
  const std::uint64_t lowMask = (std::uint64_t{1} << slotBits) - 1;
  ts.parallelFor(keyCount, passChunk(keyCount), [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) {
      const auto sa = static_cast<std::uint32_t>(touchKeys_[k] >> slotBits);
      const auto sb = static_cast<std::uint32_t>(touchKeys_[k] & lowMask);
      nextTouching_[k] = {sa, in.generation[sa], sb, in.generation[sb]};
    }
  });
  // Pairs that touched when they fell asleep still touch: no end event.
  // (No ball sleeps when none slept as the step began and none may fall
  // asleep in it: then there is nothing to look for.)
  auto asleep = [&](std::uint32_t slot) {
    const std::uint32_t i = in.denseOf[slot];
    return in.bodies.awake[i] == 0 && in.bodies.isBall(i) && in.bodies.enabled[i] != 0;
  };
  sleepingTouch_.clear();
  if (in.mayHaveSleepers) {
    const auto previous = static_cast<std::uint32_t>(touching_.size());
    const std::uint32_t sleepChunk = passChunk(previous);
    sleepingBuffers_.reset(chunkCount(previous, sleepChunk));
    forEachChunk(ts, previous, sleepChunk,
                 [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                   for (std::uint32_t k = begin; k < end; ++k) {
                     const TouchKey& key = touching_[k];
                     if (asleep(key.slotA) && asleep(key.slotB)) sleepingBuffers_[c].push_back(key);
                   }
                 });
    sleepingBuffers_.appendTo(ts, sleepingTouch_);
  }
  if (!sleepingTouch_.empty()) {
    // (A pair that fell asleep in this step is in both lists.)
    merged_.clear();
    std::set_union(nextTouching_.begin(), nextTouching_.end(), sleepingTouch_.begin(),
                   sleepingTouch_.end(), std::back_inserter(merged_));
    nextTouching_.swap(merged_);
  }
}

// Begin and end events: the pairs in only one of nextTouching_ and
// touching_, in TouchKey order. A merge walk per chunk of nextTouching_ (its
// size by the count alone, never the thread count), each with the part of touching_
// before its end, in parallel; the chunks' events joined in order are the
// one walk's.
void ContactEvents::diffTouching(std::uint32_t worldId, TaskSystem& tasks) {
  const auto now = static_cast<std::uint32_t>(nextTouching_.size());
  const std::uint32_t chunk = passChunk(now);
  const std::uint32_t chunks = std::max(1u, chunkCount(now, chunk));
  beginBuffers_.reset(chunks);
  endBuffers_.reset(chunks);
  // Where chunk c's part of touching_ starts (the last: its end).
  auto previousAt = [&](std::uint32_t c) {
    if (c == 0) return touching_.cbegin();
    if (c == chunks) return touching_.cend();
    return std::lower_bound(touching_.cbegin(), touching_.cend(),
                            nextTouching_[std::size_t{c} * chunk]);
  };
  tasks.forkJoin(chunks, [&](std::uint32_t c) {
    auto i = nextTouching_.cbegin() + std::min(now, c * chunk);
    const auto iEnd = nextTouching_.cbegin() + std::min(now, (c + 1) * chunk);
    auto j = previousAt(c);
    const auto jEnd = previousAt(c + 1);
    std::vector<ContactEvent>& begins = beginBuffers_[c];
    std::vector<ContactEvent>& ends = endBuffers_[c];
    while (i != iEnd && j != jEnd) {
      if (*i < *j) {
        begins.push_back(toEvent(*i++, worldId));
      } else if (*j < *i) {
        ends.push_back(toEvent(*j++, worldId));
      } else {
        ++i;
        ++j;
      }
    }
    for (; i != iEnd; ++i) begins.push_back(toEvent(*i, worldId));
    for (; j != jEnd; ++j) ends.push_back(toEvent(*j, worldId));
  });
  beginBuffers_.assignTo(tasks, nextBegin_);
  endBuffers_.assignTo(tasks, nextEnd_);
}

// The contacts of bodies destroyed since the last step end now, in order.
void ContactEvents::addPendingEnds(std::uint32_t worldId) {
  if (pendingEnd_.empty()) return;
  for (const TouchKey& k : pendingEnd_) nextEnd_.push_back(toEvent(k, worldId));
  std::sort(nextEnd_.begin(), nextEnd_.end(), [](const ContactEvent& l, const ContactEvent& r) {
    return TouchKey{l.a.index, l.a.generation, l.b.index, l.b.generation} <
           TouchKey{r.a.index, r.a.generation, r.b.index, r.b.generation};
  });
}

void ContactEvents::commit() noexcept {
  begin_.swap(nextBegin_);
  end_.swap(nextEnd_);
  if (touchingChanged_) touching_.swap(nextTouching_);
  hits_.swap(nextHits_);
  pendingEnd_.clear();
}

void ContactEvents::reserveDestroy(std::size_t count) {
  reserveGrowing(destroyed_, destroyed_.size() + count);
}

void ContactEvents::bodyDestroyed(std::uint32_t slot) noexcept {
  assert(destroyed_.capacity() > destroyed_.size());
  destroyed_.push_back(slot);
}

void ContactEvents::settleInto(std::vector<TouchKey>& touching, std::vector<TouchKey>& pendingEnd,
                               Scratch& scratch) const {
  std::uint32_t top = 0;
  for (const std::uint32_t slot : destroyed_) top = std::max(top, slot);
  std::vector<std::uint8_t>& gone = scratch.gone;
  gone.assign(std::size_t{top} + 1, 0);
  for (const std::uint32_t slot : destroyed_) gone[slot] = 1;
  auto ends = [&](const TouchKey& k) {
    return (k.slotA <= top && gone[k.slotA] != 0) || (k.slotB <= top && gone[k.slotB] != 0);
  };
  std::vector<TouchKey>& ending = scratch.ending;
  ending.clear();
  touching.clear();
  touching.reserve(touching_.size());
  for (const TouchKey& k : touching_) (ends(k) ? ending : touching).push_back(k);
  pendingEnd.resize(pendingEnd_.size() + ending.size());
  std::merge(pendingEnd_.begin(), pendingEnd_.end(), ending.begin(), ending.end(),
             pendingEnd.begin());
}

// Into the lists of the last settle (their room kept: a warm step
// allocates nothing), then swapped in.
void ContactEvents::settle() {
  if (destroyed_.empty()) return;
  settleInto(settledTouching_, settledPending_, scratch_);
  touching_.swap(settledTouching_);
  pendingEnd_.swap(settledPending_);
  destroyed_.clear();
}

void ContactEvents::settled(Settled& out) const {
  if (destroyed_.empty()) {
    out.touching = touching_;
    out.pendingEnd = pendingEnd_;
    return;
  }
  Scratch scratch;  // the world is only read: room of its own
  settleInto(out.touchingAside, out.pendingEndAside, scratch);
  out.touching = out.touchingAside;
  out.pendingEnd = out.pendingEndAside;
}

void ContactEvents::restore(std::vector<TouchKey> touching, std::vector<TouchKey> pendingEnd) {
  touching_ = std::move(touching);
  pendingEnd_ = std::move(pendingEnd);
  destroyed_.clear();
  begin_.clear();
  end_.clear();
  hits_.clear();
}

}  // namespace quadbin
