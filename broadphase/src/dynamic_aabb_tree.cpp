#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <quadbin/broadphase/dynamic_aabb_tree.hpp>
#include <quadbin/error.hpp>
#include <string>
#include <utility>
#include <vector>

#include "checks.hpp"
#include "dynamic_aabb_tree_impl.hpp"
#include "float_math.hpp"
#include "sort_keys.hpp"

namespace quadbin {

namespace {

/// Half the perimeter: the 2D "surface area" of the SAH (the factor 2 does
/// not change any comparison).
/// In double: boxes spanning the float range would overflow a float sum.
[[nodiscard]] inline double halfPerimeter(const AABB& b) noexcept {
  return detail::span(b.min.x, b.max.x) + detail::span(b.min.y, b.max.y);
}

/// Depth-first walk entering only the nodes whose box `enter` accepts;
/// calls leaf(index) for each leaf entered. The stack never holds more than
/// height + 1 entries: it lives on the machine stack unless the tree is
/// absurdly tall.
template <typename Nodes, typename Enter, typename Leaf>
void walk(const Nodes& nodes, std::uint32_t root, int height, Enter&& enter, Leaf&& leaf) {
  constexpr std::size_t kLocal = 128;
  // A stack, written before it is read.
  std::array<std::uint32_t, kLocal> local;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::vector<std::uint32_t> heap;
  std::uint32_t* stack = local.data();
  if (static_cast<std::size_t>(height) + 2 > kLocal) {
    heap.resize(static_cast<std::size_t>(height) + 2);
    stack = heap.data();
  }
  std::size_t top = 0;
  stack[top++] = root;
  while (top > 0) {
    const std::uint32_t index = stack[--top];
    const auto& node = nodes[index];
    if (!enter(node.box)) continue;
    if (node.isLeaf()) {
      leaf(index);
    } else {
      stack[top++] = node.child2;
      stack[top++] = node.child1;
    }
  }
}

void checkOption(float value, const char* field) {
  if (!(std::isfinite(value) && value >= 0.0f)) {
    throw Error(std::string("DynamicAabbTreeOptions.") + field + " must be finite and >= 0, got " +
                std::to_string(value));
  }
}

}  // namespace

DynamicAabbTree::Impl::Impl(const DynamicAabbTreeOptions& options) : options_(options) {
  checkOption(options.margin, "margin");
  checkOption(options.absoluteMargin, "absoluteMargin");
  if (!(options.rebuildFraction >= 0.0f && options.rebuildFraction <= 1.0f)) {
    throw Error("DynamicAabbTreeOptions.rebuildFraction must be in [0, 1], got " +
                std::to_string(options.rebuildFraction));
  }
}

AABB DynamicAabbTree::Impl::fatten(const AABB& tight) const noexcept { return grown(tight, 1.0); }

AABB DynamicAabbTree::Impl::grown(const AABB& tight, double times) const noexcept {
  // In double and clamped to the float range: the side of a box spanning
  // the range overflows a float (and margin 0 times infinity is NaN).
  // Rounding is monotonic, so the float fat box still holds the tight one.
  const double d = times * (options_.margin * std::max(detail::span(tight.min.x, tight.max.x),
                                                       detail::span(tight.min.y, tight.max.y)) +
                            options_.absoluteMargin);
  return {{detail::clampToFloat(tight.min.x - d), detail::clampToFloat(tight.min.y - d)},
          {detail::clampToFloat(tight.max.x + d), detail::clampToFloat(tight.max.y + d)}};
}

const AABB& DynamicAabbTree::Impl::bound(std::uint32_t node) const noexcept {
  const Node& n = nodes_[node];
  return n.isLeaf() ? fat_[n.child2] : n.box;
}

std::uint32_t DynamicAabbTree::Impl::allocateNode() {
  if (freeList_ != kNull) {
    const std::uint32_t node = freeList_;
    freeList_ = nodes_[node].parent;
    nodes_[node] = Node{};
    return node;
  }
  assert(nodes_.size() < kNull);
  nodes_.emplace_back();
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void DynamicAabbTree::Impl::freeNode(std::uint32_t node) noexcept {
  nodes_[node].height = -1;
  nodes_[node].child1 = nodes_[node].child2 = kNull;
  nodes_[node].parent = freeList_;
  freeList_ = node;
}

std::uint32_t DynamicAabbTree::Impl::rotate(std::uint32_t a) noexcept {
  Node& A = nodes_[a];
  if (A.isLeaf()) return a;  // A's own height may be stale here: look at the children
  const std::uint32_t b = A.child1, c = A.child2;
  const int balance = nodes_[c].height - nodes_[b].height;
  if (balance >= -1 && balance <= 1) return a;
  // Lift the taller child (`up`) into A's place; A keeps its other child and
  // takes the shorter grandchild, `up` keeps the taller. Children have no
  // order in a bounding-volume tree, so this single rotation always
  // restores the AVL balance.
  const bool liftSecond = balance > 1;
  const std::uint32_t up = liftSecond ? c : b;
  const std::uint32_t stay = liftSecond ? b : c;
  Node& U = nodes_[up];
  const std::uint32_t g1 = U.child1, g2 = U.child2;
  const bool firstTaller = nodes_[g1].height > nodes_[g2].height;
  const std::uint32_t tall = firstTaller ? g1 : g2;
  const std::uint32_t shortG = firstTaller ? g2 : g1;

  U.parent = A.parent;
  if (U.parent != kNull) {
    Node& P = nodes_[U.parent];
    (P.child1 == a ? P.child1 : P.child2) = up;
  } else {
    root_ = up;
  }
  U.child1 = a;
  U.child2 = tall;
  A.parent = up;
  if (liftSecond) {
    A.child2 = shortG;
  } else {
    A.child1 = shortG;
  }
  nodes_[shortG].parent = a;
  A.box = unionOf(bound(stay), bound(shortG));
  A.height = 1 + std::max(nodes_[stay].height, nodes_[shortG].height);
  U.box = unionOf(A.box, bound(tall));
  U.height = 1 + std::max(A.height, nodes_[tall].height);
  return up;
}

void DynamicAabbTree::Impl::refitUp(std::uint32_t node) noexcept {
  while (node != kNull) {
    const std::uint32_t top = rotate(node);
    Node& n = nodes_[top];
    const int height = 1 + std::max(nodes_[n.child1].height, nodes_[n.child2].height);
    const AABB box = unionOf(bound(n.child1), bound(n.child2));
    // Nothing above can change once a node keeps its place, box and height.
    if (top == node && height == n.height && box == n.box) return;
    n.height = height;
    n.box = box;
    node = n.parent;
  }
}

void DynamicAabbTree::Impl::insertLeaf(std::uint32_t leaf) {
  if (root_ == kNull) {
    root_ = leaf;
    nodes_[leaf].parent = kNull;
    return;
  }
  const AABB box = fat_[nodes_[leaf].child2];
  // Cheapest sibling by the surface-area heuristic: making `node` the
  // sibling costs the perimeter of the new parent, plus what every ancestor
  // grows by ("inherited"); descending costs at least the inherited growth
  // plus the child's own growth. Stop when no child can be cheaper.
  std::uint32_t node = root_;
  while (!nodes_[node].isLeaf()) {
    const Node& n = nodes_[node];
    const double area = halfPerimeter(n.box);
    const double combined = halfPerimeter(unionOf(n.box, box));
    const double cost = 2.0 * combined;
    const double inherited = 2.0 * (combined - area);
    const auto childCost = [&](std::uint32_t child) {
      const Node& c = nodes_[child];
      if (c.isLeaf()) return halfPerimeter(unionOf(box, fat_[c.child2])) + inherited;
      return halfPerimeter(unionOf(box, c.box)) - halfPerimeter(c.box) + inherited;
    };
    const double cost1 = childCost(n.child1);
    const double cost2 = childCost(n.child2);
    if (cost < cost1 && cost < cost2) break;
    if (cost1 < cost2) {
      node = n.child1;
    } else if (cost2 < cost1) {
      node = n.child2;
    } else {
      // A tie (identical or nested boxes): the shorter side keeps the
      // tree balanced before any rotation is needed.
      node = nodes_[n.child1].height <= nodes_[n.child2].height ? n.child1 : n.child2;
    }
  }
  const std::uint32_t sibling = node;
  const std::uint32_t oldParent = nodes_[sibling].parent;
  const std::uint32_t newParent = allocateNode();  // may reallocate nodes_
  Node& p = nodes_[newParent];
  p.parent = oldParent;
  p.box = unionOf(box, bound(sibling));
  p.child1 = sibling;
  p.child2 = leaf;
  p.height = nodes_[sibling].height + 1;
  if (oldParent != kNull) {
    Node& op = nodes_[oldParent];
    (op.child1 == sibling ? op.child1 : op.child2) = newParent;
  } else {
    root_ = newParent;
  }
  nodes_[sibling].parent = newParent;
  nodes_[leaf].parent = newParent;
  refitUp(oldParent);
}

void DynamicAabbTree::Impl::removeLeaf(std::uint32_t leaf) noexcept {
  if (leaf == root_) {
    root_ = kNull;
    return;
  }
  const std::uint32_t parent = nodes_[leaf].parent;
  const std::uint32_t grand = nodes_[parent].parent;
  const std::uint32_t sibling =
      nodes_[parent].child1 == leaf ? nodes_[parent].child2 : nodes_[parent].child1;
  nodes_[sibling].parent = grand;
  if (grand != kNull) {
    Node& g = nodes_[grand];
    (g.child1 == parent ? g.child1 : g.child2) = sibling;
  } else {
    root_ = sibling;
  }
  freeNode(parent);
  nodes_[leaf].parent = kNull;
  refitUp(grand);
}

void DynamicAabbTree::Impl::splitRange(std::uint32_t first, std::uint32_t count) noexcept {
  if (count <= 2) return;  // a pair splits one and one in any order
  // Median split of the centres along their wider spread: balanced by
  // construction (it splits by count, so identical boxes cannot make it
  // deep), and sibling subtrees overlap little. byX_ and byY_ hold the same
  // proxies in [first, first + count), each sorted on its axis, so the
  // spread is read at the ends and the median is the middle; the other list
  // is split by a stable, branch-free partition: O(count) per level.
  std::uint64_t* xs = byX_.data() + first;
  std::uint64_t* ys = byY_.data() + first;
  const auto spread = [count](const std::uint64_t* keys) {
    return detail::span(detail::floatOfSortable(static_cast<std::uint32_t>(keys[0] >> 32)),
                        detail::floatOfSortable(static_cast<std::uint32_t>(keys[count - 1] >> 32)));
  };
  const bool onY = spread(ys) > spread(xs);
  const std::uint64_t* sorted = onY ? ys : xs;
  std::uint64_t* other = onY ? xs : ys;
  const std::uint32_t half = count / 2;
  std::uint8_t* side = side_.data();
  for (std::uint32_t i = 0; i < count; ++i)
    side[static_cast<std::uint32_t>(sorted[i])] = i < half ? 0 : 1;
  std::uint64_t* out = buildScratch_.data();
  std::uint32_t left = 0, right = half;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t key = other[i];
    const std::uint32_t s = side[static_cast<std::uint32_t>(key)];
    // Mask arithmetic, not a select: the compiler would make a branch of
    // it, mispredicted half the time.
    out[left + ((right - left) & (0u - s))] = key;
    right += s;
    left += 1 - s;
  }
  std::copy(out, out + count, other);
  splitRange(first, half);
  splitRange(first + half, count - half);
}

void DynamicAabbTree::Impl::buildNodes(std::uint32_t node, std::uint32_t first,
                                       std::uint32_t count) {
  // Same split as splitRange (by count), now that the items are in order.
  // Siblings are allocated side by side (one cache line for both boxes the
  // traversal compares), then each subtree depth-first after them.
  if (count == 1) {
    const auto p = static_cast<std::uint32_t>(byX_[first]);
    Node& leaf = nodes_[node];
    leaf.box = buildTight_[first];
    leaf.child2 = p;
    leaf.height = 0;
    leafOf_[p] = node;
    return;
  }
  const std::uint32_t half = count / 2;
  const std::uint32_t c1 = allocateNode();
  const std::uint32_t c2 = allocateNode();
  nodes_[c1].parent = nodes_[c2].parent = node;
  buildNodes(c1, first, half);
  buildNodes(c2, first + half, count - half);
  Node& m = nodes_[node];
  m.child1 = c1;
  m.child2 = c2;
  m.box = unionOf(half == 1 ? buildFat_[first] : nodes_[c1].box,
                  count - half == 1 ? buildFat_[first + half] : nodes_[c2].box);
  m.height = 1 + std::max(nodes_[c1].height, nodes_[c2].height);
}

void DynamicAabbTree::Impl::rebuild(std::span<const AABB> boxes) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  nodes_.clear();
  freeList_ = kNull;
  root_ = kNull;
  if (n == 0) return;
  // Geometric growth: a tree rebuilt as its proxies grow by a fraction
  // each time does not reallocate (and fault in fresh pages) every time.
  if (2 * std::size_t{n} - 1 > nodes_.capacity()) {
    nodes_.reserve(std::max(2 * std::size_t{n} - 1, 2 * nodes_.capacity()));
  }
  byX_.resize(n);
  byY_.resize(n);
  buildScratch_.resize(n);
  side_.resize(n);
  buildFat_.resize(n);
  buildTight_.resize(n);
  for (std::uint32_t p = 0; p < n; ++p) {
    const AABB& b = boxes[p];
    byX_[p] = detail::sortKey(detail::midpoint(b.min.x, b.max.x), p);
    byY_[p] = detail::sortKey(detail::midpoint(b.min.y, b.max.y), p);
    fat_[p] = fatten(b);
  }
  // Keys made in proxy order: the stable sort breaks ties by proxy.
  detail::radixSortByHigh32(byX_, buildScratch_);
  detail::radixSortByHigh32(byY_, buildScratch_);
  buildScratch_.resize(n);
  splitRange(0, n);
  // byX_ now lists the proxies in leaf order. One gather pass of
  // independent loads, rather than a cache miss per leaf in the recursion.
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto p = static_cast<std::uint32_t>(byX_[i]);
    buildFat_[i] = fat_[p];
    buildTight_[i] = boxes[p];
  }
  root_ = allocateNode();
  buildNodes(root_, 0, n);
  ++rebuilds_;
}

void DynamicAabbTree::Impl::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "DynamicAabbTree::update");
  assert(boxes.size() < kNull / 2);
  const auto n = static_cast<std::uint32_t>(boxes.size());
  const auto prev = static_cast<std::uint32_t>(leafOf_.size());
  const std::uint32_t common = std::min(n, prev);
  // Survivors: the leaf takes the new tight box; those that left their fat
  // box are listed for re-insertion.
  moved_.clear();
  for (std::uint32_t p = 0; p < common; ++p) {
    const AABB& t = boxes[p];
    nodes_[leafOf_[p]].box = t;
    const AABB& fat = fat_[p];
    if (!contains(fat, t)) {
      moved_.push_back(p);
      continue;
    }
    // Still inside, but a fat box far larger than the box needs now (it
    // shrank) would only produce candidates to filter: refresh it.
    if (!contains(grown(t, 4.0), fat)) moved_.push_back(p);
  }
  const std::size_t changes = moved_.size() + (prev - common) + (n - common);
  if (root_ == kNull ||
      static_cast<double>(changes) > options_.rebuildFraction * static_cast<double>(n)) {
    leafOf_.resize(n);
    fat_.resize(n);
    rebuild(boxes);
    return;
  }
  for (std::uint32_t p = common; p < prev; ++p) {  // proxies that disappeared
    removeLeaf(leafOf_[p]);
    freeNode(leafOf_[p]);
  }
  leafOf_.resize(n);
  fat_.resize(n);
  for (const std::uint32_t p : moved_) {
    const std::uint32_t leaf = leafOf_[p];
    removeLeaf(leaf);
    fat_[p] = fatten(boxes[p]);
    insertLeaf(leaf);
  }
  reinsertions_ += moved_.size();
  for (std::uint32_t p = common; p < n; ++p) {  // proxies that appeared
    const std::uint32_t leaf = allocateNode();
    fat_[p] = fatten(boxes[p]);
    nodes_[leaf].box = boxes[p];
    nodes_[leaf].child2 = p;
    leafOf_[p] = leaf;
    insertLeaf(leaf);
  }
}

void DynamicAabbTree::Impl::findPairs(std::vector<Pair>& out) {
  if (root_ == kNull || nodes_[root_].isLeaf()) return;
  const Node* nodes = nodes_.data();
  // Every node's box holds the tight boxes below it (a leaf's box is its
  // tight box; an internal box holds the fat boxes), so strict overlap of
  // two nodes' boxes is a valid prune, and for two leaves it is the exact
  // test. Non-short-circuit &: the outcome is a coin toss, a branch on it
  // would be mispredicted half the time.
  const auto overlap = [nodes](std::uint32_t a, std::uint32_t b) -> std::size_t {
    const AABB& x = nodes[a].box;
    const AABB& y = nodes[b].box;
    return (x.min.x < y.max.x) & (y.min.x < x.max.x) & (x.min.y < y.max.y) & (y.min.y < x.max.y);
  };
  // The stack holds pairs of subtrees whose boxes overlap (or one subtree
  // against itself). Candidates are written unconditionally and kept by
  // advancing the top with the test result: no branch per test.
  auto& stack = pairStack_;
  if (stack.size() < 64) stack.resize(64);
  std::size_t top = 0;
  stack[top++] = {root_, root_};
  while (top > 0) {
    if (top + 4 > stack.size()) stack.resize(2 * stack.size());
    auto* st = stack.data();
    const auto [a, b] = st[--top];
    const Node& A = nodes[a];
    if (a == b) {
      // Pairs within one subtree: within each child, and across the two.
      const std::uint32_t c1 = A.child1, c2 = A.child2;
      st[top] = {c2, c2};
      top += !nodes[c2].isLeaf();
      st[top] = {c1, c1};
      top += !nodes[c1].isLeaf();
      st[top] = {c1, c2};
      top += overlap(c1, c2);
      continue;
    }
    const Node& B = nodes[b];
    if (A.isLeaf() && B.isLeaf()) {  // tested when pushed
      const std::uint32_t p = A.child2, q = B.child2;
      out.push_back({std::min(p, q), std::max(p, q)});
      continue;
    }
    if (!A.isLeaf() && !B.isLeaf()) {
      __builtin_prefetch(&nodes[nodes[A.child1].child1]);
      st[top] = {A.child2, B.child2};
      top += overlap(A.child2, B.child2);
      st[top] = {A.child2, B.child1};
      top += overlap(A.child2, B.child1);
      st[top] = {A.child1, B.child2};
      top += overlap(A.child1, B.child2);
      st[top] = {A.child1, B.child1};
      top += overlap(A.child1, B.child1);
    } else if (B.isLeaf()) {
      st[top] = {A.child2, b};
      top += overlap(A.child2, b);
      st[top] = {A.child1, b};
      top += overlap(A.child1, b);
    } else {
      st[top] = {a, B.child2};
      top += overlap(a, B.child2);
      st[top] = {a, B.child1};
      top += overlap(a, B.child1);
    }
  }
}

void DynamicAabbTree::Impl::query(const AABB& given, std::vector<std::uint32_t>& out) const {
  const AABB box = detail::queryBox(given, "DynamicAabbTree::query");
  if (root_ == kNull) return;
  walk(
      nodes_, root_, height(), [&](const AABB& fat) { return touches(fat, box); },
      [&](std::uint32_t leaf) {
        if (touches(nodes_[leaf].box, box)) out.push_back(nodes_[leaf].child2);
      });
}

void DynamicAabbTree::Impl::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "DynamicAabbTree::queryRay");
  if (root_ == kNull) return;
  walk(
      nodes_, root_, height(), [&](const AABB& fat) { return raycast(ray, fat).has_value(); },
      [&](std::uint32_t leaf) {
        if (raycast(ray, nodes_[leaf].box)) out.push_back(nodes_[leaf].child2);
      });
}

void DynamicAabbTree::Impl::draw(BroadPhaseDraw& out) const {
  if (root_ == kNull) return;
  // Pool order with the depth found by walking up: no stack to size, and
  // free nodes (height -1) are skipped on the way.
  for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = nodes_[i];
    if (node.height < 0) continue;
    std::uint32_t depth = 0;
    for (std::uint32_t p = node.parent; p != kNull; p = nodes_[p].parent) ++depth;
    out.treeBox(bound(i), depth, node.isLeaf());
  }
}

int DynamicAabbTree::Impl::height() const noexcept {
  return root_ == kNull ? -1 : nodes_[root_].height;
}

AABB DynamicAabbTree::Impl::fatBox(std::uint32_t proxy) const noexcept {
  assert(proxy < leafOf_.size());
  return fat_[proxy];
}

bool DynamicAabbTree::Impl::isValid() const {
  const auto n = static_cast<std::uint32_t>(leafOf_.size());
  if (root_ == kNull) return n == 0;
  if (nodes_[root_].parent != kNull) return false;
  std::size_t reached = 0, leaves = 0;
  std::vector<std::uint32_t> stack{root_};
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    ++reached;
    const Node& node = nodes_[i];
    if (node.height < 0) return false;
    if (node.isLeaf()) {
      const std::uint32_t p = node.child2;
      if (node.height != 0 || p >= n || leafOf_[p] != i) return false;
      if (!contains(fat_[p], node.box)) return false;
      ++leaves;
      continue;
    }
    const Node& c1 = nodes_[node.child1];
    const Node& c2 = nodes_[node.child2];
    if (c1.parent != i || c2.parent != i) return false;
    if (node.height != 1 + std::max(c1.height, c2.height)) return false;
    if (std::abs(c1.height - c2.height) > 1) return false;
    if (!contains(node.box, bound(node.child1)) || !contains(node.box, bound(node.child2)))
      return false;
    stack.push_back(node.child1);
    stack.push_back(node.child2);
  }
  std::size_t free = 0;
  for (std::uint32_t f = freeList_; f != kNull; f = nodes_[f].parent) {
    if (nodes_[f].height != -1 || ++free > nodes_.size()) return false;
  }
  return leaves == n && reached + free == nodes_.size();
}

std::size_t DynamicAabbTree::Impl::memoryBytes() const noexcept {
  return nodes_.capacity() * sizeof(Node) +
         (leafOf_.capacity() + moved_.capacity()) * sizeof(std::uint32_t) +
         (fat_.capacity() + buildFat_.capacity() + buildTight_.capacity()) * sizeof(AABB) +
         (byX_.capacity() + byY_.capacity() + buildScratch_.capacity()) * sizeof(std::uint64_t) +
         side_.capacity() + pairStack_.capacity() * sizeof(pairStack_[0]);
}

DynamicAabbTree::DynamicAabbTree(const DynamicAabbTreeOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}
DynamicAabbTree::~DynamicAabbTree() = default;

void DynamicAabbTree::update(std::span<const AABB> boxes) { impl_->update(boxes); }
void DynamicAabbTree::findPairs(std::vector<Pair>& out) { impl_->findPairs(out); }
void DynamicAabbTree::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(box, out);
}
void DynamicAabbTree::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  impl_->queryRay(ray, out);
}
std::size_t DynamicAabbTree::size() const noexcept { return impl_->leafOf_.size(); }
std::size_t DynamicAabbTree::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
void DynamicAabbTree::draw(BroadPhaseDraw& out) const { impl_->draw(out); }
int DynamicAabbTree::height() const noexcept { return impl_->height(); }
AABB DynamicAabbTree::fatBox(std::uint32_t proxy) const noexcept { return impl_->fatBox(proxy); }
bool DynamicAabbTree::isValid() const { return impl_->isValid(); }
std::uint64_t DynamicAabbTree::rebuilds() const noexcept { return impl_->rebuilds_; }
std::uint64_t DynamicAabbTree::reinsertions() const noexcept { return impl_->reinsertions_; }

}  // namespace quadbin
