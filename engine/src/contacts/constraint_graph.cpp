#include "contacts/constraint_graph.hpp"

#include <algorithm>
#include <atomic>
#include <bit>

namespace quadbin {

using contacts::isWall;
using contacts::kColours;

void ConstraintGraph::colourUseOf(std::span<const contacts::Contact> contacts,
                                  const BodyStore& bodies, std::span<std::uint64_t> used) noexcept {
  std::fill(used.begin(), used.end(), std::uint64_t{0});
  for (const contacts::Contact& c : contacts) {
    if (c.colour >= kColours) continue;
    const std::uint64_t bit = std::uint64_t{1} << c.colour;
    if (c.a < used.size()) used[c.a] |= bit;
    if (!isWall(c.b) && c.b < used.size() && bodies.isBall(c.b)) used[c.b] |= bit;
  }
}

std::uint8_t ConstraintGraph::colour(const BodyStore& bodies, std::uint32_t a,
                                     std::uint32_t b) noexcept {
  const bool ballB = !isWall(b) && bodies.isBall(b);
  const std::uint64_t taken = used_[a] | (ballB ? used_[b] : 0);
  if (taken == ~std::uint64_t{0}) return static_cast<std::uint8_t>(kColours);
  const auto colour = static_cast<std::uint32_t>(std::countr_zero(~taken));
  const std::uint64_t bit = std::uint64_t{1} << colour;
  used_[a] |= bit;
  if (ballB) used_[b] |= bit;
  return static_cast<std::uint8_t>(colour);
}

void ConstraintGraph::giveBackConcurrently(const contacts::Contact& gone) noexcept {
  if (gone.colour >= kColours) return;
  const std::uint64_t keep = ~(std::uint64_t{1} << gone.colour);
  if (gone.a < used_.size()) {
    std::atomic_ref<std::uint64_t>(used_[gone.a]).fetch_and(keep, std::memory_order_relaxed);
  }
  if (gone.b < used_.size()) {
    std::atomic_ref<std::uint64_t>(used_[gone.b]).fetch_and(keep, std::memory_order_relaxed);
  }
}

void ConstraintGraph::giveBack(std::uint32_t i, std::uint8_t colour) noexcept {
  if (colour < kColours && i < used_.size()) used_[i] &= ~(std::uint64_t{1} << colour);
}

void ConstraintGraph::moveBody(std::uint32_t removed, std::uint32_t last) {
  if (removed != last && removed < used_.size()) {
    used_[removed] = last < used_.size() ? used_[last] : 0;
  }
  if (used_.size() > last) used_.resize(last);
}

void ConstraintGraph::clear() noexcept { std::fill(used_.begin(), used_.end(), std::uint64_t{0}); }

bool ConstraintGraph::matches(std::span<const contacts::Contact> contacts,
                              const BodyStore& bodies) const {
  std::vector<std::uint64_t> held(used_.size());
  colourUseOf(contacts, bodies, held);
  return held == used_;
}

}  // namespace quadbin
