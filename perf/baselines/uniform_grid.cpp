// "baseline-grid": the plain uniform grid a user would write instead of a
// library, rebuilt from scratch every frame. It is the reference quadbin's
// structures must beat, so it is kept simple and honest, not slow: one
// dense cell array over the bounds given by setBounds, cell size = the
// largest box extent, each box counted into the cell of its min corner
// (a counting sort), and each cell tested against itself and 4 of its 8
// neighbours, so every pair of cells is visited once and no pair twice.
#include <algorithm>
#include <cmath>

#include "../peers/factories.hpp"

namespace quadbin::perf {

namespace {

class UniformGridBaseline final : public Structure {
 public:
  [[nodiscard]] std::string_view name() const noexcept override { return "baseline-grid"; }
  void setBounds(const AABB& bounds) override { bounds_ = bounds; }
  void update(std::span<const AABB> boxes) override { boxes_.assign(boxes.begin(), boxes.end()); }
  void findPairs(std::vector<Pair>& out) override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override {
    return boxes_.capacity() * sizeof(AABB) +
           (cellStart_.capacity() + cellOfBox_.capacity() + sorted_.capacity()) *
               sizeof(std::uint32_t);
  }

 private:
  AABB bounds_{{0, 0}, {0, 0}};
  std::vector<AABB> boxes_;
  std::vector<std::uint32_t> cellStart_, cellOfBox_, sorted_;  // CSR: boxes by cell
};

void UniformGridBaseline::findPairs(std::vector<Pair>& out) {
  const auto n = static_cast<std::uint32_t>(boxes_.size());
  if (n < 2) return;
  // The bounds given, or the boxes' own when none (or an empty one) were.
  const bool haveBounds = bounds_.max.x > bounds_.min.x && bounds_.max.y > bounds_.min.y;
  AABB area = haveBounds ? bounds_ : boxes_[0];
  double extent = 0;  // in double: a float width may round below the true extent
  for (const auto& b : boxes_) {
    extent = std::max({extent, double{b.max.x} - b.min.x, double{b.max.y} - b.min.y});
    if (!haveBounds) area = unionOf(area, b);
  }
  // Boxes that overlap then have min corners in the same or adjacent cells.
  // The floors cap the grid at about 4 cells per box (a box as large as the
  // world makes one big cell: the grid's honest worst case).
  const double w = double{area.max.x} - area.min.x, h = double{area.max.y} - area.min.y;
  double cell =
      std::max({extent * 1.0001, std::sqrt(w * h / (4.0 * n)), std::max(w, h) / (4.0 * n)});
  if (!(cell > 0)) cell = 1;
  const auto nx = static_cast<std::uint32_t>(std::clamp(std::ceil(w / cell), 1.0, 4.0 * n));
  const auto ny = static_cast<std::uint32_t>(std::clamp(std::ceil(h / cell), 1.0, 4.0 * n));
  // Boxes outside the area are clamped into its border cells: still exact,
  // because clamping keeps adjacent cells adjacent.
  auto cellCoord = [cell](float v, float origin, std::uint32_t count) {
    return static_cast<std::uint32_t>(
        std::clamp(std::floor((double{v} - origin) / cell), 0.0, count - 1.0));
  };
  cellStart_.assign(std::size_t{nx} * ny + 1, 0);
  cellOfBox_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    cellOfBox_[i] = cellCoord(boxes_[i].min.y, area.min.y, ny) * nx +
                    cellCoord(boxes_[i].min.x, area.min.x, nx);
    ++cellStart_[cellOfBox_[i] + 1];
  }
  for (std::size_t c = 1; c < cellStart_.size(); ++c) cellStart_[c] += cellStart_[c - 1];
  sorted_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) sorted_[cellStart_[cellOfBox_[i]]++] = i;
  for (std::size_t c = cellStart_.size() - 1; c > 0; --c)
    cellStart_[c] = cellStart_[c - 1];  // undo the fill's shift
  cellStart_[0] = 0;

  auto testRange = [&](std::uint32_t i, std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t k = from; k < to; ++k) {
      const std::uint32_t j = sorted_[k];
      if (overlaps(boxes_[i], boxes_[j])) out.push_back({std::min(i, j), std::max(i, j)});
    }
  };
  for (std::uint32_t cy = 0; cy < ny; ++cy) {
    for (std::uint32_t cx = 0; cx < nx; ++cx) {
      const std::uint32_t c = cy * nx + cx;
      for (std::uint32_t k = cellStart_[c]; k < cellStart_[c + 1]; ++k) {
        const std::uint32_t i = sorted_[k];
        testRange(i, k + 1, cellStart_[c + 1]);  // the same cell, later boxes
        if (cx + 1 < nx) testRange(i, cellStart_[c + 1], cellStart_[c + 2]);  // right
        if (cy + 1 < ny) {  // the row above: left, middle, right
          const std::uint32_t up = c + nx, lo = cx > 0 ? up - 1 : up,
                              hi = cx + 1 < nx ? up + 1 : up;
          testRange(i, cellStart_[lo], cellStart_[hi + 1]);
        }
      }
    }
  }
}

}  // namespace

std::unique_ptr<Structure> makeUniformGridBaseline() {
  return std::make_unique<UniformGridBaseline>();
}

}  // namespace quadbin::perf
