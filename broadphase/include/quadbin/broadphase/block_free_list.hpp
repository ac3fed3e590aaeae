#pragma once
/// \file
/// An implementation detail of QuadtreeContainer (header-only, hence
/// installed) shared with the quadtree broad phase: nodes live in one
/// array, and a split makes its four children as one block of four
/// consecutive nodes. A merge gives the block back; the next split takes
/// the block freed last (so a tree that splits and merges in place reuses
/// the same memory) before the array grows by four.

#include <cstddef>
#include <vector>

namespace quadbin::detail {

template <class Index>
class BlockFreeList {
 public:
  static constexpr std::size_t kBlock = 4;  ///< nodes per block (the four quadrants)

  /// The first node of a free block, or, when none is free, `nodeCount`
  /// after `grow()` has appended kBlock nodes to the caller's arrays.
  template <class Grow>
  Index take(std::size_t nodeCount, Grow&& grow) {
    if (!free_.empty()) {
      const Index first = free_.back();
      free_.pop_back();
      return first;
    }
    grow();
    return static_cast<Index>(nodeCount);
  }
  /// The block starting at `first` is unused from now on.
  void give(Index first) { free_.push_back(first); }
  /// Every block after the first `keep` nodes free, the lowest taken first.
  void freeAllAfter(std::size_t keep, std::size_t nodeCount) {
    free_.clear();
    for (std::size_t first = nodeCount; first > keep; first -= kBlock) {
      free_.push_back(static_cast<Index>(first - kBlock));
    }
  }
  void clear() noexcept { free_.clear(); }
  /// Nodes in use among `nodeCount`.
  [[nodiscard]] std::size_t liveNodes(std::size_t nodeCount) const noexcept {
    return nodeCount - kBlock * free_.size();
  }
  [[nodiscard]] std::size_t memoryBytes() const noexcept {
    return free_.capacity() * sizeof(Index);
  }

 private:
  std::vector<Index> free_;  // first node of each free block
};

}  // namespace quadbin::detail
