#include <quadbin/broadphase/brute_force.hpp>

#include "checks.hpp"

namespace quadbin {

void BruteForce::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "BruteForce::update");
  const std::size_t n = boxes.size();
  minX_.resize(n);
  minY_.resize(n);
  maxX_.resize(n);
  maxY_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    minX_[i] = boxes[i].min.x;
    minY_[i] = boxes[i].min.y;
    maxX_[i] = boxes[i].max.x;
    maxY_[i] = boxes[i].max.y;
  }
}

void BruteForce::findPairs(std::vector<Pair>& out) {
  const auto n = static_cast<std::uint32_t>(minX_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    const float ax0 = minX_[i], ay0 = minY_[i], ax1 = maxX_[i], ay1 = maxY_[i];
    for (std::uint32_t j = i + 1; j < n; ++j) {
      // Non-short-circuit & lets the compiler vectorise the test.
      const bool hit = (ax0 < maxX_[j]) & (minX_[j] < ax1) & (ay0 < maxY_[j]) & (minY_[j] < ay1);
      if (hit) out.push_back({i, j});
    }
  }
}

void BruteForce::query(const AABB& given, std::vector<std::uint32_t>& out) const {
  const AABB box = detail::queryBox(given, "BruteForce::query");
  const auto n = static_cast<std::uint32_t>(minX_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (minX_[i] <= box.max.x && box.min.x <= maxX_[i] && minY_[i] <= box.max.y &&
        box.min.y <= maxY_[i]) {
      out.push_back(i);
    }
  }
}

std::size_t BruteForce::memoryBytes() const noexcept {
  return (minX_.capacity() + minY_.capacity() + maxX_.capacity() + maxY_.capacity()) *
         sizeof(float);
}

}  // namespace quadbin
