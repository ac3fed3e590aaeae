#include "quality.hpp"

#include <algorithm>
#include <cmath>
#include <quadbin/engine/world.hpp>
#include <stdexcept>
#include <vector>

namespace quadbin::perf {

namespace {

// The balls of each cell of a grid (counting sort), each ball listed in
// every cell its box touches.
struct CellGrid {
  std::uint32_t columns = 0, rows = 0;
  std::vector<std::uint32_t> x0, y0, x1, y1;  // each ball's cell range
  std::vector<std::uint32_t> start;           // cell c's balls: members[start[c], start[c + 1])
  std::vector<std::uint32_t> members;
};

// `range(k, x0, y0, x1, y1)` gives ball k's cell range.
template <class Range>
void fillCells(CellGrid& g, std::size_t n, Range range) {
  g.x0.resize(n);
  g.y0.resize(n);
  g.x1.resize(n);
  g.y1.resize(n);
  g.start.assign(static_cast<std::size_t>(g.columns) * g.rows + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    range(k, g.x0[k], g.y0[k], g.x1[k], g.y1[k]);
    for (std::uint32_t cy = g.y0[k]; cy <= g.y1[k]; ++cy) {
      for (std::uint32_t cx = g.x0[k]; cx <= g.x1[k]; ++cx) {
        ++g.start[std::size_t{cy} * g.columns + cx + 1];
      }
    }
  }
  for (std::size_t c = 1; c < g.start.size(); ++c) g.start[c] += g.start[c - 1];
  g.members.resize(g.start.back());
  std::vector<std::uint32_t> fill(g.start.begin(), g.start.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::uint32_t cy = g.y0[k]; cy <= g.y1[k]; ++cy) {
      for (std::uint32_t cx = g.x0[k]; cx <= g.x1[k]; ++cx) {
        g.members[fill[std::size_t{cy} * g.columns + cx]++] = static_cast<std::uint32_t>(k);
      }
    }
  }
}

// Every pair of balls sharing a cell, each once (in its first common cell).
void countOverlaps(const CellGrid& g, std::span<const double> x, std::span<const double> y,
                   std::span<const double> r, const std::vector<std::uint32_t>& balls, Quality& q) {
  for (std::uint32_t cy = 0; cy < g.rows; ++cy) {
    for (std::uint32_t cx = 0; cx < g.columns; ++cx) {
      const std::size_t c = std::size_t{cy} * g.columns + cx;
      for (std::uint32_t m = g.start[c]; m < g.start[c + 1]; ++m) {
        const std::uint32_t a = g.members[m];
        for (std::uint32_t l = m + 1; l < g.start[c + 1]; ++l) {
          const std::uint32_t b = g.members[l];
          // The pair's first common cell only: each pair once.
          if (std::max(g.x0[a], g.x0[b]) != cx || std::max(g.y0[a], g.y0[b]) != cy) continue;
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
}

}  // namespace

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

  CellGrid grid{columns, rows, {}, {}, {}, {}, {}, {}};
  fillCells(grid, n,
            [&](std::size_t k, std::uint32_t& cx0, std::uint32_t& cy0, std::uint32_t& cx1,
                std::uint32_t& cy1) {
              const std::uint32_t i = balls[k];
              cx0 = columnOf(x[i] - r[i]);
              cx1 = columnOf(x[i] + r[i]);
              cy0 = rowOf(y[i] - r[i]);
              cy1 = rowOf(y[i] + r[i]);
            });
  countOverlaps(grid, x, y, r, balls, q);
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
