#include "step/islands.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <limits>
#include <quadbin/tasks/parallel.hpp>

namespace quadbin {

std::uint32_t Islands::find(std::uint32_t i) noexcept {
  while (parent_[i] != i) {
    parent_[i] = parent_[parent_[i]];  // path halving
    i = parent_[i];
  }
  return i;
}

std::uint32_t Islands::update(BodyStore& bodies, std::span<const contacts::Contact> contacts,
                              float dt, float sleepThreshold, float timeToSleep, BodySnapshot& undo,
                              TaskSystem& tasks) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const float limit2 = sleepThreshold * sleepThreshold;
  const float moved2 = limit2 * dt * dt;  // the displacement at the threshold speed, squared
  assert(undo.px.size() == n && undo.py.size() == n);
  std::atomic<bool> someRested{false};
  tasks.parallelFor(n, bodyPassGrain(n), [&](std::uint32_t begin, std::uint32_t end) {
    bool rested = false;
    for (std::uint32_t i = begin; i < end; ++i) {
      if (bodies.awake[i] == 0) continue;
      // Its centre's speed and its rim's speed from spin, together; and
      // how far it went, velocity and position correction together.
      const float spin = bodies.w[i] * bodies.radius[i];
      const float v2 = bodies.vx[i] * bodies.vx[i] + bodies.vy[i] * bodies.vy[i] + spin * spin;
      const float dx = bodies.px[i] - undo.px[i], dy = bodies.py[i] - undo.py[i];
      const bool still = v2 < limit2 && dx * dx + dy * dy < moved2;
      bodies.restTime[i] = still ? bodies.restTime[i] + dt : 0.0f;
      rested = rested || bodies.restTime[i] >= timeToSleep;
    }
    if (rested) someRested.store(true, std::memory_order_relaxed);
  });
  if (!someRested.load(std::memory_order_relaxed)) return 0;
  undo.saveIslands(bodies);

  parent_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) parent_[i] = i;
  for (const contacts::Contact& c : contacts) {
    if (c.touched == 0 || contacts::isWall(c.b) || !bodies.isBall(c.b)) continue;
    const std::uint32_t ra = find(c.a), rb = find(c.b);
    if (ra < rb) {
      parent_[rb] = ra;
    } else if (rb < ra) {
      parent_[ra] = rb;
    }
  }
  // The least rest time of each island, then its members in index order
  // (a counting sort by root).
  minRest_.assign(n, std::numeric_limits<float>::infinity());
  start_.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (bodies.awake[i] == 0) continue;
    const std::uint32_t root = find(i);
    parent_[i] = root;
    minRest_[root] = std::min(minRest_[root], bodies.restTime[i]);
    ++start_[root + 1];
  }
  for (std::uint32_t i = 0; i < n; ++i) start_[i + 1] += start_[i];
  members_.resize(start_[n]);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (bodies.awake[i] != 0) members_[start_[parent_[i]]++] = i;  // parent_ is the root now
  }
  std::uint32_t slept = 0;
  std::uint32_t first = 0;
  for (std::uint32_t root = 0; root < n; ++root) {
    const std::uint32_t last = start_[root];  // shifted by the fill: the end of root's members
    if (last > first && minRest_[root] >= timeToSleep) {
      bodies.sleepIsland(members_.data() + first, last - first);
      slept += last - first;
    }
    first = last;
  }
  return slept;
}

}  // namespace quadbin
