#pragma once
// Building a region tree: the root, the parallel level-by-level split of the
// nodes holding many boxes, then one task per remaining subtree, built
// depth first (region_tree/tree.hpp: "Bounded work" and the determinism
// rules).

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "tree.hpp"

namespace quadbin::detail {

template <RegionCutPolicy Policy>
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
template <RegionCutPolicy Policy>
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
    stageCounts_[2 * std::size_t{c}] = inTree;
    stageCounts_[2 * std::size_t{c} + 1] = outside;
  });
  std::uint32_t inTree = 0, outside = 0;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    const std::uint32_t in = stageCounts_[2 * std::size_t{c}],
                        out = stageCounts_[2 * std::size_t{c} + 1];
    stageCounts_[2 * std::size_t{c}] = inTree;
    stageCounts_[2 * std::size_t{c} + 1] = outside;
    inTree += in;
    outside += out;
  }
  level_.resize(inTree);
  outside_.resize(outside);
  forEachChunk(tasks, n, kItemChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t at = stageCounts_[2 * std::size_t{c}], out = stageCounts_[2 * std::size_t{c} + 1];
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

template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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
template <RegionCutPolicy Policy>
void RegionTree<Policy>::splitLevel(TaskSystem& tasks) {
  const std::uint32_t chunkTotal = classifyLevel(tasks);
  const std::uint32_t nextSize = planLevel();
  scatterLevel(tasks, chunkTotal, nextSize);
  std::swap(level_, nextLevel_);
  std::swap(frontier_, nextFrontier_);
}

// Each frontier node's split chosen by the policy, its boxes cut into
// chunks, masked (a box may go to several children) and counted per child.
template <RegionCutPolicy Policy>
std::uint32_t RegionTree<Policy>::classifyLevel(TaskSystem& tasks) {
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
  detail::chunkLevel(frontier_, kItemChunk, chunks_);
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
  return chunkTotal;
}

// Children, their destinations, and each chunk's cursor per child; a node
// whose split would copy too many boxes stays a leaf. Returns the size of
// the next level.
template <RegionCutPolicy Policy>
std::uint32_t RegionTree<Policy>::planLevel() {
  const auto frontierCount = static_cast<std::uint32_t>(frontier_.size());
  nextFrontier_.clear();
  std::uint32_t nextSize = 0;
  std::uint32_t k = 0;
  for (std::uint32_t i = 0; i < frontierCount; ++i) {
    FrontierNode& f = frontier_[i];
    const std::uint32_t firstChunk = k;
    k = detail::chunksEnd(chunks_, firstChunk, i);
    const std::uint32_t count = f.end - f.begin;
    std::array<std::uint32_t, kMaxChildren> totals{};
    std::uint32_t total = 0;
    if (f.split) {
      detail::sumChunkCounts(chunkCounts_.data(), kMaxChildren, firstChunk, k, f.childCount,
                             totals.data());
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
    detail::countsToCursors(chunkCounts_.data(), kMaxChildren, firstChunk, k, f.childCount,
                            dest.data());
  }
  return nextSize;
}

// Scatter: each box copied only into its own children (or, for a leaf,
// into its subtree task).
template <RegionCutPolicy Policy>
void RegionTree<Policy>::scatterLevel(TaskSystem& tasks, std::uint32_t chunkTotal,
                                      std::uint32_t nextSize) {
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
}

// Every subtree task builds alone, then the subtrees are appended to the
// node pool and the leaf arrays in task order, their numbers shifted.
template <RegionCutPolicy Policy>
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
template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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

template <RegionCutPolicy Policy>
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
}  // namespace quadbin::detail
