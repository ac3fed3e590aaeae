#pragma once
// Internal to the engine: the escapee re-query, a stage of the solve of its
// own. After each round of impacts, the awake balls that the impacts made
// faster than their swept box allowed (escapees) may reach bodies the broad
// phase did not pair them with: their bigger boxes are queried against the
// broad phase, and the contacts found that the step does not have yet join
// it (StepRows::extra, coloured), for the impacts from then on.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"
#include "contacts/contact_set.hpp"
#include "solver/solver_settings.hpp"
#include "solver/step_rows.hpp"

namespace quadbin {

class EscapeeQuery {
 public:
  using Contact = contacts::Contact;
  /// Rounds of "impacts, then look again for balls that outran their box".
  static constexpr std::uint32_t kRounds = 4;

  /// The step's rows, shared with the solvers (set once by the world).
  explicit EscapeeQuery(StepRows& step) : step_(step) {}

  /// Every ball whose box grew in this step's solve (the broad phase
  /// still holds its old box).
  [[nodiscard]] std::span<const std::uint32_t> grown() const noexcept { return escapees_; }
  /// The start of the solve: no escapee yet.
  void beginSolve() noexcept {
    escapees_.clear();
    lookedAt_ = 0;
    extraSorted_.clear();
  }
  /// Finds the awake balls that the impacts made faster than their swept
  /// box allowed (not found before in this step); returns how many.
  std::uint32_t find(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// The balls find() found last get bigger boxes (written into `boxes`,
  /// the swept boxes the broad phase holds), queried against the broad
  /// phase; the contacts found that the step does not have yet join it,
  /// coloured by the contact set, for the impacts from now on. A sleeping
  /// ball in the way wakes.
  void lookAgain(BodyStore& bodies, const SolverSettings& s, const BroadPhase& broad,
                 std::vector<AABB>& boxes, ContactSet& contacts, TaskSystem& tasks);

  bool warned = false;  // the world warned once of escapees the rounds left

 private:
  StepRows& step_;
  std::vector<std::uint32_t> escapees_;  // every ball whose box grew this step
  std::size_t lookedAt_ = 0;             // escapees_[lookedAt_..]: found last
  std::vector<Contact> batch_;           // one look-again's new contacts
  std::vector<Contact> extraSorted_;     // the step's extra contacts, sorted
  OrderedBuffers<std::uint32_t> indexBuffers_;
  OrderedBuffers<Contact> extraBuffers_;
};

}  // namespace quadbin
