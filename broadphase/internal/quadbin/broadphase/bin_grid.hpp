#pragma once
/// \file
/// BinGrid: a uniform grid of bins, safe for any world.
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
/// depend on how far bodies move, and its memory grows linearly with the
/// number of boxes.
///
/// Pick it for many bodies of similar size (docs/broadphases.md compares the
/// structures).
///
/// Parallel (setTaskSystem): boxes are binned in three passes over fixed
/// chunks (count per chunk and group of buckets, scatter into groups from
/// prefix sums, then each group sorted into its buckets as one task); pairs
/// are found by chunks of buckets, each into its own buffer, and the buffers
/// concatenated in bucket order. No locks, no atomics: the table and the
/// pairs are the same, in the same order, for any thread count.

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/options.hpp>
#include <vector>

namespace quadbin {

class BinGrid final : public BroadPhase {
 public:
  /// Throws quadbin::Error when an option is out of range (cellSize negative
  /// or not finite, cellSizeFactor not a finite positive number).
  explicit BinGrid(const BinGridOptions& options = {});
  ~BinGrid() override;

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::BinGrid; }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  void findPairsInto(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override;
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One cell per non-empty cell of every level (depth = level, 0 the
  /// finest), with the boxes binned into it; level by level, bucket order.
  void draw(BroadPhaseDraw& out) const override;
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// The finest cell side used by the last update.
  [[nodiscard]] float cellSize() const noexcept;
  /// Levels holding at least one box after the last update.
  [[nodiscard]] std::uint32_t levelCount() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quadbin
