#include "world/body_ids.hpp"

#include <algorithm>

#include "bodies/capacity.hpp"

namespace quadbin {

std::uint32_t BodyIds::add() {
  std::uint32_t slot = 0;
  if (!freeSlots_.empty()) {
    slot = freeSlots_.back();
  } else {
    slot = slotCount();
    reserveGrowing(denseOf_, denseOf_.size() + 1);
    reserveGrowing(generation_, generation_.size() + 1);
  }
  slotOf_.push_back(slot);  // the one step that may throw, before any change
  if (!freeSlots_.empty()) {
    freeSlots_.pop_back();
  } else {
    denseOf_.push_back(kNone);
    generation_.push_back(0);
  }
  denseOf_[slot] = size() - 1;
  return slot;
}

void BodyIds::remove(BodyId id, std::uint32_t dense) {
  const std::uint32_t last = size() - 1;
  reserveGrowing(freeSlots_, freeSlots_.size() + 1);  // may throw: nothing changed yet
  const std::uint32_t moved = slotOf_[last];
  slotOf_[dense] = moved;
  denseOf_[moved] = dense;
  slotOf_.pop_back();
  denseOf_[id.index] = kNone;
  ++generation_[id.index];
  freeSlots_.push_back(id.index);
}

void BodyIds::reserveRemovals(std::size_t count) {
  reserveGrowing(freeSlots_, freeSlots_.size() + count);
}

void BodyIds::reserveBulk(std::size_t count) {
  bulkReused_ = std::min(count, freeSlots_.size());
  bulkFirstSlot_ = slotCount();
  const std::size_t slots = denseOf_.size() + count - bulkReused_;
  reserveGrowing(slotOf_, slotOf_.size() + count);
  reserveGrowing(denseOf_, slots);
  reserveGrowing(generation_, slots);
  slotOf_.resize(slotOf_.size() + count);
  denseOf_.resize(slots, kNone);
  generation_.resize(slots, 0);
}

std::uint32_t BodyIds::bulkSlot(std::size_t k, std::uint32_t firstNew) noexcept {
  const std::uint32_t slot = k < bulkReused_
                                 ? freeSlots_[freeSlots_.size() - 1 - k]
                                 : bulkFirstSlot_ + static_cast<std::uint32_t>(k - bulkReused_);
  const auto dense = firstNew + static_cast<std::uint32_t>(k);
  slotOf_[dense] = slot;
  denseOf_[slot] = dense;
  return slot;
}

void BodyIds::finishBulk() noexcept {
  freeSlots_.resize(freeSlots_.size() - bulkReused_);
  bulkReused_ = 0;
}

void BodyIds::renumber(const Permutation& p, Permutation::Direction d) noexcept {
  p.move(slotOf_, d);
  p.forEachMoved([&](std::uint32_t k) { denseOf_[slotOf_[k]] = k; });
}

void BodyIds::restore(std::vector<std::uint32_t> slotOf, std::vector<std::uint32_t> denseOf,
                      std::vector<std::uint32_t> generation,
                      std::vector<std::uint32_t> freeSlots) noexcept {
  slotOf_ = std::move(slotOf);
  denseOf_ = std::move(denseOf);
  generation_ = std::move(generation);
  freeSlots_ = std::move(freeSlots);
}

}  // namespace quadbin
