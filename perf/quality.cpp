#include "quality.hpp"

#include <algorithm>
#include <cmath>
#include <quadbin/engine/world.hpp>
#include <stdexcept>
#include <vector>

namespace quadbin::perf {

Quality measureQuality(std::span<const double> x, std::span<const double> y,
                       std::span<const double> r) {
  if (x.size() != y.size() || x.size() != r.size()) {
    throw std::invalid_argument("measureQuality: x, y and r differ in length");
  }
  Quality q;
  std::vector<std::uint32_t> balls;
  balls.reserve(x.size());
  double minX = INFINITY, minY = INFINITY, maxX = -INFINITY, maxY = -INFINITY, sumR = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i]) || !std::isfinite(r[i]) || !(r[i] > 0.0)) {
      continue;
    }
    balls.push_back(static_cast<std::uint32_t>(i));
    minX = std::min(minX, x[i] - r[i]);
    minY = std::min(minY, y[i] - r[i]);
    maxX = std::max(maxX, x[i] + r[i]);
    maxY = std::max(maxY, y[i] + r[i]);
    sumR += r[i];
  }
  const std::size_t n = balls.size();
  if (n < 2) return q;

  // Cells about two mean radii wide; wider where that would make more than
  // 4n of them (then columns * rows <= 4n + columns + rows).
  const double width = std::max(maxX - minX, 1e-30), height = std::max(maxY - minY, 1e-30);
  const double maxCells = 4.0 * static_cast<double>(n);
  double cell = 2.0 * sumR / static_cast<double>(n);
  if (std::ceil(width / cell) * std::ceil(height / cell) > maxCells) {
    cell = std::sqrt(width * height / maxCells);
  }
  const auto columns =
      static_cast<std::uint32_t>(std::clamp(std::ceil(width / cell), 1.0, maxCells));
  const auto rows = static_cast<std::uint32_t>(std::clamp(std::ceil(height / cell), 1.0, maxCells));
  auto columnOf = [&](double v) {
    return static_cast<std::uint32_t>(
        std::clamp(std::floor((v - minX) / cell), 0.0, static_cast<double>(columns - 1)));
  };
  auto rowOf = [&](double v) {
    return static_cast<std::uint32_t>(
        std::clamp(std::floor((v - minY) / cell), 0.0, static_cast<double>(rows - 1)));
  };

  // Each ball's cell range, then the balls of each cell (counting sort).
  std::vector<std::uint32_t> x0(n), y0(n), x1(n), y1(n);
  std::vector<std::uint32_t> start(static_cast<std::size_t>(columns) * rows + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t i = balls[k];
    x0[k] = columnOf(x[i] - r[i]);
    x1[k] = columnOf(x[i] + r[i]);
    y0[k] = rowOf(y[i] - r[i]);
    y1[k] = rowOf(y[i] + r[i]);
    for (std::uint32_t cy = y0[k]; cy <= y1[k]; ++cy) {
      for (std::uint32_t cx = x0[k]; cx <= x1[k]; ++cx) ++start[std::size_t{cy} * columns + cx + 1];
    }
  }
  for (std::size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
  std::vector<std::uint32_t> members(start.back());
  {
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < n; ++k) {
      for (std::uint32_t cy = y0[k]; cy <= y1[k]; ++cy) {
        for (std::uint32_t cx = x0[k]; cx <= x1[k]; ++cx) {
          members[fill[std::size_t{cy} * columns + cx]++] = static_cast<std::uint32_t>(k);
        }
      }
    }
  }

  for (std::uint32_t cy = 0; cy < rows; ++cy) {
    for (std::uint32_t cx = 0; cx < columns; ++cx) {
      const std::size_t c = std::size_t{cy} * columns + cx;
      for (std::uint32_t m = start[c]; m < start[c + 1]; ++m) {
        const std::uint32_t a = members[m];
        for (std::uint32_t l = m + 1; l < start[c + 1]; ++l) {
          const std::uint32_t b = members[l];
          // The pair's first common cell only: each pair once.
          if (std::max(x0[a], x0[b]) != cx || std::max(y0[a], y0[b]) != cy) continue;
          const std::uint32_t i = balls[a], j = balls[b];
          const double dx = x[i] - x[j], dy = y[i] - y[j];
          const double sum = r[i] + r[j];
          const double d = std::sqrt(dx * dx + dy * dy);
          if (d < sum * (1.0 - kOverlapTolerance)) ++q.overlaps;
          if (d < sum) {
            q.maxPenetration = std::max(q.maxPenetration, (sum - d) / std::min(r[i], r[j]));
          }
        }
      }
    }
  }
  return q;
}

Quality measureQuality(const World& world) {
  std::vector<double> x, y, r;
  const std::uint32_t count = world.bodyCount();
  x.reserve(count);
  y.reserve(count);
  r.reserve(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    const BodyId id = world.bodyAt(k);
    if (world.type(id) != BodyType::Ball) continue;
    const Vec2 p = world.position(id);
    x.push_back(p.x);
    y.push_back(p.y);
    r.push_back(world.radius(id));
  }
  return measureQuality(x, y, r);
}

}  // namespace quadbin::perf
