#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <quadbin/broadphase/bin_grid.hpp>
#include <quadbin/error.hpp>
#include <string>

namespace quadbin {

namespace {

// Cells a box may span on one axis before it is moved to a coarser level
// even when multiLevel is off: keeps one huge box from filling memory.
constexpr double kMaxCellsPerAxisSingleLevel = 64.0;
constexpr std::uint32_t kMaxLevels = 200;
constexpr std::size_t kSizeSample = 1024;

// floor(x / cellSize) clamped into int32: monotonic in x, so the owner cell of
// an intersection always lies inside both boxes' cell ranges, even for
// coordinates far beyond the int32 range.
inline std::int32_t cellCoord(float x, float invCellSize) noexcept {
  const double c = std::floor(static_cast<double>(x) * static_cast<double>(invCellSize));
  if (!(c >= -2147483648.0)) return INT32_MIN;
  if (c > 2147483647.0) return INT32_MAX;
  return static_cast<std::int32_t>(c);
}

inline std::uint64_t cellKey(std::int32_t cx, std::int32_t cy) noexcept {
  return (std::uint64_t{static_cast<std::uint32_t>(cx)} << 32) | static_cast<std::uint32_t>(cy);
}

}  // namespace

BinGrid::BinGrid(const BinGridOptions& options) : options_(options) {
  if (!(options.cellSize >= 0.0f) || !std::isfinite(options.cellSize)) {
    throw Error("BinGridOptions.cellSize = " + std::to_string(options.cellSize) +
                " must be finite and >= 0 (0 = automatic)");
  }
  if (!(options.cellSizeFactor > 0.0f) || !std::isfinite(options.cellSizeFactor)) {
    throw Error("BinGridOptions.cellSizeFactor = " + std::to_string(options.cellSizeFactor) +
                " must be finite and > 0");
  }
}

std::uint32_t BinGrid::bucketOf(const Level& level, std::int32_t cx,
                                std::int32_t cy) const noexcept {
  // Fibonacci hashing of the packed cell coordinates.
  const std::uint64_t h = cellKey(cx, cy) * 0x9E3779B97F4A7C15ull;
  return level.firstBucket + static_cast<std::uint32_t>(h >> (64 - level.bucketBits));
}

void BinGrid::update(std::span<const AABB> boxes) {
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
  chooseCellSize();
  build();
}

void BinGrid::chooseCellSize() {
  if (options_.cellSize > 0.0f) {
    cellSize_ = options_.cellSize;
    return;
  }
  const std::size_t n = minX_.size();
  if (n == 0) {
    cellSize_ = 1.0f;
    return;
  }
  // Median extent of an evenly strided sample: deterministic and cheap.
  sample_.clear();
  const std::size_t stride = std::max<std::size_t>(1, n / kSizeSample);
  float loX = minX_[0], hiX = maxX_[0], loY = minY_[0], hiY = maxY_[0];
  for (std::size_t i = 0; i < n; i += stride) {
    sample_.push_back(std::max(maxX_[i] - minX_[i], maxY_[i] - minY_[i]));
    loX = std::min(loX, minX_[i]);
    hiX = std::max(hiX, maxX_[i]);
    loY = std::min(loY, minY_[i]);
    hiY = std::max(hiY, maxY_[i]);
  }
  const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
  std::nth_element(sample_.begin(), mid, sample_.end());
  float size = options_.cellSizeFactor * *mid;
  // Zero-size boxes (points): fall back to the spread of the sample, so
  // cells hold a few boxes each instead of the coordinates overflowing.
  const float spread = std::max(hiX - loX, hiY - loY);
  const float floorSize = std::isfinite(spread) && spread > 0.0f
                              ? spread / std::sqrt(static_cast<float>(sample_.size())) / 4.0f
                              : 1.0f;
  if (!(size > 0.0f) || !std::isfinite(size)) size = floorSize;
  cellSize_ = std::max(size, std::numeric_limits<float>::min() * 1e10f);
}

void BinGrid::build() {
  const auto n = static_cast<std::uint32_t>(minX_.size());
  levelOf_.resize(n);
  levels_.clear();
  entries_.clear();
  crowded_.clear();

  // 1. Level of each proxy, and how many cells it touches there.
  std::vector<std::uint32_t>& countPerLevel = levelCounts_;
  countPerLevel.clear();
  auto levelSize = [&](std::uint32_t l) {
    return static_cast<float>(std::ldexp(static_cast<double>(cellSize_), static_cast<int>(l)));
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const double extent = std::max(static_cast<double>(maxX_[i]) - minX_[i],
                                   static_cast<double>(maxY_[i]) - minY_[i]);
    const double ratio = extent / static_cast<double>(cellSize_);
    std::uint32_t level = 0;
    const double limit = options_.multiLevel ? 1.0 : kMaxCellsPerAxisSingleLevel;
    if (ratio > limit) {
      int exp = 0;
      const double m = std::frexp(ratio / limit, &exp);  // ratio/limit = m * 2^exp, m in [0.5, 1)
      level = static_cast<std::uint32_t>(m == 0.5 ? exp - 1 : exp);
      // Past float's range the cells stop growing; keep the level finite.
      while (level > 0 && !std::isfinite(levelSize(level))) --level;
      level = std::min(level, kMaxLevels - 1);
    }
    levelOf_[i] = static_cast<std::uint8_t>(level);
    if (countPerLevel.size() <= level) countPerLevel.resize(level + 1, 0);
  }
  levels_.resize(countPerLevel.size());
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    levels_[l].cellSize = levelSize(l);
    levels_[l].invCellSize = 1.0f / levels_[l].cellSize;
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const Level& lv = levels_[levelOf_[i]];
    const auto nx =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(cellCoord(maxX_[i], lv.invCellSize)) -
                                   cellCoord(minX_[i], lv.invCellSize) + 1);
    const auto ny =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(cellCoord(maxY_[i], lv.invCellSize)) -
                                   cellCoord(minY_[i], lv.invCellSize) + 1);
    countPerLevel[levelOf_[i]] += static_cast<std::uint32_t>(nx * ny);
  }

  // 2. Entries grouped by level.
  std::uint32_t total = 0;
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    levels_[l].firstEntry = total;
    total += countPerLevel[l];
    levels_[l].endEntry = levels_[l].firstEntry;  // advanced while filling
  }
  unsorted_.resize(total);
  for (std::uint32_t i = 0; i < n; ++i) {
    Level& lv = levels_[levelOf_[i]];
    const std::int32_t x0 = cellCoord(minX_[i], lv.invCellSize);
    const std::int32_t x1 = cellCoord(maxX_[i], lv.invCellSize);
    const std::int32_t y0 = cellCoord(minY_[i], lv.invCellSize);
    const std::int32_t y1 = cellCoord(maxY_[i], lv.invCellSize);
    for (std::int32_t cy = y0;; ++cy) {
      for (std::int32_t cx = x0;; ++cx) {
        unsorted_[lv.endEntry++] = {cx, cy, i};
        if (cx == x1) break;
      }
      if (cy == y1) break;
    }
  }

  // 3. Per level, a counting sort of the entries by hash bucket: one pass
  // to count, a prefix sum, one pass to scatter (stable: proxy order kept).
  std::uint32_t buckets = 0;
  for (auto& lv : levels_) {
    const std::uint32_t count = lv.endEntry - lv.firstEntry;
    lv.bucketBits = count < 2 ? 1u : static_cast<std::uint32_t>(std::bit_width(2 * count - 1));
    lv.firstBucket = buckets;
    buckets += (1u << lv.bucketBits) + 1;
  }
  bucketStart_.assign(buckets, 0);
  entries_.resize(total);
  for (const auto& lv : levels_) {
    if (lv.firstEntry == lv.endEntry) continue;
    std::uint32_t* start = bucketStart_.data() + lv.firstBucket;
    const std::uint32_t bucketCount = 1u << lv.bucketBits;
    for (std::uint32_t e = lv.firstEntry; e < lv.endEntry; ++e) {
      const Entry& en = unsorted_[e];
      ++start[bucketOf(lv, en.cx, en.cy) - lv.firstBucket + 1];
    }
    start[0] = lv.firstEntry;
    for (std::uint32_t b = 1; b <= bucketCount; ++b) {
      if (start[b] >= 2) crowded_.push_back(lv.firstBucket + b - 1);
      start[b] += start[b - 1];
    }
    // start[b] is now where bucket b begins; scatter with it as bucket b's
    // cursor, which leaves it at bucket b's end.
    for (std::uint32_t e = lv.firstEntry; e < lv.endEntry; ++e) {
      const Entry& en = unsorted_[e];
      const std::uint32_t b = bucketOf(lv, en.cx, en.cy) - lv.firstBucket;
      entries_[start[b]++] = en;
    }
    // Shift back: start[b] = beginning of bucket b.
    for (std::uint32_t b = bucketCount; b > 0; --b) start[b] = start[b - 1];
    start[0] = lv.firstEntry;
  }
}

void BinGrid::findPairs(std::vector<Pair>& out) {
  for (const auto& lv : levels_) {
    if (lv.endEntry - lv.firstEntry >= 2) pairsWithinLevel(lv, out);
  }
  pairsAcrossLevels(out);
}

void BinGrid::pairsWithinLevel(const Level& lv, std::vector<Pair>& out) const {
  const std::uint32_t lastBucket = lv.firstBucket + (1u << lv.bucketBits);
  auto it = std::lower_bound(crowded_.begin(), crowded_.end(), lv.firstBucket);
  for (; it != crowded_.end() && *it < lastBucket; ++it) {
    const std::uint32_t begin = bucketStart_[*it], end = bucketStart_[*it + 1];
    for (std::uint32_t i = begin; i + 1 < end; ++i) {
      const Entry ei = entries_[i];
      const std::uint32_t a = ei.proxy;
      const float ax0 = minX_[a], ay0 = minY_[a], ax1 = maxX_[a], ay1 = maxY_[a];
      for (std::uint32_t j = i + 1; j < end; ++j) {
        const Entry ej = entries_[j];
        if (ej.cx != ei.cx || ej.cy != ei.cy) continue;  // another cell, same bucket
        const std::uint32_t b = ej.proxy;
        if (!(ax0 < maxX_[b] && minX_[b] < ax1 && ay0 < maxY_[b] && minY_[b] < ay1)) continue;
        // Owner rule: only the cell holding the intersection's min corner reports.
        if (cellCoord(std::max(ax0, minX_[b]), lv.invCellSize) != ei.cx ||
            cellCoord(std::max(ay0, minY_[b]), lv.invCellSize) != ei.cy) {
          continue;
        }
        out.push_back(a < b ? Pair{a, b} : Pair{b, a});
      }
    }
  }
}

void BinGrid::pairsAcrossLevels(std::vector<Pair>& out) const {
  if (levels_.size() < 2) return;
  const auto n = static_cast<std::uint32_t>(minX_.size());
  for (std::uint32_t a = 0; a < n; ++a) {
    const float ax0 = minX_[a], ay0 = minY_[a], ax1 = maxX_[a], ay1 = maxY_[a];
    for (std::uint32_t l = levelOf_[a] + 1u; l < levels_.size(); ++l) {
      const Level& lv = levels_[l];
      if (lv.firstEntry == lv.endEntry) continue;
      const std::int32_t x0 = cellCoord(ax0, lv.invCellSize), x1 = cellCoord(ax1, lv.invCellSize);
      const std::int32_t y0 = cellCoord(ay0, lv.invCellSize), y1 = cellCoord(ay1, lv.invCellSize);
      // a is no larger than these cells: it touches at most 2 x 2 of them.
      for (std::int32_t cy = y0;; ++cy) {
        for (std::int32_t cx = x0;; ++cx) {
          const std::uint32_t bucket = bucketOf(lv, cx, cy);
          for (std::uint32_t e = bucketStart_[bucket]; e < bucketStart_[bucket + 1]; ++e) {
            const Entry en = entries_[e];
            if (en.cx != cx || en.cy != cy) continue;
            const std::uint32_t b = en.proxy;
            if (!(ax0 < maxX_[b] && minX_[b] < ax1 && ay0 < maxY_[b] && minY_[b] < ay1)) continue;
            if (cellCoord(std::max(ax0, minX_[b]), lv.invCellSize) != cx ||
                cellCoord(std::max(ay0, minY_[b]), lv.invCellSize) != cy) {
              continue;
            }
            out.push_back(a < b ? Pair{a, b} : Pair{b, a});
          }
          if (cx == x1) break;
        }
        if (cy == y1) break;
      }
    }
  }
}

void BinGrid::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  for (const auto& lv : levels_) {
    const std::uint32_t count = lv.endEntry - lv.firstEntry;
    if (count == 0) continue;
    const std::int32_t x0 = cellCoord(box.min.x, lv.invCellSize);
    const std::int32_t x1 = cellCoord(box.max.x, lv.invCellSize);
    const std::int32_t y0 = cellCoord(box.min.y, lv.invCellSize);
    const std::int32_t y1 = cellCoord(box.max.y, lv.invCellSize);
    // A proxy in several cells is reported by the cell holding the corner
    // max(proxy.min, box.min), which lies in both cell ranges.
    auto report = [&](const Entry& en) {
      const std::uint32_t p = en.proxy;
      if (!(minX_[p] <= box.max.x && box.min.x <= maxX_[p] && minY_[p] <= box.max.y &&
            box.min.y <= maxY_[p])) {
        return;
      }
      if (cellCoord(std::max(minX_[p], box.min.x), lv.invCellSize) == en.cx &&
          cellCoord(std::max(minY_[p], box.min.y), lv.invCellSize) == en.cy) {
        out.push_back(p);
      }
    };
    const double cells = (static_cast<double>(x1) - x0 + 1) * (static_cast<double>(y1) - y0 + 1);
    if (cells > static_cast<double>(count)) {
      // Query larger than the level's population: scanning is cheaper.
      for (std::uint32_t e = lv.firstEntry; e < lv.endEntry; ++e) report(entries_[e]);
      continue;
    }
    for (std::int32_t cy = y0;; ++cy) {
      for (std::int32_t cx = x0;; ++cx) {
        const std::uint32_t bucket = bucketOf(lv, cx, cy);
        for (std::uint32_t e = bucketStart_[bucket]; e < bucketStart_[bucket + 1]; ++e) {
          if (entries_[e].cx == cx && entries_[e].cy == cy) report(entries_[e]);
        }
        if (cx == x1) break;
      }
      if (cy == y1) break;
    }
  }
}

std::uint32_t BinGrid::levelCount() const noexcept {
  return static_cast<std::uint32_t>(std::count_if(
      levels_.begin(), levels_.end(), [](const Level& l) { return l.endEntry > l.firstEntry; }));
}

std::size_t BinGrid::memoryBytes() const noexcept {
  return (minX_.capacity() + minY_.capacity() + maxX_.capacity() + maxY_.capacity() +
          sample_.capacity()) *
             sizeof(float) +
         levelOf_.capacity() + levels_.capacity() * sizeof(Level) +
         (entries_.capacity() + unsorted_.capacity()) * sizeof(Entry) +
         (bucketStart_.capacity() + crowded_.capacity()) * sizeof(std::uint32_t);
}

}  // namespace quadbin
