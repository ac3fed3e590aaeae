#pragma once
// Searching a built region tree: the pairs of each leaf (with the owner
// rule), the outside list, box queries and ray walks, and its statistics.

#include <algorithm>

#include "tree.hpp"

namespace quadbin::detail {

template <RegionCutPolicy Policy>
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
template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
void RegionTree<Policy>::pairsInLeaf(std::uint32_t node, Scratch& scratch,
                                     std::vector<Pair>& out) const {
  const Node& leaf = nodes_[node];
  emitPairs(node, leaf.end - leaf.begin, InOrder{leaf.begin}, scratch, out);
}

template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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
}  // namespace quadbin::detail
