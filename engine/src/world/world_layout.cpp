// World::optimizeLayout: the bodies renumbered in a Morton order of their
// centres, so that a step's work on neighbours touches nearby memory.
#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "world/world_impl.hpp"

namespace quadbin {

namespace {

// The 16 bits of x spread to the even bits of a 32-bit word.
std::uint32_t spread(std::uint32_t x) noexcept {
  x &= 0xffffu;
  x = (x | (x << 8)) & 0x00ff00ffu;
  x = (x | (x << 4)) & 0x0f0f0f0fu;
  x = (x | (x << 2)) & 0x33333333u;
  x = (x | (x << 1)) & 0x55555555u;
  return x;
}

// The solver's persistent contacts under the new numbering, in their
// canonical order: each pair keeps its impulses and colour, so the next
// step is warm started as if nothing had happened. A pair of balls whose
// order flips swaps its ends (contacts::orient). The colours each
// ball's contacts hold move with the ball.
void renumberContacts(std::span<const contacts::Contact> from, std::span<const std::uint64_t> used,
                      const std::vector<std::uint32_t>& newIndex, const BodyStore& renumbered,
                      std::vector<contacts::Contact>& contacts,
                      std::vector<std::uint64_t>& colourUse) {
  const auto n = static_cast<std::uint32_t>(newIndex.size());
  contacts.assign(from.begin(), from.end());
  for (contacts::Contact& c : contacts) {
    c.a = newIndex[c.a];
    if (contacts::isWall(c.b)) continue;
    c.b = newIndex[c.b];
    contacts::orient(c, renumbered);
  }
  std::sort(contacts.begin(), contacts.end());
  // (Bodies created since the last step have no contacts, and no entry yet.)
  colourUse.assign(std::max<std::size_t>(used.size(), n), 0);
  for (std::uint32_t i = 0; i < n && i < used.size(); ++i) colourUse[newIndex[i]] = used[i];
}

}  // namespace

void World::optimizeLayout() {
  Impl& w = live();
  const auto use = w.claimChange();
  w.reorderBodies();
}

void World::Impl::reorderBodies() {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  if (n < 2) return;
  float minX = bodies.px[0], maxX = minX, minY = bodies.py[0], maxY = minY;
  for (std::uint32_t i = 1; i < n; ++i) {
    minX = std::min(minX, bodies.px[i]);
    maxX = std::max(maxX, bodies.px[i]);
    minY = std::min(minY, bodies.py[i]);
    maxY = std::max(maxY, bodies.py[i]);
  }
  // Cells of a 65,536 x 65,536 grid over the centres' extent; the key is
  // the cell's Morton code, then the body's index (ties keep their order).
  constexpr double kCells = 65535.0;
  const double sx = maxX > minX ? kCells / (double{maxX} - minX) : 0.0;
  const double sy = maxY > minY ? kCells / (double{maxY} - minY) : 0.0;
  std::vector<std::uint64_t> keys(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto cx = static_cast<std::uint32_t>((double{bodies.px[i]} - minX) * sx);
    const auto cy = static_cast<std::uint32_t>((double{bodies.py[i]} - minY) * sy);
    const std::uint64_t morton = spread(cx) | (spread(cy) << 1);
    keys[i] = morton << 32 | i;
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> order(n), newIndex(n);
  bool same = true;
  for (std::uint32_t k = 0; k < n; ++k) {
    order[k] = static_cast<std::uint32_t>(keys[k]);
    newIndex[order[k]] = k;
    same = same && order[k] == k;
  }
  if (same) return;  // already in order: keep the warm start
  // Renumbered copies first: if one cannot be made, the world is unchanged.
  BodyStore nextBodies = bodies;
  nextBodies.permute(order, newIndex);
  BodyFilters nextFilters = filters;
  nextFilters.permute(order);
  std::vector<std::uint32_t> slots = ids.renumbered(order);
  std::vector<contacts::Contact> contacts;
  std::vector<std::uint64_t> colourUse;
  renumberContacts(contactSet.contacts(), contactSet.colourUse(), newIndex, nextBodies, contacts,
                   colourUse);
  // Nothing throws from here on.
  bodies = std::move(nextBodies);
  filters.assign(std::move(nextFilters));
  ids.adopt(std::move(slots));
  // Touching pairs are kept by slot: no begin or end event either.
  contactSet.restoreState(std::move(contacts), std::move(colourUse));
  markChanged();
}

}  // namespace quadbin
