#pragma once
/// \file
/// BinGrid: the paper's bin algorithm (seed 002) made fast and safe for any
/// world.
///
/// Space is cut into uniform square cells at least as large as the boxes
/// they hold, and each box is binned once, by the cell of its minimum
/// corner. Two boxes that overlap then sit in the same or adjacent cells, so
/// a cell is tested against itself and four of its eight neighbours (right
/// and the three above): every pair of cells is visited once and every pair
/// of boxes reported once, with no duplicate check. Cells map onto a table of
/// buckets that wraps around like a torus (column mod W, row mod H), sized by
/// the number of boxes, never the world's area: a huge world or a box far
/// outside the bounds costs nothing extra, it only shares a bucket.
///
/// Boxes of very different sizes (the `mixed` scene) go to a hierarchy of
/// levels whose cells double in size: each box to the first level whose
/// cells are larger than the box, so big boxes never force big cells on the
/// small ones; a box is tested against the coarser levels by looking up the
/// 3 x 3 cells its partners' corners may lie in.
///
/// The table is rebuilt every frame by a stable counting sort that walks the
/// boxes in the previous frame's cell order: bodies move little between
/// frames, so the sort's writes are almost sequential and the pair search
/// reads boxes copied next to their neighbours. Its cost therefore does not
/// depend on how far bodies move, and the memory is about 50 bytes per body.
///
/// Pick it for many bodies of similar size (the paper's recommendation above
/// about 1,000 bodies).
///
/// Parallel (setTaskSystem): boxes are binned in three passes over fixed
/// chunks (count per chunk and group of buckets, scatter into groups from
/// prefix sums, then each group sorted into its buckets as one task); pairs
/// are found by chunks of buckets, each into its own buffer, and the buffers
/// concatenated in bucket order. No locks, no atomics: the table and the
/// pairs are the same, in the same order, for any thread count.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

namespace quadbin {

struct BinGridOptions {
  /// Side of the finest cells. 0 = automatic: `cellSizeFactor` times the
  /// median box extent (max of width and height) of the frame.
  float cellSize = 0.0f;
  float cellSizeFactor = 3.0f;
  /// Put boxes larger than the finest cells on coarser levels (cells
  /// doubling in size). With false, one level whose cells fit the largest
  /// box (the paper's single grid).
  bool multiLevel = true;
};

class BinGrid final : public BroadPhase {
 public:
  explicit BinGrid(const BinGridOptions& options = {});

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::BinGrid; }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override { return order_.size(); }
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One cell per non-empty cell of every level (depth = level, 0 the
  /// finest), with the boxes binned into it; level by level, bucket order.
  void draw(BroadPhaseDraw& out) const override;
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// The finest cell side used by the last update.
  [[nodiscard]] float cellSize() const noexcept { return cellSize_; }
  /// Levels holding at least one box after the last update.
  [[nodiscard]] std::uint32_t levelCount() const noexcept {
    return static_cast<std::uint32_t>(usedLevels_.size());
  }

 private:
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
  std::vector<std::uint32_t> chunkCounts_;  // per chunk of boxes: per group, then per level
  std::vector<std::uint32_t> groupBegin_;
  std::uint32_t groupShift_ = 0;
  std::uint32_t groupCount_ = 0;
  std::vector<float> sample_;
  std::vector<std::uint32_t> lastLevelCount_;  // items per level in the last frame
  OrderedBuffers<Pair> pairBuffers_;
  std::vector<std::uint32_t> taskLevel_, taskBegin_, taskEnd_;  // pair tasks
};

}  // namespace quadbin
