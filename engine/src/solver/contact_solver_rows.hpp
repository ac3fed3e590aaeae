#pragma once
// Internal to the solver: what contact_solver.cpp (velocities) and
// contact_positions.cpp (positions) share: the work split and the loop over
// rows by colour.

#include <algorithm>
#include <cstdint>

#include "solver/contact_solver.hpp"

namespace quadbin {

// Work split: constants, never the thread count.
inline constexpr std::uint32_t kContactChunk = 16384;
inline constexpr std::uint32_t kBodyGrain = 4096;
inline constexpr std::uint32_t kBodyChunk = 16384;
inline constexpr std::uint32_t kContactGrain = 1024;
// The colour loop's blocks of rows (claimed one at a time by the threads of
// its region): small enough that the threads finish a colour together.
// The loop runs in parallel only where some colour is longer than
// kContactGrain rows, as a parallelFor of that grain would.
inline constexpr std::uint32_t kRowBlock = 512;

// Rows ahead of the one being solved whose balls are prefetched: a colour's
// rows name balls scattered over the body arrays, and a row's work is a few
// loads and stores, so the loop waits on memory unless the loads start
// early. Prefetching reorders no arithmetic.
inline constexpr std::uint32_t kPrefetchAhead = 8;

/// Starts loading the cache line that holds `p` (a hint, never a fault).
inline void prefetch(const void* p) noexcept { __builtin_prefetch(p, 1, 3); }

/// passesOverRows' end of a pass for passes that stop once one changes no
/// row: the next pass would find nothing to do either.
inline bool untilUnchanged(std::uint32_t changed) noexcept { return changed != 0; }

// The colours are the stages of one StagedLoop (tasks/internal/quadbin/
// tasks/staged_loop.hpp): one fork-join region for all the colours of up to
// kPassesPerRegion passes, blocks of rows claimed by the threads, instead
// of a parallelFor per colour. The overflow group shares balls: one block.
template <class R, class F, class P, class E>
void ContactSolver::passesOverRows(TaskSystem& tasks, Group lastGroup, R* rows, std::uint32_t tail,
                                   std::uint32_t passes, F&& f, P&& pre, E&& endPass) {
  stages_.clear();
  bool large = false;
  for (std::uint32_t colour = 0; colour <= contacts::kColours; ++colour) {
    const std::uint32_t first = bucketStart_[std::size_t{kGroups} * colour];
    std::uint32_t last = bucketStart_[kGroups * colour + lastGroup + 1];
    if (colour == contacts::kColours) last += tail;
    if (first == last) continue;
    if (colour == contacts::kColours) {
      stages_.add(first, last - first, true);
    } else {  // each group's rows are in the order of their first ball
      const std::uint32_t* at = bucketStart_.data() + std::size_t{kGroups} * colour;
      stages_.addSegments(first,
                          {at[1] - at[0], lastGroup >= kTouchingCollision ? at[2] - at[1] : 0,
                           lastGroup >= kApart ? at[3] - at[2] : 0});
    }
    large = large || (colour < contacts::kColours && last - first > kContactGrain);
  }
  // One atomic add per block of rows, never per row.
  auto run = [rows, &f, &pre](std::uint32_t begin, std::uint32_t end) {
    std::uint32_t local = 0;
    const std::uint32_t warm = std::min(end, begin + kPrefetchAhead);
    for (std::uint32_t k = begin; k < warm; ++k) pre(rows[k]);
    for (std::uint32_t k = begin; k < end; ++k) {
      if (k + kPrefetchAhead < end) pre(rows[k + kPrefetchAhead]);
      local += f(rows[k]) ? 1u : 0u;
    }
    return local;
  };
  // The clock ticks once per colour (before it), as the impact passes need.
  stages_.run(
      large ? tasks : serialTaskSystem(), kRowBlock, passes, run, [this] { ++clock_; }, endPass);
}

template <class R, class F, class P>
std::uint32_t ContactSolver::forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rows,
                                          std::uint32_t tail, F&& f, P&& pre) {
  std::uint32_t hits = 0;
  passesOverRows(tasks, lastGroup, rows, tail, 1, f, pre, [&hits](std::uint32_t h) {
    hits = h;
    return false;
  });
  return hits;
}

template <class R, class F>
std::uint32_t ContactSolver::forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rows,
                                          std::uint32_t tail, F&& f) {
  return forEachRowIn(tasks, lastGroup, rows, tail, f, [](const R&) {});
}

template <class F, class P>
std::uint32_t ContactSolver::forEachRow(TaskSystem& tasks, Group lastGroup, F&& f, P&& pre) {
  return forEachRowIn(tasks, lastGroup, rows_.data(), 0, f, pre);
}

template <class F>
std::uint32_t ContactSolver::forEachRow(TaskSystem& tasks, Group lastGroup, F&& f) {
  return forEachRowIn(tasks, lastGroup, rows_.data(), 0, f);
}

}  // namespace quadbin
