#pragma once
// Internal to the engine: each body's collision filter and user data, in
// dense order beside the BodyStore (docs/filtering.md).
//
// Pairs are filtered where the world takes them from the broad phase
// (World::Impl::findPairs): a pair the filters reject never reaches the
// narrow phase, so it is neither a contact nor wakes anything. The narrow
// phase's second look for fast balls (EscapeeQuery::lookAgain) asks
// `collide` as well. While every body has the default filter (the common
// case) nothing is looked at: `active()` is false and filterPairs returns
// at once, so such worlds step exactly as before filters existed.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/body.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <vector>

#include "bodies/permutation.hpp"

namespace quadbin {

struct BodyFilters {
  std::vector<Filter> filter;           // per body: category, mask, group
  std::vector<std::uint64_t> userData;  // per body: the game's value, never read here
  std::uint32_t custom = 0;             // bodies whose filter is not the default

  [[nodiscard]] std::size_t size() const noexcept { return filter.size(); }
  /// Some body has a filter other than the default: pairs must be tested.
  [[nodiscard]] bool active() const noexcept { return custom != 0; }
  /// Whether dense bodies i and j collide (Filter's rule).
  [[nodiscard]] bool collide(std::uint32_t i, std::uint32_t j) const noexcept {
    return shouldCollide(filter[i], filter[j]);
  }
  /// Whether dense bodies a and b may make a pair at all: both enabled
  /// (`enabled`: BodyStore's column) and their filters collide. The one
  /// test of filterPairs and of the solver's second look.
  [[nodiscard]] bool keeps(std::span<const std::uint8_t> enabled, std::uint32_t a,
                           std::uint32_t b) const noexcept {
    return (enabled[a] & enabled[b]) != 0 && collide(a, b);
  }
  /// Whether a query with `q` reports dense body i (QueryFilter's rule;
  /// the ignored body is the caller's).
  [[nodiscard]] bool accepts(const QueryFilter& q, std::uint32_t i) const noexcept {
    return (filter[i].categoryBits & q.maskBits) != 0 && (filter[i].maskBits & q.categoryBits) != 0;
  }

  void push(const Filter& f, std::uint64_t user);
  void reserve(std::size_t count);
  /// createBodies' bulk path, as BodyStore's: resize, set by index (in
  /// parallel), then finishBulk(from) counts the custom filters from `from`.
  void resize(std::size_t count);
  void set(std::uint32_t i, const Filter& f, std::uint64_t user) noexcept {
    filter[i] = f;
    userData[i] = user;
  }
  void finishBulk(std::size_t from) noexcept;
  void setFilter(std::uint32_t i, const Filter& f) noexcept;
  /// Removes body i; the last body takes its index (as BodyStore::swapRemove).
  void swapRemove(std::uint32_t i) noexcept;
  /// Renumbers the bodies in place (p applied or undone).
  void renumber(const Permutation& p, Permutation::Direction d) noexcept;
  /// Takes another's filters and user data (World::restore) and recounts.
  void assign(BodyFilters&& other) noexcept;

  /// Removes from `pairs` those whose bodies do not collide or of which a
  /// body is disabled (`enabled`: BodyStore's column), keeping the order
  /// of the rest (the same for any thread count). Does nothing while no
  /// body has a custom filter and none is disabled.
  void filterPairs(std::vector<Pair>& pairs, std::span<const std::uint8_t> enabled,
                   bool someDisabled, TaskSystem& tasks);

 private:
  OrderedBuffers<Pair> kept_;  // step scratch: the pairs each chunk keeps
};

}  // namespace quadbin
