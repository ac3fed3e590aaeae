#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <quadbin/broadphase/bin_grid.hpp>
#include <quadbin/error.hpp>
#include <quadbin/tasks/one_region.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <string>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bin_grid_impl.hpp"
#include "checks.hpp"

namespace quadbin {

namespace {

using namespace bingrid;

// The sorted boxes, one array per coordinate (the pair test reads four
// candidates at a time); each array has kPadding readable slots past n.
struct SortedBoxes {
  const float* minX;
  const float* minY;
  const float* maxX;
  const float* maxY;
  const std::uint32_t* proxies;
};
constexpr std::uint32_t kPadding = 4;

// Tests box `a` (proxy pa) against items [j0, j1), reporting in item order.
inline void testRange(const AABB& a, std::uint32_t pa, const SortedBoxes& s, std::uint32_t j0,
                      std::uint32_t j1, std::vector<Pair>& out) {
  auto report = [&](std::uint32_t j) {
    const std::uint32_t pb = s.proxies[j];
    out.push_back(pa < pb ? Pair{pa, pb} : Pair{pb, pa});
  };
#if defined(__SSE2__)
  // Four candidates per step, no branch per candidate: ranges are short
  // (a cell holds one or two boxes), so branches on each would mispredict.
  const __m128 aMinX = _mm_set1_ps(a.min.x), aMinY = _mm_set1_ps(a.min.y);
  const __m128 aMaxX = _mm_set1_ps(a.max.x), aMaxY = _mm_set1_ps(a.max.y);
  for (std::uint32_t j = j0; j < j1; j += 4) {
    const __m128 hit = _mm_and_ps(_mm_and_ps(_mm_cmplt_ps(_mm_loadu_ps(s.minX + j), aMaxX),
                                             _mm_cmplt_ps(aMinX, _mm_loadu_ps(s.maxX + j))),
                                  _mm_and_ps(_mm_cmplt_ps(_mm_loadu_ps(s.minY + j), aMaxY),
                                             _mm_cmplt_ps(aMinY, _mm_loadu_ps(s.maxY + j))));
    auto mask = static_cast<unsigned>(_mm_movemask_ps(hit));
    if (j1 - j < 4) mask &= (1u << (j1 - j)) - 1;  // lanes past the range
    while (mask != 0) {
      report(j + static_cast<std::uint32_t>(std::countr_zero(mask)));
      mask &= mask - 1;
    }
  }
#else
  for (std::uint32_t j = j0; j < j1; ++j) {
    if ((s.minX[j] < a.max.x) & (a.min.x < s.maxX[j]) & (s.minY[j] < a.max.y) &
        (a.min.y < s.maxY[j])) {
      report(j);
    }
  }
#endif
}

}  // namespace

BinGrid::Impl::Impl(const BinGridOptions& options) : options_(options) {
  if (!(options.cellSize >= 0.0f) || !std::isfinite(options.cellSize)) {
    throw Error("BinGridOptions.cellSize = " + std::to_string(options.cellSize) +
                " must be finite and >= 0 (0 = automatic)");
  }
  if (!(options.cellSizeFactor > 0.0f) || !std::isfinite(options.cellSizeFactor)) {
    throw Error("BinGridOptions.cellSizeFactor = " + std::to_string(options.cellSizeFactor) +
                " must be finite and > 0");
  }
  levels_.resize(kLevels);
  lastLevelCount_.assign(kLevels, 0);
  bucketStart_.assign(1, 0);
}

inline std::uint32_t BinGrid::Impl::bucketOf(const AABB& box, std::uint32_t level) const noexcept {
  const Level& lv = levels_[level];
  return lv.firstBucket + wrap(cellCoord(box.min.y, lv.invCellSize), lv.rows) * lv.columns +
         wrap(cellCoord(box.min.x, lv.invCellSize), lv.columns);
}

// Calls visit(first, end) with the items of each bucket of `lv` that may
// hold the minimum corner of a box of that level touching `box`: the cells
// from (box min - 1) to the cell of box max, each bucket once however often
// the range wraps around the table.
template <class Visit>
void BinGrid::Impl::forEachReachingBucket(const Level& lv, const AABB& box, Visit&& visit) const {
  const std::uint32_t* start = bucketStart_.data() + lv.firstBucket;
  const std::int64_t x0 = cellCoord(box.min.x, lv.invCellSize) - 1;
  const std::int64_t y0 = cellCoord(box.min.y, lv.invCellSize) - 1;
  const std::int64_t cols =
      std::min<std::int64_t>(cellCoord(box.max.x, lv.invCellSize) - x0 + 1, lv.columns);
  const std::int64_t rows =
      std::min<std::int64_t>(cellCoord(box.max.y, lv.invCellSize) - y0 + 1, lv.rows);
  if (cols * rows >= static_cast<std::int64_t>(start[lv.buckets()] - start[0])) {
    visit(start[0], start[lv.buckets()]);  // more cells than boxes: the whole level
    return;
  }
  for (std::int64_t y = y0; y < y0 + rows; ++y) {
    const std::uint32_t rowBase = wrap(y, lv.rows) * lv.columns;
    for (std::int64_t x = x0; x < x0 + cols; ++x) {
      const std::uint32_t b = rowBase + wrap(x, lv.columns);
      visit(start[b], start[b + 1]);
    }
  }
}

void BinGrid::Impl::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "BinGrid::update", tasks());
  const auto n = static_cast<std::uint32_t>(boxes.size());
  adaptLayout(boxes);
  chooseCellSize(boxes);
  planLevels(boxes);
  refreshOrder(n);
  bin(boxes);
}

void BinGrid::Impl::bin(std::span<const AABB> boxes) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  const std::uint32_t total = bucketCount_;
  // Groups of buckets: at most 2^kGroupBits, and about one per
  // kItemsPerGroup boxes, so that small frames are one task, not thousands.
  const std::uint32_t wantedGroups =
      std::clamp<std::uint32_t>(n / kItemsPerGroup, 1, 1u << kGroupBits);
  groupShift_ = ceilLog2((std::uint64_t{total} + wantedGroups - 1) / wantedGroups);
  groupCount_ = ((total - 1) >> groupShift_) + 1;
  const std::uint32_t stride = groupCount_ + kLevels;  // per chunk: groups, then levels
  const std::uint32_t chunks = chunkCount(n, boxChunk(n));
  chunkCounts_.resize(std::size_t{chunks} * stride);
  chunkTopLevel_.resize(chunks);
  for (auto* v : {&minX_, &minY_, &maxX_, &maxY_}) v->resize(std::size_t{n} + kPadding);
  bucketOfGathered_.resize(n);
  stagedBucket_.resize(n);
  staged_.resize(n);
  stagedProxy_.resize(n);
  bucketStart_.resize(std::size_t{total} + 1);
  bucketStart_[0] = 0;
  groupBegin_.resize(std::size_t{groupCount_} + 1);
  gatherAndCount(boxes, chunks, stride);
  scatterToGroups(n, stride);
  sortGroups();
}

// Pass 1: gather the boxes in the starting order (the sorted arrays are
// scratch until pass 3) and count them per chunk, group of buckets and
// level; then the groups' offsets and the levels in use.
void BinGrid::Impl::gatherAndCount(std::span<const AABB> boxes, std::uint32_t chunks,
                                   std::uint32_t stride) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  const std::uint32_t shift = groupShift_;
  std::uint32_t* counts = chunkCounts_.data();
  forEachChunk(tasks(), n, boxChunk(n),
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::uint32_t* h = counts + std::size_t{c} * stride;
                 std::fill(h, h + stride, 0u);
                 std::uint32_t top = 0;
                 // The boxes are read in an order unrelated to their index: fetch ahead.
                 constexpr std::uint32_t kAhead = 16;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   if (k + kAhead < n) __builtin_prefetch(&boxes[order_[k + kAhead]]);
                   const AABB box = boxes[order_[k]];
                   minX_[k] = box.min.x;
                   minY_[k] = box.min.y;
                   maxX_[k] = box.max.x;
                   maxY_[k] = box.max.y;
                   const std::uint32_t level = levelOf(box);
                   const std::uint32_t bucket = bucketOf(box, level);
                   bucketOfGathered_[k] = bucket;
                   ++h[groupCount_ + level];
                   ++h[bucket >> shift];
                   top = std::max(top, level);
                 }
                 chunkTopLevel_[c] = top;
               });
  // Prefix sums, group-major then chunk: the scatter is stable.
  const std::uint32_t running =
      chunkedBucketOffsets(counts, chunks, groupCount_, stride, groupBegin_.data());
  groupBegin_[groupCount_] = running;
  assert(running == n);
  usedLevels_.clear();
  const std::uint32_t top =
      chunks == 0 ? 0 : *std::max_element(chunkTopLevel_.begin(), chunkTopLevel_.begin() + chunks);
  std::fill(lastLevelCount_.begin() + top + 1, lastLevelCount_.end(), 0u);
  for (std::uint32_t l = 0; l <= top; ++l) {  // the levels past every chunk's top hold none
    std::uint32_t items = 0;
    for (std::uint32_t c = 0; c < chunks; ++c)
      items += counts[std::size_t{c} * stride + groupCount_ + l];
    lastLevelCount_[l] = items;
    if (items > 0) usedLevels_.push_back(l);
  }
}

// Pass 2: scatter into groups (stable: each chunk writes from its own
// cursors, which gatherAndCount's prefix sums left in chunkCounts_).
void BinGrid::Impl::scatterToGroups(std::uint32_t n, std::uint32_t stride) {
  const std::uint32_t shift = groupShift_;
  std::uint32_t* counts = chunkCounts_.data();
  forEachChunk(tasks(), n, boxChunk(n),
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::uint32_t* cursor = counts + std::size_t{c} * stride;
                 for (std::uint32_t k = begin; k < end; ++k) {
                   const std::uint32_t bucket = bucketOfGathered_[k];
                   const std::uint32_t dst = cursor[bucket >> shift]++;
                   stagedBucket_[dst] = bucket;
                   staged_[dst] = {{minX_[k], minY_[k]}, {maxX_[k], maxY_[k]}};
                   stagedProxy_[dst] = order_[k];
                 }
               });
}

// Pass 3: each group sorted into its buckets, as one task. Group g owns
// bucketStart_[first + 1 .. last + 1]: no two tasks write one slot.
void BinGrid::Impl::sortGroups() {
  const std::uint32_t total = bucketCount_;
  const std::uint32_t shift = groupShift_;
  tasks().forkJoin(groupCount_, [&](std::uint32_t g) {
    const std::uint32_t firstBucket = g << shift;
    const std::uint32_t endBucket = std::min(total, (g + 1) << shift);
    std::uint32_t* start = bucketStart_.data() + 1;  // start[b] = items before bucket b + 1
    std::fill(start + firstBucket, start + endBucket, 0u);
    const std::uint32_t from = groupBegin_[g], to = groupBegin_[g + 1];
    const std::uint32_t* bucketOfStaged = stagedBucket_.data();
    for (std::uint32_t k = from; k < to; ++k) ++start[bucketOfStaged[k]];
    std::uint32_t at = from;
    for (std::uint32_t b = firstBucket; b < endBucket; ++b) {
      const std::uint32_t here = start[b];
      start[b] = at;
      at += here;
    }
    for (std::uint32_t k = from; k < to; ++k) {
      const std::uint32_t dst = start[bucketOfStaged[k]]++;
      const AABB& box = staged_[k];
      minX_[dst] = box.min.x;
      minY_[dst] = box.min.y;
      maxX_[dst] = box.max.x;
      maxY_[dst] = box.max.y;
      order_[dst] = stagedProxy_[k];
    }
    // Now start[b] is the end of bucket b, that is bucketStart_[b + 1].
  });
}

bool BinGrid::Impl::searchesFrom(std::uint32_t level, std::uint32_t other) const noexcept {
  // Pairs between a finer level f and a coarser level c are found either by
  // each box of f looking up 3 x 3 cells of c, or by each box of c looking
  // up (2^(c - f) + 2)^2 cells of f: whichever makes fewer lookups.
  const std::uint32_t f = std::min(level, other), c = std::max(level, other);
  const double ratio = std::ldexp(1.0, static_cast<int>(std::min(c - f, 30u)));
  const bool fromFine = 9.0 * lastLevelCount_[f] <= (ratio + 2) * (ratio + 2) * lastLevelCount_[c];
  return fromFine == (level == f);
}

void BinGrid::Impl::pairsInBuckets(std::uint32_t level, std::uint32_t begin, std::uint32_t end,
                                   std::vector<Pair>& out) const {
  const Level& lv = levels_[level];
  const std::uint32_t* start = bucketStart_.data() + lv.firstBucket;
  const SortedBoxes boxes{minX_.data(), minY_.data(), maxX_.data(), maxY_.data(), order_.data()};
  const std::uint32_t columns = lv.columns, rows = lv.rows;
  // The levels whose cells each box of this level looks up (pairs across
  // levels are searched from one side only, the cheaper one).
  std::array<std::uint32_t, kLevels> lookupLevels{};
  std::uint32_t lookupCount = 0;
  for (const std::uint32_t m : usedLevels_) {
    if (m != level && searchesFrom(level, m)) lookupLevels[lookupCount++] = m;
  }
  const std::span<const std::uint32_t> lookups(lookupLevels.data(), lookupCount);
  for (std::uint32_t b = begin; b < end; ++b) {
    const std::uint32_t s = start[b], e = start[b + 1];
    if (s == e) continue;
    // The cell's right neighbour and the three above it (the table wraps,
    // and is at least 4 x 4, so these are four other buckets).
    const std::uint32_t row = b / columns, col = b - row * columns;
    const std::uint32_t left = col == 0 ? columns - 1 : col - 1;
    const std::uint32_t next = col + 1 == columns ? 0 : col + 1;
    const std::uint32_t right = row * columns + next;
    const std::uint32_t up = (row + 1 == rows ? 0 : row + 1) * columns;
    const std::uint32_t above[3] = {up + left, up + col, up + next};
    for (std::uint32_t i = s; i < e; ++i) {
      const AABB a{{boxes.minX[i], boxes.minY[i]}, {boxes.maxX[i], boxes.maxY[i]}};
      const std::uint32_t pa = boxes.proxies[i];
      if (next != 0) {  // this bucket's later items and the right one are consecutive
        testRange(a, pa, boxes, i + 1, start[right + 1], out);
      } else {
        testRange(a, pa, boxes, i + 1, e, out);
        testRange(a, pa, boxes, start[right], start[right + 1], out);
      }
      if (col > 0 && next != 0) {  // the three above are consecutive
        testRange(a, pa, boxes, start[above[0]], start[above[2] + 1], out);
      } else {
        for (const std::uint32_t u : above) testRange(a, pa, boxes, start[u], start[u + 1], out);
      }
      // Other levels: a box of level m overlapping this one has its
      // minimum corner in a bucket forEachReachingBucket visits.
      for (const std::uint32_t m : lookups) {
        forEachReachingBucket(levels_[m], a, [&](std::uint32_t from, std::uint32_t to) {
          testRange(a, pa, boxes, from, to, out);
        });
      }
    }
  }
}

void BinGrid::Impl::findPairs(std::vector<Pair>& out, bool replace) {
  if (order_.size() < 2) {
    if (replace) out.clear();
    return;
  }
  // Tasks: runs of consecutive buckets of each level, in bucket order, each
  // of at most kBucketChunk buckets and, where the buckets are full (a
  // cluster), about kBoxesPerTask boxes: the first bucket that reaches that
  // many ends the task. The pairs come out in bucket order whatever the
  // cut, and the cut depends on the boxes only (never the thread count).
  taskLevel_.clear();
  taskBegin_.clear();
  taskEnd_.clear();
  for (const std::uint32_t l : usedLevels_) {
    const std::uint32_t buckets = levels_[l].buckets();
    const std::uint32_t* start = bucketStart_.data() + levels_[l].firstBucket;
    for (std::uint32_t b = 0; b < buckets;) {
      std::uint32_t e = std::min(buckets, b + kBucketChunk);
      if (start[e] - start[b] > kBoxesPerTask) {
        // The first e whose buckets [b, e) hold kBoxesPerTask boxes or more.
        e = static_cast<std::uint32_t>(
            std::lower_bound(start + b + 1, start + e, start[b] + kBoxesPerTask) - start);
      }
      taskLevel_.push_back(l);
      taskBegin_.push_back(b);
      taskEnd_.push_back(e);
      b = e;
    }
  }
  const auto taskCount = static_cast<std::uint32_t>(taskLevel_.size());
  pairBuffers_.reset(taskCount);
  // The search and the copy into `out`: one region.
  inOneRegion(tasks(), taskCount, [&](TaskSystem& team) {
    team.forkJoin(taskCount, [&](std::uint32_t t) {
      pairsInBuckets(taskLevel_[t], taskBegin_[t], taskEnd_[t], pairBuffers_[t]);
    });
    if (replace) {
      pairBuffers_.assignTo(team, out);
    } else {
      pairBuffers_.appendTo(team, out);
    }
  });
}

void BinGrid::Impl::query(const AABB& given, std::vector<std::uint32_t>& out) const {
  const AABB box = detail::queryBox(given, "BinGrid::query");
  for (const std::uint32_t l : usedLevels_) {
    forEachReachingBucket(levels_[l], box, [&](std::uint32_t from, std::uint32_t to) {
      for (std::uint32_t k = from; k < to; ++k) {
        if (touches({{minX_[k], minY_[k]}, {maxX_[k], maxY_[k]}}, box)) out.push_back(order_[k]);
      }
    });
  }
}

std::size_t BinGrid::Impl::memoryBytes() const noexcept {
  return (order_.capacity() + bucketStart_.capacity() + bucketOfGathered_.capacity() +
          stagedBucket_.capacity() + stagedProxy_.capacity() + chunkCounts_.capacity() +
          chunkTopLevel_.capacity() + groupBegin_.capacity() + usedLevels_.capacity() +
          lastLevelCount_.capacity() + taskLevel_.capacity() + taskBegin_.capacity() +
          taskEnd_.capacity()) *
             sizeof(std::uint32_t) +
         (minX_.capacity() + minY_.capacity() + maxX_.capacity() + maxY_.capacity()) *
             sizeof(float) +
         staged_.capacity() * sizeof(AABB) + levels_.capacity() * sizeof(Level) +
         sample_.capacity() * sizeof(float) + pairBuffers_.memoryBytes();
}

BinGrid::BinGrid(const BinGridOptions& options) : impl_(std::make_unique<Impl>(options)) {}
BinGrid::~BinGrid() = default;

void BinGrid::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void BinGrid::update(std::span<const AABB> boxes) {
  // The check, the binning's three passes and the serial sums between them
  // in one region (their calls on tasks() are its phases).
  const std::uint32_t width = chunkCount(
      static_cast<std::uint32_t>(std::min<std::size_t>(boxes.size(), UINT32_MAX)), kBoxChunkMin);
  impl_->tasks_ = &tasks();
  inOneRegion(tasks(), width, [&](TaskSystem&) { impl_->update(boxes); });
}
void BinGrid::findPairs(std::vector<Pair>& out) {
  impl_->tasks_ = &tasks();
  impl_->findPairs(out, false);
}
void BinGrid::findPairsInto(std::vector<Pair>& out) {
  impl_->tasks_ = &tasks();
  impl_->findPairs(out, true);
}
void BinGrid::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(box, out);
}
std::size_t BinGrid::size() const noexcept { return impl_->order_.size(); }
std::size_t BinGrid::memoryBytes() const noexcept { return sizeof(Impl) + impl_->memoryBytes(); }
void BinGrid::draw(BroadPhaseDraw& out) const { impl_->draw(out); }
float BinGrid::cellSize() const noexcept { return impl_->cellSize_; }
std::uint32_t BinGrid::levelCount() const noexcept {
  return static_cast<std::uint32_t>(impl_->usedLevels_.size());
}

}  // namespace quadbin
