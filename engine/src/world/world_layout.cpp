// World::optimizeLayout and WorldDef::autoLayout: the bodies renumbered in
// a Morton order of their centres (space_order.hpp), so that a step's work
// on neighbours touches nearby memory. Every column is renumbered in place
// (bodies/permutation.hpp): no copy of the world is made, and a step that
// fails after the renumbering undoes it bit for bit.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "bodies/kept_scratch.hpp"
#include "world/world_impl.hpp"

namespace quadbin {

void World::optimizeLayout() {
  Impl& w = live();
  const auto use = w.claimChange();
  w.reorderBodies();
}

void World::setBodyOrder(std::span<const BodyId> order) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t n = w.ids.size();
  if (order.size() != n) {
    w.refuse(fmt::format("setBodyOrder: {} ids for {} bodies", order.size(), n));
  }
  // Each id checked (valid, not repeated) by its slot: the slots of a
  // world that was renumbered are scattered, so they are fetched ahead.
  std::vector<std::uint32_t> dense(n);
  std::vector<std::uint8_t> seen(n, 0);
  const std::span<const std::uint32_t> denseOf = w.ids.denseOf();
  const std::span<const std::uint32_t> generation = w.ids.generation();
  constexpr std::uint32_t kAhead = 16;
  bool same = true;
  for (std::uint32_t k = 0; k < n; ++k) {
    if (k + kAhead < n) {
      const std::uint32_t slot = order[k + kAhead].index;
      if (slot < denseOf.size()) {
        __builtin_prefetch(&denseOf[slot]);
        __builtin_prefetch(&generation[slot]);
      }
    }
    const BodyId id = order[k];
    const std::uint32_t i =
        w.isValid(id) ? w.ids.dense(id) : w.denseIndex(id, "setBodyOrder");  // (refuses)
    if (seen[i] != 0) w.refuse(fmt::format("setBodyOrder: order[{}] repeats a body", k));
    seen[i] = 1;
    dense[k] = i;
    same = same && i == k;
  }
  if (same) return;  // already in place: keep the warm start as it is
  Renumbering r;
  r.permutation.assign(std::move(dense));
  w.prepare(r);
  w.renumber(r, Permutation::Direction::Apply);
}

void World::setBodyOrder(std::span<const std::uint32_t> at, std::span<const BodyId> bodies) {
  Impl& w = live();
  const auto use = w.claimChange();
  const std::uint32_t n = w.ids.size();
  if (at.size() != bodies.size()) {
    w.refuse(fmt::format("setBodyOrder: {} indices for {} bodies", at.size(), bodies.size()));
  }
  std::vector<std::uint32_t> from(bodies.size());
  bool same = true;
  for (std::size_t k = 0; k < at.size(); ++k) {
    if (at[k] >= n) {
      w.refuse(fmt::format("setBodyOrder: at[{}] = {} for {} bodies", k, at[k], n));
    }
    from[k] = w.denseIndex(bodies[k], "setBodyOrder");
    same = same && from[k] == at[k];
  }
  // The bodies must be those now at `at`, each index once: every index of
  // `at` marked once, then every body's index found marked, once (marks by
  // dense index, kept at zero between calls and cleared at `at` on the
  // way out: the bodies named are the only ones touched).
  std::vector<std::uint8_t>& marks = w.orderMarks;
  if (marks.size() < n) marks.resize(n, 0);
  const ClearedMarks clear(marks, at);  // (a body's mark is set only at an index of `at`)
  for (const std::uint32_t i : at) {
    if (marks[i] != 0) w.refuse("setBodyOrder: an index of `at` repeats");
    marks[i] = 1;
  }
  for (const std::uint32_t i : from) {
    if (marks[i] != 1) w.refuse("setBodyOrder: the bodies are not those at the indices given");
    marks[i] = 2;
  }
  if (same) return;  // already in place
  // The index maps from the world's spare (the identity, kept between
  // calls): a border's renumbering every step costs no n-long fill.
  Renumbering r;
  r.permutation.assign(n, at, from, w.spareMaps);
  struct GiveBack {
    Renumbering& r;
    Permutation::Spare& spare;
    ~GiveBack() { r.permutation.giveBack(spare); }
  } giveBack{r, w.spareMaps};
  w.prepare(r);
  w.renumber(r, Permutation::Direction::Apply);
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
  prepare(*r);
  return r;
}

void World::Impl::prepare(Renumbering& r) {
  bodies.reserveRenumber(r.permutation);
  r.colourEntries = contactSet.colourEntries();
  // (Bodies created since the last step have no contacts, and no entry yet.)
  contactSet.coverColours(r.permutation.size());
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
