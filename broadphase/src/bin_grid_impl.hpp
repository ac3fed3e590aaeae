#pragma once
// The state of BinGrid (bin_grid.hpp) and its algorithms, defined in
// bin_grid.cpp and bin_grid_layout.cpp.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <quadbin/broadphase/bin_grid.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <vector>

namespace quadbin {

// What bin_grid.cpp (binning, pairs, queries) and bin_grid_layout.cpp (cell
// size, levels, layout, draw) share.
namespace bingrid {

constexpr std::uint32_t kLevels = 256;  // level l has cells of side cellSize * 2^l
constexpr std::size_t kSizeSample = 1024;
// A box fills at most this share of its level's cell side, so two boxes of
// one level that overlap have cell coordinates at most 1 apart even after
// the rounding of x * (1 / side).
constexpr double kFill = 0.998;
constexpr double kMinCellSize = 1e-30;
constexpr double kBucketsPerItem =
    2.0;  // table size: memory against crowding  // so that 256 levels reach any float extent
// Work split (constants, never the thread count, so results never depend on it).
// Boxes per task of the binning passes: about 64 tasks of 4,096 to 65,536
// boxes (each chunk has a row of counters that the serial prefix sums walk:
// a million boxes in 4,096-box chunks made that walk 60,000 strided reads).
constexpr std::uint32_t kBoxParts = 64, kBoxChunkMin = 4096, kBoxChunkMax = 65536;
inline std::uint32_t boxChunk(std::uint32_t n) noexcept {
  return chunkSizeFor(n, kBoxParts, kBoxChunkMin, kBoxChunkMax);
}
constexpr std::uint32_t kGroupBits = 10;        // at most 2^10 groups of buckets
constexpr std::uint32_t kItemsPerGroup = 4096;  // about this many boxes per group
constexpr std::uint32_t kBucketChunk = 4096;    // at most this many buckets per pair task
constexpr std::uint32_t kBoxesPerTask = 2048;   // and about this many boxes (a crowd's
                                                // buckets are full: cut them finer)

// floor(x / side) as an integer clamped into int32 (monotonic in x, so
// clamping far-away coordinates never separates neighbours). NaN goes low.
inline std::int64_t cellCoord(float x, double invCellSize) noexcept {
  const double t = static_cast<double>(x) * invCellSize;
  if (!(t > -2147483648.0)) return INT32_MIN;
  if (t >= 2147483647.0) return INT32_MAX;
  const auto i = static_cast<std::int64_t>(t);  // truncates toward zero
  return static_cast<double>(i) > t ? i - 1 : i;
}

// x mod m for any x (m > 0): one compare for the cells inside the table.
inline std::uint32_t wrap(std::int64_t x, std::uint32_t m) noexcept {
  if (static_cast<std::uint64_t>(x) < m) return static_cast<std::uint32_t>(x);
  const std::int64_t r = x % static_cast<std::int64_t>(m);
  return static_cast<std::uint32_t>(r < 0 ? r + m : r);
}

inline std::uint32_t ceilLog2(std::uint64_t v) noexcept {
  return v <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(v - 1));
}

inline double extentOf(const AABB& b) noexcept {
  return std::max(static_cast<double>(b.max.x) - b.min.x, static_cast<double>(b.max.y) - b.min.y);
}

}  // namespace bingrid

struct BinGrid::Impl {
  explicit Impl(const BinGridOptions& options);
  void setBounds(const AABB& bounds);
  void update(std::span<const AABB> boxes);
  // Appends the pairs to out, or (replace) overwrites it with them.
  void findPairs(std::vector<Pair>& out, bool replace);
  void query(const AABB& box, std::vector<std::uint32_t>& out) const;
  [[nodiscard]] std::size_t memoryBytes() const noexcept;
  void draw(BroadPhaseDraw& out) const;

  // The task system of the update or findPairs running now.
  [[nodiscard]] TaskSystem& tasks() const noexcept { return *tasks_; }
  TaskSystem* tasks_ = nullptr;

  struct Level {
    double cellSize = 0.0;
    double invCellSize = 0.0;
    double maxExtent = 0.0;         // boxes up to this extent belong here (or finer)
    std::uint32_t firstBucket = 0;  // buckets [firstBucket, firstBucket + columns * rows)
    std::uint32_t columns = 4;      // the table wraps: cell (x, y) is bucket
    std::uint32_t rows = 4;         // (y mod rows) * columns + (x mod columns)
    [[nodiscard]] std::uint32_t buckets() const noexcept { return columns * rows; }
  };

  void adaptLayout(std::span<const AABB> boxes);
  void chooseCellSize(std::span<const AABB> boxes);
  void planLevels(std::span<const AABB> boxes);
  void refreshOrder(std::uint32_t n);
  void bin(std::span<const AABB> boxes);
  void gatherAndCount(std::span<const AABB> boxes, std::uint32_t chunks, std::uint32_t stride);
  void scatterToGroups(std::uint32_t n, std::uint32_t stride);
  void sortGroups();
  [[nodiscard]] std::uint32_t levelOf(const AABB& box) const noexcept;
  [[nodiscard]] std::uint32_t bucketOf(const AABB& box, std::uint32_t level) const noexcept;
  template <class Visit>
  void forEachReachingBucket(const Level& lv, const AABB& box, Visit&& visit) const;
  /// Whether the boxes of `level` search the cells of `other` for pairs
  /// (otherwise those of `other` search `level`'s).
  [[nodiscard]] bool searchesFrom(std::uint32_t level, std::uint32_t other) const noexcept;
  /// Pairs of the items in buckets [begin, end) of level `level`, with
  /// their own level and with the levels it searches.
  void pairsInBuckets(std::uint32_t level, std::uint32_t begin, std::uint32_t end,
                      std::vector<Pair>& out) const;

  BinGridOptions options_;
  AABB bounds_{{0.0f, 0.0f}, {0.0f, 0.0f}};
  // The extent the table is laid out over: the bounds', or the boxes' own
  // once they spread well past the bounds (open worlds).
  double layoutWidth_ = 0.0, layoutHeight_ = 0.0;
  float cellSize_ = 1.0f;
  std::vector<Level> levels_;              // every possible level, finest first
  std::vector<std::uint32_t> usedLevels_;  // levels holding boxes, finest first
  std::uint32_t bucketCount_ = 0;          // buckets of all levels
  // The frame's items in bucket order: item k is proxy order_[k], its box
  // (minX_[k], minY_[k]) - (maxX_[k], maxY_[k]); bucket b holds items [bucketStart_[b],
  // bucketStart_[b + 1]). The order is also where the next frame's sort starts from.
  std::vector<std::uint32_t> order_;
  std::vector<float> minX_, minY_, maxX_, maxY_;  // the sorted boxes (+ padding)
  std::vector<std::uint32_t> bucketStart_;
  // Scratch of the sort: boxes and buckets in the previous order, then
  // staged by groups of buckets.
  std::vector<AABB> gathered_;
  std::vector<std::uint32_t> bucketOfGathered_;
  std::vector<AABB> staged_;
  std::vector<std::uint32_t> stagedProxy_;
  std::vector<std::uint32_t> stagedBucket_;
  std::vector<std::uint32_t> chunkCounts_;    // per chunk of boxes: per group, then per level
  std::vector<std::uint32_t> chunkTopLevel_;  // per chunk of boxes: the coarsest level it holds
  std::vector<std::uint32_t> groupBegin_;
  std::uint32_t groupShift_ = 0;
  std::uint32_t groupCount_ = 0;
  std::vector<float> sample_;
  std::vector<std::uint32_t> lastLevelCount_;  // items per level in the last frame
  OrderedBuffers<Pair> pairBuffers_;
  std::vector<std::uint32_t> taskLevel_, taskBegin_, taskEnd_;  // pair tasks
};

inline std::uint32_t BinGrid::Impl::levelOf(const AABB& box) const noexcept {
  const double e = bingrid::extentOf(box);
  if (!(e > levels_[0].maxExtent)) return 0;  // the common case, and NaN
  std::uint32_t l = 1;
  while (l + 1 < bingrid::kLevels && e > levels_[l].maxExtent) ++l;
  return l;
}

}  // namespace quadbin
