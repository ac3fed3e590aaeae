#pragma once
/// \file
/// quadbin::Quadtree<T, GetBox, Equal, Float>: a generic, header-only quadtree
/// container for any value that has a box (an id into your own arrays, a
/// pointer, a small struct), usable on its own, without a World.
///
/// Each value lives in the smallest node that contains its box entirely, so a
/// value is stored exactly once whatever its size (a box that straddles a split
/// line stays in the parent). Supports add, remove (merging under-full
/// children back into their parent), update (move), query(box) and
/// findAllIntersections() (each intersecting pair reported once).
///
/// Pick it for culling, AI neighbour search, lights against walls, editor
/// picking: anywhere values come and go one at a time and are looked up by
/// box. For the physics world's per-frame pairs, use a BroadPhase instead.
///
/// Options (QuadtreeContainerOptions, checked at construction):
///   threshold = 16   a leaf splits when a value arrives and it already holds this many;
///                    a node merges its four leaf children back once it and they hold
///                    threshold values or fewer in total
///   maxDepth  = 8    nodes at this depth never split (the root has depth 0)
///   looseness = 1    1: the classic tight quadtree. k in (1, 2]: a loose quadtree: each
///                    node accepts values whose box fits its cell enlarged k times around
///                    its centre, so small values on split lines go down instead of piling
///                    up in the root (k = 2: any value up to the size of a cell fits it)
///
/// Values whose box does not fit the root box (enlarged by the looseness, like
/// every cell) are kept in an "outside" list that every query and
/// findAllIntersections() also checks: they are never lost, they only cost a
/// linear scan. See docs/quadtree_container.md.

#include <quadbin/broadphase/block_free_list.hpp>
#include <quadbin/error.hpp>
#include <quadbin/geometry.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace quadbin {

/// Construction options of Quadtree (see the file comment).
struct QuadtreeContainerOptions {
  /// Deepest maxDepth accepted: past ~24 levels a float cell is a few ulps wide.
  static constexpr std::uint32_t kMaxDepthLimit = 30;

  std::uint32_t threshold = 16;  ///< >= 1
  std::uint32_t maxDepth = 8;    ///< 0 (a single list) .. kMaxDepthLimit
  double looseness = 1.0;        ///< in [1, 2]; 1 = tight quadtree
};

/// Shape of a Quadtree, for tests and tuning.
struct QuadtreeContainerStats {
  std::size_t nodes = 0;        ///< live nodes, the root included
  std::size_t leaves = 0;       ///< live nodes without children
  std::size_t depth = 0;        ///< depth of the deepest live node (root = 0)
  std::size_t atRoot = 0;       ///< values stored in the root node itself
  std::size_t largestNode = 0;  ///< most values stored in one node
  std::size_t outside = 0;      ///< values whose box does not fit the root box
};

namespace detail {

template <class Float>
std::string quadtreeNumberText(Float v) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::string("?");
}

template <class Float>
std::string quadtreeBoxText(const BasicBox<Float>& b) {
  return "{{" + quadtreeNumberText(b.min.x) + ", " + quadtreeNumberText(b.min.y) + "}, {" +
         quadtreeNumberText(b.max.x) + ", " + quadtreeNumberText(b.max.y) + "}}";
}

}  // namespace detail

/// A quadtree over values of type T.
///
/// - T: copyable; stored by value, so keep it small (an index, a pointer, a POD).
/// - GetBox: callable `T const& -> BasicBox<Float>` (or anything converting to it,
///   e.g. quadbin::AABB). A value's box must not change while the value is in the
///   tree: remove it first, or move it with update(value, previousBox).
/// - Equal: callable `(T const&, T const&) -> bool`, used to find a value to remove.
/// - Float: float or double.
///
/// The box of every value is cached next to it, so queries never call GetBox.
/// Values with equal keys may be added several times; remove() takes one of
/// them away. Const members touch no shared scratch state, so concurrent const
/// calls (queries from several threads) are safe.
template <class T, class GetBox, class Equal = std::equal_to<T>, class Float = float>
class Quadtree {
  static_assert(std::is_floating_point_v<Float>, "Quadtree: Float must be float or double");
  static_assert(
      std::is_invocable_v<const GetBox&, const T&> &&
          std::is_convertible_v<std::invoke_result_t<const GetBox&, const T&>, BasicBox<Float>>,
      "Quadtree: GetBox must be callable as BasicBox<Float>(const T&)");
  static_assert(std::is_invocable_r_v<bool, const Equal&, const T&, const T&>,
                "Quadtree: Equal must be callable as bool(const T&, const T&)");

 public:
  using value_type = T;
  using Box = BasicBox<Float>;
  using Vec = BasicVec2<Float>;
  using Options = QuadtreeContainerOptions;
  using Stats = QuadtreeContainerStats;

  /// rootBox: the region the tree subdivides (finite, min < max on both axes,
  /// else throws quadbin::Error). Values outside it are still kept, in a list.
  explicit Quadtree(const Box& rootBox, GetBox getBox = GetBox(), Equal equal = Equal(),
                    const Options& options = Options())
      : root_(rootBox), options_(options), getBox_(std::move(getBox)), equal_(std::move(equal)) {
    validate();
    looseMargin_ = static_cast<Float>((options_.looseness - 1.0) * 0.5);
    nodes_.resize(1);
    reach_.push_back(looseBox(root_));
  }
  Quadtree(const Box& rootBox, const Options& options, GetBox getBox = GetBox(),
           Equal equal = Equal())
      : Quadtree(rootBox, std::move(getBox), std::move(equal), options) {}

  /// Adds value, at the box GetBox gives it now. Throws quadbin::Error (and
  /// changes nothing) when that box has a NaN or min > max; infinite boxes are
  /// fine (they go to the outside list).
  void add(const T& value) { insert(Entry{checkedBox(getBox_(value), "add"), value}); }

  /// Removes one value equal to `value`, looked for at the box GetBox gives it
  /// now. Throws quadbin::Error, changing nothing, when there is none (never
  /// added, already removed, or its box changed since it was added). Then each
  /// node on the way up whose children are leaves holding, with it, threshold
  /// values or fewer takes their values back and frees them.
  void remove(const T& value) { erase(value, checkedBox(getBox_(value), "remove"), "remove"); }
  /// As remove(value), looking for it at storedBox: the box it had when added
  /// (useful when the object has already moved in your own arrays).
  void remove(const T& value, const Box& storedBox) {
    erase(value, checkedBox(storedBox, "remove"), "remove");
  }

  /// Moves a value whose box changed: finds it at previousBox, stores it at
  /// the box GetBox gives it now. Cheap when it stays in the same node.
  /// Throws quadbin::Error, changing nothing, when it is not at previousBox.
  void update(const T& value, const Box& previousBox) {
    const Box oldBox = checkedBox(previousBox, "update");
    const Box newBox = checkedBox(getBox_(value), "update");
    const bool oldInside = fitsRoot(oldBox);
    const bool newInside = fitsRoot(newBox);
    if (oldInside && newInside) {
      const Path oldPath = pathFor(oldBox);
      const std::uint32_t holder = oldPath.nodes[oldPath.length - 1];
      const Path newPath = pathFor(newBox);
      if (newPath.nodes[newPath.length - 1] == holder) {
        Entry* entry = find(nodes_[holder].entries, value);
        if (entry == nullptr) throw notFound("update", oldBox);
        *entry = Entry{newBox, value};
        return;
      }
    } else if (!oldInside && !newInside) {
      Entry* entry = find(outside_, value);
      if (entry == nullptr) throw notFound("update", oldBox);
      *entry = Entry{newBox, value};
      return;
    }
    erase(value, oldBox, "update");
    insert(Entry{newBox, value});
  }

  /// Whether a value equal to `value` is stored at the box GetBox gives it now.
  [[nodiscard]] bool contains(const T& value) const {
    const Box box = getBox_(value);
    if (!isUsable(box)) return false;
    if (!fitsRoot(box)) return findConst(outside_, value) != nullptr;
    const Path path = pathFor(box);
    return findConst(nodes_[path.nodes[path.length - 1]].entries, value) != nullptr;
  }

  /// Every value whose box touches `box` (closed test, like quadbin::touches:
  /// sharing an edge or a corner counts), each once.
  [[nodiscard]] std::vector<T> query(const Box& box) const {
    std::vector<T> out;
    query(box, out);
    return out;
  }
  /// As query(box), appending to out (which is not cleared), so a reused
  /// vector makes queries allocation-free.
  void query(const Box& box, std::vector<T>& out) const {
    forEachTouching(box, [&out](const T& value) { out.push_back(value); });
  }
  /// As query(box), calling visit(const T&) for each value instead.
  /// Throws quadbin::Error if box has a NaN or min > max.
  template <class Visit>
  void forEachTouching(const Box& box, Visit&& visit) const {
    const Box queryBox = checkedBox(box, "query");
    if (quadbin::touches(reach_[0], queryBox)) {
      Stack stack;
      std::size_t top = 0;
      stack[top++] = 0;
      while (top > 0) {
        const Node& node = nodes_[stack[--top]];
        for (const Entry& entry : node.entries) {
          if (quadbin::touches(entry.box, queryBox)) visit(entry.value);
        }
        if (node.firstChild != kNoChild) top = pushChildren(stack, top, node.firstChild, &queryBox);
      }
    }
    for (const Entry& entry : outside_) {
      if (quadbin::touches(entry.box, queryBox)) visit(entry.value);
    }
  }

  /// Every pair of values whose boxes overlap strictly (like quadbin::overlaps:
  /// touching is not overlapping), each pair once, in an order fixed by the
  /// sequence of operations that built the tree.
  [[nodiscard]] std::vector<std::pair<T, T>> findAllIntersections() const {
    std::vector<std::pair<T, T>> out;
    findAllIntersections(out);
    return out;
  }
  /// As findAllIntersections(), appending to out (which is not cleared).
  void findAllIntersections(std::vector<std::pair<T, T>>& out) const {
    forEachIntersection([&out](const T& a, const T& b) { out.emplace_back(a, b); });
  }
  /// As findAllIntersections(), calling visit(const T&, const T&) for each pair.
  template <class Visit>
  void forEachIntersection(Visit&& visit) const {
    // Tight tree: cells are disjoint, so a pair lives either in one node or in
    // a node and one of its descendants (or involves an outside value):
    // testing each node's values against each other and against the values
    // below them sees every pair exactly once. Loose tree: sibling cells
    // overlap, so each value looks at every other node its box reaches and
    // keeps the pairs whose other node has a higher index.
    const bool loose = looseMargin_ > Float(0);
    Stack stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const std::uint32_t index = stack[--top];
      const Node& node = nodes_[index];
      const std::size_t count = node.entries.size();
      for (std::size_t i = 0; i < count; ++i) {
        const Entry& a = node.entries[i];
        for (std::size_t j = i + 1; j < count; ++j) {
          const Entry& b = node.entries[j];
          if (quadbin::overlaps(a.box, b.box)) visit(a.value, b.value);
        }
      }
      if (loose) {
        if (count > 0) visitLooseNeighbours(index, visit);
      } else if (node.firstChild != kNoChild) {
        for (const Entry& a : node.entries) {
          visitOverlaps(index, a, visit, [index](std::uint32_t other) { return other != index; });
        }
      }
      if (node.firstChild != kNoChild) top = pushChildren(stack, top, node.firstChild, nullptr);
    }
    for (std::size_t i = 0; i < outside_.size(); ++i) {
      const Entry& a = outside_[i];
      for (std::size_t j = i + 1; j < outside_.size(); ++j) {
        if (quadbin::overlaps(a.box, outside_[j].box)) visit(a.value, outside_[j].value);
      }
      visitOverlaps(0, a, visit, [](std::uint32_t) { return true; });
    }
  }

  /// Number of values stored.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// Removes every value; keeps the memory of nodes and value lists for reuse.
  void clear() noexcept {
    for (Node& node : nodes_) {
      node.entries.clear();
      node.firstChild = kNoChild;
    }  // reach_ keeps stale boxes for free nodes: split() rewrites them
    // Every block after the root is free; taken lowest first.
    freeBlocks_.freeAllAfter(1, nodes_.size());
    outside_.clear();
    size_ = 0;
  }
  /// The box given at construction.
  [[nodiscard]] const Box& rootBox() const noexcept { return root_; }
  [[nodiscard]] const Options& options() const noexcept { return options_; }
  [[nodiscard]] const GetBox& getBox() const noexcept { return getBox_; }

  /// Live nodes (root included): 1 + 4 per split node. O(1).
  [[nodiscard]] std::size_t nodeCount() const noexcept {
    return freeBlocks_.liveNodes(nodes_.size());
  }
  /// Depth of the deepest live node (0 when only the root exists).
  [[nodiscard]] std::size_t depth() const { return stats().depth; }
  /// Values kept outside the tree because their box does not fit the root box.
  [[nodiscard]] std::size_t outsideCount() const noexcept { return outside_.size(); }
  /// Shape of the tree, in one walk.
  [[nodiscard]] Stats stats() const {
    Stats stats;
    stats.outside = outside_.size();
    stats.atRoot = nodes_[0].entries.size();
    std::array<std::pair<std::uint32_t, std::uint32_t>, kStackSize> stack{};
    std::size_t top = 0;
    stack[top++] = {0, 0};
    while (top > 0) {
      const auto [index, nodeDepth] = stack[--top];
      const Node& node = nodes_[index];
      ++stats.nodes;
      stats.depth = std::max<std::size_t>(stats.depth, nodeDepth);
      stats.largestNode = std::max(stats.largestNode, node.entries.size());
      if (node.firstChild == kNoChild) {
        ++stats.leaves;
        continue;
      }
      for (std::uint32_t q = 0; q < 4; ++q) stack[top++] = {node.firstChild + q, nodeDepth + 1};
    }
    return stats;
  }
  /// Heap bytes held (capacities), free nodes and spare capacity included.
  [[nodiscard]] std::size_t memoryBytes() const noexcept {
    std::size_t bytes = nodes_.capacity() * sizeof(Node) + reach_.capacity() * sizeof(Box) +
                        freeBlocks_.memoryBytes() + outside_.capacity() * sizeof(Entry);
    for (const Node& node : nodes_) bytes += node.entries.capacity() * sizeof(Entry);
    return bytes;
  }

 private:
  static constexpr std::uint32_t kNoChild = 0xffffffffu;

  struct Entry {
    Box box;  // cached at insertion: queries never call GetBox
    T value;
  };
  // Children of a node are four consecutive nodes of nodes_ (a "block"),
  // quadrant q = (east ? 1 : 0) | (north ? 2 : 0). The exact cell of a node
  // is recomputed on the way down from the root box (add, remove); queries
  // only need its reach, stored in reach_.
  struct Node {
    std::uint32_t firstChild = kNoChild;
    std::vector<Entry> entries;
  };
  // Depth-first traversals keep node indices on a fixed array: at most 3
  // pending siblings per level plus 4 at the deepest, so 4 per level always
  // suffices; no recursion anywhere.
  static constexpr std::size_t kStackSize = 4 * (std::size_t{Options::kMaxDepthLimit} + 1);
  using Stack = std::array<std::uint32_t, kStackSize>;
  // Nodes from the root down to the node holding (or that would hold) a box.
  struct Path {
    std::array<std::uint32_t, Options::kMaxDepthLimit + 1> nodes;
    std::uint32_t length;
  };

  void validate() const {
    const auto text = [](const Box& b) { return detail::quadtreeBoxText(b); };
    if (!std::isfinite(root_.min.x) || !std::isfinite(root_.min.y) || !std::isfinite(root_.max.x) ||
        !std::isfinite(root_.max.y)) {
      throw Error("Quadtree: rootBox must be finite, got " + text(root_));
    }
    if (!(root_.min.x < root_.max.x) || !(root_.min.y < root_.max.y)) {
      throw Error("Quadtree: rootBox must have min < max on both axes, got " + text(root_));
    }
    if (options_.threshold < 1) {
      throw Error("Quadtree: options.threshold must be >= 1, got " +
                  std::to_string(options_.threshold));
    }
    if (options_.maxDepth > Options::kMaxDepthLimit) {
      throw Error(
          "Quadtree: options.maxDepth must be <= " + std::to_string(Options::kMaxDepthLimit) +
          ", got " + std::to_string(options_.maxDepth));
    }
    if (!(options_.looseness >= 1.0 && options_.looseness <= 2.0)) {
      throw Error("Quadtree: options.looseness must be in [1, 2], got " +
                  detail::quadtreeNumberText(options_.looseness));
    }
  }

  [[nodiscard]] static bool isUsable(const Box& b) noexcept {
    return b.isValid();  // false for NaN and for min > max; infinities are fine
  }
  static Box checkedBox(const Box& b, const char* operation) {
    if (!isUsable(b)) {
      throw Error(std::string("Quadtree::") + operation +
                  ": box must have no NaN and min <= max, got " + detail::quadtreeBoxText(b));
    }
    return b;
  }
  static Error notFound(const char* operation, const Box& box) {
    return Error(std::string("Quadtree::") + operation + ": value not found at box " +
                 detail::quadtreeBoxText(box) +
                 " (never added, already removed, or its box changed since it was added: "
                 "use update(value, previousBox) to move a value)");
  }

  // The cell enlarged by the looseness around its centre (the cell itself at 1).
  [[nodiscard]] Box looseBox(const Box& cell) const noexcept {
    const Float mx = looseMargin_ * cell.width();
    const Float my = looseMargin_ * cell.height();
    return Box{{cell.min.x - mx, cell.min.y - my}, {cell.max.x + mx, cell.max.y + my}};
  }
  [[nodiscard]] static Box childCell(const Box& cell, const Vec& mid, std::uint32_t q) noexcept {
    const bool east = (q & 1u) != 0;
    const bool north = (q & 2u) != 0;
    return Box{{east ? mid.x : cell.min.x, north ? mid.y : cell.min.y},
               {east ? cell.max.x : mid.x, north ? cell.max.y : mid.y}};
  }
  [[nodiscard]] bool fitsRoot(const Box& box) const noexcept {
    return quadbin::contains(reach_[0], box);
  }
  // The child (of a node with this cell and children from `first`) that must
  // hold a value with this box and centre, or -1 when it fits none. The
  // quadrant is picked by the centre; the value goes there if its box fits
  // the child's reach. With looseness 1 this is exactly "the child cell
  // that contains the box". Add, remove and queries all read the same
  // stored reach_, so rounding can never make them disagree.
  [[nodiscard]] int fittingChild(const Box& cell, std::uint32_t first, const Box& box,
                                 const Vec& centre) const noexcept {
    const Vec mid = cell.center();
    const std::uint32_t q = (centre.x >= mid.x ? 1u : 0u) | (centre.y >= mid.y ? 2u : 0u);
    return quadbin::contains(reach_[first + q], box) ? static_cast<int>(q) : -1;
  }

  [[nodiscard]] Path pathFor(const Box& box) const noexcept {
    Path path{};
    path.nodes[0] = 0;
    path.length = 1;
    const Vec centre = box.center();
    Box cell = root_;
    std::uint32_t index = 0;
    while (nodes_[index].firstChild != kNoChild) {
      const int q = fittingChild(cell, nodes_[index].firstChild, box, centre);
      if (q < 0) break;
      cell = childCell(cell, cell.center(), static_cast<std::uint32_t>(q));
      index = nodes_[index].firstChild + static_cast<std::uint32_t>(q);
      assert(path.length <= options_.maxDepth);
      path.nodes[path.length++] = index;
    }
    return path;
  }

  Entry* find(std::vector<Entry>& entries, const T& value) {
    for (Entry& entry : entries) {
      if (equal_(entry.value, value)) return &entry;
    }
    return nullptr;
  }
  [[nodiscard]] const Entry* findConst(const std::vector<Entry>& entries, const T& value) const {
    for (const Entry& entry : entries) {
      if (equal_(entry.value, value)) return &entry;
    }
    return nullptr;
  }
  static void eraseAt(std::vector<Entry>& entries, Entry* entry) {
    // Order inside a node does not matter: swap with the last and pop.
    Entry* last = &entries.back();
    if (entry != last) *entry = std::move(*last);
    entries.pop_back();
  }

  // Adds the entry to the node its box fits, splitting full leaves on the
  // way (quadtree_container_nodes.hpp, with split and tryMerge).
  void insert(Entry&& entry);
  // Gives a leaf four children and moves down the entries that fit one.
  void split(std::uint32_t index, const Box& cell);
  // Takes back the values of the four children if they are all leaves and,
  // with the node's own, hold threshold values or fewer.
  bool tryMerge(std::uint32_t index);

  std::uint32_t allocateBlock() {
    return freeBlocks_.take(nodes_.size(), [this] {
      nodes_.resize(nodes_.size() + 4);
      reach_.resize(reach_.size() + 4);
    });
  }

  void erase(const T& value, const Box& box, const char* operation) {
    if (!fitsRoot(box)) {
      Entry* entry = find(outside_, value);
      if (entry == nullptr) throw notFound(operation, box);
      eraseAt(outside_, entry);
      --size_;
      return;
    }
    const Path path = pathFor(box);
    const std::uint32_t holder = path.nodes[path.length - 1];
    Entry* entry = find(nodes_[holder].entries, value);
    if (entry == nullptr) throw notFound(operation, box);
    eraseAt(nodes_[holder].entries, entry);
    --size_;
    // Merge bottom-up: the holder itself if it has children, then its
    // ancestors, stopping at the first node that cannot merge.
    std::uint32_t i = path.length;
    if (nodes_[holder].firstChild == kNoChild) --i;
    while (i > 0) {
      --i;
      if (!tryMerge(path.nodes[i])) break;
    }
  }

  // Pushes the children whose reach touches *filter (all four when filter
  // is null), last quadrant first so that quadrant 0 is visited first.
  std::size_t pushChildren(Stack& stack, std::size_t top, std::uint32_t first,
                           const Box* filter) const noexcept {
    for (std::uint32_t q = 4; q-- > 0;) {
      if (filter != nullptr && !quadbin::touches(reach_[first + q], *filter)) continue;
      assert(top < stack.size());
      stack[top++] = first + q;
    }
    return top;
  }

  // Calls visit(entry.value, other.value) for each value strictly
  // overlapping entry in the subtree of `start`, in the nodes where
  // testNode(node index) holds; walks only the nodes entry's box reaches.
  template <class Visit, class TestNode>
  void visitOverlaps(std::uint32_t start, const Entry& entry, Visit& visit,
                     const TestNode& testNode) const {
    if (!quadbin::touches(reach_[start], entry.box)) return;
    Stack stack;
    std::size_t top = 0;
    stack[top++] = start;
    while (top > 0) {
      const std::uint32_t index = stack[--top];
      const Node& node = nodes_[index];
      if (testNode(index)) {
        for (const Entry& other : node.entries) {
          if (quadbin::overlaps(entry.box, other.box)) visit(entry.value, other.value);
        }
      }
      if (node.firstChild != kNoChild) top = pushChildren(stack, top, node.firstChild, &entry.box);
    }
  }

  // Loose tree: calls visit(a, b) for each value a of node `self` and each
  // value b strictly overlapping it in a node of higher index. One walk per
  // node, pruned by the bounds of its values, rather than one per value.
  template <class Visit>
  void visitLooseNeighbours(std::uint32_t self, Visit& visit) const {
    const std::vector<Entry>& mine = nodes_[self].entries;
    Box bounds = mine.front().box;
    for (const Entry& a : mine) {
      bounds.min.x = std::min(bounds.min.x, a.box.min.x);
      bounds.min.y = std::min(bounds.min.y, a.box.min.y);
      bounds.max.x = std::max(bounds.max.x, a.box.max.x);
      bounds.max.y = std::max(bounds.max.y, a.box.max.y);
    }
    Stack stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const std::uint32_t index = stack[--top];
      const Node& node = nodes_[index];
      if (index > self) {
        for (const Entry& b : node.entries) {
          if (!quadbin::overlaps(bounds, b.box)) continue;
          for (const Entry& a : mine) {
            if (quadbin::overlaps(a.box, b.box)) visit(a.value, b.value);
          }
        }
      }
      if (node.firstChild != kNoChild) top = pushChildren(stack, top, node.firstChild, &bounds);
    }
  }

  Box root_;
  Options options_;
  Float looseMargin_ = 0;    // (looseness - 1) / 2: a cell grows by this times its size per side
  std::vector<Node> nodes_;  // [0] the root, then blocks of four siblings
  // Per node: its cell enlarged by the looseness (the cell itself at 1);
  // every value stored in the node or below it lies inside. Kept apart from
  // nodes_ so that traversals read a dense array of boxes.
  std::vector<Box> reach_;
  detail::BlockFreeList<std::uint32_t> freeBlocks_;  // the unused blocks of four
  std::vector<Entry> outside_;                       // values whose box does not fit the root
  std::size_t size_ = 0;
  [[no_unique_address]] GetBox getBox_;
  [[no_unique_address]] Equal equal_;
};

}  // namespace quadbin

#include <quadbin/broadphase/quadtree_container_nodes.hpp>
