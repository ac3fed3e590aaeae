#pragma once
/// \file
/// QuadtreeBroadPhase: the loose, incremental quadtree as a broad phase ("quadtree").
///
/// A box lives in the smallest node that fully contains it; boxes that
/// straddle a split line stay in the parent. A leaf holding more than
/// `threshold` boxes splits (down to `maxDepth`). Between frames only the
/// boxes that left their node (or now fit a child) move, and a node whose
/// subtree holds no more than `threshold` boxes takes its children's boxes
/// back and frees them.
///
///     +-------+-------+      root: the big box and the ones on its split lines
///     |   .   |  .    |      each quadrant: boxes wholly inside it
///     +---+---+   .   |
///     | . | . |       |
///     +---+---+-------+
///
/// Pairs: a box is tested against the boxes of its own node and of the
/// descendant nodes its box overlaps, so boxes piled on the root's split
/// lines cost a walk along the line, not a scan of the whole tree.
/// `looseness` > 1 grows every node's box (a loose quadtree) so that small
/// boxes on split lines sink into a child; pairs are then found by a query
/// per box, since loose siblings overlap.
///
/// Boxes outside the root are kept in an outside list, paired with
/// everything, never lost; the root is regrown when too many are outside.
/// Pick it for a few hundred to a few thousand bodies, or when bodies move
/// little between frames.
///
/// Parallel (setTaskSystem): a full build (the first frame, a new root,
/// `incremental = false`) sorts the boxes top-down into quadrants by chunks
/// and builds small subtrees as independent tasks, giving the tree that
/// one-by-one insertion would give. The scan for boxes that changed and must move
/// runs by chunks of proxies on the unchanged tree; the moves themselves
/// are applied serially in index order (they split and merge nodes). Pairs
/// are searched by tasks over the nodes' values in depth-first order, each
/// pair reported by the task of its shallower value, into its own buffer;
/// the buffers are merged in that order: the same pairs, in the same order,
/// for any thread count.

#include <array>
#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

namespace quadbin {

struct QuadtreeOptions {
  std::uint32_t threshold = 16;  ///< values a leaf holds before it splits (>= 1)
  std::uint32_t maxDepth = 8;    ///< root is depth 0 (<= 24)
  float looseness = 1.0f;        ///< node boxes grown by this factor, in [1, 4]; 1: strict
  bool incremental = true;       ///< false: clear and re-insert everything each frame
};

class QuadtreeBroadPhase final : public BroadPhase {
 public:
  explicit QuadtreeBroadPhase(const QuadtreeOptions& options = {});

  [[nodiscard]] BroadPhaseType type() const noexcept override { return BroadPhaseType::Quadtree; }
  void setBounds(const AABB& bounds) override;
  void update(std::span<const AABB> boxes) override;
  void findPairs(std::vector<Pair>& out) override;
  void query(const AABB& box, std::vector<std::uint32_t>& out) const override;
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const override;
  [[nodiscard]] std::size_t size() const noexcept override { return node_.size(); }
  [[nodiscard]] std::size_t memoryBytes() const noexcept override;
  /// One cell per node in use (its own rectangle, not the loose one), with
  /// the boxes stored in that node itself.
  void draw(BroadPhaseDraw& out) const override;
  [[nodiscard]] bool usesTaskSystem() const noexcept override { return true; }

  /// Nodes in use (for tests and statistics).
  [[nodiscard]] std::uint32_t nodeCount() const noexcept;
  /// Boxes held in the outside list.
  [[nodiscard]] std::size_t outsideCount() const noexcept { return outside_.size(); }
  /// Proxies that changed node in the last update.
  [[nodiscard]] std::uint32_t movedLastUpdate() const noexcept { return moved_; }

 private:
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
  // Parallel rebuild (see buildTopDown in quadtree.cpp).
  struct Subtree;
  void buildTopDown();
  void addSubtree(std::int32_t root, const std::uint32_t* values, std::uint32_t count);
  void splitLevel();
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
  std::vector<std::int32_t> freeBlocks_;  // first node of each free block of four
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
  struct LevelChunk {
    std::uint32_t frontier, begin, end;
  };
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
