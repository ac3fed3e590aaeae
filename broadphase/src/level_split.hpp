// The building blocks of a level-by-level parallel tree build, shared by
// the quadtree broad phase (quadtree_build.cpp) and the region trees
// (region_tree/build.hpp). A level is the list of nodes still holding many
// boxes (the frontier), each owning a range of the level's box buffer.
// The level is cut into chunks of boxes; each chunk counts its boxes per
// child in parallel; then, serially and in frontier order, the counts
// become each chunk's write cursor per child; then each chunk scatters its
// boxes in parallel. Every step is stable, so the tree built never depends
// on how the work was split.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quadbin::detail {

/// Boxes [begin, end) of the level buffer, all of frontier node `frontier`.
struct LevelChunk {
  std::uint32_t frontier, begin, end;
};

/// Cuts each frontier node's range [f.begin, f.end) into chunks of at most
/// `chunkSize` boxes, in frontier order. `Frontier` has begin and end.
template <class Frontier>
void chunkLevel(const std::vector<Frontier>& frontier, std::uint32_t chunkSize,
                std::vector<LevelChunk>& out) {
  out.clear();
  for (std::uint32_t i = 0; i < frontier.size(); ++i) {
    for (std::uint32_t b = frontier[i].begin; b < frontier[i].end; b += chunkSize) {
      out.push_back({i, b, std::min(frontier[i].end, b + chunkSize)});
    }
  }
}

/// The end of frontier node i's chunks, which start at `first` (chunks are
/// in frontier order).
inline std::uint32_t chunksEnd(const std::vector<LevelChunk>& chunks, std::uint32_t first,
                               std::uint32_t i) {
  std::uint32_t k = first;
  while (k < chunks.size() && chunks[k].frontier == i) ++k;
  return k;
}

/// totals[c] += the counts of child c in chunks [first, end); each chunk's
/// counts are `stride` apart.
inline void sumChunkCounts(const std::uint32_t* counts, std::size_t stride, std::uint32_t first,
                           std::uint32_t end, std::uint32_t children, std::uint32_t* totals) {
  for (std::uint32_t j = first; j < end; ++j) {
    for (std::uint32_t c = 0; c < children; ++c) totals[c] += counts[std::size_t{j} * stride + c];
  }
}

/// Turns the counts of chunks [first, end) into their write cursors, child
/// by child from dest[c] on, in chunk order (a stable scatter); dest[c]
/// ends past the last one.
inline void countsToCursors(std::uint32_t* counts, std::size_t stride, std::uint32_t first,
                            std::uint32_t end, std::uint32_t children, std::uint32_t* dest) {
  for (std::uint32_t j = first; j < end; ++j) {
    std::uint32_t* cursor = counts + std::size_t{j} * stride;
    for (std::uint32_t c = 0; c < children; ++c) {
      const std::uint32_t here = cursor[c];
      cursor[c] = dest[c];
      dest[c] += here;
    }
  }
}

}  // namespace quadbin::detail
