// The space order's decision and its Morton order (space_order.hpp).
#include "world/space_order.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace quadbin::space_order {

namespace {

// The 32 bits of x spread to the even bits of a 64-bit word.
std::uint64_t spread(std::uint64_t x) noexcept {
  x &= 0xffffffffull;
  x = (x | (x << 16)) & 0x0000ffff0000ffffull;
  x = (x | (x << 8)) & 0x00ff00ff00ff00ffull;
  x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

}  // namespace

bool scattered(std::span<const contacts::Contact> stored) noexcept {
  const std::size_t stride = std::max<std::size_t>(1, stored.size() / kSamples);
  std::uint32_t pairs = 0;
  std::uint32_t far = 0;
  for (std::size_t k = 0; k < stored.size(); k += stride) {
    const contacts::Contact& c = stored[k];
    if (contacts::isWall(c.b)) continue;
    ++pairs;
    const std::uint32_t apart = c.a > c.b ? c.a - c.b : c.b - c.a;
    far += apart > kNear ? 1u : 0u;
  }
  return pairs >= kMinSamples && 4 * far > pairs;
}

std::vector<std::uint32_t> mortonOrder(const BodyStore& bodies) {
  const auto n = static_cast<std::uint32_t>(bodies.size());
  if (n < 2) return {};
  float minX = bodies.px[0], maxX = minX, minY = bodies.py[0], maxY = minY;
  for (std::uint32_t i = 1; i < n; ++i) {
    minX = std::min(minX, bodies.px[i]);
    maxX = std::max(maxX, bodies.px[i]);
    minY = std::min(minY, bodies.py[i]);
    maxY = std::max(maxY, bodies.py[i]);
  }
  constexpr double kCells = 4294967295.0;
  const double sx = maxX > minX ? kCells / (double{maxX} - minX) : 0.0;
  const double sy = maxY > minY ? kCells / (double{maxY} - minY) : 0.0;
  // The key is the cell's Morton code, then the body's index.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> keys(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto cx = static_cast<std::uint64_t>((double{bodies.px[i]} - minX) * sx);
    const auto cy = static_cast<std::uint64_t>((double{bodies.py[i]} - minY) * sy);
    keys[i] = {spread(cx) | (spread(cy) << 1), i};
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint32_t> order(n);
  bool same = true;
  for (std::uint32_t k = 0; k < n; ++k) {
    order[k] = keys[k].second;
    same = same && order[k] == k;
  }
  if (same) order.clear();
  return order;
}

}  // namespace quadbin::space_order
