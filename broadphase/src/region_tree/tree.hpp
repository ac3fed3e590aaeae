#pragma once
// The machinery shared by the per-frame region trees
// (LeafQuadtree, DynamicCentreQuadtree, NonaTree, DiagonalBsp). Each of them
// is a RegionTree<Policy>; the policy says only how a region is cut and on
// which side of a cut a box or a point lies. Everything else lives here once:
// the root and its outside list, the depth-first build that partitions the
// boxes (counted, then scattered) on one reused stack, leaf buckets stored as
// SoA copies of the boxes, the per-leaf brute force with the owner rule,
// queries and ray walks.
//
// Exactness. A strictly overlapping pair (a, b) has one "owner point"
// p = (max(a.min.x, b.min.x), max(a.min.y, b.min.y)), the minimum corner of
// the intersection. On each axis p lies in [lo, hi) of both boxes, or equals
// lo for a zero-width box. Regions partition the plane (a point descends the
// tree to exactly one leaf); a box goes into every leaf that one of its
// possible owner points descends to, and a leaf reports a pair only if the
// pair's owner point descends to it. So each pair is found by exactly one
// leaf, without a global sort. Owner points outside the root belong to the
// outside list instead (boxes that reach outside the root go there).
//
// Bounded work. A node splits only if it holds more than `threshold` boxes,
// is shallower than `maxDepth`, its policy finds a useful cut, and the
// children together would hold at most `growth` times its boxes: boxes
// much larger than the cells would otherwise be copied into every child
// at every level (10,000 boxes covering the world must not make 4^8 copies).
// That rule is local: a growth of 2 per split over 12 levels still allows
// 4,096 copies of a box. So the tree also has two budgets, for n boxes
// kEntriesPerBox * n leaf entries and kNodesPerBox * n nodes, handed down:
// a split must fit the node's budgets, and the children share what is left
// in proportion to their boxes. By induction no subtree exceeds its node's
// budgets, so memory is linear in n whatever the boxes and options
// (docs/broadphase-limits.md), and the tree depends only on the input.

#include <array>
#include <cassert>
#include <cstdint>
#include <memory>
#include <mutex>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <vector>

#include "../level_split.hpp"
#include "../scratch_buffer.hpp"
#include "boxes.hpp"
#include "cut_policy.hpp"
#include "limits.hpp"

namespace quadbin::detail {

/// Orders in which a leaf's boxes are paired: as stored, or sorted on min x
/// (then a box's partners stop at the first box starting right of it).
struct InOrder {
  static constexpr bool kSortedOnMinX = false;
  std::uint32_t begin;
  [[nodiscard]] std::uint32_t operator()(std::uint32_t k) const noexcept { return begin + k; }
};
struct SortedOnMinX {
  static constexpr bool kSortedOnMinX = true;
  const std::uint32_t* order;
  [[nodiscard]] std::uint32_t operator()(std::uint32_t k) const noexcept { return order[k]; }
};

/// The tree, for any RegionCutPolicy (region_tree/cut_policy.hpp). Its
/// build is in region_tree/build.hpp, its searches in region_tree/search.hpp.
template <RegionCutPolicy Policy>
class RegionTree {
 public:
  using Shape = typename Policy::Shape;
  static constexpr std::uint32_t kMaxChildren = Policy::kMaxChildren;
  static_assert(kMaxChildren >= 2 && kMaxChildren <= 16);
  /// Trees deeper than this are refused at construction (the walk stacks
  /// are fixed arrays sized by it).
  static constexpr std::uint32_t kDepthCap = Policy::kDepthCap;

  RegionTree(Policy policy, const TreeLimits& limits)
      : policy_(std::move(policy)), limits_(limits) {
    assert(limits_.maxDepth <= kDepthCap);
  }

  void setBounds(const AABB& bounds) noexcept {
    hasHint_ = isFinite(bounds) && bounds.min.x < bounds.max.x && bounds.min.y < bounds.max.y;
    hint_ = bounds;
  }
  /// The boxes of the next build, by slot; id[slot] is the proxy reported.
  [[nodiscard]] BoxArrays& staged() noexcept { return input_; }
  [[nodiscard]] const BoxArrays& staged() const noexcept { return input_; }

  /// Rebuilds the tree from the staged boxes, in parallel on `tasks`: the
  /// nodes holding many boxes are split level by level (each level's boxes
  /// partitioned by chunks, per-chunk counts and prefix sums), and every
  /// node small enough (kTaskItems boxes) becomes one task that builds its
  /// whole subtree alone; the subtrees are then appended in task order. The
  /// tree is the same for any task system. Allocates nothing once the
  /// buffers have grown to the frame's size.
  void build(TaskSystem& tasks);
  /// Appends each strictly overlapping pair once: leaves in node order,
  /// boxes in slot order inside a leaf, then the outside list. Chunks of
  /// nodes are searched as tasks, each into its own buffer, merged in node
  /// order: the same list for any task system.
  void findPairs(std::vector<Pair>& out, TaskSystem& tasks);
  /// Appends (sorted, once each) every proxy whose box touches `box`.
  void query(const AABB& box, std::vector<std::uint32_t>& out) const { collect(box, out, true); }
  /// Appends (sorted, once each) every proxy in a leaf that `box` touches,
  /// without testing the boxes themselves: the candidates of seed 001.
  void retrieve(const AABB& box, std::vector<std::uint32_t>& out) const {
    collect(box, out, false);
  }
  /// Appends (sorted, once each) the proxies whose box the ray hits,
  /// walking only the regions the ray crosses.
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const;

  [[nodiscard]] RegionTreeStats stats() const noexcept;
  [[nodiscard]] std::size_t memoryBytes() const noexcept;
  /// Each leaf of the last build, by Policy::drawLeaf, in node order.
  void draw(BroadPhaseDraw& out) const {
    for (const Node& nd : nodes_) {
      if (nd.firstChild != 0) continue;
      const auto index = static_cast<std::size_t>(&nd - nodes_.data());
      Policy::drawLeaf(shapes_[index], nd.depth, nd.end - nd.begin, out);
    }
  }

 private:
  struct Node {
    std::uint32_t firstChild = 0;  // 0: a leaf (the root is never a child)
    std::uint32_t begin = 0;       // items: in work_ while building, in leaf_ once a leaf
    std::uint32_t end = 0;
    std::uint32_t parent = 0;
    std::uint8_t childCount = 0;
    std::uint8_t depth = 0;
    std::uint32_t entryBudget = 0;  // leaf entries its subtree may hold
    std::uint32_t nodeBudget = 0;   // nodes its subtree may add below it
  };
  /// Whether a split of `nd` into `children` children holding `total`
  /// entries in all fits its budgets.
  [[nodiscard]] static bool fitsBudgets(const Node& nd, std::uint32_t children,
                                        std::uint64_t total) noexcept {
    return total <= nd.entryBudget && children <= nd.nodeBudget;
  }
  /// A child holding `count` of the `total` entries of a split of `parent`
  /// into `children`, with its share of the parent's budgets.
  [[nodiscard]] static Node childOf(const Node& parent, std::uint32_t parentIndex,
                                    std::uint32_t children, std::uint32_t begin,
                                    std::uint32_t count, std::uint64_t total) noexcept {
    Node child{0,           begin, begin + count,
               parentIndex, 0,     static_cast<std::uint8_t>(parent.depth + 1)};
    const auto share = [&](std::uint64_t budget) {
      return static_cast<std::uint32_t>(total == 0 ? 0 : budget * count / total);
    };
    child.entryBudget = share(parent.entryBudget);
    child.nodeBudget = share(parent.nodeBudget - children);
    return child;
  }
  // Above this many boxes a leaf sorts them on x and sweeps instead of
  // testing all pairs (only at the depth limit or with big, stacked boxes).
  static constexpr std::uint32_t kSweepAbove = 48;
  static constexpr std::uint32_t kStackSize = kDepthCap * (kMaxChildren - 1) + 2;

  // Work split: constants, never the thread count.
  static constexpr std::uint32_t kTaskItems = 4096;   // a node this small is one subtree task
  static constexpr std::uint32_t kItemChunk = 16384;  // boxes per task in the passes over boxes
  static constexpr std::uint32_t kNodeChunk = 256;    // nodes per pair-search task

  // A subtree built by one task, with node numbers of its own (0: its root,
  // which already has its place in nodes_); merged into nodes_ after.
  struct Fragment {
    std::uint32_t root = 0;   // its root's node
    std::uint32_t begin = 0;  // its boxes in taskItems_
    std::uint32_t end = 0;
    bool leafOnly = false;       // the root could not be split: a leaf as it is
    std::uint32_t nodeBase = 0;  // where its other nodes go in nodes_
    std::uint32_t leafBase = 0;  // where its leaf boxes go in leaf_
    std::vector<Node> nodes;
    std::vector<Shape> shapes;
    BoxArrays leaf;
  };
  // Working space of one running task; tasks take one from the pool (one
  // lock per task, never per box or pair), so there are only as many as
  // tasks ever ran at once.
  struct Scratch {
    ScratchBuffer<Item> work;            // the depth-first build stack
    ScratchBuffer<std::uint16_t> masks;  // children of each item of the node being split
    std::vector<std::uint32_t> order;    // sweep order of a big leaf
    ScratchBuffer<Pair> row;             // pairs of one box in a leaf
    [[nodiscard]] std::size_t memoryBytes() const noexcept {
      return work.capacity() * sizeof(Item) + masks.capacity() * sizeof(std::uint16_t) +
             order.capacity() * sizeof(std::uint32_t) + row.capacity() * sizeof(Pair);
    }
  };
  class ScratchPool {
   public:
    Scratch* acquire() {
      const std::lock_guard lock(mutex_);
      if (free_.empty()) {
        all_.push_back(std::make_unique<Scratch>());
        return all_.back().get();
      }
      Scratch* s = free_.back();
      free_.pop_back();
      return s;
    }
    void release(Scratch* s) {
      const std::lock_guard lock(mutex_);
      free_.push_back(s);
    }
    [[nodiscard]] std::size_t memoryBytes() const noexcept {
      std::size_t bytes = 0;
      for (const auto& s : all_) bytes += sizeof(Scratch) + s->memoryBytes();
      return bytes;
    }

   private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<Scratch>> all_;
    std::vector<Scratch*> free_;
  };
  // The depth-first builder of one subtree, on its own node list and stack.
  struct Builder {
    const Policy& policy;
    const TreeLimits& limits;
    std::vector<Node>& nodes;
    std::vector<Shape>& shapes;
    BoxArrays& leaf;
    Scratch& scratch;
    std::uint32_t seedBase = 0;  // node numbers handed to the policy
    std::uint32_t top = 0;

    void buildSubtree(std::uint32_t node);
    bool trySplit(std::uint32_t node);
    void makeLeaf(std::uint32_t node);
    [[nodiscard]] std::uint32_t seed(std::uint32_t node) const noexcept {
      return node == 0 ? seedBase : (seedBase << 16) ^ node;
    }
  };
  // One chunk of a level's boxes: frontier node `frontier`, boxes [begin, end).
  using LevelChunk = detail::LevelChunk;
  // A node of the level being split: its boxes [begin, end) in the level
  // buffer, its split and, per child, where the child's boxes go.
  struct FrontierNode {
    std::uint32_t node = 0, begin = 0, end = 0;
    bool split = false;
    std::uint32_t childCount = 0;
    std::array<Shape, kMaxChildren> children{};
    std::array<std::uint8_t, kMaxChildren> toNextLevel{};  // else to taskItems_
  };

  [[nodiscard]] AABB chooseRoot(TaskSystem& tasks);
  void stageItems(TaskSystem& tasks);
  void splitLevel(TaskSystem& tasks);
  [[nodiscard]] std::uint32_t classifyLevel(TaskSystem& tasks);
  [[nodiscard]] std::uint32_t planLevel();
  void scatterLevel(TaskSystem& tasks, std::uint32_t chunkTotal, std::uint32_t nextSize);
  void addFragment(std::uint32_t node, std::uint32_t begin, std::uint32_t end, bool leafOnly);
  void buildFragments(TaskSystem& tasks);
  [[nodiscard]] bool isFrontier(std::uint32_t count, std::uint32_t depth) const noexcept {
    return count > kTaskItems && count > limits_.threshold && depth < limits_.maxDepth;
  }
  [[nodiscard]] bool rootOwns(float x, float y) const noexcept {
    if constexpr (Policy::kHalfOpenRoot) {
      return root_.min.x <= x && x < root_.max.x && root_.min.y <= y && y < root_.max.y;
    } else {
      return root_.min.x <= x && x <= root_.max.x && root_.min.y <= y && y <= root_.max.y;
    }
  }
  // Every owner point of the box lies in the root.
  [[nodiscard]] bool insideRoot(const AABB& r, std::uint32_t s) const noexcept {
    const float x0 = input_.minX[s], y0 = input_.minY[s], x1 = input_.maxX[s], y1 = input_.maxY[s];
    if constexpr (Policy::kHalfOpenRoot) {
      return r.min.x <= x0 && x0 < r.max.x && x1 <= r.max.x && r.min.y <= y0 && y0 < r.max.y &&
             y1 <= r.max.y;
    } else {
      return r.min.x <= x0 && x1 <= r.max.x && r.min.y <= y0 && y1 <= r.max.y;
    }
  }
  // Some owner point of the box lies in the root.
  [[nodiscard]] bool reachesRoot(std::uint32_t s) const noexcept {
    const float x0 = input_.minX[s], y0 = input_.minY[s], x1 = input_.maxX[s], y1 = input_.maxY[s];
    if constexpr (Policy::kHalfOpenRoot) {
      return reachesBelow(x0, root_.max.x) && reachesFrom(x0, x1, root_.min.x) &&
             reachesBelow(y0, root_.max.y) && reachesFrom(y0, y1, root_.min.y);
    } else {
      return x0 <= root_.max.x && root_.min.x <= x1 && y0 <= root_.max.y && root_.min.y <= y1;
    }
  }
  // The owner point (x, y) descends to leaf `node` (and lies in the root).
  [[nodiscard]] bool owns(std::uint32_t node, float x, float y) const noexcept {
    if constexpr (Policy::kOwnerByDescent) {
      if (!rootOwns(x, y)) return false;
      // Walk up: most pairs that are not this leaf's leave it at a nearby cut.
      std::uint32_t child = node;
      while (child != 0) {
        const std::uint32_t parent = nodes_[child].parent;
        if (nodes_[parent].firstChild + policy_.pointChild(shapes_[parent], x, y) != child) {
          return false;
        }
        child = parent;
      }
      return true;
    } else {
      return policy_.leafOwns(shapes_[node], x, y);
    }
  }
  template <class Order>
  void emitPairs(std::uint32_t node, std::uint32_t count, Order order, Scratch& scratch,
                 std::vector<Pair>& out) const;
  void pairsInLeaf(std::uint32_t node, Scratch& scratch, std::vector<Pair>& out) const;
  void sweepLeaf(std::uint32_t node, Scratch& scratch, std::vector<Pair>& out) const;
  void pairsOutside(std::vector<Pair>& out) const;
  void collect(const AABB& box, std::vector<std::uint32_t>& out, bool exact) const;

  Policy policy_;
  TreeLimits limits_;
  AABB hint_{};
  bool hasHint_ = false;
  AABB root_{};

  BoxArrays input_;    // staged boxes, by slot
  BoxArrays leaf_;     // leaf buckets: node.begin..end of a leaf index here
  BoxArrays outside_;  // boxes with owner points outside the root
  std::vector<Node> nodes_;
  std::vector<Shape> shapes_;
  // Parallel build: the boxes of the level being split and of the next,
  // the boxes of the subtree tasks, the frontier, the subtrees.
  ScratchBuffer<Item> level_, nextLevel_, taskItems_;
  ScratchBuffer<std::uint16_t> levelMasks_;
  std::vector<FrontierNode> frontier_, nextFrontier_;
  std::vector<LevelChunk> chunks_;
  std::vector<std::uint32_t> chunkCounts_;  // per chunk: per child count, then cursor
  std::vector<Fragment> fragments_;
  std::uint32_t fragmentCount_ = 0;
  std::vector<std::uint32_t> stageCounts_;  // per chunk of staged boxes: inside, outside
  std::vector<AABB> rootPartials_;          // per chunk of staged boxes: their bounds
  ScratchPool scratch_;
  OrderedBuffers<Pair> pairBuffers_;
};

template <RegionCutPolicy Policy>
std::size_t RegionTree<Policy>::memoryBytes() const noexcept {
  std::size_t bytes =
      input_.memoryBytes() + leaf_.memoryBytes() + outside_.memoryBytes() +
      nodes_.capacity() * sizeof(Node) + shapes_.capacity() * sizeof(Shape) +
      (level_.capacity() + nextLevel_.capacity() + taskItems_.capacity()) * sizeof(Item) +
      levelMasks_.capacity() * sizeof(std::uint16_t) +
      (frontier_.capacity() + nextFrontier_.capacity()) * sizeof(FrontierNode) +
      chunks_.capacity() * sizeof(LevelChunk) +
      (chunkCounts_.capacity() + stageCounts_.capacity()) * sizeof(std::uint32_t) +
      fragments_.capacity() * sizeof(Fragment) + scratch_.memoryBytes() +
      rootPartials_.capacity() * sizeof(AABB) + pairBuffers_.memoryBytes();
  for (const Fragment& f : fragments_) {
    bytes += f.nodes.capacity() * sizeof(Node) + f.shapes.capacity() * sizeof(Shape) +
             f.leaf.memoryBytes();
  }
  return bytes;
}
}  // namespace quadbin::detail
