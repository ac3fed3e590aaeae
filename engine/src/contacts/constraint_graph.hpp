#pragma once
// Internal to the engine: the constraint graph, the contacts' colours.
//
// A colour is a batch of contacts that share no ball, so that a batch is
// one parallel loop of the solver. Each ball holds a bit per colour its
// contacts use; a new contact takes the lowest colour neither ball holds
// (static boxes, kinematic bodies and walls are never written by the
// solver, so they hold none), and a contact that ends gives its colour
// back. Contacts that find all kColours taken go to one more group,
// solved serially. Colours persist with the contacts, so that only the
// contacts that begin in a step are coloured (Box2D v3's constraint graph
// is the model; there, as here, a colour is a bit set per body).

#include <cstdint>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

class ConstraintGraph {
 public:
  /// Each ball's colours as `contacts` hold them, into `used` (zeroed
  /// first; static boxes, kinematic bodies and walls hold none).
  static void colourUseOf(std::span<const contacts::Contact> contacts, const BodyStore& bodies,
                          std::span<std::uint64_t> used) noexcept;

  /// Room for n balls (those past the old size hold no colour).
  void resize(std::size_t n) { used_.resize(n, 0); }
  /// The colour of a new contact of ball a and body b: the lowest one
  /// neither ball holds, now held by both; kColours where all are taken.
  std::uint8_t colour(const BodyStore& bodies, std::uint32_t a, std::uint32_t b) noexcept;
  /// A contact that ended gives its colour back; safe to call from several
  /// threads at once (each bit cleared by an atomic AND).
  void giveBackConcurrently(const contacts::Contact& gone) noexcept;
  /// Ball i no longer holds `colour` (a contact of it ended).
  void giveBack(std::uint32_t i, std::uint8_t colour) noexcept;
  /// After `bodies.swapRemove(removed)` moved the body at `last` to
  /// `removed`: its colours move with it, and the last entry goes.
  void moveBody(std::uint32_t removed, std::uint32_t last);
  /// The colours as `contacts` hold them (after a rollback).
  void rebuild(std::span<const contacts::Contact> contacts, const BodyStore& bodies) noexcept {
    colourUseOf(contacts, bodies, used_);
  }
  /// No ball holds a colour (the contacts were forgotten).
  void clear() noexcept;
  /// True when the balls hold exactly the colours `contacts` use.
  [[nodiscard]] bool matches(std::span<const contacts::Contact> contacts,
                             const BodyStore& bodies) const;
  /// The colours each ball holds (for World::snapshot).
  [[nodiscard]] std::span<const std::uint64_t> use() const noexcept { return used_; }
  /// Replaces them (World::restore, checked against the contacts first).
  void restore(std::vector<std::uint64_t> use) noexcept { used_ = std::move(use); }
  /// An entry for each of `n` bodies (0 for those without one), before a
  /// renumbering (may throw); trim(n) takes the list back to n entries.
  void cover(std::size_t n) {
    if (used_.size() < n) used_.resize(n, 0);
  }
  void trim(std::size_t n) noexcept {
    if (used_.size() > n) used_.resize(n);
  }
  /// The colours each ball's contacts hold move with the ball (cover first).
  void renumber(const Permutation& p, Permutation::Direction d) noexcept { p.move(used_, d); }

 private:
  std::vector<std::uint64_t> used_;  // per ball: the colours its contacts hold
};

}  // namespace quadbin
