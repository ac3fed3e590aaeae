// QueryIndex::adopt: the step's broad phase as the queries' structure
// (query_index.hpp).
#include "queries/query_index.hpp"

#include <quadbin/geometry.hpp>

namespace quadbin {

namespace {

constexpr std::uint32_t kChunk = 16384;

}  // namespace

bool QueryIndex::adopt(const BodyStore& bodies, TaskSystem& tasks) {
  stepped_ = false;
  const auto n = static_cast<std::uint32_t>(bodies.size());
  if (held_.size() != n) return false;
  // The bodies whose tight box left the box the broad phase holds (the
  // position correction and the wall clamp move balls after it took them),
  // in dense order, and the grown ones (their held box is not the
  // structure's).
  outside_.reset(chunkCount(n, kChunk));
  forEachChunk(tasks, n, kChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) {
      if (!contains(held_[i], bodies.tightBox(i))) outside_[c].push_back(i);
    }
  });
  const std::size_t moved = outside_.totalSize() + grown_.size();
  // More than this and a refill answers the queries faster.
  if (moved > n / 4) return false;
  delta_.adopted(bodies);
  for (std::uint32_t c = 0; c < outside_.size(); ++c) {
    for (const std::uint32_t i : outside_[c]) delta_.changed(i, i + 1, bodies);
  }
  for (const std::uint32_t i : grown_) delta_.changed(i, i + 1, bodies);
  if (delta_.needsRebuild()) return false;  // changed() gave up
  raysAsked_.store(false, std::memory_order_relaxed);
  structureFresh_.store(true, std::memory_order_relaxed);
  return true;
}

}  // namespace quadbin
