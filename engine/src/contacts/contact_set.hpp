#pragma once
// Internal to the engine: the narrow phase and the contacts that persist
// from step to step (contact_set.cpp).
//
// The broad phase's candidate pairs that can touch within the step, plus
// the walls a ball can reach, become the step's contacts, in canonical
// order (a, then b), kept in the contact store (contact_store.hpp): one
// that was there in the last step keeps its accumulated impulse (warm
// starting) and its colour. Only new contacts are coloured, and ended ones
// give their colour back (constraint_graph.hpp): colours are batches of
// contacts that share no ball, so a batch is one parallel loop. The
// contacts become the step's rows (solver/step_rows.hpp), sorted by colour;
// at the end of the step, what the solvers left in the rows is stored.
//
// Determinism: every loop is over bodies or over chunks whose outputs are
// joined in order, the colouring is serial in canonical order, and nothing
// depends on the thread count.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "bodies/filtering.hpp"
#include "contacts/constraint_graph.hpp"
#include "contacts/contact.hpp"
#include "contacts/contact_store.hpp"
#include "solver/solver_settings.hpp"
#include "solver/step_rows.hpp"

namespace quadbin {

class ContactSet {
 public:
  using Contact = contacts::Contact;
  using Row = StepRows::Row;
  /// A ball may outrun its swept box by this fraction of its radius before
  /// it is looked at again (escapee_query.hpp): less than a radius cannot
  /// carry it through anything, an overlap with a ball is separated at the
  /// end of the step, and static boxes are grown by it for the broad phase
  /// (their contacts are there, and the position solver's box guard keeps
  /// the ball out).
  static constexpr float kEscapeTolerance = 0.5f;
  /// Without a restitution threshold, two balls whose gap is under this
  /// fraction of the smaller radius (beyond what their velocities can
  /// close) still get a contact where one of them is in a crowd (markCrowded):
  /// the shift passes of a packed crowd move balls that far, and a pair with
  /// no contact is pushed into overlap unseen (docs/physics.md, "Position
  /// correction").
  static constexpr float kShiftReach = 0.3f;

  /// The step's rows, shared with the solvers (set once by the world).
  explicit ContactSet(StepRows& step) : step_(step) {}

  /// Wakes the sleeping islands that an awake ball can reach within the
  /// step (from the candidate pairs); returns how many balls woke.
  std::uint32_t wakeTouched(BodyStore& bodies, float dt, std::span<const Pair> pairs,
                            TaskSystem& tasks);
  /// The contacts stage: keeps the candidate pairs that can touch within
  /// the step, adds wall contacts, puts them in canonical order, carries
  /// over the last step's impulses and colours, colours the new ones and
  /// makes the step's rows (with each ball's margin).
  void build(const BodyStore& bodies, const SolverSettings& s, std::span<const Pair> pairs,
             TaskSystem& tasks);
  /// The step's last stage: the impulses, shifts and whether each pair
  /// touched, from the rows into the contacts for the next step; the
  /// contacts found by looking again join the canonical list.
  void store(const SolverSettings& s, TaskSystem& tasks);

  /// The pair (i, j) of a candidate: emit(a, b) in canonical order when it
  /// can touch within the step (keepSleeping: where either ball is awake,
  /// as an escapee's contacts; else where both are). Inline, for the
  /// escapee re-query too (contact_set_inl.hpp).
  template <class Emit>
  void addCandidate(const BodyStore& bodies, std::uint32_t i, std::uint32_t j, bool keepSleeping,
                    Emit&& emit) const;
  /// The walls ball i can reach within the step, each as emit(i, wall).
  template <class Emit>
  void addWalls(const BodyStore& bodies, const SolverSettings& s, std::uint32_t i,
                Emit&& emit) const;
  /// Contact c (index k in the store) prepared for solving.
  void makeRow(const BodyStore& bodies, const SolverSettings& s, const Contact& c, std::uint32_t k,
               Row& r) const;
  /// Whether the store holds a contact between c's bodies.
  [[nodiscard]] bool has(const Contact& c) const { return store_.contains(c); }
  /// The colour a new contact between a and b takes (ConstraintGraph::colour).
  std::uint8_t colour(const BodyStore& bodies, std::uint32_t a, std::uint32_t b) {
    return graph_.colour(bodies, a, b);
  }

  /// Forgets the persistent contacts (body indices changed).
  void forget() noexcept { store_.forget(graph_); }
  /// A step that failed (World::Impl::rollBack): the contacts and colours
  /// as the step found them (ContactStore::rollBack).
  void rollBack(const BodyStore& bodies) noexcept { store_.rollBack(bodies, graph_); }
  /// The step went through.
  void commit() noexcept { store_.commit(); }
  /// A body destroyed (ContactStore::removeBody).
  void removeBody(const BodyStore& bodies, std::uint32_t removed, std::uint32_t last) noexcept {
    store_.removeBody(bodies, graph_, removed, last);
  }
  /// Many bodies destroyed (ContactStore::beginRemovals): begin, then
  /// movedBody as each removal moves the last body, then end.
  void beginRemovals(const BodyStore& bodies, std::span<const std::uint32_t> removed) {
    store_.beginRemovals(bodies, graph_, removed);
  }
  void movedBody(std::uint32_t removed, std::uint32_t last) { graph_.moveBody(removed, last); }
  void endRemovals(const BodyStore& bodies) noexcept { store_.endRemovals(bodies, graph_); }
  /// Body i's type is about to change (ContactStore::dropBody).
  void dropContactsOf(const BodyStore& bodies, std::uint32_t i) noexcept {
    store_.dropBody(bodies, graph_, i);
  }
  /// True when the contacts are in canonical order, name bodies below `n`
  /// and hold exactly the colours the graph records (debug checks).
  [[nodiscard]] bool consistent(const BodyStore& bodies) const {
    return store_.consistent(bodies, graph_);
  }
  /// The colours each ball's contacts hold (for World::snapshot).
  [[nodiscard]] std::span<const std::uint64_t> colourUse() const noexcept { return graph_.use(); }
  /// Replaces what persists from step to step, the contacts and the colours
  /// they hold (World::restore; snapshot.cpp); the rest is the next step's
  /// scratch.
  void restoreState(std::vector<Contact> contacts, std::vector<std::uint64_t> colourUse) noexcept;
  /// A renumbering of the bodies (World::Impl::renumber): first room for
  /// `bodies` bodies' colours and for the contacts' renumbering (may
  /// throw); then the contacts and colours
  /// renumbered with the bodies (after them), keeping their impulses; an
  /// undone renumbering also trims the colours back to `colourEntries`.
  void coverColours(std::uint32_t bodies) {
    graph_.cover(bodies);
    store_.reserveRenumber();
  }
  [[nodiscard]] std::size_t colourEntries() const noexcept { return graph_.use().size(); }
  void renumber(const Permutation& p, Permutation::Direction d, const BodyStore& bodies) noexcept {
    store_.renumber(p, d, bodies);
    graph_.renumber(p, d);
  }
  void trimColours(std::size_t colourEntries) noexcept { graph_.trim(colourEntries); }
  /// The contacts of the last step, in canonical order.
  [[nodiscard]] std::span<const Contact> contacts() const noexcept { return store_.contacts(); }
  /// Colours the last step used (for tests and statistics).
  [[nodiscard]] std::uint32_t colourCount() const noexcept { return colourCount_; }
  /// Contacts the iterations pushed apart in the last step.
  [[nodiscard]] std::uint32_t pushedContacts() const noexcept { return pushed_; }

  ContactFilter filter;  // set by the world before each step
  /// The world's collision filters (set once by the world): the step's
  /// pairs come filtered, and the pairs found by looking again are
  /// filtered against them. Null: everything collides.
  const BodyFilters* filters = nullptr;

 private:
  void buildRows(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  // crowded_ from the last step's contacts (all 0 where there is a
  // restitution threshold): where kShiftReach applies.
  void markCrowded(const SolverSettings& s, std::uint32_t n, TaskSystem& tasks);

  StepRows& step_;
  ContactStore store_;     // the persistent contacts
  ConstraintGraph graph_;  // the colours the contacts hold
  std::uint32_t colourCount_ = 0;
  std::uint32_t pushed_ = 0;

  // Step scratch.
  // Per ball: 1 where one of its last step's contacts kept a shift impulse
  // (markCrowded, before build replaces the contacts).
  std::vector<std::uint8_t> crowded_;
  std::vector<Row> canonicalRows_;  // rows in contact order, before the counting sort
  OrderedBuffers<std::uint64_t> keyBuffers_;
  std::vector<std::uint64_t> keys_, keyScratch_;
  std::vector<std::uint32_t> radixCounts_;
  unsigned codeBits_ = 0;  // key = a << codeBits_ | code(b)
  OrderedBuffers<std::uint32_t> indexBuffers_;
  std::vector<std::uint32_t> chunkCounts_;
};

}  // namespace quadbin
