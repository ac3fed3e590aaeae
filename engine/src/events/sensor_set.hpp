#pragma once
// Internal to the engine: sensors (BodyDef::isSensor) and the contact filter
// that keeps sensors and World::setPreSolve's vetoes out of the solver.
//
// A sensor has no contacts at all (ContactFilter drops every pair with one),
// apart from a sensor ball's walls. After the step, the broad phase's
// candidate pairs that hold one sensor and one non-sensor ball are tested:
// the ball's straight path of the step, in the sensor's frame, against the
// sensor's shape (sensor_sweep.hpp: it touched during the step), and its
// end position (it overlaps at the end). The touches, sorted by (sensor
// slot, visitor slot), are compared with the last step's overlaps to make
// begin and end events; a ball that touched but no longer overlaps makes
// both in one step. The cost is one pass over the candidate pairs, in
// parallel, and only in worlds that have a sensor.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/body.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

/// A sensor and a ball overlapping it, by (slot, generation).
struct SensorKey {
  std::uint32_t sensorSlot, sensorGen, visitorSlot, visitorGen;
  friend constexpr bool operator<(const SensorKey& l, const SensorKey& r) noexcept {
    if (l.sensorSlot != r.sensorSlot) return l.sensorSlot < r.sensorSlot;
    if (l.visitorSlot != r.visitorSlot) return l.visitorSlot < r.visitorSlot;
    if (l.sensorGen != r.sensorGen) return l.sensorGen < r.sensorGen;
    return l.visitorGen < r.visitorGen;
  }
  friend constexpr bool operator==(const SensorKey&, const SensorKey&) noexcept = default;
};

/// The world's ids for dense indices (what events and callbacks name).
struct IdMap {
  std::span<const std::uint32_t> slotOf;      // dense -> slot
  std::span<const std::uint32_t> generation;  // slot -> generation
  std::uint32_t worldId = 0;
  [[nodiscard]] BodyId id(std::uint32_t dense) const noexcept {
    const std::uint32_t slot = slotOf[dense];
    return {slot, generation[slot], worldId};
  }
};

/// ContactFilter's context: drops pairs with a sensor, then asks the
/// pre-solve callback (if any).
struct ContactGate {
  const BodyStore* bodies = nullptr;
  IdMap ids;
  const PreSolveFn* preSolve = nullptr;  // null or empty: no callback
  /// The filter for this gate, or an unset one when nothing is filtered.
  [[nodiscard]] ContactFilter filter() const noexcept;
  static bool allows(const void* context, std::uint32_t a, std::uint32_t b);
};

/// A sensor and a ball that touched it during the step, and whether they
/// still overlap at its end.
struct SensorTouch {
  SensorKey key;
  bool atEnd;
  friend constexpr bool operator<(const SensorTouch& l, const SensorTouch& r) noexcept {
    return l.key < r.key;
  }
};

class SensorSet {
 public:
  /// The touches and overlaps of this step, from the step's candidate pairs
  /// and the positions at its start (px0, py0, dense order) and end, and
  /// the events against the last step's overlaps (plus the pending ends of
  /// destroyed bodies), made aside: commit() makes them current.
  void update(const BodyStore& bodies, std::span<const float> px0, std::span<const float> py0,
              std::span<const Pair> pairs, const IdMap& ids, TaskSystem& tasks);
  /// A step in which nothing moved: the same overlaps, only pending ends.
  void updateAsleep(std::uint32_t worldId);
  /// The step succeeded: its overlaps and events become current.
  void commit() noexcept;
  /// destroyBody: the body's overlaps end at the next step.
  void forgetBody(std::uint32_t slot);
  /// The body at `slot` is no longer a ball that sensors see (World::setType
  /// made it kinematic): its overlaps as a visitor end, as forgetBody's do.
  void forgetVisitor(std::uint32_t slot);
  /// restore (and the world's last events cleared).
  void restoreState(std::vector<SensorKey> overlaps, std::vector<SensorKey> pendingEnd) noexcept;

  [[nodiscard]] std::span<const SensorEvent> beginEvents() const noexcept { return begin_; }
  [[nodiscard]] std::span<const SensorEvent> endEvents() const noexcept { return end_; }
  /// What a snapshot carries: the last step's overlaps (sorted) and the
  /// ends waiting for the next step (sorted).
  [[nodiscard]] std::span<const SensorKey> overlaps() const noexcept { return overlaps_; }
  [[nodiscard]] std::span<const SensorKey> pendingEnd() const noexcept { return pendingEnd_; }

 private:
  // The overlaps for which gone(key) holds end: they leave overlaps_ for
  // pendingEnd_ (their end events at the next step).
  template <class Gone>
  void endOverlaps(Gone gone);
  void makeEvents(std::uint32_t worldId);
  std::vector<SensorKey> overlaps_, next_, pendingEnd_;
  std::vector<SensorTouch> touched_;  // this step's, sorted
  std::vector<SensorEvent> begin_, end_, nextBegin_, nextEnd_;
  bool nextValid_ = false;  // touched_ holds this step's touches
  OrderedBuffers<SensorTouch> buffers_;
};

/// Working space of EventGeometry::hits' sort, kept by the world (no
/// allocation in a warm step).
struct HitSortSpace {
  std::vector<std::uint64_t> keys, scratch;
  std::vector<std::uint32_t> counts;
  std::vector<ContactHitEvent> sorted;
  std::vector<std::uint8_t> inOrder;  // per chunk of contacts: its hits came out sorted
};

/// Begin events' geometry (ContactEvent's point, normal, approachSpeed)
/// and hit events, from the end-of-step positions and the start-of-step
/// velocities v0x, v0y (dense order).
struct EventGeometry {
  const BodyStore& bodies;
  std::span<const float> v0x, v0y;       // velocities before the step's gravity
  std::span<const std::uint8_t> awake0;  // balls the step's gravity reached
  Vec2 gravityStep;                      // gravity * dt
  AABB bounds;
  [[nodiscard]] Vec2 startVelocity(std::uint32_t i) const noexcept {
    const Vec2 v{v0x[i], v0y[i]};
    return awake0[i] != 0 ? v + gravityStep : v;
  }
  /// Fills e's geometry; a and b are dense indices of e.a and e.b.
  void fill(ContactEvent& e, std::uint32_t a, std::uint32_t b) const noexcept;
  /// Hit events from the step's contacts, sorted by (a.index, b.index), a
  /// wall after every body.
  void hits(std::span<const contacts::Contact> contacts, const IdMap& ids, float threshold,
            OrderedBuffers<ContactHitEvent>& buffers, HitSortSpace& space,
            std::vector<ContactHitEvent>& out, TaskSystem& tasks) const;
  /// What circleHit knows of a contact: no hit, a hit (made), or ask fill.
  enum class Verdict : std::uint8_t { kNoHit, kHit, kUnsure };
  /// The fast answer for a contact of two circles a and b.
  [[nodiscard]] Verdict circleHit(std::uint32_t a, std::uint32_t b, const IdMap& ids,
                                  float threshold, ContactHitEvent& h) const noexcept;
  /// The hit event of contact c, if it is one.
  [[nodiscard]] bool hit(const contacts::Contact& c, const IdMap& ids, float threshold,
                         ContactHitEvent& h) const noexcept;
};

}  // namespace quadbin
