#pragma once
// Contact events: the pairs of bodies touching after each step (by slot and
// generation, sorted), and the begin, end and hit events that the step
// makes by comparing them with the last step's. A step builds its events
// and touching set apart; commit() makes them the world's once nothing can
// fail any more, so a step that throws leaves the last ones in place.
#include <cstdint>
#include <quadbin/engine/body.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"
#include "events/sensor_set.hpp"

namespace quadbin {

class ContactEvents {
 public:
  // What the touching pairs are found from: the solver's contacts at the
  // end of the step and the world's ids.
  struct Touching {
    const BodyStore& bodies;
    std::span<const contacts::Contact> contacts;
    std::span<const std::uint32_t> slotOf;      // dense -> slot
    std::span<const std::uint32_t> denseOf;     // slot -> dense
    std::span<const std::uint32_t> generation;  // slot -> generation
    std::uint32_t worldId = 0;
    // Whether a pair may sleep touching (a ball slept as the step began or
    // may fall asleep in it): such pairs touch still, with no end event.
    bool mayHaveSleepers = true;
  };

  // The step's events: cleared, then (nothing moved) the last step's pairs
  // kept, or (something moved) the touching pairs found and compared with
  // the last step's; with the ends of destroyed bodies' contacts. Returns
  // the number of touching pairs.
  std::uint32_t sameAsLastStep(std::uint32_t worldId);
  std::uint32_t update(const Touching& in, TaskSystem& tasks);
  // The step's begin events, for their geometry (filled in place).
  [[nodiscard]] std::span<ContactEvent> nextBegin() noexcept { return nextBegin_; }
  // The step's hit events, from the solver's contacts.
  void findHits(const EventGeometry& geometry, std::span<const contacts::Contact> contacts,
                const IdMap& ids, float threshold, TaskSystem& tasks) {
    geometry.hits(contacts, ids, threshold, hitBuffers_, hitSort_, nextHits_, tasks);
  }
  // The step's events and touching set become the world's (cannot fail).
  void commit() noexcept;

  // A body was destroyed (or disabled): its contacts end with events at
  // the next step (they name its old id). Noted in O(1), without throwing
  // once reserveDestroy ran; its touching pairs move to the pending ends in
  // one pass for all the bodies noted, when the next step (or a snapshot)
  // looks at them: a game that destroys a thousand bodies among 200,000
  // touching pairs pays one pass, not a thousand.
  void reserveDestroy(std::size_t count = 1);
  void bodyDestroyed(std::uint32_t slot) noexcept;
  // A restored snapshot's touching pairs and pending ends; no events.
  void restore(std::vector<TouchKey> touching, std::vector<TouchKey> pendingEnd);

  [[nodiscard]] std::span<const ContactEvent> begins() const noexcept { return begin_; }
  [[nodiscard]] std::span<const ContactEvent> ends() const noexcept { return end_; }
  [[nodiscard]] std::span<const ContactHitEvent> hits() const noexcept { return hits_; }
  // The pairs touching after the last step and the contacts of destroyed
  // bodies that end at the next step, both sorted: what a snapshot keeps.
  // Computed aside (the world is only read) where bodies were destroyed
  // since; otherwise the lists themselves.
  struct Settled {
    std::span<const TouchKey> touching, pendingEnd;
    std::vector<TouchKey> touchingAside, pendingEndAside;
  };
  void settled(Settled& out) const;

 private:
  void clearNext() noexcept;
  void findTouching(const Touching& in, TaskSystem& tasks);
  void diffTouching(std::uint32_t worldId, TaskSystem& tasks);
  void addPendingEnds(std::uint32_t worldId);
  // The destroyed bodies' touching pairs moved to pendingEnd_ (strong
  // guarantee: the lists are made aside, then swapped in).
  void settle();
  struct Scratch {
    std::vector<std::uint8_t> gone;  // per slot up to the largest noted: destroyed
    std::vector<TouchKey> ending;
  };
  void settleInto(std::vector<TouchKey>& touching, std::vector<TouchKey>& pendingEnd,
                  Scratch& scratch) const;

  std::vector<TouchKey> touching_, pendingEnd_;
  std::vector<std::uint32_t> destroyed_;  // slots noted by bodyDestroyed, not yet settled
  std::vector<TouchKey> settledTouching_, settledPending_;  // settle's, swapped in
  Scratch scratch_;
  std::vector<ContactEvent> begin_, end_;
  std::vector<ContactHitEvent> hits_;
  // The step's, swapped in by commit().
  std::vector<TouchKey> nextTouching_;
  bool touchingChanged_ = false;
  std::vector<ContactEvent> nextBegin_, nextEnd_;
  std::vector<ContactHitEvent> nextHits_;
  // Working space, kept so that a warm step allocates nothing.
  std::vector<TouchKey> sleepingTouch_, merged_;
  OrderedBuffers<TouchKey> sleepingBuffers_;
  OrderedBuffers<std::uint64_t> touchBuffers_;
  std::vector<std::uint64_t> touchKeys_, touchScratch_;
  std::vector<std::uint32_t> touchCounts_;
  std::vector<std::uint8_t> inOrder_;  // per chunk of contacts: its touch keys came out sorted
  OrderedBuffers<ContactEvent> beginBuffers_, endBuffers_;  // diffTouching's, per chunk
  OrderedBuffers<ContactHitEvent> hitBuffers_;
  HitSortSpace hitSort_;
};

}  // namespace quadbin
