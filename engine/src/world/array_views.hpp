#pragma once
// positions(), velocities() and contacts(): arrays copied from the bodies'
// columns and the solver's contacts by the first call after they change,
// then handed out as spans until the next change. Calls from many threads
// at once are safe: the first fills under the lock, the rest wait for it
// and then only read.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <quadbin/engine/body.hpp>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>
#include <vector>

namespace quadbin {

class ArrayViews {
 public:
  // Positions, velocities or contacts changed: every view is made again.
  void moved() noexcept {
    positionsFresh_.store(false, std::memory_order_release);
    velocitiesFresh_.store(false, std::memory_order_release);
    contactsFresh_.store(false, std::memory_order_release);
  }
  [[nodiscard]] std::span<const Vec2> positions(const std::vector<float>& xs,
                                                const std::vector<float>& ys, TaskSystem& tasks) {
    return pairs(positions_, positionsFresh_, xs, ys, tasks);
  }
  [[nodiscard]] std::span<const Vec2> velocities(const std::vector<float>& xs,
                                                 const std::vector<float>& ys, TaskSystem& tasks) {
    return pairs(velocities_, velocitiesFresh_, xs, ys, tasks);
  }
  // The touching contacts, made by fill(std::vector<ContactData>&) when
  // stale.
  template <class Fill>
  [[nodiscard]] std::span<const ContactData> contacts(Fill&& fill) {
    if (contactsFresh_.load(std::memory_order_acquire)) return contacts_;
    const std::lock_guard lock(mutex_);
    if (contactsFresh_.load(std::memory_order_relaxed)) return contacts_;
    contacts_.clear();
    fill(contacts_);
    contactsFresh_.store(true, std::memory_order_release);
    return contacts_;
  }

 private:
  std::span<const Vec2> pairs(std::vector<Vec2>& out, std::atomic<bool>& fresh,
                              const std::vector<float>& xs, const std::vector<float>& ys,
                              TaskSystem& tasks) {
    if (fresh.load(std::memory_order_acquire)) return out;
    const std::lock_guard lock(mutex_);
    if (fresh.load(std::memory_order_relaxed)) return out;
    out.resize(xs.size());
    tasks.parallelFor(static_cast<std::uint32_t>(xs.size()), 16384,
                      [&](std::uint32_t begin, std::uint32_t end) {
                        for (std::uint32_t i = begin; i < end; ++i) out[i] = {xs[i], ys[i]};
                      });
    fresh.store(true, std::memory_order_release);
    return out;
  }

  std::mutex mutex_;
  std::atomic<bool> positionsFresh_{false}, velocitiesFresh_{false}, contactsFresh_{false};
  std::vector<Vec2> positions_, velocities_;
  std::vector<ContactData> contacts_;
};

}  // namespace quadbin
