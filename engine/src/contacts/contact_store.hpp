#pragma once
// Internal to the engine: the contact store, the step's contacts kept from
// one step to the next.
//
// Each step the narrow phase hands it the contacts of the step, in
// canonical order (a, then b); those that were there in the last step
// keep their accumulated impulses and their colour (carryOver), those that
// ended give their colour back to the constraint graph, and the new ones
// are listed, in order, for colouring. The last step's list is set aside
// until the step commits, so that a failed step rolls back to it. Bodies
// destroyed between steps take their contacts with them (removeBody).
// Box2D v3's contact.c and Jolt's ContactConstraintManager are the models.

#include <cstdint>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/constraint_graph.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

class ContactStore {
 public:
  using Contact = contacts::Contact;
  /// Contacts per task of carryOver, for a step of `count` contacts
  /// (passChunk: a function of the count alone, deterministic).
  [[nodiscard]] static constexpr std::uint32_t chunkFor(std::size_t count) noexcept {
    return passChunk(static_cast<std::uint32_t>(count));
  }

  /// The contacts of the last step (of this one, once beginStep ran), in
  /// canonical order.
  [[nodiscard]] std::span<const Contact> contacts() const noexcept { return contacts_; }
  /// The same, for the solver to write the impulses it accumulated.
  [[nodiscard]] std::span<Contact> contacts() noexcept { return contacts_; }
  /// A new step: the last step's contacts are set aside and `count`
  /// contacts (returned, to be filled in canonical order) take their place.
  std::span<Contact> beginStep(std::size_t count);
  /// The contacts that were there in the last step get back their
  /// impulses and colours; those that ended give their colours back to
  /// `graph`; the new ones are listed for colourNew. `fill(begin, end)`,
  /// when given, first writes the contacts [begin, end) of each range in
  /// the same task (beginStep's contacts filled on the way: no pass of
  /// their own).
  void carryOver(ConstraintGraph& graph, const BodyStore& bodies, TaskSystem& tasks,
                 FunctionRef<void(std::uint32_t, std::uint32_t)> fill);
  void carryOver(ConstraintGraph& graph, const BodyStore& bodies, TaskSystem& tasks) {
    carryOver(graph, bodies, tasks, [](std::uint32_t, std::uint32_t) {});
  }
  /// The contacts that began in this step get their colours
  /// (ConstraintGraph::colour): exactly those of a serial colouring in
  /// canonical order, mostly in parallel (after carryOver).
  void colourNew(ConstraintGraph& graph, const BodyStore& bodies, TaskSystem& tasks);
  /// True when the step already has a contact of c's two bodies.
  [[nodiscard]] bool contains(const Contact& c) const noexcept;
  /// Contacts found later in the step (none of them in the list) join it,
  /// each where its pair belongs; `extra` is sorted.
  void merge(std::vector<Contact>& extra, TaskSystem& tasks);
  /// The step went through: what beginStep set aside is scratch again.
  void commit() noexcept { setAside_ = false; }
  /// A step that failed: the contacts as it found them, and the colours
  /// they hold, so that the next step is the one a world whose step never
  /// failed takes.
  void rollBack(const BodyStore& bodies, ConstraintGraph& graph) noexcept;
  /// After `bodies.swapRemove(removed)` moved the body at index `last` to
  /// `removed`: the removed body's contacts end and give their colours
  /// back, the moved body's keep their impulses and colours under its new
  /// index, in canonical order (World::destroyBody). Forgets them all
  /// instead where the memory for it is not there.
  void removeBody(const BodyStore& bodies, ConstraintGraph& graph, std::uint32_t removed,
                  std::uint32_t last) noexcept;
  /// Many bodies destroyed at once, as removeBody for each in turn but in
  /// one pass over the contacts. beginRemovals, before any body moves,
  /// with the dense indices of the bodies to remove, in their order: their
  /// contacts give their colours back, and the index every other body will
  /// have is worked out (may throw: nothing has changed then). Then, for
  /// each removal as `bodies.swapRemove(removed)` moves the body at `last`,
  /// graph.moveBody(removed, last); then endRemovals (after the last one):
  /// the contacts of the removed bodies are gone, the others name their
  /// bodies' new indices in canonical order, with their impulses and
  /// colours: the contacts removeBody one by one would leave.
  void beginRemovals(const BodyStore& bodies, ConstraintGraph& graph,
                     std::span<const std::uint32_t> removed);
  void endRemovals(const BodyStore& bodies, const ConstraintGraph& graph) noexcept;
  /// Body i's contacts end and give their colours back (its type changes:
  /// its contacts would be of another kind, and the next step finds them
  /// anew); the others keep their order, impulses and colours. Called
  /// before the type changes.
  void dropBody(const BodyStore& bodies, ConstraintGraph& graph, std::uint32_t i) noexcept;
  /// Forgets every contact (body indices changed); no ball keeps a colour.
  void forget(ConstraintGraph& graph) noexcept;
  /// The bodies renumbered (p applied or undone; `bodies` already are):
  /// each contact names its bodies' new indices, in canonical form
  /// (contacts::orient) and order, with its impulses and colour.
  void renumber(const Permutation& p, Permutation::Direction d, const BodyStore& bodies) noexcept;
  /// Room for renumber to sort only the contacts of bodies that move (it
  /// sorts them all in place where the room is not there); may throw.
  void reserveRenumber();
  /// Replaces the contacts (World::restore, checked first).
  void restore(std::vector<Contact> contacts) noexcept;
  /// True when the contacts are in canonical order, name bodies below
  /// bodies.size() and hold exactly the colours `graph` records.
  [[nodiscard]] bool consistent(const BodyStore& bodies, const ConstraintGraph& graph) const;

 private:
  // This step's contacts (the last step's until beginStep); previous_: the
  // last step's, set aside by beginStep for carryOver and, until the step
  // commits, for rollBack; merged_: merge's output, then swapped in.
  std::vector<Contact> contacts_, previous_, merged_;
  bool setAside_ = false;                // previous_ holds the contacts the step began with
  std::vector<std::uint8_t> carried_;    // per last-step contact: still there (carryOver)
  OrderedBuffers<std::uint32_t> fresh_;  // carryOver: the new contacts, by chunk
  // colourNew: chunk c owns the balls [rangeFirst_[c], rangeFirst_[c + 1]);
  // its new contacts with a ball beyond (crossing_) and those it left to
  // the serial end (deferred_); per ball, whether it waits for one.
  void mergeRenamed(std::size_t kept) noexcept;
  // Which of c's balls chunk `range` owns (b: a ball and owned); c
  // crosses when one of its balls is beyond the chunk.
  struct Owned {
    bool a, ballB, b;
    [[nodiscard]] bool crosses() const noexcept { return !a || (ballB && !b); }
  };
  [[nodiscard]] Owned ownedBy(const BodyStore& bodies, std::uint32_t range,
                              const Contact& c) const noexcept;
  std::uint32_t chunk_ = 0;
  std::vector<std::uint32_t> rangeFirst_;
  OrderedBuffers<std::uint32_t> crossing_, deferred_;
  std::vector<std::uint8_t> tainted_;
  std::vector<std::uint32_t> extraAt_;  // merge: where each extra contact goes
  std::vector<Contact> renamed_;        // removeBody: the moved body's contacts
  // removeBody: where the two bodies' contacts are; beginRemovals: where
  // the renamed ones are.
  std::vector<std::uint32_t> affected_;
  // beginRemovals: per body (its index before), its index after, or kGone;
  // and per index, the body there (kept: a warm call allocates nothing).
  // Both the identity between calls; removalTouched_ lists the entries a
  // call changed, put back by restoreRemovalMaps.
  std::vector<std::uint32_t> after_, removalAt_, removalTouched_;
  void restoreRemovalMaps() noexcept;
};

}  // namespace quadbin
