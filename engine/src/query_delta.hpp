#pragma once
// How spatial queries see the bodies that changed since the query structure
// was last filled (docs/queries.md): the structure keeps answering for the
// bodies it holds, minus the ones that changed since, and the changed ones
// (a short "delta") are checked one by one. The structure is refilled only
// when the delta grows past limit(n), so a loop of one change and one query
// costs O(delta) per query instead of a full rebuild.

#include <cstdint>
#include <quadbin/geometry/aabb.hpp>
#include <vector>

namespace quadbin {

struct BodyStore;

class QueryDelta {
 public:
  /// The structure no longer holds the bodies' tight boxes (a step, a new
  /// broad phase, a restore): the next query refills it.
  void invalidate() noexcept { built_ = false; }
  /// The tight boxes of dense bodies [first, end) changed (created, moved,
  /// or another body swapped into their place). Falls back to invalidate()
  /// when it cannot record them.
  void changed(std::uint32_t first, std::uint32_t end) noexcept;
  /// Whether a query over `n` bodies must refill the structure first.
  [[nodiscard]] bool needsRebuild(std::uint32_t n) const noexcept {
    return !built_ || size(n) > limit(n);
  }
  /// The structure was just filled with the tight boxes of bodies [0, n).
  void rebuilt(std::uint32_t n);

  /// Bodies the delta holds for a world of n bodies.
  [[nodiscard]] std::uint32_t size(std::uint32_t n) const noexcept {
    return static_cast<std::uint32_t>(list_.size()) + (n > count_ ? n - count_ : 0u);
  }
  /// The most bodies the delta may hold before a query refills the
  /// structure: max(64, n / 8). A rebuild costs O(n), so refilling every
  /// n / 8 changes keeps it O(1) per change, amortized.
  [[nodiscard]] static std::uint32_t limit(std::uint32_t n) noexcept {
    return n / 8 > kMinLimit ? n / 8 : kMinLimit;
  }
  static constexpr std::uint32_t kMinLimit = 64;

  /// Turns the structure's answer `found` (proxies whose box touches
  /// `box`) into the current bodies': drops the proxies that are stale and
  /// appends the delta's bodies whose tight box touches `box`.
  void mergeBox(const AABB& box, const BodyStore& bodies, std::vector<std::uint32_t>& found) const;
  /// As mergeBox, appending every body of the delta (for rays: the caller
  /// tests each candidate exactly).
  void mergeAll(std::uint32_t n, std::vector<std::uint32_t>& found) const;

 private:
  // True when nothing changed since the structure was filled with n bodies.
  [[nodiscard]] bool clean(std::uint32_t n) const noexcept { return list_.empty() && n == count_; }
  void dropStale(std::uint32_t n, std::vector<std::uint32_t>& found) const;

  bool built_ = false;
  std::uint32_t count_ = 0;          // bodies in the structure: [0, count_)
  std::vector<std::uint8_t> stale_;  // per structure proxy: changed since
  std::vector<std::uint32_t> list_;  // the stale proxies, each once
  // Bodies at dense index >= count_ are new since the structure was filled
  // and are in the delta without being listed.
};

}  // namespace quadbin
