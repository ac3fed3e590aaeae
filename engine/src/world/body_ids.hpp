#pragma once
// Internal to the engine: the bodies' handles. A BodyId names a slot and
// the slot's generation; bodies live at dense indices (the BodyStore's
// order), which change when a body is destroyed (the last one takes its
// place) or the world is renumbered (World::optimizeLayout). This room
// maps one to the other and hands out slots: a destroyed body's slot is
// reused, one generation later, so that an old handle to it is refused.

#include <cstdint>
#include <quadbin/engine/body.hpp>
#include <span>
#include <string>
#include <vector>

#include "bodies/permutation.hpp"

namespace quadbin {

/// A body id as refusal messages name it (world.cpp).
std::string describe(BodyId id);

class BodyIds {
 public:
  /// A slot with no body, or a body with no slot.
  static constexpr std::uint32_t kNone = UINT32_MAX;

  /// Live bodies (dense indices 0 .. size() - 1).
  [[nodiscard]] std::uint32_t size() const noexcept {
    return static_cast<std::uint32_t>(slotOf_.size());
  }
  /// Slots ever handed out (live and free).
  [[nodiscard]] std::uint32_t slotCount() const noexcept {
    return static_cast<std::uint32_t>(denseOf_.size());
  }
  /// dense index -> slot.
  [[nodiscard]] std::span<const std::uint32_t> slotOf() const noexcept { return slotOf_; }
  /// slot -> dense index, kNone for a free slot.
  [[nodiscard]] std::span<const std::uint32_t> denseOf() const noexcept { return denseOf_; }
  /// slot -> its generation (bumped each time its body is destroyed).
  [[nodiscard]] std::span<const std::uint32_t> generation() const noexcept { return generation_; }
  /// The free slots, the next one handed out last.
  [[nodiscard]] std::span<const std::uint32_t> freeSlots() const noexcept { return freeSlots_; }

  /// True when `id` names a live body of the world `world`.
  [[nodiscard]] bool isValid(BodyId id, std::uint32_t world) const noexcept {
    return id.world == world && id.index < denseOf_.size() && denseOf_[id.index] != kNone &&
           generation_[id.index] == id.generation;
  }
  /// The dense index of a valid id's body.
  [[nodiscard]] std::uint32_t dense(BodyId id) const noexcept { return denseOf_[id.index]; }
  /// The handle of the body at dense index i.
  [[nodiscard]] BodyId idAt(std::uint32_t i, std::uint32_t world) const noexcept {
    const std::uint32_t slot = slotOf_[i];
    return {slot, generation_[slot], world};
  }

  /// A new body at dense index size(): the last free slot, or a new one.
  /// Returns its slot.
  std::uint32_t add();
  /// The body of `id` (at dense index `dense`) is gone and the last body
  /// took its dense index (BodyStore::swapRemove); its slot is free, one
  /// generation on.
  void remove(BodyId id, std::uint32_t dense);
  /// Room for `count` more removals (remove then allocates nothing).
  void reserveRemovals(std::size_t count);

  /// createBodies: room for `count` more bodies (the only part that may
  /// throw), then bulkSlot(k) for each k < count (in parallel, each k
  /// once), then finishBulk().
  void reserveBulk(std::size_t count);
  /// The k-th new body's slot, as add() would hand them out one call
  /// after another, mapped to dense index firstNew + k.
  std::uint32_t bulkSlot(std::size_t k, std::uint32_t firstNew) noexcept;
  void finishBulk() noexcept;

  /// The bodies renumbered in place (p applied or undone): each keeps its slot.
  void renumber(const Permutation& p, Permutation::Direction d) noexcept;
  /// Replaces everything (World::restore, checked first).
  void restore(std::vector<std::uint32_t> slotOf, std::vector<std::uint32_t> denseOf,
               std::vector<std::uint32_t> generation,
               std::vector<std::uint32_t> freeSlots) noexcept;

 private:
  std::vector<std::uint32_t> slotOf_;   // dense index -> slot
  std::vector<std::uint32_t> denseOf_;  // slot -> dense index, kNone when free
  std::vector<std::uint32_t> generation_;
  std::vector<std::uint32_t> freeSlots_;
  std::size_t bulkReused_ = 0;       // reserveBulk: free slots the bulk takes
  std::uint32_t bulkFirstSlot_ = 0;  // reserveBulk: the first new slot
};

}  // namespace quadbin
