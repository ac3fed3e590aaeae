// World::optimizeLayout and WorldDef::autoLayout: the bodies renumbered in
// a Morton order of their centres (space_order.hpp), so that a step's work
// on neighbours touches nearby memory. Every column is renumbered in place
// (bodies/permutation.hpp): no copy of the world is made, and a step that
// fails after the renumbering undoes it bit for bit.
#include <optional>
#include <utility>
#include <vector>

#include "world/world_impl.hpp"

namespace quadbin {

void World::optimizeLayout() {
  Impl& w = live();
  const auto use = w.claimChange();
  w.reorderBodies();
}

void World::Impl::reorderBodies() {
  std::optional<Renumbering> r = renumbering();
  if (r) renumber(*r, Permutation::Direction::Apply);
}

std::optional<Renumbering> World::Impl::renumbering() {
  std::vector<std::uint32_t> order = space_order::mortonOrder(bodies);
  if (order.empty()) return std::nullopt;  // already in order: keep the warm start
  std::optional<Renumbering> r(std::in_place);
  r->permutation.assign(std::move(order));
  r->colourEntries = contactSet.colourEntries();
  // (Bodies created since the last step have no contacts, and no entry yet.)
  contactSet.coverColours(r->permutation.size());
  return r;
}

// Ids, state, filters and user data move with each body; the solver's
// persistent contacts keep their impulses and colours under the new
// numbering (a pair of balls whose order flips swaps its ends:
// contacts::orient), so the next step is warm started as if nothing had
// happened. Touching pairs and sensor overlaps are kept by slot: no begin
// or end event either.
void World::Impl::renumber(const Renumbering& r, Permutation::Direction d) noexcept {
  bodies.renumber(r.permutation, d);
  filters.renumber(r.permutation, d);
  ids.renumber(r.permutation, d);
  contactSet.renumber(r.permutation, d, bodies);
  if (d == Permutation::Direction::Undo) contactSet.trimColours(r.colourEntries);
  markChanged();
}

}  // namespace quadbin
