#include <quadbin/broadphase/brute_force.hpp>

#include "checks.hpp"

namespace quadbin {

struct BruteForce::Impl {
  // Structure of arrays: the inner loop streams four float arrays.
  std::vector<float> minX, minY, maxX, maxY;
};

BruteForce::BruteForce() : impl_(std::make_unique<Impl>()) {}
BruteForce::~BruteForce() = default;

void BruteForce::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "BruteForce::update");
  Impl& s = *impl_;
  const std::size_t n = boxes.size();
  s.minX.resize(n);
  s.minY.resize(n);
  s.maxX.resize(n);
  s.maxY.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.minX[i] = boxes[i].min.x;
    s.minY[i] = boxes[i].min.y;
    s.maxX[i] = boxes[i].max.x;
    s.maxY[i] = boxes[i].max.y;
  }
}

void BruteForce::findPairs(std::vector<Pair>& out) {
  const Impl& s = *impl_;
  const float* minX = s.minX.data();
  const float* minY = s.minY.data();
  const float* maxX = s.maxX.data();
  const float* maxY = s.maxY.data();
  const auto n = static_cast<std::uint32_t>(s.minX.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    const float ax0 = minX[i], ay0 = minY[i], ax1 = maxX[i], ay1 = maxY[i];
    for (std::uint32_t j = i + 1; j < n; ++j) {
      // Non-short-circuit & lets the compiler vectorise the test.
      const bool hit = (ax0 < maxX[j]) & (minX[j] < ax1) & (ay0 < maxY[j]) & (minY[j] < ay1);
      if (hit) out.push_back({i, j});
    }
  }
}

void BruteForce::query(const AABB& given, std::vector<std::uint32_t>& out) const {
  const AABB box = detail::queryBox(given, "BruteForce::query");
  const Impl& s = *impl_;
  const auto n = static_cast<std::uint32_t>(s.minX.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (s.minX[i] <= box.max.x && box.min.x <= s.maxX[i] && s.minY[i] <= box.max.y &&
        box.min.y <= s.maxY[i]) {
      out.push_back(i);
    }
  }
}

std::size_t BruteForce::size() const noexcept { return impl_->minX.size(); }

std::size_t BruteForce::memoryBytes() const noexcept {
  const Impl& s = *impl_;
  return sizeof(Impl) +
         (s.minX.capacity() + s.minY.capacity() + s.maxX.capacity() + s.maxY.capacity()) *
             sizeof(float);
}

}  // namespace quadbin
