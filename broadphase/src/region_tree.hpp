#pragma once
// The machinery shared by the per-frame region trees of seeds 001-003
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

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/broadphase/debug_draw.hpp>
#include <quadbin/broadphase/region_tree_stats.hpp>
#include <quadbin/error.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace quadbin::detail {

/// Boxes as four float arrays plus the proxy id of each (structure of
/// arrays: the pair loops stream them).
struct BoxArrays {
  std::vector<float> minX, minY, maxX, maxY;
  std::vector<std::uint32_t> id;

  [[nodiscard]] std::uint32_t size() const noexcept {
    return static_cast<std::uint32_t>(id.size());
  }
  void clear() noexcept {
    minX.clear();
    minY.clear();
    maxX.clear();
    maxY.clear();
    id.clear();
  }
  void push(float x0, float y0, float x1, float y1, std::uint32_t proxy) {
    minX.push_back(x0);
    minY.push_back(y0);
    maxX.push_back(x1);
    maxY.push_back(y1);
    id.push_back(proxy);
  }
  void resize(std::uint32_t n) {
    minX.resize(n);
    minY.resize(n);
    maxX.resize(n);
    maxY.resize(n);
    id.resize(n);
  }
  void pushFrom(const BoxArrays& from, std::uint32_t slot) {
    push(from.minX[slot], from.minY[slot], from.maxX[slot], from.maxY[slot], from.id[slot]);
  }
  [[nodiscard]] AABB box(std::uint32_t slot) const noexcept {
    return {{minX[slot], minY[slot]}, {maxX[slot], maxY[slot]}};
  }
  [[nodiscard]] std::size_t memoryBytes() const noexcept {
    return (minX.capacity() + minY.capacity() + maxX.capacity() + maxY.capacity()) * sizeof(float) +
           id.capacity() * sizeof(std::uint32_t);
  }
};

/// One box on its way down the tree: its coordinates travel with it, so
/// each level streams through memory instead of gathering by index.
struct Item {
  float x0, y0, x1, y1;
  std::uint32_t id;
};

/// A growable array of a trivially copyable T that is never zero-filled
/// (std::vector::resize would zero-fill what every split then overwrites).
template <class T>
class ScratchBuffer {
 public:
  [[nodiscard]] T* data() noexcept { return data_.get(); }
  [[nodiscard]] const T* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  void clear() noexcept { size_ = 0; }
  void resize(std::size_t n) {
    if (n > capacity_) grow(n);
    size_ = n;
  }
  void push_back(const T& value) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = value;
  }

 private:
  void grow(std::size_t atLeast) {
    const std::size_t capacity = std::max({atLeast, 2 * capacity_, std::size_t{64}});
    auto grown = std::make_unique_for_overwrite<T[]>(capacity);
    std::copy(data_.get(), data_.get() + size_, grown.get());
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// The budgets of a tree of n boxes (see "Bounded work" above).
constexpr std::uint32_t kEntriesPerBox = 8;
constexpr std::uint32_t kNodesPerBox = 8;

/// Limits every region tree shares, already validated.
struct TreeLimits {
  std::uint32_t threshold = 16;
  std::uint32_t maxDepth = 8;
  /// Children of one split may hold at most this many times the parent's
  /// boxes (already scaled to the policy's number of children).
  float growthPerSplit = 2.0f;
};

/// Validates the options every region tree shares and scales the growth
/// limit, given for a four-way split, to a split into `children` parts
/// (two binary cuts are one quad split, so a binary cut gets its square
/// root; a 3x3 split is log4(9) quad splits).
[[nodiscard]] inline TreeLimits makeLimits(const char* optionsName, std::uint32_t threshold,
                                           std::uint32_t maxDepth, std::uint32_t depthCap,
                                           float maxSplitGrowth, std::uint32_t children) {
  const std::string name(optionsName);
  if (threshold < 1) throw Error(name + ".threshold = 0: must be at least 1");
  if (maxDepth > depthCap) {
    throw Error(name + ".maxDepth = " + std::to_string(maxDepth) + ": must be at most " +
                std::to_string(depthCap));
  }
  // Above 4 the limit means nothing: a box reaches at most all four
  // children of a quad split (the budgets bound memory whatever it is).
  if (!(maxSplitGrowth >= 1.0f && maxSplitGrowth <= 4.0f)) {
    throw Error(name + ".maxSplitGrowth = " + std::to_string(maxSplitGrowth) +
                ": must be in [1, 4]");
  }
  TreeLimits limits;
  limits.threshold = threshold;
  limits.maxDepth = maxDepth;
  limits.growthPerSplit =
      static_cast<float>(std::pow(static_cast<double>(maxSplitGrowth),
                                  std::log(static_cast<double>(children)) / std::log(4.0)));
  return limits;
}

/// The owner points of a box on one axis are [lo, hi), or {lo} when lo == hi.
/// It has one below `cut`:
[[nodiscard]] constexpr bool reachesBelow(float lo, float cut) noexcept { return lo < cut; }
/// ... and one at or above `cut`:
[[nodiscard]] constexpr bool reachesFrom(float lo, float hi, float cut) noexcept {
  return cut < hi || cut <= lo;
}

/// Sorts and deduplicates out[start, end): the answer of a query that may
/// see a box in several leaves (a deterministic order, each id once).
inline void sortUniqueFrom(std::vector<std::uint32_t>& out, std::size_t start) {
  const auto first = out.begin() + static_cast<std::ptrdiff_t>(start);
  std::sort(first, out.end());
  out.erase(std::unique(first, out.end()), out.end());
}

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

/// One step of a ray walk: a node and the part [t0, t1] of the ray that may
/// lie in it.
struct RaySpan {
  std::uint32_t node = 0;
  float t0 = 0.0f;
  float t1 = 0.0f;
};

/// The tree. Policy supplies:
///   Shape                          a region (and, once split, its cuts)
///   kMaxChildren                   children of one split (at most 16)
///   kHalfOpenRoot                  the root owns [min, max) (true) or [min, max]
///   kOwnerByDescent                leaf ownership checked by walking up the cuts
///                                  (false: by policy.leafOwns on the leaf shape)
///   root(rect)                     the root shape
///   split(shape&, depth, node, items, children*, count&) -> bool
///                                  choose the cuts (write them into shape) and the
///                                  children's shapes; false keeps the node a leaf
///   insertMasks(shape, items, count, masks)  for each item, the children one
///                                  of its owner points descends to (bit i = child i)
///   queryMask(shape, box)          children holding any box that touches `box`
///   pointChild(shape, x, y)        the child a point descends to
///   leafOwns(shape, x, y)          (only if !kOwnerByDescent)
///   rayChildren(shape, children*, count, ray, t0, t1, RaySpan* out) -> count
template <class Policy>
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
    std::uint32_t seedBase;  // node numbers handed to the policy
    std::uint32_t top = 0;

    void buildSubtree(std::uint32_t node);
    bool trySplit(std::uint32_t node);
    void makeLeaf(std::uint32_t node);
    [[nodiscard]] std::uint32_t seed(std::uint32_t node) const noexcept {
      return node == 0 ? seedBase : (seedBase << 16) ^ node;
    }
  };
  // One chunk of a level's boxes: frontier node `frontier`, boxes [begin, end).
  struct LevelChunk {
    std::uint32_t frontier, begin, end;
  };
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

template <class Policy>
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

template <class Policy>
AABB RegionTree<Policy>::chooseRoot(TaskSystem& tasks) {
  const std::uint32_t n = input_.size();
  // Bounding box of the boxes (NaN boxes skipped: they overlap nothing),
  // per chunk then over the chunks: min and max are exact in any order.
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::uint32_t chunks = chunkCount(n, kItemChunk);
  std::vector<AABB>& partial = rootPartials_;
  partial.resize(chunks);
  forEachChunk(tasks, n, kItemChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    AABB all{{kInf, kInf}, {-kInf, -kInf}};
    for (std::uint32_t s = begin; s < end; ++s) {
      all.min.x = std::min(all.min.x, input_.minX[s]);
      all.min.y = std::min(all.min.y, input_.minY[s]);
      all.max.x = std::max(all.max.x, input_.maxX[s]);
      all.max.y = std::max(all.max.y, input_.maxY[s]);
    }
    partial[c] = all;
  });
  AABB all{{kInf, kInf}, {-kInf, -kInf}};
  for (const AABB& p : partial) {
    all.min.x = std::min(all.min.x, p.min.x);
    all.min.y = std::min(all.min.y, p.min.y);
    all.max.x = std::max(all.max.x, p.max.x);
    all.max.y = std::max(all.max.y, p.max.y);
  }
  if (!(all.min.x <= all.max.x && all.min.y <= all.max.y)) {
    return hasHint_ ? hint_ : AABB{{0, 0}, {1, 1}};
  }
  if (hasHint_) {
    // Keep the hint while the outside list stays cheap to brute-force
    // (k^2 / 2 tests for k boxes reaching outside): far-away stragglers
    // then do not blow the cells up to the size of the whole scene.
    std::atomic<std::uint64_t> outsideCount{0};
    tasks.parallelFor(n, kItemChunk, [&](std::uint32_t begin, std::uint32_t end) {
      std::uint64_t count = 0;
      for (std::uint32_t s = begin; s < end; ++s) count += insideRoot(hint_, s) ? 0u : 1u;
      outsideCount.fetch_add(count, std::memory_order_relaxed);
    });
    const std::uint64_t k = outsideCount.load(std::memory_order_relaxed);
    if (k * k <= 16u * std::uint64_t{n} + 1024u) return hint_;
    all = unionOf(all, hint_);
  }
  // Nudge the maximum up so that owner points on it lie inside a
  // half-open root (past the largest float that is infinity: the policies
  // cut such a side from the largest float). A closed root needs no nudge
  // and stays finite.
  if constexpr (Policy::kHalfOpenRoot) {
    all.max.x = std::nextafter(all.max.x, kInf);
    all.max.y = std::nextafter(all.max.y, kInf);
  }
  return all;
}

// The root's boxes into level_, in slot order (a stable partition by
// chunks): the ones with owner points outside also go to the outside list.
template <class Policy>
void RegionTree<Policy>::stageItems(TaskSystem& tasks) {
  const std::uint32_t n = input_.size();
  const std::uint32_t chunks = chunkCount(n, kItemChunk);
  stageCounts_.resize(2 * std::size_t{chunks});
  forEachChunk(tasks, n, kItemChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t inTree = 0, outside = 0;
    for (std::uint32_t s = begin; s < end; ++s) {
      if (insideRoot(root_, s)) {
        ++inTree;
      } else {
        ++outside;
        inTree += reachesRoot(s) ? 1u : 0u;
      }
    }
    stageCounts_[2 * c] = inTree;
    stageCounts_[2 * c + 1] = outside;
  });
  std::uint32_t inTree = 0, outside = 0;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    const std::uint32_t in = stageCounts_[2 * c], out = stageCounts_[2 * c + 1];
    stageCounts_[2 * c] = inTree;
    stageCounts_[2 * c + 1] = outside;
    inTree += in;
    outside += out;
  }
  level_.resize(inTree);
  outside_.resize(outside);
  forEachChunk(tasks, n, kItemChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t at = stageCounts_[2 * c], out = stageCounts_[2 * c + 1];
    for (std::uint32_t s = begin; s < end; ++s) {
      const Item item{input_.minX[s], input_.minY[s], input_.maxX[s], input_.maxY[s], input_.id[s]};
      if (insideRoot(root_, s)) {
        level_[at++] = item;
        continue;
      }
      outside_.minX[out] = item.x0;
      outside_.minY[out] = item.y0;
      outside_.maxX[out] = item.x1;
      outside_.maxY[out] = item.y1;
      outside_.id[out] = item.id;
      ++out;
      if (reachesRoot(s)) level_[at++] = item;
    }
  });
}

template <class Policy>
void RegionTree<Policy>::build(TaskSystem& tasks) {
  nodes_.clear();
  shapes_.clear();
  leaf_.clear();
  outside_.clear();
  root_ = chooseRoot(tasks);
  stageItems(tasks);
  const auto count = static_cast<std::uint32_t>(level_.size());
  Node top{0, 0, count, 0, 0, 0};
  const auto budget = [n = std::uint64_t{input_.size()}](std::uint32_t perBox) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(perBox * n, UINT32_MAX));
  };
  top.entryBudget = budget(kEntriesPerBox);
  top.nodeBudget = budget(kNodesPerBox);
  nodes_.push_back(top);
  shapes_.push_back(policy_.root(root_));
  fragmentCount_ = 0;
  taskItems_.clear();
  frontier_.clear();
  if (isFrontier(count, 0)) {
    FrontierNode root;
    root.node = 0;
    root.begin = 0;
    root.end = count;
    frontier_.push_back(root);
  } else {
    addFragment(0, 0, count, false);
    std::copy(level_.data(), level_.data() + count, taskItems_.data());
  }
  while (!frontier_.empty()) splitLevel(tasks);
  buildFragments(tasks);
}

template <class Policy>
void RegionTree<Policy>::addFragment(std::uint32_t node, std::uint32_t begin, std::uint32_t end,
                                     bool leafOnly) {
  (void)begin;
  if (fragments_.size() <= fragmentCount_) fragments_.resize(fragmentCount_ + 1);
  Fragment& f = fragments_[fragmentCount_++];
  f.root = node;
  f.begin = static_cast<std::uint32_t>(taskItems_.size());
  f.end = f.begin + (end - begin);
  f.leafOnly = leafOnly;
  taskItems_.resize(f.end);
}

// One level of the big nodes: every frontier node chooses its cuts (a task
// each), its boxes are masked and counted by chunks, children are made in
// frontier order, and the boxes scattered by chunks: children still big go
// to the next level, the others (and nodes that cannot split) become
// subtree tasks. All stable, so the tree never depends on the split of work.
template <class Policy>
void RegionTree<Policy>::splitLevel(TaskSystem& tasks) {
  const auto frontierCount = static_cast<std::uint32_t>(frontier_.size());
  tasks.forkJoin(frontierCount, [&](std::uint32_t i) {
    FrontierNode& f = frontier_[i];
    const Node& nd = nodes_[f.node];
    f.childCount = 0;
    f.split = policy_.split(shapes_[f.node], nd.depth, f.node,
                            std::span<const Item>(level_.data() + f.begin, f.end - f.begin),
                            f.children.data(), f.childCount);
    assert(!f.split || (f.childCount >= 2 && f.childCount <= kMaxChildren));
  });
  chunks_.clear();
  for (std::uint32_t i = 0; i < frontierCount; ++i) {
    for (std::uint32_t b = frontier_[i].begin; b < frontier_[i].end; b += kItemChunk) {
      chunks_.push_back({i, b, std::min(frontier_[i].end, b + kItemChunk)});
    }
  }
  const auto chunkTotal = static_cast<std::uint32_t>(chunks_.size());
  levelMasks_.resize(level_.size());
  chunkCounts_.resize(std::size_t{chunkTotal} * kMaxChildren);
  tasks.forkJoin(chunkTotal, [&](std::uint32_t k) {
    const LevelChunk ch = chunks_[k];
    const FrontierNode& f = frontier_[ch.frontier];
    if (!f.split) return;
    const std::uint32_t count = ch.end - ch.begin;
    std::uint16_t* masks = levelMasks_.data() + ch.begin;
    policy_.insertMasks(shapes_[f.node], level_.data() + ch.begin, count, masks);
    std::uint32_t* counts = chunkCounts_.data() + std::size_t{k} * kMaxChildren;
    for (std::uint32_t c = 0; c < f.childCount; ++c) {
      std::uint32_t sum = 0;
      for (std::uint32_t j = 0; j < count; ++j) sum += (masks[j] >> c) & 1u;
      counts[c] = sum;
    }
  });

  // Children, their destinations, and each chunk's cursor per child.
  nextFrontier_.clear();
  std::uint32_t nextSize = 0;
  std::uint32_t k = 0;
  for (std::uint32_t i = 0; i < frontierCount; ++i) {
    FrontierNode& f = frontier_[i];
    const std::uint32_t firstChunk = k;
    while (k < chunkTotal && chunks_[k].frontier == i) ++k;
    const std::uint32_t count = f.end - f.begin;
    std::array<std::uint32_t, kMaxChildren> totals{};
    std::uint32_t total = 0;
    if (f.split) {
      for (std::uint32_t j = firstChunk; j < k; ++j) {
        for (std::uint32_t c = 0; c < f.childCount; ++c) {
          totals[c] += chunkCounts_[std::size_t{j} * kMaxChildren + c];
        }
      }
      for (std::uint32_t c = 0; c < f.childCount; ++c) total += totals[c];
      if (static_cast<double>(total) > static_cast<double>(limits_.growthPerSplit) * count ||
          !fitsBudgets(nodes_[f.node], f.childCount, total)) {
        f.split = false;
      }
    }
    if (!f.split) {
      // A leaf as it is: its boxes are copied to a subtree task of its own.
      const auto at = static_cast<std::uint32_t>(taskItems_.size());
      addFragment(f.node, f.begin, f.end, true);
      for (std::uint32_t j = firstChunk; j < k; ++j) {
        chunkCounts_[std::size_t{j} * kMaxChildren] = at + (chunks_[j].begin - f.begin);
      }
      continue;
    }
    const auto first = static_cast<std::uint32_t>(nodes_.size());
    const std::uint8_t depth = nodes_[f.node].depth;
    std::array<std::uint32_t, kMaxChildren> dest{};
    for (std::uint32_t c = 0; c < f.childCount; ++c) {
      nodes_.push_back(childOf(nodes_[f.node], f.node, f.childCount, 0, totals[c], total));
      shapes_.push_back(f.children[c]);
      if (isFrontier(totals[c], depth + 1u)) {
        FrontierNode next;
        next.node = first + c;
        next.begin = nextSize;
        next.end = nextSize + totals[c];
        nextFrontier_.push_back(next);
        f.toNextLevel[c] = 1;
        dest[c] = nextSize;
        nextSize += totals[c];
      } else {
        f.toNextLevel[c] = 0;
        dest[c] = static_cast<std::uint32_t>(taskItems_.size());
        addFragment(first + c, 0, totals[c], false);
      }
    }
    nodes_[f.node].firstChild = first;
    nodes_[f.node].childCount = static_cast<std::uint8_t>(f.childCount);
    for (std::uint32_t j = firstChunk; j < k; ++j) {
      std::uint32_t* cursor = chunkCounts_.data() + std::size_t{j} * kMaxChildren;
      for (std::uint32_t c = 0; c < f.childCount; ++c) {
        const std::uint32_t here = cursor[c];
        cursor[c] = dest[c];
        dest[c] += here;
      }
    }
  }

  // Scatter: each box copied only into its own children.
  nextLevel_.resize(nextSize);
  tasks.forkJoin(chunkTotal, [&](std::uint32_t j) {
    const LevelChunk ch = chunks_[j];
    const FrontierNode& f = frontier_[ch.frontier];
    std::uint32_t* cursor = chunkCounts_.data() + std::size_t{j} * kMaxChildren;
    const Item* items = level_.data();
    if (!f.split) {
      std::copy(items + ch.begin, items + ch.end, taskItems_.data() + cursor[0]);
      return;
    }
    std::array<Item*, kMaxChildren> dst{};
    for (std::uint32_t c = 0; c < f.childCount; ++c) {
      dst[c] = (f.toNextLevel[c] ? nextLevel_.data() : taskItems_.data()) + cursor[c];
    }
    const std::uint16_t* masks = levelMasks_.data();
    for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
      for (std::uint32_t m = masks[i]; m != 0; m &= m - 1) *dst[std::countr_zero(m)]++ = items[i];
    }
  });
  std::swap(level_, nextLevel_);
  std::swap(frontier_, nextFrontier_);
}

// Every subtree task builds alone, then the subtrees are appended to the
// node pool and the leaf arrays in task order, their numbers shifted.
template <class Policy>
void RegionTree<Policy>::buildFragments(TaskSystem& tasks) {
  const std::uint32_t count = fragmentCount_;
  tasks.forkJoin(count, [&](std::uint32_t t) {
    Fragment& f = fragments_[t];
    f.nodes.clear();
    f.shapes.clear();
    f.leaf.clear();
    const std::uint32_t items = f.end - f.begin;
    Node root = nodes_[f.root];
    root.firstChild = 0;
    root.begin = 0;
    root.end = items;
    root.parent = 0;
    root.childCount = 0;
    f.nodes.push_back(root);
    f.shapes.push_back(shapes_[f.root]);
    Scratch* scratch = scratch_.acquire();
    scratch->work.resize(items);
    std::copy(taskItems_.data() + f.begin, taskItems_.data() + f.end, scratch->work.data());
    Builder builder{policy_, limits_, f.nodes, f.shapes, f.leaf, *scratch, f.root, items};
    if (f.leafOnly) {
      builder.makeLeaf(0);
    } else {
      builder.buildSubtree(0);
    }
    scratch_.release(scratch);
  });
  auto nodeCount = static_cast<std::uint32_t>(nodes_.size());
  std::uint32_t leafCount = 0;
  for (std::uint32_t t = 0; t < count; ++t) {
    Fragment& f = fragments_[t];
    f.nodeBase = nodeCount;
    f.leafBase = leafCount;
    nodeCount += static_cast<std::uint32_t>(f.nodes.size()) - 1;
    leafCount += f.leaf.size();
  }
  nodes_.resize(nodeCount);
  shapes_.resize(nodeCount);
  leaf_.resize(leafCount);
  tasks.forkJoin(count, [&](std::uint32_t t) {
    const Fragment& f = fragments_[t];
    auto place = [&](std::uint32_t local) { return local == 0 ? f.root : f.nodeBase + local - 1; };
    for (std::uint32_t local = 0; local < f.nodes.size(); ++local) {
      Node nd = f.nodes[local];
      if (nd.firstChild != 0) {
        nd.firstChild = place(nd.firstChild);
      } else {
        nd.begin += f.leafBase;
        nd.end += f.leafBase;
      }
      nd.parent = local == 0 ? nodes_[f.root].parent : place(nd.parent);
      nodes_[place(local)] = nd;
      shapes_[place(local)] = f.shapes[local];
    }
    const std::uint32_t n = f.leaf.size();
    std::copy(f.leaf.minX.begin(), f.leaf.minX.begin() + n, leaf_.minX.begin() + f.leafBase);
    std::copy(f.leaf.minY.begin(), f.leaf.minY.begin() + n, leaf_.minY.begin() + f.leafBase);
    std::copy(f.leaf.maxX.begin(), f.leaf.maxX.begin() + n, leaf_.maxX.begin() + f.leafBase);
    std::copy(f.leaf.maxY.begin(), f.leaf.maxY.begin() + n, leaf_.maxY.begin() + f.leafBase);
    std::copy(f.leaf.id.begin(), f.leaf.id.begin() + n, leaf_.id.begin() + f.leafBase);
  });
}

// Depth first: once a node's items fit in the cache, its whole subtree is
// built there, where level-by-level passes would stream every item through
// memory once per level. Recursion depth is bounded by maxDepth.
template <class Policy>
void RegionTree<Policy>::Builder::buildSubtree(std::uint32_t node) {
  if (!trySplit(node)) {
    makeLeaf(node);
    return;
  }
  // The children's items sit above the node's, up to top; each child's
  // subtree stacks its own above them and is popped when it is done.
  const std::uint32_t first = nodes[node].firstChild;
  const std::uint32_t childCount = nodes[node].childCount;
  const std::uint32_t saved = top;
  for (std::uint32_t c = 0; c < childCount; ++c) {
    buildSubtree(first + c);
    top = saved;
  }
}

template <class Policy>
bool RegionTree<Policy>::Builder::trySplit(std::uint32_t node) {
  const Node parent = nodes[node];
  const std::uint32_t count = parent.end - parent.begin;
  if (count <= limits.threshold || parent.depth >= limits.maxDepth) return false;
  const Item* items = scratch.work.data() + parent.begin;

  std::array<Shape, kMaxChildren> children{};
  std::uint32_t childCount = 0;
  if (!policy.split(shapes[node], parent.depth, seed(node), std::span<const Item>(items, count),
                    children.data(), childCount)) {
    return false;
  }
  assert(childCount >= 2 && childCount <= kMaxChildren);

  // Which children each item goes to, then how many each gets: one pass
  // per child over the masks (a loop the compiler vectorises, where a
  // histogram indexed by child would wait on its own stores).
  scratch.masks.resize(count);
  std::uint16_t* masks = scratch.masks.data();
  policy.insertMasks(shapes[node], items, count, masks);
  std::array<std::uint32_t, kMaxChildren> counts{};
  std::uint32_t total = 0;
  for (std::uint32_t c = 0; c < childCount; ++c) {
    std::uint32_t sum = 0;
    for (std::uint32_t k = 0; k < count; ++k) sum += (masks[k] >> c) & 1u;
    counts[c] = sum;
    total += sum;
  }
  if (static_cast<double>(total) > static_cast<double>(limits.growthPerSplit) * count ||
      !fitsBudgets(parent, childCount, total)) {
    return false;
  }

  // Children, contiguous in the pool, their items contiguous on the stack.
  const auto first = static_cast<std::uint32_t>(nodes.size());
  const std::uint32_t base = top;
  std::uint32_t offset = base;
  for (std::uint32_t c = 0; c < childCount; ++c) {
    nodes.push_back(childOf(parent, node, childCount, offset, counts[c], total));
    shapes.push_back(children[c]);
    offset += counts[c];
  }
  // Scatter: each item copied only into its own children (a pass per child
  // writing every item branch-free would move kMaxChildren times the data).
  scratch.work.resize(std::size_t{base} + total);
  top = base + total;
  items = scratch.work.data() + parent.begin;  // resize may have moved the stack
  Item* dst = scratch.work.data();
  std::array<std::uint32_t, kMaxChildren> fill{};
  for (std::uint32_t c = 0; c < childCount; ++c) fill[c] = nodes[first + c].begin;
  for (std::uint32_t k = 0; k < count; ++k) {
    for (std::uint32_t m = masks[k]; m != 0; m &= m - 1)
      dst[fill[std::countr_zero(m)]++] = items[k];
  }
  nodes[node].firstChild = first;
  nodes[node].childCount = static_cast<std::uint8_t>(childCount);
  return true;
}

template <class Policy>
void RegionTree<Policy>::Builder::makeLeaf(std::uint32_t node) {
  Node& nd = nodes[node];
  const std::uint32_t begin = leaf.size();
  const std::uint32_t count = nd.end - nd.begin;
  leaf.resize(begin + count);
  for (std::uint32_t k = 0; k < count; ++k) {
    const Item& it = scratch.work[nd.begin + k];
    leaf.minX[begin + k] = it.x0;
    leaf.minY[begin + k] = it.y0;
    leaf.maxX[begin + k] = it.x1;
    leaf.maxY[begin + k] = it.y1;
    leaf.id[begin + k] = it.id;
  }
  nd.begin = begin;
  nd.end = begin + count;
}

template <class Policy>
void RegionTree<Policy>::findPairs(std::vector<Pair>& out, TaskSystem& tasks) {
  const auto nodeCount = static_cast<std::uint32_t>(nodes_.size());
  const std::uint32_t nodeTasks = chunkCount(nodeCount, kNodeChunk);
  pairBuffers_.reset(nodeTasks + 1);
  tasks.forkJoin(nodeTasks + 1, [&](std::uint32_t t) {
    std::vector<Pair>& buffer = pairBuffers_[t];
    if (t == nodeTasks) {
      pairsOutside(buffer);
      return;
    }
    Scratch* scratch = nullptr;
    const std::uint32_t end = std::min(nodeCount, (t + 1) * kNodeChunk);
    for (std::uint32_t node = t * kNodeChunk; node < end; ++node) {
      const Node& leaf = nodes_[node];
      if (leaf.firstChild != 0) continue;
      const std::uint32_t count = leaf.end - leaf.begin;
      if (count < 2) continue;
      if (scratch == nullptr) scratch = scratch_.acquire();
      if (count > kSweepAbove) {
        sweepLeaf(node, *scratch, buffer);
      } else {
        pairsInLeaf(node, *scratch, buffer);
      }
    }
    if (scratch != nullptr) scratch_.release(scratch);
  });
  pairBuffers_.appendTo(tasks, out);
}

// Pairs of a leaf are first written to a row buffer, every candidate
// written and the cursor advanced by "overlaps and owned": in dense leaves
// half the candidates are hits, and a branch per candidate would be
// mispredicted that often. (The BSP's owner check walks up the tree, so it
// stays behind the overlap test there.)
template <class Policy>
template <class Order>
void RegionTree<Policy>::emitPairs(std::uint32_t node, std::uint32_t count, Order order,
                                   Scratch& scratch, std::vector<Pair>& out) const {
  const float* x0 = leaf_.minX.data();
  const float* y0 = leaf_.minY.data();
  const float* x1 = leaf_.maxX.data();
  const float* y1 = leaf_.maxY.data();
  const std::uint32_t* id = leaf_.id.data();
  scratch.row.resize(count);
  Pair* row = scratch.row.data();
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::uint32_t i = order(k);
    const float ax0 = x0[i], ay0 = y0[i], ax1 = x1[i], ay1 = y1[i];
    const std::uint32_t ida = id[i];
    std::uint32_t n = 0;
    for (std::uint32_t m = k + 1; m < count; ++m) {
      const std::uint32_t j = order(m);
      if constexpr (Order::kSortedOnMinX) {
        if (!(x0[j] < ax1)) break;  // sorted on min x: nothing further overlaps i
      }
      // Non-short-circuit &: no branch per condition.
      const bool hit = (ax0 < x1[j]) & (x0[j] < ax1) & (ay0 < y1[j]) & (y0[j] < ay1);
      const float px = std::max(ax0, x0[j]), py = std::max(ay0, y0[j]);
      const std::uint32_t idb = id[j];
      if constexpr (Policy::kOwnerByDescent) {
        if (hit && owns(node, px, py)) row[n++] = Pair{std::min(ida, idb), std::max(ida, idb)};
      } else {
        row[n] = Pair{std::min(ida, idb), std::max(ida, idb)};
        n += static_cast<std::uint32_t>(hit & Policy::leafOwns(shapes_[node], px, py));
      }
    }
    if (n != 0) out.insert(out.end(), row, row + n);
  }
}

template <class Policy>
void RegionTree<Policy>::pairsInLeaf(std::uint32_t node, Scratch& scratch,
                                     std::vector<Pair>& out) const {
  const Node& leaf = nodes_[node];
  emitPairs(node, leaf.end - leaf.begin, InOrder{leaf.begin}, scratch, out);
}

template <class Policy>
void RegionTree<Policy>::sweepLeaf(std::uint32_t node, Scratch& scratch,
                                   std::vector<Pair>& out) const {
  const Node& leaf = nodes_[node];
  const float* x0 = leaf_.minX.data();
  std::vector<std::uint32_t>& order = scratch.order;
  order.resize(leaf.end - leaf.begin);
  for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = leaf.begin + k;
  std::sort(order.begin(), order.end(), [x0](std::uint32_t a, std::uint32_t b) {
    return x0[a] < x0[b] || (x0[a] == x0[b] && a < b);
  });
  emitPairs(node, leaf.end - leaf.begin, SortedOnMinX{order.data()}, scratch, out);
}

template <class Policy>
void RegionTree<Policy>::pairsOutside(std::vector<Pair>& out) const {
  const std::uint32_t count = outside_.size();
  const BoxArrays& o = outside_;
  for (std::uint32_t i = 0; i < count; ++i) {
    const float ax0 = o.minX[i], ay0 = o.minY[i], ax1 = o.maxX[i], ay1 = o.maxY[i];
    for (std::uint32_t j = i + 1; j < count; ++j) {
      const bool hit =
          (ax0 < o.maxX[j]) & (o.minX[j] < ax1) & (ay0 < o.maxY[j]) & (o.minY[j] < ay1);
      // Owner points inside the root are the tree's.
      if (hit && !rootOwns(std::max(ax0, o.minX[j]), std::max(ay0, o.minY[j]))) {
        out.push_back(o.id[i] < o.id[j] ? Pair{o.id[i], o.id[j]} : Pair{o.id[j], o.id[i]});
      }
    }
  }
}

template <class Policy>
void RegionTree<Policy>::collect(const AABB& box, std::vector<std::uint32_t>& out,
                                 bool exact) const {
  const std::size_t start = out.size();
  if (!nodes_.empty()) {
    std::array<std::uint32_t, kStackSize> stack{};
    std::uint32_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const std::uint32_t node = stack[--top];
      const Node& nd = nodes_[node];
      if (nd.firstChild == 0) {
        for (std::uint32_t i = nd.begin; i < nd.end; ++i) {
          if (!exact || touches(leaf_.box(i), box)) out.push_back(leaf_.id[i]);
        }
        continue;
      }
      // Children pushed in reverse so that they are visited in order.
      const std::uint32_t mask = policy_.queryMask(shapes_[node], box);
      for (std::uint32_t c = nd.childCount; c-- > 0;) {
        if (mask & (1u << c)) {
          assert(top < kStackSize);
          stack[top++] = nd.firstChild + c;
        }
      }
    }
  }
  for (std::uint32_t i = 0; i < outside_.size(); ++i) {
    if (touches(outside_.box(i), box)) out.push_back(outside_.id[i]);
  }
  sortUniqueFrom(out, start);
}

template <class Policy>
void RegionTree<Policy>::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  const std::size_t start = out.size();
  if (!nodes_.empty() && ray.maxT >= 0.0f) {
    std::array<RaySpan, kStackSize> stack{};
    std::uint32_t top = 0;
    stack[top++] = RaySpan{0, 0.0f, ray.maxT};
    std::array<RaySpan, kMaxChildren> crossed{};
    while (top > 0) {
      const RaySpan step = stack[--top];
      const Node& nd = nodes_[step.node];
      if (nd.firstChild == 0) {
        for (std::uint32_t i = nd.begin; i < nd.end; ++i) {
          if (raycast(ray, leaf_.box(i))) out.push_back(leaf_.id[i]);
        }
        continue;
      }
      const std::uint32_t n =
          policy_.rayChildren(shapes_[step.node], shapes_.data() + nd.firstChild, nd.childCount,
                              ray, step.t0, step.t1, crossed.data());
      for (std::uint32_t k = n; k-- > 0;) {
        assert(top < kStackSize);
        stack[top++] = RaySpan{nd.firstChild + crossed[k].node, crossed[k].t0, crossed[k].t1};
      }
    }
  }
  for (std::uint32_t i = 0; i < outside_.size(); ++i) {
    if (raycast(ray, outside_.box(i))) out.push_back(outside_.id[i]);
  }
  sortUniqueFrom(out, start);
}

template <class Policy>
RegionTreeStats RegionTree<Policy>::stats() const noexcept {
  RegionTreeStats s;
  s.nodes = static_cast<std::uint32_t>(nodes_.size());
  for (const Node& nd : nodes_) {
    if (nd.firstChild != 0) continue;
    ++s.leaves;
    s.depth = std::max<std::uint32_t>(s.depth, nd.depth);
    s.leafEntries += nd.end - nd.begin;
    s.largestLeaf = std::max(s.largestLeaf, nd.end - nd.begin);
  }
  s.outside = outside_.size();
  return s;
}

// ---------------------------------------------------------------------------
// Rectangular grids: a cell cut into kSide x kSide children by kSide - 1 cuts
// on each axis (quadtree: 2, nona-tree: 3). Cells are half-open
// [x0, x1) x [y0, y1), so a point on a cut belongs to the cell above it.

struct RectShape {
  float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
  // Ascending cuts, x0 <= cut <= x1; set when the cell is split.
  std::array<float, 2> cutX{};
  std::array<float, 2> cutY{};
};

/// Policy of the rectangular trees; Cutter::chooseCuts picks the cuts and
/// Cutter::kSide says how many children per axis.
template <class Cutter>
class RectGridPolicy {
 public:
  using Shape = RectShape;
  static constexpr std::uint32_t kSide = Cutter::kSide;
  static_assert(kSide == 2 || kSide == 3);
  static constexpr std::uint32_t kMaxChildren = kSide * kSide;
  static constexpr std::uint32_t kDepthCap = 32;
  static constexpr bool kHalfOpenRoot = true;
  static constexpr bool kOwnerByDescent = false;

  explicit RectGridPolicy(Cutter cutter) : cutter_(std::move(cutter)) {}

  [[nodiscard]] Shape root(const AABB& r) const noexcept {
    Shape s;
    s.x0 = r.min.x;
    s.y0 = r.min.y;
    s.x1 = r.max.x;
    s.y1 = r.max.y;
    return s;
  }

  bool split(Shape& s, std::uint32_t depth, std::uint32_t node, std::span<const Item> items,
             Shape* children, std::uint32_t& count) const {
    if (!cutter_.chooseCuts(s, depth, node, items)) return false;
    for (std::uint32_t r = 0; r < kSide; ++r) {
      for (std::uint32_t c = 0; c < kSide; ++c) {
        Shape& child = children[r * kSide + c];
        child = Shape{};
        child.x0 = c == 0 ? s.x0 : s.cutX[c - 1];
        child.x1 = c + 1 == kSide ? s.x1 : s.cutX[c];
        child.y0 = r == 0 ? s.y0 : s.cutY[r - 1];
        child.y1 = r + 1 == kSide ? s.y1 : s.cutY[r];
      }
    }
    count = kMaxChildren;
    return true;
  }

  void insertMasks(const Shape& s, const Item* items, std::uint32_t count,
                   std::uint16_t* masks) const noexcept {
#if defined(__SSE2__)
    // Four comparisons per cut at once on (x0, y0, x1, y1); their sign bits
    // index a table of masks. The scalar insertMask is the reference: the
    // table is built from the same rule.
    __m128 cuts[kSide - 1];
    for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
      cuts[k] = _mm_setr_ps(s.cutX[k], s.cutY[k], s.cutX[k], s.cutY[k]);
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      float corners[4];
      std::memcpy(corners, &items[i], sizeof corners);
      const __m128 box = _mm_loadu_ps(corners);
      std::uint32_t index = 0;
      for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
        const auto below = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmplt_ps(box, cuts[k])));
        const auto above = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmpgt_ps(box, cuts[k])));
        index |= ((below & 3u) | (above & 12u)) << (4 * k);
      }
      masks[i] = kMaskTable[index];
      assert(masks[i] == insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
#else
    for (std::uint32_t i = 0; i < count; ++i) {
      masks[i] = static_cast<std::uint16_t>(
          insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
#endif
  }

  // Column k is reached if the box has owner points below its upper cut and
  // at or above its lower cut; rows alike. Branch-free: the bits of the
  // columns, repeated for each reached row by one multiplication.
  [[nodiscard]] static std::uint32_t insertMask(const Shape& s, float x0, float y0, float x1,
                                                float y1) noexcept {
    std::uint32_t columns = 0, rows = 0;
    for (std::uint32_t k = 0; k < kSide; ++k) {
      const bool belowX = k + 1 == kSide || reachesBelow(x0, s.cutX[k]);
      const bool fromX = k == 0 || ((s.cutX[k - 1] < x1) | (s.cutX[k - 1] <= x0));
      const bool belowY = k + 1 == kSide || reachesBelow(y0, s.cutY[k]);
      const bool fromY = k == 0 || ((s.cutY[k - 1] < y1) | (s.cutY[k - 1] <= y0));
      columns |= static_cast<std::uint32_t>(belowX & fromX) << k;
      rows |= static_cast<std::uint32_t>(belowY & fromY) << (k * kSide);
    }
    const std::uint32_t mask = columns * rows;
    return mask != 0 ? mask : 1u;  // NaN: overlaps nothing, any child will do
  }

  // Closed: a box touching a cut may meet boxes on both sides of it.
  [[nodiscard]] std::uint32_t queryMask(const Shape& s, const AABB& box) const noexcept {
    std::uint32_t c0 = 0, c1 = 0, r0 = 0, r1 = 0;
    for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
      c0 += s.cutX[k] < box.min.x;
      c1 += s.cutX[k] <= box.max.x;
      r0 += s.cutY[k] < box.min.y;
      r1 += s.cutY[k] <= box.max.y;
    }
    if (c1 < c0 || r1 < r0) return 0;  // an inverted (invalid) query box
    const std::uint32_t columns = ((1u << (c1 - c0 + 1)) - 1u) << c0;
    std::uint32_t mask = 0;
    for (std::uint32_t r = r0; r <= r1; ++r) mask |= columns << (r * kSide);
    return mask;
  }

  [[nodiscard]] std::uint32_t pointChild(const Shape& s, float x, float y) const noexcept {
    std::uint32_t c = 0, r = 0;
    for (std::uint32_t k = 0; k + 1 < kSide; ++k) {
      c += s.cutX[k] <= x;
      r += s.cutY[k] <= y;
    }
    return r * kSide + c;
  }

  [[nodiscard]] static bool leafOwns(const Shape& s, float x, float y) noexcept {
    return (s.x0 <= x) & (x < s.x1) & (s.y0 <= y) & (y < s.y1);
  }

  static void drawLeaf(const Shape& s, std::uint32_t depth, std::uint32_t count,
                       BroadPhaseDraw& out) {
    out.cell({{s.x0, s.y0}, {s.x1, s.y1}}, depth, count);
  }

  // Children whose cell (grown by a rounding margin) the ray crosses. Every
  // box in the tree lies inside the closed root, so the bounded cells
  // suffice.
  std::uint32_t rayChildren(const Shape& s, const Shape* children, std::uint32_t count,
                            const Ray& ray, float t0, float t1, RaySpan* out) const {
    const std::uint32_t mask = queryMask(s, ray.bounds());
    std::uint32_t n = 0;
    for (std::uint32_t c = 0; c < count; ++c) {
      if (!(mask & (1u << c))) continue;
      const Shape& ch = children[c];
      const float margin =
          1e-5f * (std::abs(ch.x0) + std::abs(ch.x1) + std::abs(ch.y0) + std::abs(ch.y1)) +
          std::numeric_limits<float>::min();
      const AABB cell{{ch.x0 - margin, ch.y0 - margin}, {ch.x1 + margin, ch.y1 + margin}};
      if (raycast(ray, cell)) out[n++] = RaySpan{c, t0, t1};
    }
    return n;
  }

 private:
  // Masks by comparison bits: for cut k, bits 4k and 4k+1 say x0 < cutX[k]
  // and y0 < cutY[k]; bits 4k+2 and 4k+3 say cutX[k] < x1 and cutY[k] < y1.
  // (cut <= lo is !(lo < cut): the same for every number.)
  static constexpr auto kMaskTable = [] {
    std::array<std::uint16_t, (1u << (4 * (kSide - 1)))> table{};
    for (std::uint32_t index = 0; index < table.size(); ++index) {
      const auto bit = [index](std::uint32_t at) { return ((index >> at) & 1u) != 0; };
      std::uint32_t columns = 0, rows = 0;
      for (std::uint32_t j = 0; j < kSide; ++j) {
        for (std::uint32_t axis = 0; axis < 2; ++axis) {
          const bool below = j + 1 == kSide || bit(4 * j + axis);
          const bool from = j == 0 || bit(4 * (j - 1) + 2 + axis) || !bit(4 * (j - 1) + axis);
          if (!(below && from)) continue;
          if (axis == 0) columns |= 1u << j;
          if (axis == 1) rows |= 1u << (j * kSide);
        }
      }
      const std::uint32_t mask = columns * rows;
      table[index] = static_cast<std::uint16_t>(mask != 0 ? mask : 1u);
    }
    return table;
  }();

  Cutter cutter_;
};

/// A cut at `value`, kept inside [lo, hi] (rounding may push it out).
[[nodiscard]] constexpr float clampCut(float value, float lo, float hi) noexcept {
  return value < lo ? lo : (value > hi ? hi : value);
}

// ---------------------------------------------------------------------------
// The facade the public classes wrap: staged boxes, the lazily built tree,
// and the BroadPhase operations.

template <class Policy>
class TreeBroadPhase {
 public:
  TreeBroadPhase(Policy policy, const TreeLimits& limits) : tree_(std::move(policy), limits) {}

  void setBounds(const AABB& bounds) {
    tree_.setBounds(bounds);
    dirty_ = true;
  }
  void update(std::span<const AABB> boxes, TaskSystem& tasks) {
    BoxArrays& in = tree_.staged();
    const auto n = static_cast<std::uint32_t>(boxes.size());
    in.resize(n);
    tasks.parallelFor(n, 16384, [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) {
        in.minX[i] = boxes[i].min.x;
        in.minY[i] = boxes[i].min.y;
        in.maxX[i] = boxes[i].max.x;
        in.maxY[i] = boxes[i].max.y;
        in.id[i] = i;
      }
    });
    tree_.build(tasks);
    dirty_ = false;
  }
  void clear() noexcept {
    tree_.staged().clear();
    dirty_ = true;
  }
  void insert(std::uint32_t id, const AABB& box) {
    tree_.staged().push(box.min.x, box.min.y, box.max.x, box.max.y, id);
    dirty_ = true;
  }
  void findPairs(std::vector<Pair>& out, TaskSystem& tasks) {
    buildIfDirty(tasks);
    tree_.findPairs(out, tasks);
  }
  void retrieve(const AABB& box, std::vector<std::uint32_t>& out, TaskSystem& tasks) {
    buildIfDirty(tasks);
    tree_.retrieve(box, out);
  }
  // Const queries never build (two threads may query at once): with
  // inserts not yet built, they scan the staged boxes instead.
  void query(const AABB& box, std::vector<std::uint32_t>& out) const {
    if (!dirty_) return tree_.query(box, out);
    const BoxArrays& in = tree_.staged();
    const std::size_t start = out.size();
    for (std::uint32_t i = 0; i < in.size(); ++i) {
      if (touches(in.box(i), box)) out.push_back(in.id[i]);
    }
    sortUniqueFrom(out, start);
  }
  void queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
    if (!dirty_) return tree_.queryRay(ray, out);
    const BoxArrays& in = tree_.staged();
    const std::size_t start = out.size();
    for (std::uint32_t i = 0; i < in.size(); ++i) {
      if (raycast(ray, in.box(i))) out.push_back(in.id[i]);
    }
    sortUniqueFrom(out, start);
  }
  [[nodiscard]] std::size_t size() const noexcept { return tree_.staged().size(); }
  [[nodiscard]] std::size_t memoryBytes() const noexcept { return tree_.memoryBytes(); }
  /// Of the last build.
  [[nodiscard]] RegionTreeStats stats() const noexcept { return tree_.stats(); }
  /// The leaves of the last build.
  void draw(BroadPhaseDraw& out) const { tree_.draw(out); }

 private:
  void buildIfDirty(TaskSystem& tasks) {
    if (!dirty_) return;
    tree_.build(tasks);
    dirty_ = false;
  }

  RegionTree<Policy> tree_;
  bool dirty_ = false;
};

}  // namespace quadbin::detail
