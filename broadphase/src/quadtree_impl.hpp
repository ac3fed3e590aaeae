#pragma once
// The state and the algorithms of QuadtreeBroadPhase (quadtree.hpp): node
// updates, pair search and queries in quadtree.cpp, the parallel top-down
// build in quadtree_build.cpp.

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <quadbin/broadphase/block_free_list.hpp>
#include <quadbin/broadphase/quadtree.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

#include "float_math.hpp"
#include "level_split.hpp"

namespace quadbin {

struct QuadtreeBroadPhase::Impl {
  static constexpr std::uint32_t kMaxDepthLimit = 24;
  // Looser nodes overlap more of their siblings: at 4 a node's box is as wide
  // as its parent's cell, past that looseness only costs.
  static constexpr float kMaxLooseness = 4.0f;
  // Depth-first traversals push at most 4 children per level and pop one:
  // the stack never holds more than 3 * depth + 4 nodes.
  static constexpr std::size_t kStackSize = 3 * kMaxDepthLimit + 8;
  // Work split: constants, never the thread count.
  static constexpr std::uint32_t kProxyChunk = 16384;  // proxies per task of the change scan
  static constexpr std::uint32_t kTaskValues = 1024;   // values per pair-search task
  static constexpr std::uint32_t kOutsideChunk = 256;  // outside values per pair-search task
  static constexpr std::uint32_t kSubtreeValues =
      4096;  // a node reached by this few is one build task

  struct NodeStack {
    std::array<std::int32_t, kStackSize> items{};
    std::size_t size = 0;
    void push(std::int32_t n) noexcept {
      assert(size < items.size());
      items[size++] = n;
    }
    [[nodiscard]] bool empty() const noexcept { return size == 0; }
    std::int32_t pop() noexcept { return items[--size]; }
  };

  // Where a cell is cut: its centre, in double so that a cell spanning the
  // float range has one (min + max overflows a float).
  static Vec2 cut(const AABB& cell) noexcept {
    return {detail::midpoint(cell.min.x, cell.max.x), detail::midpoint(cell.min.y, cell.max.y)};
  }

  // Quadrant q (x then y: 0 low-low, 1 high-low, 2 low-high, 3 high-high)
  // of a cell, cut at its centre.
  static AABB quadrant(const AABB& cell, int q) noexcept {
    const Vec2 c = cut(cell);
    switch (q) {
      case 0:
        return {cell.min, c};
      case 1:
        return {{c.x, cell.min.y}, {cell.max.x, c.y}};
      case 2:
        return {{cell.min.x, c.y}, {c.x, cell.max.y}};
      default:
        return {c, cell.max};
    }
  }

  // In double, clamped to the float range (every box is finite, so a clamped
  // side still holds what the grown one would).
  static AABB grow(const AABB& cell, float looseness) noexcept {
    const double g = 0.5 * (static_cast<double>(looseness) - 1.0);
    const double gx = g * detail::span(cell.min.x, cell.max.x);
    const double gy = g * detail::span(cell.min.y, cell.max.y);
    return {{detail::clampToFloat(cell.min.x - gx), detail::clampToFloat(cell.min.y - gy)},
            {detail::clampToFloat(cell.max.x + gx), detail::clampToFloat(cell.max.y + gy)}};
  }

  explicit Impl(const QuadtreeOptions& options);
  void setBounds(const AABB& bounds);
  void update(std::span<const AABB> boxes);
  void findPairs(std::vector<Pair>& out);
  void query(const AABB& box, std::vector<std::uint32_t>& out) const;
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const;
  [[nodiscard]] std::size_t memoryBytes() const noexcept;
  void draw(BroadPhaseDraw& out) const;
  [[nodiscard]] std::uint32_t nodeCount() const noexcept;

  // The task system of the update or findPairs running now.
  [[nodiscard]] TaskSystem& tasks() const noexcept { return *tasks_; }
  TaskSystem* tasks_ = nullptr;

  static constexpr std::int32_t kNone = -1;
  static constexpr std::int32_t kOutside = -2;
  struct Node {
    AABB cell;   // the node's own rectangle (children split it in four)
    AABB loose;  // cell grown by the looseness factor: what "contains" tests use
    std::int32_t firstChild = kNone;  // four consecutive nodes, or kNone for a leaf
    std::int32_t parent = kNone;
    std::uint32_t depth = 0;
    std::uint32_t subtreeCount = 0;  // values here and below
    std::vector<std::uint32_t> values;
  };

  [[nodiscard]] AABB box(std::uint32_t i) const noexcept {
    return {{minX_[i], minY_[i]}, {maxX_[i], maxY_[i]}};
  }
  void resetRoot(const AABB& cell);
  void rebuildAll();
  void updateIncrementally(std::span<const AABB> boxes, std::uint32_t old);
  [[nodiscard]] std::int32_t childFor(const Node& node, const AABB& b) const noexcept;
  [[nodiscard]] bool staysPut(std::uint32_t i) const noexcept;
  void insert(std::uint32_t i);
  void remove(std::uint32_t i);
  void split(std::int32_t node);
  void collapse(std::int32_t node);
  std::int32_t allocateChildren();
  // Parallel rebuild (see buildTopDown in quadtree_build.cpp).
  struct Subtree;
  void buildTopDown();
  void addSubtree(std::int32_t root, const std::uint32_t* values, std::uint32_t count);
  void splitLevel();
  [[nodiscard]] std::uint32_t classifyLevel();
  [[nodiscard]] std::uint32_t planLevel();
  void scatterLevel(std::uint32_t chunkTotal, std::uint32_t nextSize);
  void buildSubtrees();
  void buildLocal(Subtree& st, std::int32_t at, std::uint32_t begin, std::uint32_t end);
  [[nodiscard]] bool splitsInLevels(std::uint32_t count, std::uint32_t depth) const noexcept;
  /// The quadrant (0..3) of `cell` that holds b, or -1 if it stays in the cell.
  [[nodiscard]] int quadrantFor(const AABB& cell, const AABB& b) const noexcept;
  void initChildren(std::int32_t parent, std::int32_t first);
  void initChildren(std::vector<Node>& nodes, std::int32_t parent, std::int32_t first) const;
  // Pairs of value k of node `at` (and of outside values [begin, end)).
  void pairsTight(std::int32_t at, std::uint32_t k, std::vector<Pair>& out) const;
  void pairsLoose(std::int32_t at, std::uint32_t k, std::vector<Pair>& out) const;
  void pairsOutside(std::uint32_t begin, std::uint32_t end, std::vector<Pair>& out) const;

  QuadtreeOptions options_;
  AABB bounds_{};
  bool haveBounds_ = false;
  bool rootReady_ = false;
  std::vector<Node> nodes_;
  detail::BlockFreeList<std::int32_t>
      freeBlocks_;  // the free blocks of four (shared with the container)
  std::vector<float> minX_, minY_, maxX_, maxY_;
  std::vector<std::int32_t> node_;   // node of each proxy, or kOutside
  std::vector<std::uint32_t> slot_;  // position in its node's (or outside) list
  std::vector<std::uint32_t> outside_;
  std::uint32_t moved_ = 0;
  // Parallel work: movers found per chunk; pair tasks as segments of nodes'
  // values in depth-first order.
  struct Segment {
    std::int32_t node;
    std::uint32_t begin, end;
  };
  OrderedBuffers<std::uint32_t> moverBuffers_;
  std::vector<std::uint32_t> movers_;
  std::vector<Segment> segments_;
  std::vector<std::uint32_t> taskFirstSegment_;
  OrderedBuffers<Pair> pairBuffers_;
  // Parallel rebuild: the boxes of the level being split and of the next,
  // the nodes of the level, the subtrees built as tasks.
  struct Frontier {
    std::int32_t node = 0;
    std::uint32_t begin = 0, end = 0;
    std::array<std::uint8_t, 4> toNextLevel{};  // per quadrant: next level, or a subtree
  };
  using LevelChunk = detail::LevelChunk;
  struct Subtree {
    std::int32_t root = 0;    // its root's node
    std::uint32_t begin = 0;  // its boxes in subtreeValues_
    std::uint32_t end = 0;
    std::int32_t base = 0;    // where its other nodes go in nodes_
    std::vector<Node> nodes;  // local numbers, 0 = the root
    std::vector<std::uint32_t> work;
  };
  std::vector<std::uint32_t> level_, nextLevel_, subtreeValues_, chunkCounts_;
  std::vector<std::uint8_t> quadrant_;
  std::vector<Frontier> frontier_, nextFrontier_;
  std::vector<LevelChunk> levelChunks_;
  std::vector<Subtree> subtrees_;
  std::uint32_t subtreeCount_ = 0;
};

}  // namespace quadbin
