#pragma once
// Internal to the solver: what contact_solver.cpp (velocities) and
// contact_positions.cpp (positions) share: the work split and the loop over
// rows by colour.

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "contact_solver.hpp"

namespace quadbin {

// Work split: constants, never the thread count.
inline constexpr std::uint32_t kContactChunk = 16384;
inline constexpr std::uint32_t kBodyGrain = 4096;
inline constexpr std::uint32_t kBodyChunk = 16384;
inline constexpr std::uint32_t kContactGrain = 1024;

// Rows ahead of the one being solved whose balls are prefetched: a colour's
// rows name balls scattered over the body arrays, and a row's work is a few
// loads and stores, so the loop waits on memory unless the loads start
// early. Prefetching reorders no arithmetic.
inline constexpr std::uint32_t kPrefetchAhead = 8;

/// Starts loading the cache line that holds `p` (a hint, never a fault).
inline void prefetch(const void* p) noexcept { __builtin_prefetch(p, 1, 3); }

template <class R, class F, class P>
std::uint32_t ContactSolver::forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rows,
                                          std::uint32_t tail, F&& f, P&& pre) {
  std::atomic<std::uint32_t> hits{0};
  for (std::uint32_t colour = 0; colour <= kColours; ++colour) {
    const std::uint32_t first = bucketStart_[std::size_t{kGroups} * colour];
    std::uint32_t last = bucketStart_[kGroups * colour + lastGroup + 1];
    if (colour == kColours) last += tail;
    if (first == last) continue;
    R* part = rows + first;
    ++clock_;
    // One atomic add per range of rows, never per row.
    auto run = [&](std::uint32_t begin, std::uint32_t end) {
      std::uint32_t local = 0;
      const std::uint32_t warm = std::min(end, begin + kPrefetchAhead);
      for (std::uint32_t k = begin; k < warm; ++k) pre(part[k]);
      for (std::uint32_t k = begin; k < end; ++k) {
        if (k + kPrefetchAhead < end) pre(part[k + kPrefetchAhead]);
        local += f(part[k]) ? 1u : 0u;
      }
      if (local != 0) hits.fetch_add(local, std::memory_order_relaxed);
    };
    if (colour == kColours) {
      run(0, last - first);  // the overflow group shares balls: serially
    } else {
      tasks.parallelFor(last - first, kContactGrain, run);
    }
  }
  return hits.load(std::memory_order_relaxed);
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
