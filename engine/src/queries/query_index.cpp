// QueryIndex::adopt: the step's broad phase as the queries' structure
// (query_index.hpp).
#include "queries/query_index.hpp"

#include <bit>
#include <cstddef>
#include <quadbin/geometry.hpp>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace quadbin {

namespace {

constexpr std::uint32_t kChunk = 16384;
// The bodies of [begin, end) whose tight box `held` does not contain
// (contains(held[i], bodies.tightBox(i)) false), appended in order. With
// SSE2 four bodies a test: their four held boxes transposed into min.x,
// min.y, max.x and max.y lanes, the tight boxes from the columns, one mask
// of four bits, a branch only where a bit is set (the pass runs over
// every body once a step, at memory speed).
void appendOutside(const AABB* held, const BodyStore& bodies, std::uint32_t begin,
                   std::uint32_t end, std::vector<std::uint32_t>& out) {
  const float *x = bodies.px.data(), *y = bodies.py.data();
  const float *halfX = bodies.hx.data(), *halfY = bodies.hy.data();
  std::uint32_t i = begin;
#if defined(__SSE2__)
  static_assert(sizeof(AABB) == 4 * sizeof(float) && offsetof(AABB, max) == 2 * sizeof(float));
  for (; i + 4 <= end; i += 4) {
    __m128 minX = _mm_loadu_ps(&held[i].min.x), minY = _mm_loadu_ps(&held[i + 1].min.x);
    __m128 maxX = _mm_loadu_ps(&held[i + 2].min.x), maxY = _mm_loadu_ps(&held[i + 3].min.x);
    _MM_TRANSPOSE4_PS(minX, minY, maxX, maxY);
    const __m128 cx = _mm_loadu_ps(x + i), cy = _mm_loadu_ps(y + i);
    const __m128 hx = _mm_loadu_ps(halfX + i), hy = _mm_loadu_ps(halfY + i);
    const __m128 inside = _mm_and_ps(
        _mm_and_ps(_mm_cmple_ps(minX, _mm_sub_ps(cx, hx)), _mm_cmple_ps(minY, _mm_sub_ps(cy, hy))),
        _mm_and_ps(_mm_cmple_ps(_mm_add_ps(cx, hx), maxX), _mm_cmple_ps(_mm_add_ps(cy, hy), maxY)));
    auto mask = static_cast<std::uint32_t>(_mm_movemask_ps(inside)) ^ 0xFu;
    for (; mask != 0; mask &= mask - 1) {
      out.push_back(i + static_cast<std::uint32_t>(std::countr_zero(mask)));
    }
  }
#endif
  for (; i < end; ++i) {
    const AABB& h = held[i];
    const AABB tight{{x[i] - halfX[i], y[i] - halfY[i]}, {x[i] + halfX[i], y[i] + halfY[i]}};
    if (!contains(h, tight)) out.push_back(i);
  }
}

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
    appendOutside(held_.data(), bodies, begin, end, outside_[c]);
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
