// BinGrid's layout: the cell size and levels chosen from the boxes, the
// table laid again when the boxes outgrow it, and the debug draw of its
// cells (binning and pairs: bin_grid.cpp).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <quadbin/broadphase/bin_grid.hpp>
#include <utility>

#include "bin_grid_impl.hpp"

namespace quadbin {

using namespace bingrid;

void BinGrid::Impl::chooseCellSize(std::span<const AABB> boxes) {
  const std::size_t n = boxes.size();
  double size = options_.cellSize;
  if (!(size > 0.0) && n > 0) {
    // Median extent of an evenly strided sample: deterministic and cheap.
    sample_.clear();
    const std::size_t stride = std::max<std::size_t>(1, n / kSizeSample);
    AABB spread = boxes[0];
    for (std::size_t k = 0; k < n; k += stride) {
      sample_.push_back(static_cast<float>(extentOf(boxes[k])));
      spread = unionOf(spread, boxes[k]);
    }
    const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
    std::nth_element(sample_.begin(), mid, sample_.end());
    size = static_cast<double>(options_.cellSizeFactor) * *mid;
    // Zero-size boxes (points): cells from the spread of the sample, so
    // that they hold a few boxes each.
    const double side = extentOf(spread);
    if (!(size > 0.0) || !std::isfinite(size)) {
      size = std::isfinite(side) && side > 0.0
                 ? side / std::sqrt(static_cast<double>(sample_.size())) / 4.0
                 : 1.0;
    }
  }
  if (!(size > 0.0) || !std::isfinite(size)) size = 1.0;
  const bool haveBounds = bounds_.max.x > bounds_.min.x && bounds_.max.y > bounds_.min.y;
  if (options_.cellSize == 0.0f && haveBounds && n > 0) {
    // No finer than a table of kBucketsPerItem buckets per box can cover
    // the bounds: finer cells would wrap around the table many times,
    // which costs more (far-apart cells sharing buckets, scattered lookups
    // across levels) than testing a few more boxes per cell.
    const double area = layoutWidth_ * layoutHeight_;
    size = std::max(size, std::sqrt(area / (kBucketsPerItem * static_cast<double>(n))));
  }
  if (!options_.multiLevel) {
    // One level: its cells must fit the largest box.
    double largest = 0.0;
    for (const AABB& b : boxes) largest = std::max(largest, extentOf(b));
    if (std::isfinite(largest)) size = std::max(size, largest / kFill * (1.0 + 1e-9));
  }
  size = std::clamp(size, kMinCellSize, static_cast<double>(std::numeric_limits<float>::max()));
  cellSize_ = static_cast<float>(size);
}

void BinGrid::Impl::planLevels(std::span<const AABB> boxes) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  for (std::uint32_t l = 0; l < kLevels; ++l) {
    Level& lv = levels_[l];
    lv.cellSize = std::ldexp(static_cast<double>(cellSize_), static_cast<int>(l));
    lv.invCellSize = 1.0 / lv.cellSize;
    lv.maxExtent = lv.cellSize * kFill;
  }
  // Expected items per level: the last frame's count or the share of a
  // sample of this frame's boxes, whichever is larger. It only sizes the
  // tables: a wrong guess costs speed, never a pair.
  std::vector<std::uint32_t>& expected = chunkCounts_;  // scratch, resized below anyway
  expected.assign(kLevels, 0);
  const std::uint32_t stride =
      std::max<std::uint32_t>(1, n / static_cast<std::uint32_t>(kSizeSample));
  for (std::uint32_t k = 0; k < n; k += stride) expected[levelOf(boxes[k])] += stride;
  const bool haveBounds = bounds_.max.x > bounds_.min.x && bounds_.max.y > bounds_.min.y;
  std::uint32_t first = 0;
  for (std::uint32_t l = 0; l < kLevels; ++l) {
    Level& lv = levels_[l];
    const std::uint32_t items = std::min(n, std::max(expected[l], lastLevelCount_[l]));
    // About two buckets per item, laid out like the bounds' cells where
    // they fit (then the table is the grid itself, nothing wraps).
    const auto budget =
        std::max<std::uint64_t>(16, static_cast<std::uint64_t>(items * kBucketsPerItem));
    std::uint64_t columns = 4, rows = 4;
    if (haveBounds) {
      const double cellsX = std::ceil(layoutWidth_ * lv.invCellSize) + 1;
      const double cellsY = std::ceil(layoutHeight_ * lv.invCellSize) + 1;
      columns =
          static_cast<std::uint64_t>(std::clamp(cellsX, 4.0, static_cast<double>(budget) / 4.0));
      rows = static_cast<std::uint64_t>(std::clamp(
          cellsY, 4.0, static_cast<double>(std::max<std::uint64_t>(4, budget / columns))));
    } else {
      columns = std::max<std::uint64_t>(
          4, static_cast<std::uint64_t>(std::sqrt(static_cast<double>(budget))));
      rows = std::max<std::uint64_t>(4, budget / columns);
    }
    lv.columns = static_cast<std::uint32_t>(columns);
    lv.rows = static_cast<std::uint32_t>(rows);
    lv.firstBucket = first;
    first += lv.buckets();
  }
  bucketCount_ = first;
}

void BinGrid::Impl::refreshOrder(std::uint32_t n) {
  // This frame's starting order: the last frame's bucket order, less the
  // proxies that are gone, plus the new ones at the end.
  const auto previous = static_cast<std::uint32_t>(order_.size());
  if (previous > n) {
    std::erase_if(order_, [n](std::uint32_t p) { return p >= n; });
  } else {
    for (std::uint32_t p = previous; p < n; ++p) order_.push_back(p);
  }
  assert(order_.size() == n);
}

void BinGrid::Impl::draw(BroadPhaseDraw& out) const {
  for (const std::uint32_t l : usedLevels_) {
    const Level& lv = levels_[l];
    const std::uint32_t* start = bucketStart_.data() + lv.firstBucket;
    for (std::uint32_t b = 0; b < lv.buckets(); ++b) {
      const std::uint32_t first = start[b], last = start[b + 1];
      // A bucket may hold several cells (the table wraps): each cell is
      // drawn once, by its first box in the bucket.
      auto cellOf = [&](std::uint32_t k) {
        return std::pair{cellCoord(minX_[k], lv.invCellSize), cellCoord(minY_[k], lv.invCellSize)};
      };
      for (std::uint32_t k = first; k < last; ++k) {
        const auto cell = cellOf(k);
        bool seen = false;
        for (std::uint32_t p = first; p < k && !seen; ++p) seen = cellOf(p) == cell;
        if (seen) continue;
        std::uint32_t count = 1;
        for (std::uint32_t q = k + 1; q < last; ++q) count += cellOf(q) == cell ? 1u : 0u;
        const auto x0 = static_cast<float>(static_cast<double>(cell.first) * lv.cellSize);
        const auto y0 = static_cast<float>(static_cast<double>(cell.second) * lv.cellSize);
        const auto side = static_cast<float>(lv.cellSize);
        out.cell({{x0, y0}, {x0 + side, y0 + side}}, l, count);
      }
    }
  }
}

void BinGrid::Impl::setBounds(const AABB& bounds) {
  bounds_ = bounds;
  layoutWidth_ = static_cast<double>(bounds.width());
  layoutHeight_ = static_cast<double>(bounds.height());
}

// Open worlds: the table is laid out over the bounds, so boxes spread far
// past them crowd a table sized for the bounds (a 100x spread put 40,000
// boxes into 16 buckets). The layout follows the boxes' extent instead once
// they spread past kRelayout times the bounds on an axis, is laid again
// when their extent leaves [1 / kRelayout^2, kRelayout] times the layout,
// and goes back to the bounds once they fit inside them again: hysteresis,
// so a world that hovers keeps its table. The extent is that of the middle 96 % of a strided sample
// of box centres, so a few far strays do not stretch it. It only sizes the table and bounds the
// cell size from below: pairs and queries stay exact.
void BinGrid::Impl::adaptLayout(std::span<const AABB> boxes) {
  constexpr double kRelayout = 2.0;
  constexpr double kHeadroom = 1.5;  // a new layout is this much wider than the boxes
  const bool haveBounds = bounds_.max.x > bounds_.min.x && bounds_.max.y > bounds_.min.y;
  if (!haveBounds || boxes.empty()) return;
  const std::size_t n = boxes.size();
  const std::size_t stride = std::max<std::size_t>(1, n / kSizeSample);
  auto spreadOf = [&](auto centre) {
    sample_.clear();
    for (std::size_t k = 0; k < n; k += stride) sample_.push_back(centre(boxes[k]));
    const std::size_t cut = sample_.size() / 50;
    const auto lo = sample_.begin() + static_cast<std::ptrdiff_t>(cut);
    const auto hi = sample_.end() - 1 - static_cast<std::ptrdiff_t>(cut);
    std::nth_element(sample_.begin(), lo, sample_.end());
    const float low = *lo;
    std::nth_element(lo, hi, sample_.end());
    return static_cast<double>(*hi) - low;
  };
  const double spreadX = spreadOf([](const AABB& b) { return b.min.x * 0.5f + b.max.x * 0.5f; });
  const double spreadY = spreadOf([](const AABB& b) { return b.min.y * 0.5f + b.max.y * 0.5f; });
  const auto boundsX = static_cast<double>(bounds_.width());
  const auto boundsY = static_cast<double>(bounds_.height());
  const bool adapted = layoutWidth_ != boundsX || layoutHeight_ != boundsY;
  if (!adapted) {
    if (spreadX <= boundsX * kRelayout && spreadY <= boundsY * kRelayout) return;
  } else if (spreadX <= boundsX && spreadY <= boundsY) {
    setBounds(bounds_);  // gathered back inside the bounds
    return;
  } else {
    auto far = [](double spread, double layout) {
      return spread > layout * kRelayout || spread * kRelayout * kRelayout < layout;
    };
    if (!far(std::max(boundsX, spreadX), layoutWidth_) &&
        !far(std::max(boundsY, spreadY), layoutHeight_)) {
      return;
    }
  }
  const double maxSide = std::numeric_limits<float>::max();
  layoutWidth_ = std::min(maxSide, std::max(boundsX, spreadX * kHeadroom));
  layoutHeight_ = std::min(maxSide, std::max(boundsY, spreadY * kHeadroom));
}

}  // namespace quadbin
