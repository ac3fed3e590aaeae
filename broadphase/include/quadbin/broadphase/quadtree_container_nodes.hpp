#pragma once
/// \file
/// Part of quadbin/broadphase/quadtree_container.hpp (included at its end;
/// include that one): how the container's nodes fill, split and merge.

#include <quadbin/broadphase/quadtree_container.hpp>

namespace quadbin {

template <class T, class GetBox, class Equal, class Float>
void Quadtree<T, GetBox, Equal, Float>::insert(Entry&& entry) {
  if (!fitsRoot(entry.box)) {
    outside_.push_back(std::move(entry));
    ++size_;
    return;
  }
  const Vec centre = entry.box.center();
  Box cell = root_;
  std::uint32_t index = 0;
  std::uint32_t depth = 0;
  for (;;) {
    if (nodes_[index].firstChild == kNoChild) {
      if (depth >= options_.maxDepth || nodes_[index].entries.size() < options_.threshold) {
        nodes_[index].entries.push_back(std::move(entry));
        break;
      }
      split(index, cell);  // now an inner node: look at its children
    }
    const int q = fittingChild(cell, nodes_[index].firstChild, entry.box, centre);
    if (q < 0) {
      nodes_[index].entries.push_back(std::move(entry));
      break;
    }
    cell = childCell(cell, cell.center(), static_cast<std::uint32_t>(q));
    index = nodes_[index].firstChild + static_cast<std::uint32_t>(q);
    ++depth;
  }
  ++size_;
}

template <class T, class GetBox, class Equal, class Float>
void Quadtree<T, GetBox, Equal, Float>::split(std::uint32_t index, const Box& cell) {
  assert(nodes_[index].firstChild == kNoChild);
  const std::uint32_t first = allocateBlock();  // may move nodes_: index only
  const Vec mid = cell.center();
  for (std::uint32_t q = 0; q < 4; ++q) reach_[first + q] = looseBox(childCell(cell, mid, q));
  std::vector<Entry>& entries = nodes_[index].entries;
  std::array<int, 4> counts{};
  std::vector<int> destination;  // small, once per split
  destination.reserve(entries.size());
  for (const Entry& entry : entries) {
    const int q = fittingChild(cell, first, entry.box, entry.box.center());
    destination.push_back(q);
    if (q >= 0) ++counts[static_cast<std::size_t>(q)];
  }
  // Reserve first so that nothing below allocates (and throws) half-way.
  for (std::uint32_t q = 0; q < 4; ++q) {
    nodes_[first + q].entries.reserve(static_cast<std::size_t>(counts[q]));
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (destination[i] >= 0) {
      nodes_[first + static_cast<std::uint32_t>(destination[i])].entries.push_back(
          std::move(entries[i]));
    } else {
      if (kept != i) entries[kept] = std::move(entries[i]);
      ++kept;
    }
  }
  entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(kept), entries.end());
  nodes_[index].firstChild = first;
}

template <class T, class GetBox, class Equal, class Float>
bool Quadtree<T, GetBox, Equal, Float>::tryMerge(std::uint32_t index) {
  const std::uint32_t first = nodes_[index].firstChild;
  assert(first != kNoChild);
  std::size_t total = nodes_[index].entries.size();
  for (std::uint32_t q = 0; q < 4; ++q) {
    if (nodes_[first + q].firstChild != kNoChild) return false;
    total += nodes_[first + q].entries.size();
  }
  if (total > options_.threshold) return false;
  std::vector<Entry>& entries = nodes_[index].entries;
  entries.reserve(total);
  for (std::uint32_t q = 0; q < 4; ++q) {
    std::vector<Entry>& child = nodes_[first + q].entries;
    for (Entry& entry : child) entries.push_back(std::move(entry));
    child.clear();  // keeps its capacity for the block's next use
  }
  nodes_[index].firstChild = kNoChild;
  freeBlocks_.give(first);
  return true;
}

}  // namespace quadbin
