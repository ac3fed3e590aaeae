#pragma once
/// \file
/// BinGrid: the paper's bin algorithm (seed 002) made safe for any world.
///
/// Space is cut into uniform square cells; a box goes into every cell it
/// touches, and only cells holding two or more boxes are examined. Cells are
/// found by hashing their integer coordinates, so memory follows the number
/// of boxes, never the world's area: a huge world or a box far outside the
/// bounds costs nothing extra. Boxes of very different sizes (the `mixed`
/// scene) go to a hierarchy of levels whose cells double in size, so a big
/// box never lands in thousands of small cells and small boxes never share
/// a cell with a crowd: each box goes to the first level whose cells are at
/// least as large as the box, and is tested against the coarser levels by
/// lookup. A pair is reported once: by the one cell that holds the minimum
/// corner of the two boxes' intersection.
///
/// Pick it for many bodies of similar size (the paper's recommendation above
/// about 1,000 bodies); it is rebuilt every frame, so its cost does not
/// depend on how far bodies move.
///
/// Parallel (setTaskSystem): boxes are binned by a two-pass counting sort,
/// first into groups of buckets by chunks of boxes (per-chunk counts and
/// prefix sums), then each group sorted into its buckets as one task; pairs
/// are found by chunks of crowded buckets, each into its own buffer, and the
/// buffers concatenated in bucket order. No locks, no atomics: the tables
/// and the pairs are the same, in the same order, for any thread count.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

namespace quadbin {

struct BinGridOptions {
  /// Side of the finest cells. 0 = automatic: `cellSizeFactor` times the
  /// median box extent (max of width and height) of the frame.
  float cellSize = 0.0f;
  float cellSizeFactor = 2.0f;
  /// Put larger boxes on coarser levels (cells doubling in size). With
  /// false, every box goes to the finest level (the paper's single grid).
  bool multiLevel = true;
};

class BinGrid final : public BroadPhase {
 public:
  explicit BinGrid(const BinGridOptions& options = {});

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::BinGrid; }
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
  [[nodiscard]] std::uint32_t levelCount() const noexcept;

 private:
  struct Entry {
    std::int32_t cx, cy;  // the cell
    std::uint32_t item;   // position in the frame's order; top bit: the box's first cell
  };
  struct Level {
    float cellSize = 0.0f;
    float invCellSize = 0.0f;
    std::uint32_t firstEntry = 0;  // entries of this level: [firstEntry, endEntry)
    std::uint32_t endEntry = 0;
    std::uint32_t firstBucket = 0;  // buckets of this level: [firstBucket, +2^bucketBits]
    std::uint32_t bucketBits = 0;
    std::uint32_t widthBits =
        0;  // buckets form tiles of 2^widthBits x 2^(bucketBits - widthBits) cells
  };

  [[nodiscard]] std::uint32_t bucketOf(const Level& level, std::int32_t cx,
                                       std::int32_t cy) const noexcept;
  void chooseCellSize();
  void build();
  void chooseLevels();
  void binEntries();
  void computeNextOrder();
  /// Pairs of the crowded buckets crowded_[begin, end).
  void pairsInBuckets(std::uint32_t begin, std::uint32_t end, std::vector<Pair>& out) const;
  /// Pairs of items [begin, end) with boxes on coarser levels.
  void pairsAcrossLevels(std::uint32_t begin, std::uint32_t end, std::vector<Pair>& out) const;

  BinGridOptions options_;
  float cellSize_ = 1.0f;
  // The frame's boxes in processing order: item k is proxy order_[k]. The
  // order is the previous frame's cell order, so consecutive items are
  // neighbours in space and every pass below walks memory nearly in order.
  std::vector<std::uint32_t> order_, nextOrder_;
  std::vector<AABB> boxes_;
  std::vector<std::uint8_t> levelOf_;  // level of each item
  std::vector<Level> levels_;
  std::vector<Entry> entries_;              // grouped by level, then by bucket
  std::vector<std::uint32_t> bucketStart_;  // per level: bucket count + 1 offsets into entries_
  std::vector<std::uint32_t> crowded_;      // buckets holding two or more entries
  bool haveNextOrder_ = false;
  std::uint64_t frame_ = 0;
  // Scratch.
  std::vector<float> sample_;
  std::vector<std::uint32_t> levelCounts_;
  // Binning in two passes: entries grouped by the high bits of their bucket
  // (chunk by chunk of boxes), then each group sorted into its buckets.
  std::vector<std::uint32_t> chunkCounts_;   // per chunk of boxes: per level, then per group
  std::vector<std::uint32_t> groupBegin_;    // first staged entry of each group
  std::vector<std::uint32_t> groupCrowded_;  // first crowded_ slot of each group
  std::vector<Entry> staged_;
  std::vector<std::uint32_t> stagedBucket_;
  std::uint32_t groupShift_ = 0;
  std::uint32_t groupCount_ = 0;
  OrderedBuffers<Pair> pairBuffers_;
};

}  // namespace quadbin
