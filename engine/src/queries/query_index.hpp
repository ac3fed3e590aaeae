#pragma once
// The spatial queries' view of the bodies (world_queries.cpp): their tight
// boxes, taken once by the first query after anything moved (a refill of
// the delta's index; the broad phase takes them only when a query needs
// it), and the bodies changed since, which the queries check apart until
// there are too many (query_delta.hpp). Queries from many threads at once
// are safe: the first refreshes under the lock, the rest wait for it and
// then only read.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "queries/query_delta.hpp"

namespace quadbin {

// The world's broad phase, which the queries fill with the refill's boxes,
// and the empty one of the same type that takes its place when that update
// throws half way.
struct QueryStructure {
  std::unique_ptr<BroadPhase>& broad;
  std::unique_ptr<BroadPhase>& spare;
};

class QueryIndex {
 public:
  // Everything changed: bodies added, removed or reordered, the broad phase
  // replaced.
  void invalidate() noexcept {
    stepped_ = false;
    delta_.invalidate();
    fresh_.store(false, std::memory_order_release);
  }
  // Bodies from which a step's broad phase is worth taking (stepped()):
  // fewer refill in a fraction of a millisecond.
  static constexpr std::uint32_t kAdoptFrom = 16384;
  // A step went through: the broad phase holds `held`, the step's box of
  // each dense body, but for `grown` (boxes the step replaced after the
  // broad phase took them). The next refresh takes it as the structure,
  // with the bodies whose tight box `held` does not contain in the delta,
  // instead of refilling (a game that moves or creates one body between
  // two steps of a large world pays O(n) cleared memory, not a pass over
  // every body's box). The spans are the step's own and read before
  // anything else changes: any change first (changed(), invalidate())
  // drops them.
  void stepped(std::span<const AABB> held, std::span<const std::uint32_t> grown) noexcept {
    stepped_ = true;
    held_ = held;
    grown_ = grown;
  }
  // Only the tight boxes of dense bodies [first, end) changed: queries see
  // them through the delta, refilling the structure only when it is full.
  void changed(std::uint32_t first, std::uint32_t end, const BodyStore& bodies) noexcept {
    stepped_ = false;  // (the delta is not built: the next refresh refills)
    delta_.changed(first, end, bodies);
    if (full(static_cast<std::uint32_t>(bodies.size()))) {
      fresh_.store(false, std::memory_order_release);
    }
  }
  // A ray tests every changed body: once a ray was cast since the last
  // refill, the delta refills at QueryDelta::rayLimit instead of limit.
  void rayAsked() noexcept { raysAsked_.store(true, std::memory_order_relaxed); }

  // The index, refilled from the bodies' tight boxes if it is full.
  void refresh(const BodyStore& bodies, TaskSystem& tasks) {
    if (fresh_.load(std::memory_order_acquire)) return;
    const std::lock_guard lock(mutex_);
    if (fresh_.load(std::memory_order_relaxed)) return;
    if (stepped_ && adopt(bodies, tasks)) {
      fresh_.store(true, std::memory_order_release);
      return;
    }
    if (full(static_cast<std::uint32_t>(bodies.size()))) {
      delta_.invalidate();
      raysAsked_.store(false, std::memory_order_relaxed);
      structureFresh_.store(false, std::memory_order_relaxed);
      bodies.tightBoxes(boxes_, tasks);
      delta_.rebuilt(boxes_);
    }
    fresh_.store(true, std::memory_order_release);
  }
  // After refresh: the broad phase holds the refill's boxes, for what the
  // delta's index cannot answer alone.
  void refreshStructure(QueryStructure s) {
    if (structureFresh_.load(std::memory_order_acquire)) return;
    const std::lock_guard lock(mutex_);
    if (structureFresh_.load(std::memory_order_relaxed)) return;
    try {
      s.broad->update(boxes_);
    } catch (...) {
      // It may be half updated: an empty one takes its place (the structure
      // stays stale, so the next call fills it).
      if (s.spare) s.broad = std::move(s.spare);
      throw;
    }
    structureFresh_.store(true, std::memory_order_release);
  }
  // The bodies (of n) whose tight box may touch `box` (after refresh),
  // appended to `found` in no particular order: from the delta's index
  // where it can answer, else from the structure and the delta.
  void candidates(const AABB& box, std::uint32_t n, QueryStructure s,
                  std::vector<std::uint32_t>& found) {
    if (delta_.answer(box, n, found)) return;
    refreshStructure(s);
    s.broad->query(box, found);
    delta_.mergeBox(box, n, found);
  }
  // The bodies changed since the refill, for queries that ask the
  // structure directly (rays, the debug draw).
  [[nodiscard]] const QueryDelta& delta() const noexcept { return delta_; }

 private:
  // stepped()'s structure taken as the index's (under the lock); false
  // (the delta invalid: refill) when too many bodies left their boxes.
  bool adopt(const BodyStore& bodies, TaskSystem& tasks);
  [[nodiscard]] bool full(std::uint32_t n) const noexcept {
    return delta_.needsRebuild() ||
           (raysAsked_.load(std::memory_order_relaxed) && delta_.needsRebuildForRays(n));
  }

  std::mutex mutex_;
  std::atomic<bool> fresh_{false};
  // Whether the broad phase holds boxes_. A refill fills only the delta's
  // index (small queries never ask the structure); a large box, a ray, an
  // explosion or a draw update the structure first, once per refill.
  std::atomic<bool> structureFresh_{false};
  std::atomic<bool> raysAsked_{false};
  std::vector<AABB> boxes_;
  QueryDelta delta_;
  // stepped()'s, until the next refresh or change.
  bool stepped_ = false;
  std::span<const AABB> held_;
  std::span<const std::uint32_t> grown_;
  OrderedBuffers<std::uint32_t> outside_;  // adopt's: per chunk, the bodies outside their box
};

}  // namespace quadbin
