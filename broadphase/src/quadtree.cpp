#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <quadbin/error.hpp>
#include <string>

#include "checks.hpp"
#include "float_math.hpp"
#include "quadtree_impl.hpp"

namespace quadbin {

QuadtreeBroadPhase::Impl::Impl(const QuadtreeOptions& options) : options_(options) {
  if (options.threshold == 0) throw Error("QuadtreeOptions.threshold = 0 must be >= 1");
  if (options.maxDepth > kMaxDepthLimit) {
    throw Error("QuadtreeOptions.maxDepth = " + std::to_string(options.maxDepth) +
                " must be <= " + std::to_string(kMaxDepthLimit));
  }
  if (!(options.looseness >= 1.0f && options.looseness <= kMaxLooseness)) {
    throw Error("QuadtreeOptions.looseness = " + std::to_string(options.looseness) +
                " must be in [1, " + std::to_string(kMaxLooseness) + "]");
  }
}

void QuadtreeBroadPhase::Impl::setBounds(const AABB& bounds) {
  if (!isFinite(bounds) || !(bounds.min.x < bounds.max.x) || !(bounds.min.y < bounds.max.y)) {
    throw Error("QuadtreeBroadPhase::setBounds: bounds need finite min < max");
  }
  if (haveBounds_ && bounds == bounds_) return;
  bounds_ = bounds;
  haveBounds_ = true;
  rootReady_ = false;  // rebuilt around the new root at the next update
}

void QuadtreeBroadPhase::Impl::resetRoot(const AABB& cell) {
  nodes_.resize(1);
  freeBlocks_.clear();
  Node& root = nodes_[0];
  root.cell = cell;
  root.loose = grow(cell, options_.looseness);
  root.firstChild = kNone;
  root.parent = kNone;
  root.depth = 0;
  root.subtreeCount = 0;
  root.values.clear();
  outside_.clear();
  rootReady_ = true;
}

void QuadtreeBroadPhase::Impl::rebuildAll() {
  const auto n = static_cast<std::uint32_t>(minX_.size());
  AABB cell = bounds_;
  if (!haveBounds_ || outside_.size() > std::max<std::size_t>(64, n / 4)) {
    // No hint, or the hint is wrong for this data: cover every finite box.
    bool any = false;
    AABB all{};
    for (std::uint32_t i = 0; i < n; ++i) {
      const AABB b = box(i);
      if (!isFinite(b)) continue;
      all = any ? unionOf(all, b) : b;
      any = true;
    }
    if (any) cell = haveBounds_ ? unionOf(all, bounds_) : all;
    if (!any && !haveBounds_) cell = {{0, 0}, {1, 1}};
    // A square a little larger than the boxes, in double and clamped to the
    // float range (the boxes' extent may exceed float).
    const double side = std::max({detail::span(cell.min.x, cell.max.x),
                                  detail::span(cell.min.y, cell.max.y), 1e-3}) *
                        1.001;
    cell.max = {detail::clampToFloat(cell.min.x + side), detail::clampToFloat(cell.min.y + side)};
  }
  resetRoot(cell);
  node_.resize(n);
  slot_.resize(n);
  buildTopDown();
}

int QuadtreeBroadPhase::Impl::quadrantFor(const AABB& cell, const AABB& b) const noexcept {
  const Vec2 c = cut(cell);
  if (options_.looseness == 1.0f) {
    // Tight: the box must lie on one side of both split lines.
    int qx = 0, qy = 0;
    if (b.max.x <= c.x) {
      qx = 0;
    } else if (b.min.x >= c.x) {
      qx = 1;
    } else {
      return -1;
    }
    if (b.max.y <= c.y) {
      qy = 0;
    } else if (b.min.y >= c.y) {
      qy = 1;
    } else {
      return -1;
    }
    return qy * 2 + qx;
  }
  // Loose: the quadrant of the box's centre, if its grown box holds the box.
  const Vec2 bc = cut(b);
  const int q = (bc.y < c.y ? 0 : 2) + (bc.x < c.x ? 0 : 1);
  return contains(grow(quadrant(cell, q), options_.looseness), b) ? q : -1;
}

void QuadtreeBroadPhase::Impl::initChildren(std::int32_t parent, std::int32_t first) {
  initChildren(nodes_, parent, first);
}

void QuadtreeBroadPhase::Impl::initChildren(std::vector<Node>& nodes, std::int32_t parent,
                                            std::int32_t first) const {
  const AABB cell = nodes[static_cast<std::size_t>(parent)].cell;
  const std::uint32_t depth = nodes[static_cast<std::size_t>(parent)].depth + 1;
  for (int q = 0; q < 4; ++q) {
    Node& child = nodes[static_cast<std::size_t>(first) + static_cast<std::size_t>(q)];
    child.cell = quadrant(cell, q);
    child.loose = grow(child.cell, options_.looseness);
    child.firstChild = kNone;
    child.parent = parent;
    child.depth = depth;
    child.subtreeCount = 0;
    child.values.clear();
  }
  nodes[static_cast<std::size_t>(parent)].firstChild = first;
}

std::int32_t QuadtreeBroadPhase::Impl::childFor(const Node& node, const AABB& b) const noexcept {
  if (node.firstChild == kNone) return kNone;
  const int q = quadrantFor(node.cell, b);
  return q < 0 ? kNone : node.firstChild + q;
}

std::int32_t QuadtreeBroadPhase::Impl::allocateChildren() {
  return freeBlocks_.take(nodes_.size(), [this] { nodes_.resize(nodes_.size() + 4); });
}

void QuadtreeBroadPhase::Impl::insert(std::uint32_t i) {
  const AABB b = box(i);
  if (!contains(nodes_[0].loose, b)) {
    node_[i] = kOutside;
    slot_[i] = static_cast<std::uint32_t>(outside_.size());
    outside_.push_back(i);
    return;
  }
  std::int32_t at = 0;
  for (;;) {
    ++nodes_[at].subtreeCount;
    const std::int32_t child = childFor(nodes_[at], b);
    if (child == kNone) break;
    at = child;
  }
  Node& node = nodes_[at];
  node_[i] = at;
  slot_[i] = static_cast<std::uint32_t>(node.values.size());
  node.values.push_back(i);
  if (node.firstChild == kNone && node.values.size() > options_.threshold &&
      node.depth < options_.maxDepth) {
    split(at);
  }
}

void QuadtreeBroadPhase::Impl::split(std::int32_t at) {
  const std::int32_t first = allocateChildren();  // may reallocate nodes_
  initChildren(at, first);
  // Move down the values that fit a child; the rest stay, in order.
  std::vector<std::uint32_t>& values = nodes_[at].values;
  std::size_t kept = 0;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::uint32_t v = values[k];
    const std::int32_t child = childFor(nodes_[at], box(v));
    if (child == kNone) {
      slot_[v] = static_cast<std::uint32_t>(kept);
      values[kept++] = v;
    } else {
      Node& cn = nodes_[child];
      node_[v] = child;
      slot_[v] = static_cast<std::uint32_t>(cn.values.size());
      cn.values.push_back(v);
      ++cn.subtreeCount;
    }
  }
  values.resize(kept);
  for (int q = 0; q < 4; ++q) {
    const Node& child = nodes_[first + q];
    if (child.values.size() > options_.threshold && child.depth < options_.maxDepth) {
      split(first + q);
    }
  }
}

void QuadtreeBroadPhase::Impl::remove(std::uint32_t i) {
  const std::int32_t at = node_[i];
  std::vector<std::uint32_t>& list = at == kOutside ? outside_ : nodes_[at].values;
  const std::uint32_t s = slot_[i];
  const std::uint32_t last = list.back();
  list[s] = last;
  slot_[last] = s;
  list.pop_back();
  node_[i] = kNone;
  if (at == kOutside) return;
  // Update counts upward and remember the highest node that can take its
  // children's values back.
  std::int32_t mergeAt = kNone;
  for (std::int32_t n = at; n != kNone; n = nodes_[n].parent) {
    --nodes_[n].subtreeCount;
    if (nodes_[n].firstChild != kNone && nodes_[n].subtreeCount <= options_.threshold) mergeAt = n;
  }
  if (mergeAt != kNone) collapse(mergeAt);
}

void QuadtreeBroadPhase::Impl::collapse(std::int32_t at) {
  // Free every block of four below `at`, moving their values up into it.
  NodeStack blocks;
  blocks.push(nodes_[at].firstChild);
  nodes_[at].firstChild = kNone;
  while (!blocks.empty()) {
    const std::int32_t first = blocks.pop();
    freeBlocks_.give(first);
    for (int q = 0; q < 4; ++q) {
      Node& node = nodes_[first + q];
      for (const std::uint32_t v : node.values) {
        node_[v] = at;
        slot_[v] = static_cast<std::uint32_t>(nodes_[at].values.size());
        nodes_[at].values.push_back(v);
      }
      node.values.clear();
      if (node.firstChild != kNone) blocks.push(node.firstChild);
      node.firstChild = kNone;
    }
  }
}

bool QuadtreeBroadPhase::Impl::staysPut(std::uint32_t i) const noexcept {
  const std::int32_t at = node_[i];
  const AABB b = box(i);
  if (at == kOutside) return !contains(nodes_[0].loose, b);
  const Node& node = nodes_[at];
  return contains(node.loose, b) && childFor(node, b) == kNone;
}

void QuadtreeBroadPhase::Impl::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "QuadtreeBroadPhase::update");
  const auto n = static_cast<std::uint32_t>(boxes.size());
  const auto old = static_cast<std::uint32_t>(minX_.size());
  moved_ = 0;
  if (!rootReady_ || !options_.incremental) {
    minX_.resize(n);
    minY_.resize(n);
    maxX_.resize(n);
    maxY_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      minX_[i] = boxes[i].min.x;
      minY_[i] = boxes[i].min.y;
      maxX_[i] = boxes[i].max.x;
      maxY_[i] = boxes[i].max.y;
    }
    rebuildAll();
    moved_ = n;
  } else {
    updateIncrementally(boxes, old);
  }
  // A root that no longer fits the data is rebuilt around all of it.
  if (outside_.size() > std::max<std::size_t>(64, n / 4)) rebuildAll();
}

void QuadtreeBroadPhase::Impl::updateIncrementally(std::span<const AABB> boxes, std::uint32_t old) {
  const auto n = static_cast<std::uint32_t>(boxes.size());
  // Proxies that disappeared.
  for (std::uint32_t i = n; i < old; ++i) remove(i);
  minX_.resize(n);
  minY_.resize(n);
  maxX_.resize(n);
  maxY_.resize(n);
  node_.resize(n, kNone);
  slot_.resize(n, 0);
  // In parallel, on the tree as it was: take the new boxes and find the
  // proxies that must change node (each chunk lists its own, in index
  // order; the tree is only read).
  moverBuffers_.reset(chunkCount(n, kProxyChunk));
  forEachChunk(tasks(), n, kProxyChunk,
               [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
                 std::vector<std::uint32_t>& movers = moverBuffers_[c];
                 for (std::uint32_t i = begin; i < end; ++i) {
                   const AABB& b = boxes[i];
                   if (i < old && minX_[i] == b.min.x && minY_[i] == b.min.y &&
                       maxX_[i] == b.max.x && maxY_[i] == b.max.y) {
                     continue;
                   }
                   minX_[i] = b.min.x;
                   minY_[i] = b.min.y;
                   maxX_[i] = b.max.x;
                   maxY_[i] = b.max.y;
                   if (i < old && staysPut(i)) continue;
                   movers.push_back(i);
                 }
               });
  movers_.clear();
  moverBuffers_.appendTo(tasks(), movers_);
  // Then the movers, serially in index order: out of their node, into the
  // smallest that holds them (splitting and merging nodes as they go).
  for (const std::uint32_t i : movers_) {
    if (i < old) remove(i);
    insert(i);
  }
  moved_ = static_cast<std::uint32_t>(movers_.size());
}

void QuadtreeBroadPhase::Impl::findPairs(std::vector<Pair>& out) {
  if (!rootReady_) return;
  // The nodes' values in depth-first order, cut into segments of one node's
  // values and grouped into tasks of about kTaskValues values: each task
  // writes its own buffer, merged in this order, which is the serial order.
  segments_.clear();
  taskFirstSegment_.clear();
  taskFirstSegment_.push_back(0);
  std::uint32_t inTask = 0;
  NodeStack nodes;
  nodes.push(0);
  while (!nodes.empty()) {
    const std::int32_t at = nodes.pop();
    const Node& node = nodes_[at];
    const auto count = static_cast<std::uint32_t>(node.values.size());
    for (std::uint32_t k = 0; k < count;) {
      const std::uint32_t take = std::min(count - k, kTaskValues - inTask);
      segments_.push_back({at, k, k + take});
      k += take;
      inTask += take;
      if (inTask == kTaskValues) {
        taskFirstSegment_.push_back(static_cast<std::uint32_t>(segments_.size()));
        inTask = 0;
      }
    }
    if (node.firstChild != kNone) {
      for (int q = 3; q >= 0; --q) nodes.push(node.firstChild + q);
    }
  }
  if (inTask > 0) taskFirstSegment_.push_back(static_cast<std::uint32_t>(segments_.size()));
  const auto treeTasks = static_cast<std::uint32_t>(taskFirstSegment_.size() - 1);
  const auto outsideCount = static_cast<std::uint32_t>(outside_.size());
  const std::uint32_t outsideTasks = chunkCount(outsideCount, kOutsideChunk);
  pairBuffers_.reset(treeTasks + outsideTasks);
  const bool tight = options_.looseness == 1.0f;
  tasks().forkJoin(treeTasks + outsideTasks, [&](std::uint32_t t) {
    std::vector<Pair>& buffer = pairBuffers_[t];
    if (t >= treeTasks) {
      const std::uint32_t begin = (t - treeTasks) * kOutsideChunk;
      pairsOutside(begin, std::min(outsideCount, begin + kOutsideChunk), buffer);
      return;
    }
    for (std::uint32_t g = taskFirstSegment_[t]; g < taskFirstSegment_[t + 1]; ++g) {
      const Segment seg = segments_[g];
      for (std::uint32_t k = seg.begin; k < seg.end; ++k) {
        if (tight) {
          pairsTight(seg.node, k, buffer);
        } else {
          pairsLoose(seg.node, k, buffer);
        }
      }
    }
  });
  pairBuffers_.appendTo(tasks(), out);
}

void QuadtreeBroadPhase::Impl::pairsTight(std::int32_t at, std::uint32_t k,
                                          std::vector<Pair>& out) const {
  // The value against the later values of its node and against the values
  // of the descendants its box overlaps. Two tight boxes can only overlap
  // when one's node is an ancestor of (or is) the other's, so each pair is
  // seen once, from the shallower side.
  const Node& node = nodes_[at];
  const std::size_t count = node.values.size();
  const std::uint32_t a = node.values[k];
  const float ax0 = minX_[a], ay0 = minY_[a], ax1 = maxX_[a], ay1 = maxY_[a];
  for (std::size_t m = k + 1; m < count; ++m) {
    const std::uint32_t b = node.values[m];
    if (ax0 < maxX_[b] && minX_[b] < ax1 && ay0 < maxY_[b] && minY_[b] < ay1) {
      out.push_back(a < b ? Pair{a, b} : Pair{b, a});
    }
  }
  if (node.firstChild == kNone) return;
  const AABB ab{{ax0, ay0}, {ax1, ay1}};
  NodeStack below;
  for (int q = 3; q >= 0; --q) {
    if (overlaps(ab, nodes_[node.firstChild + q].cell)) below.push(node.firstChild + q);
  }
  while (!below.empty()) {
    const Node& d = nodes_[below.pop()];
    for (const std::uint32_t b : d.values) {
      if (ax0 < maxX_[b] && minX_[b] < ax1 && ay0 < maxY_[b] && minY_[b] < ay1) {
        out.push_back(a < b ? Pair{a, b} : Pair{b, a});
      }
    }
    if (d.firstChild == kNone) continue;
    for (int q = 3; q >= 0; --q) {
      if (overlaps(ab, nodes_[d.firstChild + q].cell)) below.push(d.firstChild + q);
    }
  }
}

void QuadtreeBroadPhase::Impl::pairsLoose(std::int32_t at, std::uint32_t k,
                                          std::vector<Pair>& out) const {
  // Loose siblings overlap, so each value queries the whole tree; the pair
  // is kept by the value in the shallower node (ties: lower node index,
  // then earlier position), which sees it exactly once.
  const Node& node = nodes_[at];
  const std::uint32_t a = node.values[k];
  const AABB ab = box(a);
  NodeStack search;
  search.push(0);
  while (!search.empty()) {
    const std::int32_t yi = search.pop();
    const Node& y = nodes_[yi];
    const bool deeper = y.depth > node.depth || (y.depth == node.depth && yi > at);
    if (deeper || yi == at) {
      const std::size_t from = yi == at ? k + 1 : 0;
      for (std::size_t m = from; m < y.values.size(); ++m) {
        const std::uint32_t b = y.values[m];
        if (overlaps(ab, box(b))) out.push_back(a < b ? Pair{a, b} : Pair{b, a});
      }
    }
    if (y.firstChild == kNone) continue;
    for (int q = 3; q >= 0; --q) {
      if (overlaps(ab, nodes_[y.firstChild + q].loose)) search.push(y.firstChild + q);
    }
  }
}

void QuadtreeBroadPhase::Impl::pairsOutside(std::uint32_t begin, std::uint32_t end,
                                            std::vector<Pair>& out) const {
  for (std::uint32_t k = begin; k < end; ++k) {
    const std::uint32_t a = outside_[k];
    const AABB ab = box(a);
    for (std::size_t m = k + 1; m < outside_.size(); ++m) {
      const std::uint32_t b = outside_[m];
      if (overlaps(ab, box(b))) out.push_back(a < b ? Pair{a, b} : Pair{b, a});
    }
    if (!overlaps(ab, nodes_[0].loose)) continue;
    NodeStack search;
    search.push(0);
    while (!search.empty()) {
      const Node& y = nodes_[search.pop()];
      for (const std::uint32_t b : y.values) {
        if (overlaps(ab, box(b))) out.push_back(a < b ? Pair{a, b} : Pair{b, a});
      }
      if (y.firstChild == kNone) continue;
      for (int q = 3; q >= 0; --q) {
        if (overlaps(ab, nodes_[y.firstChild + q].loose)) search.push(y.firstChild + q);
      }
    }
  }
}

void QuadtreeBroadPhase::Impl::query(const AABB& given, std::vector<std::uint32_t>& out) const {
  const AABB q = detail::queryBox(given, "QuadtreeBroadPhase::query");
  for (const std::uint32_t v : outside_) {
    if (touches(q, box(v))) out.push_back(v);
  }
  if (!rootReady_ || !touches(q, nodes_[0].loose)) return;
  NodeStack search;
  search.push(0);
  while (!search.empty()) {
    const Node& y = nodes_[search.pop()];
    for (const std::uint32_t v : y.values) {
      if (touches(q, box(v))) out.push_back(v);
    }
    if (y.firstChild == kNone) continue;
    for (int k = 3; k >= 0; --k) {
      if (touches(q, nodes_[y.firstChild + k].loose)) search.push(y.firstChild + k);
    }
  }
}

void QuadtreeBroadPhase::Impl::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "QuadtreeBroadPhase::queryRay");
  for (const std::uint32_t v : outside_) {
    if (raycast(ray, box(v))) out.push_back(v);
  }
  if (!rootReady_ || !raycast(ray, nodes_[0].loose)) return;
  NodeStack search;
  search.push(0);
  while (!search.empty()) {
    const Node& y = nodes_[search.pop()];
    for (const std::uint32_t v : y.values) {
      if (raycast(ray, box(v))) out.push_back(v);
    }
    if (y.firstChild == kNone) continue;
    for (int k = 3; k >= 0; --k) {
      if (raycast(ray, nodes_[y.firstChild + k].loose)) search.push(y.firstChild + k);
    }
  }
}

void QuadtreeBroadPhase::Impl::draw(BroadPhaseDraw& out) const {
  if (!rootReady_ || nodes_.empty()) return;
  NodeStack stack;
  stack.push(0);
  while (!stack.empty()) {
    const Node& node = nodes_[static_cast<std::size_t>(stack.pop())];
    out.cell(node.cell, node.depth, static_cast<std::uint32_t>(node.values.size()));
    if (node.firstChild == kNone) continue;
    for (std::int32_t q = 3; q >= 0; --q) stack.push(node.firstChild + q);
  }
}

std::uint32_t QuadtreeBroadPhase::Impl::nodeCount() const noexcept {
  return static_cast<std::uint32_t>(freeBlocks_.liveNodes(nodes_.size()));
}

std::size_t QuadtreeBroadPhase::Impl::memoryBytes() const noexcept {
  std::size_t bytes = nodes_.capacity() * sizeof(Node);
  for (const auto& n : nodes_) bytes += n.values.capacity() * sizeof(std::uint32_t);
  bytes +=
      (minX_.capacity() + minY_.capacity() + maxX_.capacity() + maxY_.capacity()) * sizeof(float);
  bytes += node_.capacity() * sizeof(std::int32_t) + freeBlocks_.memoryBytes();
  bytes +=
      (slot_.capacity() + outside_.capacity() + movers_.capacity() + taskFirstSegment_.capacity()) *
      sizeof(std::uint32_t);
  bytes += segments_.capacity() * sizeof(Segment) + pairBuffers_.memoryBytes() +
           moverBuffers_.memoryBytes();
  bytes += (level_.capacity() + nextLevel_.capacity() + subtreeValues_.capacity() +
            chunkCounts_.capacity()) *
               sizeof(std::uint32_t) +
           quadrant_.capacity() +
           (frontier_.capacity() + nextFrontier_.capacity()) * sizeof(Frontier) +
           levelChunks_.capacity() * sizeof(LevelChunk) + subtrees_.capacity() * sizeof(Subtree);
  for (const Subtree& t : subtrees_) {
    bytes += t.nodes.capacity() * sizeof(Node) + t.work.capacity() * sizeof(std::uint32_t);
  }
  return bytes;
}

QuadtreeBroadPhase::QuadtreeBroadPhase(const QuadtreeOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}
QuadtreeBroadPhase::~QuadtreeBroadPhase() = default;

void QuadtreeBroadPhase::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void QuadtreeBroadPhase::update(std::span<const AABB> boxes) {
  impl_->tasks_ = &tasks();
  impl_->update(boxes);
}
void QuadtreeBroadPhase::findPairs(std::vector<Pair>& out) {
  impl_->tasks_ = &tasks();
  impl_->findPairs(out);
}
void QuadtreeBroadPhase::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(box, out);
}
void QuadtreeBroadPhase::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  impl_->queryRay(ray, out);
}
std::size_t QuadtreeBroadPhase::size() const noexcept { return impl_->node_.size(); }
std::size_t QuadtreeBroadPhase::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
void QuadtreeBroadPhase::draw(BroadPhaseDraw& out) const { impl_->draw(out); }
std::uint32_t QuadtreeBroadPhase::nodeCount() const noexcept { return impl_->nodeCount(); }
std::size_t QuadtreeBroadPhase::outsideCount() const noexcept { return impl_->outside_.size(); }
std::uint32_t QuadtreeBroadPhase::movedLastUpdate() const noexcept { return impl_->moved_; }

}  // namespace quadbin
