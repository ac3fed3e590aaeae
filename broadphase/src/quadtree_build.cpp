// The parallel top-down build of QuadtreeBroadPhase (quadtree_impl.hpp).

#include <algorithm>
#include <cassert>

#include "quadtree_impl.hpp"

namespace quadbin {

// The tree that inserting the boxes one by one in index order would give
// (a node splits when more than `threshold` boxes reach it; every node's
// list in index order), built top-down and in parallel: nodes reached by
// many boxes are split level by level (boxes sorted to their quadrants by
// chunks: per-chunk counts, prefix sums, stable scatter), and every node
// reached by at most kSubtreeValues boxes becomes one task that builds its
// whole subtree alone; the subtrees are then appended to the node pool in
// task order. Only the node numbering differs from one-by-one insertion,
// and it is the same for any thread count.
void QuadtreeBroadPhase::Impl::buildTopDown() {
  const auto n = static_cast<std::uint32_t>(minX_.size());
  TaskSystem& ts = tasks();
  // The boxes in the root, and the outside list, both in index order.
  const std::uint32_t chunks = chunkCount(n, kProxyChunk);
  chunkCounts_.resize(2 * std::size_t{chunks});
  const AABB rootBox = nodes_[0].loose;
  forEachChunk(ts, n, kProxyChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t in = 0;
    for (std::uint32_t i = begin; i < end; ++i) in += contains(rootBox, box(i)) ? 1u : 0u;
    chunkCounts_[2 * std::size_t{c}] = in;
    chunkCounts_[2 * std::size_t{c} + 1] = (end - begin) - in;
  });
  std::uint32_t inTree = 0, outside = 0;
  for (std::uint32_t c = 0; c < chunks; ++c) {
    const std::uint32_t in = chunkCounts_[2 * std::size_t{c}],
                        out = chunkCounts_[2 * std::size_t{c} + 1];
    chunkCounts_[2 * std::size_t{c}] = inTree;
    chunkCounts_[2 * std::size_t{c} + 1] = outside;
    inTree += in;
    outside += out;
  }
  level_.resize(inTree);
  outside_.resize(outside);
  forEachChunk(ts, n, kProxyChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    std::uint32_t in = chunkCounts_[2 * std::size_t{c}], out = chunkCounts_[2 * std::size_t{c} + 1];
    for (std::uint32_t i = begin; i < end; ++i) {
      if (contains(rootBox, box(i))) {
        level_[in++] = i;
      } else {
        node_[i] = kOutside;
        slot_[i] = out;
        outside_[out++] = i;
      }
    }
  });
  nodes_[0].subtreeCount = inTree;
  subtreeCount_ = 0;
  subtreeValues_.clear();
  frontier_.clear();
  if (splitsInLevels(inTree, 0)) {
    frontier_.push_back({0, 0, inTree});
  } else {
    addSubtree(0, level_.data(), inTree);
  }
  while (!frontier_.empty()) splitLevel();
  buildSubtrees();
}

bool QuadtreeBroadPhase::Impl::splitsInLevels(std::uint32_t count,
                                              std::uint32_t depth) const noexcept {
  return count > kSubtreeValues && count > options_.threshold && depth < options_.maxDepth;
}

void QuadtreeBroadPhase::Impl::addSubtree(std::int32_t root, const std::uint32_t* values,
                                          std::uint32_t count) {
  if (subtrees_.size() <= subtreeCount_) subtrees_.resize(subtreeCount_ + 1);
  Subtree& t = subtrees_[subtreeCount_++];
  t.root = root;
  t.begin = static_cast<std::uint32_t>(subtreeValues_.size());
  t.end = t.begin + count;
  if (values != nullptr) {
    subtreeValues_.insert(subtreeValues_.end(), values, values + count);
  } else {
    subtreeValues_.resize(t.end);
  }
}

// One level of the nodes reached by many boxes: children made (in frontier
// order), each box sorted to its quadrant or kept, by chunks.
void QuadtreeBroadPhase::Impl::splitLevel() {
  const std::uint32_t chunkTotal = classifyLevel();
  const std::uint32_t nextSize = planLevel();
  scatterLevel(chunkTotal, nextSize);
  level_.swap(nextLevel_);
  frontier_.swap(nextFrontier_);
}

// The frontier's children made, its boxes cut into chunks, and each box's
// quadrant (4: it stays in the node) found and counted per chunk.
std::uint32_t QuadtreeBroadPhase::Impl::classifyLevel() {
  for (const Frontier& f : frontier_) {
    const std::int32_t first = allocateChildren();  // may reallocate nodes_
    initChildren(f.node, first);
  }
  detail::chunkLevel(frontier_, kProxyChunk, levelChunks_);
  const auto chunkTotal = static_cast<std::uint32_t>(levelChunks_.size());
  quadrant_.resize(level_.size());
  chunkCounts_.resize(std::size_t{chunkTotal} * 5);
  tasks().forkJoin(chunkTotal, [&](std::uint32_t k) {
    const LevelChunk ch = levelChunks_[k];
    const AABB cell = nodes_[frontier_[ch.frontier].node].cell;
    std::uint32_t* counts = chunkCounts_.data() + std::size_t{k} * 5;
    std::fill(counts, counts + 5, 0u);
    for (std::uint32_t j = ch.begin; j < ch.end; ++j) {
      const int q = quadrantFor(cell, box(level_[j]));
      const auto code = static_cast<std::uint8_t>(q < 0 ? 4 : q);  // 4: stays in the node
      quadrant_[j] = code;
      ++counts[code];
    }
  });
  return chunkTotal;
}

// Per frontier node: its quadrants' totals decide which children split
// again (next level) and which become subtrees; the chunks' counts become
// their write cursors. Returns the size of the next level.
std::uint32_t QuadtreeBroadPhase::Impl::planLevel() {
  const auto frontierCount = static_cast<std::uint32_t>(frontier_.size());
  nextFrontier_.clear();
  std::uint32_t nextSize = 0;
  std::uint32_t k = 0;
  for (std::uint32_t i = 0; i < frontierCount; ++i) {
    Frontier& f = frontier_[i];
    const std::uint32_t firstChunk = k;
    k = detail::chunksEnd(levelChunks_, firstChunk, i);
    std::array<std::uint32_t, 5> totals{};
    detail::sumChunkCounts(chunkCounts_.data(), 5, firstChunk, k, 5, totals.data());
    const std::int32_t first = nodes_[f.node].firstChild;
    nodes_[f.node].values.resize(totals[4]);
    std::array<std::uint32_t, 5> dest{};
    for (std::uint32_t q = 0; q < 4; ++q) {
      const std::int32_t child = first + static_cast<std::int32_t>(q);
      nodes_[child].subtreeCount = totals[q];
      if (splitsInLevels(totals[q], nodes_[child].depth)) {
        nextFrontier_.push_back({child, nextSize, nextSize + totals[q]});
        f.toNextLevel[q] = 1;
        dest[q] = nextSize;
        nextSize += totals[q];
      } else {
        f.toNextLevel[q] = 0;
        dest[q] = static_cast<std::uint32_t>(subtreeValues_.size());
        addSubtree(child, nullptr, totals[q]);
      }
    }
    detail::countsToCursors(chunkCounts_.data(), 5, firstChunk, k, 5, dest.data());
  }
  return nextSize;
}

// Each chunk writes its boxes where planLevel's cursors say.
void QuadtreeBroadPhase::Impl::scatterLevel(std::uint32_t chunkTotal, std::uint32_t nextSize) {
  nextLevel_.resize(nextSize);
  tasks().forkJoin(chunkTotal, [&](std::uint32_t j) {
    const LevelChunk ch = levelChunks_[j];
    const Frontier& f = frontier_[ch.frontier];
    Node& node = nodes_[f.node];
    std::uint32_t* cursor = chunkCounts_.data() + std::size_t{j} * 5;
    std::array<std::uint32_t*, 4> dst{};
    for (std::uint32_t q = 0; q < 4; ++q) {
      dst[q] = (f.toNextLevel[q] ? nextLevel_.data() : subtreeValues_.data()) + cursor[q];
    }
    std::uint32_t kept = cursor[4];
    for (std::uint32_t i = ch.begin; i < ch.end; ++i) {
      const std::uint32_t v = level_[i];
      const std::uint8_t code = quadrant_[i];
      if (code == 4) {
        node.values[kept] = v;
        node_[v] = f.node;
        slot_[v] = kept++;
      } else {
        *dst[code]++ = v;
      }
    }
  });
}

// Each subtree alone (local node numbers, 0 = its root), then all appended
// to the pool in task order.
void QuadtreeBroadPhase::Impl::buildSubtrees() {
  TaskSystem& ts = tasks();
  const std::uint32_t count = subtreeCount_;
  ts.forkJoin(count, [&](std::uint32_t t) {
    Subtree& st = subtrees_[t];
    st.nodes.clear();
    const Node& root = nodes_[st.root];
    Node local;
    local.cell = root.cell;
    local.loose = root.loose;
    local.depth = root.depth;
    st.nodes.push_back(std::move(local));
    st.work.assign(subtreeValues_.begin() + st.begin, subtreeValues_.begin() + st.end);
    buildLocal(st, 0, 0, st.end - st.begin);
  });
  auto total = static_cast<std::int32_t>(nodes_.size());
  for (std::uint32_t t = 0; t < count; ++t) {
    subtrees_[t].base = total;
    total += static_cast<std::int32_t>(subtrees_[t].nodes.size()) - 1;
  }
  nodes_.resize(static_cast<std::size_t>(total));
  ts.forkJoin(count, [&](std::uint32_t t) {
    Subtree& st = subtrees_[t];
    auto place = [&](std::int32_t local) { return local == 0 ? st.root : st.base + local - 1; };
    for (std::int32_t local = 0; local < static_cast<std::int32_t>(st.nodes.size()); ++local) {
      Node& from = st.nodes[static_cast<std::size_t>(local)];
      const std::int32_t at = place(local);
      Node& to = nodes_[at];
      to.cell = from.cell;
      to.loose = from.loose;
      to.depth = from.depth;
      to.subtreeCount = from.subtreeCount;
      to.firstChild = from.firstChild == kNone ? kNone : place(from.firstChild);
      if (local != 0) to.parent = place(from.parent);
      to.values = std::move(from.values);
      for (std::uint32_t k = 0; k < to.values.size(); ++k) {
        node_[to.values[k]] = at;
        slot_[to.values[k]] = k;
      }
    }
  });
}

// Depth first inside one subtree: the node's boxes are st.work[begin, end);
// its children's are stacked above `end`, each child's subtree above those.
void QuadtreeBroadPhase::Impl::buildLocal(Subtree& st, std::int32_t at, std::uint32_t begin,
                                          std::uint32_t end) {
  const std::uint32_t count = end - begin;
  st.nodes[static_cast<std::size_t>(at)].subtreeCount = count;
  const std::uint32_t depth = st.nodes[static_cast<std::size_t>(at)].depth;
  if (count <= options_.threshold || depth >= options_.maxDepth) {
    st.nodes[static_cast<std::size_t>(at)].values.assign(st.work.begin() + begin,
                                                         st.work.begin() + end);
    return;
  }
  const AABB cell = st.nodes[static_cast<std::size_t>(at)].cell;
  const auto first = static_cast<std::int32_t>(st.nodes.size());
  st.nodes.resize(st.nodes.size() + 4);
  initChildren(st.nodes, at, first);
  // Count per quadrant, then a stable scatter above the stack's top.
  std::array<std::uint32_t, 5> counts{};
  for (std::uint32_t i = begin; i < end; ++i) {
    const int q = quadrantFor(cell, box(st.work[i]));
    ++counts[q < 0 ? 4 : static_cast<std::uint32_t>(q)];
  }
  std::vector<std::uint32_t>& kept = st.nodes[static_cast<std::size_t>(at)].values;
  kept.clear();
  kept.reserve(counts[4]);
  const auto base = static_cast<std::uint32_t>(st.work.size());
  std::array<std::uint32_t, 4> fill{};
  std::uint32_t offset = base;
  for (std::uint32_t q = 0; q < 4; ++q) {
    fill[q] = offset;
    offset += counts[q];
  }
  st.work.resize(offset);
  for (std::uint32_t i = begin; i < end; ++i) {
    const std::uint32_t v = st.work[i];
    const int q = quadrantFor(cell, box(v));
    if (q < 0) {
      st.nodes[static_cast<std::size_t>(at)].values.push_back(v);
    } else {
      st.work[fill[static_cast<std::size_t>(q)]++] = v;
    }
  }
  std::uint32_t from = base;
  for (std::uint32_t q = 0; q < 4; ++q) {
    buildLocal(st, first + static_cast<std::int32_t>(q), from, from + counts[q]);
    from += counts[q];
  }
  st.work.resize(base);
}

}  // namespace quadbin
