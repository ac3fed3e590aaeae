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
constexpr std::uint32_t kFirstCell = 0x80000000u;  // Entry::item flag
constexpr std::uint64_t kReorderEvery = 4;         // frames between re-orderings
// Work split (constants, never the thread count, so results never depend on it).
constexpr std::uint32_t kBoxChunk = 16384;     // boxes per task in the passes over boxes
constexpr std::uint32_t kGroupBits = 8;        // at most 2^8 groups of buckets
constexpr std::uint32_t kCrowdedChunk = 2048;  // crowded buckets per pair task
constexpr std::uint32_t kAcrossChunk = 8192;   // items per task of the across-level pairs

// Side of the cells of level l.
inline float levelSize(float cellSize, std::uint32_t l) noexcept {
  return static_cast<float>(std::ldexp(static_cast<double>(cellSize), static_cast<int>(l)));
}

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
  // Buckets tile the plane: inside a tile of 2^w x 2^h cells, neighbouring
  // cells get neighbouring buckets (row-major), so walking cells in order
  // walks the table in order; tiles are shifted by a hash of their position,
  // so distant tiles spread over the table instead of piling up.
  const std::uint32_t w = level.widthBits, h = level.bucketBits - level.widthBits;
  const auto ux = static_cast<std::uint32_t>(cx), uy = static_cast<std::uint32_t>(cy);
  const std::uint64_t tile = cellKey(cx >> w, cy >> h) * 0x9E3779B97F4A7C15ull;
  const std::uint32_t x = (ux + static_cast<std::uint32_t>(tile >> 40)) & ((1u << w) - 1);
  const std::uint32_t y = (uy + static_cast<std::uint32_t>(tile >> 20)) & ((1u << h) - 1);
  return level.firstBucket + ((y << w) | x);
}

void BinGrid::draw(BroadPhaseDraw& out) const {
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    const Level& lv = levels_[l];
    if (lv.firstEntry == lv.endEntry) continue;
    const std::uint32_t buckets = 1u << lv.bucketBits;
    for (std::uint32_t b = lv.firstBucket; b < lv.firstBucket + buckets; ++b) {
      const std::uint32_t first = bucketStart_[b], last = bucketStart_[b + 1];
      // A bucket may hold several cells (tiles wrap around the table): each
      // cell is drawn once, by its first entry in the bucket.
      for (std::uint32_t e = first; e < last; ++e) {
        const Entry& entry = entries_[e];
        bool seen = false;
        for (std::uint32_t p = first; p < e && !seen; ++p) {
          seen = entries_[p].cx == entry.cx && entries_[p].cy == entry.cy;
        }
        if (seen) continue;
        std::uint32_t count = 1;
        for (std::uint32_t k = e + 1; k < last; ++k) {
          count += entries_[k].cx == entry.cx && entries_[k].cy == entry.cy ? 1u : 0u;
        }
        const float x0 = static_cast<float>(static_cast<double>(entry.cx) * lv.cellSize);
        const float y0 = static_cast<float>(static_cast<double>(entry.cy) * lv.cellSize);
        out.cell({{x0, y0}, {x0 + lv.cellSize, y0 + lv.cellSize}}, l, count);
      }
    }
  }
}

void BinGrid::update(std::span<const AABB> boxes) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  // This frame's order: the last computed cell order, less the proxies that
  // are gone, plus the new ones at the end.
  if (haveNextOrder_) {
    order_.swap(nextOrder_);
    haveNextOrder_ = false;
  }
  const auto previous = static_cast<std::uint32_t>(order_.size());
  if (n < previous) std::erase_if(order_, [n](std::uint32_t p) { return p >= n; });
  for (std::uint32_t i = previous; i < n; ++i) order_.push_back(i);
  boxes_.resize(n);
  tasks().parallelFor(n, kBoxChunk, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t k = begin; k < end; ++k) boxes_[k] = boxes[order_[k]];
  });
  chooseCellSize();
  build();
  ++frame_;
}

void BinGrid::chooseCellSize() {
  if (options_.cellSize > 0.0f) {
    cellSize_ = options_.cellSize;
    return;
  }
  const std::size_t n = boxes_.size();
  if (n == 0) {
    cellSize_ = 1.0f;
    return;
  }
  // Median extent of an evenly strided sample: deterministic and cheap.
  sample_.clear();
  const std::size_t stride = std::max<std::size_t>(1, n / kSizeSample);
  AABB spread = boxes_[0];
  for (std::size_t k = 0; k < n; k += stride) {
    sample_.push_back(std::max(boxes_[k].width(), boxes_[k].height()));
    spread = unionOf(spread, boxes_[k]);
  }
  const auto mid = sample_.begin() + static_cast<std::ptrdiff_t>(sample_.size() / 2);
  std::nth_element(sample_.begin(), mid, sample_.end());
  float size = options_.cellSizeFactor * *mid;
  // Zero-size boxes (points): fall back to the spread of the sample, so
  // cells hold a few boxes each instead of the coordinates overflowing.
  const float side = std::max(spread.width(), spread.height());
  const float fallback = std::isfinite(side) && side > 0.0f
                             ? side / std::sqrt(static_cast<float>(sample_.size())) / 4.0f
                             : 1.0f;
  if (!(size > 0.0f) || !std::isfinite(size)) size = fallback;
  cellSize_ = std::max(size, std::numeric_limits<float>::min() * 1e10f);
}

void BinGrid::build() {
  levels_.clear();
  crowded_.clear();
  chooseLevels();
  binEntries();
  // Every few frames, the next order: items by their first cell, in
  // bucket order. Bodies move little between frames, so a slightly stale
  // order keeps almost all of its locality.
  if (frame_ % kReorderEvery == 0) computeNextOrder();
}

// 1. The level of each box (the first whose cells are at least its size),
// counted per chunk of boxes; then each level's hash table: about two
// buckets per box, plus one slot after them that marks the level's end.
void BinGrid::chooseLevels() {
  const auto n = static_cast<std::uint32_t>(boxes_.size());
  levelOf_.resize(n);
  const double limit = options_.multiLevel ? 1.0 : kMaxCellsPerAxisSingleLevel;
  const double invCell = 1.0 / static_cast<double>(cellSize_);
  const float cellSize = cellSize_;
  const std::uint32_t chunks = chunkCount(n, kBoxChunk);
  chunkCounts_.resize(std::size_t{chunks} * kMaxLevels);
  forEachChunk(tasks(), n, kBoxChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t* counts = chunkCounts_.data() + std::size_t{c} * kMaxLevels;
    std::fill(counts, counts + kMaxLevels, 0u);
    for (std::uint32_t k = begin; k < end; ++k) {
      const AABB& b = boxes_[k];
      const double extent =
          std::max(static_cast<double>(b.max.x) - b.min.x, static_cast<double>(b.max.y) - b.min.y);
      const double ratio = extent * invCell;
      std::uint32_t level = 0;
      if (ratio > limit) {
        int exp = 0;
        const double m = std::frexp(ratio / limit, &exp);  // ratio/limit = m * 2^exp, m in [0.5, 1)
        level = static_cast<std::uint32_t>(m == 0.5 ? exp - 1 : exp);
        // Past float's range the cells stop growing; keep the level finite.
        while (level > 0 && !std::isfinite(levelSize(cellSize, level))) --level;
        level = std::min(level, kMaxLevels - 1);
      }
      levelOf_[k] = static_cast<std::uint8_t>(level);
      ++counts[level];
    }
  });
  std::vector<std::uint32_t>& boxesPerLevel = levelCounts_;
  boxesPerLevel.assign(kMaxLevels, 0);
  std::uint32_t used = 0;
  for (std::uint32_t l = 0; l < kMaxLevels; ++l) {
    for (std::uint32_t c = 0; c < chunks; ++c) {
      boxesPerLevel[l] += chunkCounts_[std::size_t{c} * kMaxLevels + l];
    }
    if (boxesPerLevel[l] > 0) used = l + 1;
  }
  boxesPerLevel.resize(used);

  levels_.resize(used);
  std::uint32_t slots = 0;
  for (std::uint32_t l = 0; l < used; ++l) {
    Level& lv = levels_[l];
    lv.cellSize = levelSize(cellSize, l);
    lv.invCellSize = 1.0f / lv.cellSize;
    const std::uint32_t boxesHere = boxesPerLevel[l];
    lv.bucketBits =
        boxesHere < 2 ? 2u : static_cast<std::uint32_t>(std::bit_width(2 * boxesHere - 1));
    lv.widthBits = (lv.bucketBits + 1) / 2;
    lv.firstBucket = slots;
    slots += (1u << lv.bucketBits) + 1;
  }
  bucketStart_.resize(slots);
}

// 2. A box goes into every cell it touches, as an entry of the cell's
// bucket; entries end up grouped by bucket, in item order within one. A
// stable counting sort in two passes, with no shared counter: (a) by chunks
// of boxes, entries counted and scattered into groups of 2^groupShift_
// buckets (per-chunk counts, prefix sums over group then chunk); (b) each
// group, as one task, counted and scattered into its own buckets. The
// result is exactly what one serial counting sort would give.
void BinGrid::binEntries() {
  const auto n = static_cast<std::uint32_t>(boxes_.size());
  const auto slots = static_cast<std::uint32_t>(bucketStart_.size());
  TaskSystem& ts = tasks();
  if (slots == 0) {
    entries_.clear();
    return;
  }
  const auto slotBits = static_cast<std::uint32_t>(std::bit_width(slots - 1));
  groupShift_ = slotBits > kGroupBits ? slotBits - kGroupBits : 0;
  groupCount_ = ((slots - 1) >> groupShift_) + 1;
  const std::uint32_t groups = groupCount_, shift = groupShift_;

  auto forEachCell = [&](std::uint32_t k, auto&& visit) {
    const Level& lv = levels_[levelOf_[k]];
    const AABB& b = boxes_[k];
    const std::int32_t x0 = cellCoord(b.min.x, lv.invCellSize);
    const std::int32_t x1 = cellCoord(b.max.x, lv.invCellSize);
    const std::int32_t y0 = cellCoord(b.min.y, lv.invCellSize);
    const std::int32_t y1 = cellCoord(b.max.y, lv.invCellSize);
    bool first = true;
    for (std::int32_t cy = y0;; ++cy) {
      for (std::int32_t cx = x0;; ++cx) {
        visit(bucketOf(lv, cx, cy), cx, cy, first);
        first = false;
        if (cx == x1) break;
      }
      if (cy == y1) break;
    }
  };

  // (a) Count per chunk and group, prefix sums, scatter into groups.
  const std::uint32_t chunks = chunkCount(n, kBoxChunk);
  chunkCounts_.resize(std::size_t{chunks} * groups);
  forEachChunk(ts, n, kBoxChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t* counts = chunkCounts_.data() + std::size_t{c} * groups;
    std::fill(counts, counts + groups, 0u);
    for (std::uint32_t k = begin; k < end; ++k) {
      forEachCell(k, [&](std::uint32_t bucket, std::int32_t, std::int32_t, bool) {
        ++counts[bucket >> shift];
      });
    }
  });
  groupBegin_.resize(groups + 1);
  std::uint32_t running = 0;
  for (std::uint32_t g = 0; g < groups; ++g) {
    groupBegin_[g] = running;
    for (std::uint32_t c = 0; c < chunks; ++c) {
      std::uint32_t& count = chunkCounts_[std::size_t{c} * groups + g];
      const std::uint32_t here = count;
      count = running;  // the chunk's cursor into the group
      running += here;
    }
  }
  groupBegin_[groups] = running;
  const std::uint32_t total = running;
  staged_.resize(total);
  stagedBucket_.resize(total);
  entries_.resize(total);
  forEachChunk(ts, n, kBoxChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t* cursor = chunkCounts_.data() + std::size_t{c} * groups;
    for (std::uint32_t k = begin; k < end; ++k) {
      forEachCell(k, [&](std::uint32_t bucket, std::int32_t cx, std::int32_t cy, bool first) {
        const std::uint32_t at = cursor[bucket >> shift]++;
        staged_[at] = {cx, cy, first ? (k | kFirstCell) : k};
        stagedBucket_[at] = bucket;
      });
    }
  });

  // (b) Each group: count its buckets (in place in bucketStart_, which the
  // groups share without overlap), note the crowded ones.
  groupCrowded_.resize(groups + 1);
  std::uint32_t* start = bucketStart_.data();
  ts.forkJoin(groups, [&](std::uint32_t g) {
    const std::uint32_t s0 = g << shift, s1 = std::min(slots, (g + 1) << shift);
    std::fill(start + s0, start + s1, 0u);
    for (std::uint32_t at = groupBegin_[g]; at < groupBegin_[g + 1]; ++at) {
      ++start[stagedBucket_[at]];
    }
    std::uint32_t crowded = 0;
    for (std::uint32_t s = s0; s < s1; ++s) crowded += start[s] >= 2 ? 1u : 0u;
    groupCrowded_[g] = crowded;
  });
  std::uint32_t crowdedTotal = 0;
  for (std::uint32_t g = 0; g < groups; ++g) {
    const std::uint32_t here = groupCrowded_[g];
    groupCrowded_[g] = crowdedTotal;
    crowdedTotal += here;
  }
  groupCrowded_[groups] = crowdedTotal;
  crowded_.resize(crowdedTotal);
  ts.forkJoin(groups, [&](std::uint32_t g) {
    const std::uint32_t s0 = g << shift, s1 = std::min(slots, (g + 1) << shift);
    std::uint32_t at = groupBegin_[g];
    std::uint32_t crowdedAt = groupCrowded_[g];
    for (std::uint32_t s = s0; s < s1; ++s) {
      const std::uint32_t count = start[s];
      if (count >= 2) crowded_[crowdedAt++] = s;
      start[s] = at;
      at += count;
    }
    // Scatter with each bucket's start as its cursor; afterwards start[s]
    // is the bucket's end, i.e. the next bucket's start: shift back by one.
    for (std::uint32_t e = groupBegin_[g]; e < groupBegin_[g + 1]; ++e) {
      entries_[start[stagedBucket_[e]]++] = staged_[e];
    }
    for (std::uint32_t s = s1 - 1; s > s0; --s) start[s] = start[s - 1];
    start[s0] = groupBegin_[g];
  });
  for (auto& lv : levels_) {
    lv.firstEntry = start[lv.firstBucket];
    lv.endEntry = start[lv.firstBucket + (1u << lv.bucketBits)];
  }
}

void BinGrid::computeNextOrder() {
  const auto n = static_cast<std::uint32_t>(boxes_.size());
  nextOrder_.resize(n);
  haveNextOrder_ = true;
  if (n == 0) return;
  const std::uint32_t groups = groupCount_;
  // Entries of the groups are consecutive in entries_: count each group's
  // first cells, then write them at prefix-sum offsets.
  std::vector<std::uint32_t>& firsts = chunkCounts_;
  firsts.resize(groups + 1);
  tasks().forkJoin(groups, [&](std::uint32_t g) {
    std::uint32_t count = 0;
    for (std::uint32_t e = groupBegin_[g]; e < groupBegin_[g + 1]; ++e) {
      count += (entries_[e].item & kFirstCell) != 0 ? 1u : 0u;
    }
    firsts[g] = count;
  });
  std::uint32_t running = 0;
  for (std::uint32_t g = 0; g < groups; ++g) {
    const std::uint32_t here = firsts[g];
    firsts[g] = running;
    running += here;
  }
  assert(running == n);
  tasks().forkJoin(groups, [&](std::uint32_t g) {
    std::uint32_t at = firsts[g];
    for (std::uint32_t e = groupBegin_[g]; e < groupBegin_[g + 1]; ++e) {
      const Entry en = entries_[e];
      if (en.item & kFirstCell) nextOrder_[at++] = order_[en.item & ~kFirstCell];
    }
  });
}

void BinGrid::findPairs(std::vector<Pair>& out) {
  // Tasks in the serial order: chunks of crowded buckets (bucket order,
  // which is level order), then chunks of items for the pairs across levels.
  const auto crowded = static_cast<std::uint32_t>(crowded_.size());
  const auto n = static_cast<std::uint32_t>(boxes_.size());
  const std::uint32_t bucketTasks = chunkCount(crowded, kCrowdedChunk);
  const std::uint32_t acrossTasks = levels_.size() >= 2 ? chunkCount(n, kAcrossChunk) : 0;
  pairBuffers_.reset(bucketTasks + acrossTasks);
  tasks().forkJoin(bucketTasks + acrossTasks, [&](std::uint32_t t) {
    if (t < bucketTasks) {
      const std::uint32_t begin = t * kCrowdedChunk;
      pairsInBuckets(begin, std::min(crowded, begin + kCrowdedChunk), pairBuffers_[t]);
    } else {
      const std::uint32_t begin = (t - bucketTasks) * kAcrossChunk;
      pairsAcrossLevels(begin, std::min(n, begin + kAcrossChunk), pairBuffers_[t]);
    }
  });
  pairBuffers_.appendTo(tasks(), out);
}

void BinGrid::pairsInBuckets(std::uint32_t begin, std::uint32_t end, std::vector<Pair>& out) const {
  if (begin == end) return;
  // The level of the first bucket; later ones are at the same or a later level.
  std::uint32_t l = 0;
  while (l + 1 < levels_.size() && levels_[l + 1].firstBucket <= crowded_[begin]) ++l;
  for (std::uint32_t c = begin; c < end; ++c) {
    const std::uint32_t bucket = crowded_[c];
    while (l + 1 < levels_.size() && levels_[l + 1].firstBucket <= bucket) ++l;
    const Level& lv = levels_[l];
    const std::uint32_t first = bucketStart_[bucket], last = bucketStart_[bucket + 1];
    for (std::uint32_t i = first; i + 1 < last; ++i) {
      const Entry ei = entries_[i];
      const AABB a = boxes_[ei.item & ~kFirstCell];
      for (std::uint32_t j = i + 1; j < last; ++j) {
        const Entry ej = entries_[j];
        if (ej.cx != ei.cx || ej.cy != ei.cy) continue;  // another cell, same bucket
        const AABB& b = boxes_[ej.item & ~kFirstCell];
        if (!overlaps(a, b)) continue;
        // Owner rule: only the cell holding the intersection's min corner reports.
        if (cellCoord(std::max(a.min.x, b.min.x), lv.invCellSize) != ei.cx ||
            cellCoord(std::max(a.min.y, b.min.y), lv.invCellSize) != ei.cy) {
          continue;
        }
        const std::uint32_t pa = order_[ei.item & ~kFirstCell], pb = order_[ej.item & ~kFirstCell];
        out.push_back(pa < pb ? Pair{pa, pb} : Pair{pb, pa});
      }
    }
  }
}

void BinGrid::pairsAcrossLevels(std::uint32_t begin, std::uint32_t end,
                                std::vector<Pair>& out) const {
  for (std::uint32_t k = begin; k < end; ++k) {
    const AABB a = boxes_[k];
    for (std::uint32_t l = levelOf_[k] + 1u; l < levels_.size(); ++l) {
      const Level& lv = levels_[l];
      if (lv.firstEntry == lv.endEntry) continue;
      const std::int32_t x0 = cellCoord(a.min.x, lv.invCellSize),
                         x1 = cellCoord(a.max.x, lv.invCellSize);
      const std::int32_t y0 = cellCoord(a.min.y, lv.invCellSize),
                         y1 = cellCoord(a.max.y, lv.invCellSize);
      // a is no larger than these cells: it touches at most 2 x 2 of them.
      for (std::int32_t cy = y0;; ++cy) {
        for (std::int32_t cx = x0;; ++cx) {
          const std::uint32_t bucket = bucketOf(lv, cx, cy);
          for (std::uint32_t e = bucketStart_[bucket]; e < bucketStart_[bucket + 1]; ++e) {
            const Entry en = entries_[e];
            if (en.cx != cx || en.cy != cy) continue;
            const AABB& b = boxes_[en.item & ~kFirstCell];
            if (!overlaps(a, b)) continue;
            if (cellCoord(std::max(a.min.x, b.min.x), lv.invCellSize) != cx ||
                cellCoord(std::max(a.min.y, b.min.y), lv.invCellSize) != cy) {
              continue;
            }
            const std::uint32_t pa = order_[k], pb = order_[en.item & ~kFirstCell];
            out.push_back(pa < pb ? Pair{pa, pb} : Pair{pb, pa});
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
    // A box in several cells is reported by the cell holding the corner
    // max(box.min, query.min), which lies in both cell ranges.
    auto report = [&](const Entry& en) {
      const std::uint32_t k = en.item & ~kFirstCell;
      const AABB& b = boxes_[k];
      if (!touches(b, box)) return;
      if (cellCoord(std::max(b.min.x, box.min.x), lv.invCellSize) == en.cx &&
          cellCoord(std::max(b.min.y, box.min.y), lv.invCellSize) == en.cy) {
        out.push_back(order_[k]);
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
  return (order_.capacity() + nextOrder_.capacity() + bucketStart_.capacity() +
          crowded_.capacity() + levelCounts_.capacity() + chunkCounts_.capacity() +
          groupBegin_.capacity() + groupCrowded_.capacity() + stagedBucket_.capacity()) *
             sizeof(std::uint32_t) +
         staged_.capacity() * sizeof(Entry) + pairBuffers_.memoryBytes() +
         boxes_.capacity() * sizeof(AABB) + levelOf_.capacity() +
         levels_.capacity() * sizeof(Level) + entries_.capacity() * sizeof(Entry) +
         sample_.capacity() * sizeof(float);
}

}  // namespace quadbin
