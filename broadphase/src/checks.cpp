#include "checks.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <quadbin/error.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace quadbin::detail {

namespace {

[[nodiscard]] bool isValidBox(const AABB& b) noexcept {
  // Finite and ordered: -max <= min <= max <= +max on both axes (every
  // comparison with a NaN is false). Non-short-circuit '&' so that a loop
  // of these vectorises: the check runs on every update.
  constexpr float kMax = std::numeric_limits<float>::max();
  return static_cast<bool>((-kMax <= b.min.x) & (b.min.x <= b.max.x) & (b.max.x <= kMax) &
                           (-kMax <= b.min.y) & (b.min.y <= b.max.y) & (b.max.y <= kMax));
}

[[nodiscard]] std::string text(const AABB& b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "{{%g, %g}, {%g, %g}}", static_cast<double>(b.min.x),
                static_cast<double>(b.min.y), static_cast<double>(b.max.x),
                static_cast<double>(b.max.y));
  return buf;
}

// Whether every box is valid (isValidBox). Boxes are four floats, min then
// max, so with SSE2 a box is one vector: |each| <= max (false for a NaN or
// an infinity) and (min.x, min.y) <= (max.x, max.y); four times faster than
// the scalar comparisons, which the compiler does not vectorise across the
// box's fields. It runs on every update of every structure.
[[nodiscard]] bool allValid(std::span<const AABB> boxes) noexcept {
#if defined(__SSE2__)
  static_assert(sizeof(AABB) == 4 * sizeof(float) && offsetof(AABB, max) == 2 * sizeof(float));
  const __m128 largest = _mm_set1_ps(std::numeric_limits<float>::max());
  const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  auto valid = [&](const AABB& b) {
    const __m128 v = _mm_loadu_ps(&b.min.x);  // min.x, min.y, max.x, max.y
    const __m128 finite = _mm_cmple_ps(_mm_and_ps(v, magnitude), largest);
    const __m128 ordered = _mm_cmple_ps(v, _mm_movehl_ps(v, v));  // min <= max (and max <= max)
    return _mm_and_ps(finite, ordered);
  };
  __m128 ok0 = _mm_castsi128_ps(_mm_set1_epi32(-1)), ok1 = ok0;  // two chains in flight
  const std::size_t n = boxes.size();
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) {
    ok0 = _mm_and_ps(ok0, valid(boxes[i]));
    ok1 = _mm_and_ps(ok1, valid(boxes[i + 1]));
  }
  if (i < n) ok0 = _mm_and_ps(ok0, valid(boxes[i]));
  return _mm_movemask_ps(_mm_and_ps(ok0, ok1)) == 0xF;
#else
  bool valid = true;
  for (const AABB& b : boxes) valid &= isValidBox(b);  // no branch per box
  return valid;
#endif
}

}  // namespace

void requireValidBox(const AABB& box, std::uint32_t index, const char* who) {
  if (isValidBox(box)) return;
  throw Error(std::string(who) + ": boxes[" + std::to_string(index) + "] = " + text(box) +
              " must be finite with min <= max");
}

void requireValidBoxes(std::span<const AABB> boxes, const char* who) {
  if (allValid(boxes)) return;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    requireValidBox(boxes[i], static_cast<std::uint32_t>(i), who);
  }
}

void requireValidBoxes(std::span<const AABB> boxes, const char* who, TaskSystem& tasks) {
  constexpr std::uint32_t kChunk = 16384;  // boxes per task: a constant
  const auto n = static_cast<std::uint32_t>(boxes.size());
  std::atomic<bool> valid{true};
  forEachChunk(tasks, n, kChunk, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) {
    if (!allValid(boxes.subspan(begin, end - begin))) valid.store(false, std::memory_order_relaxed);
  });
  if (!valid.load(std::memory_order_relaxed)) requireValidBoxes(boxes, who);  // names the first
}

AABB queryBox(const AABB& box, const char* who) {
  if (!(box.min.x <= box.max.x && box.min.y <= box.max.y)) {
    throw Error(std::string(who) + ": query box " + text(box) + " must have no NaN and min <= max");
  }
  constexpr float kMax = std::numeric_limits<float>::max();
  return {{std::clamp(box.min.x, -kMax, kMax), std::clamp(box.min.y, -kMax, kMax)},
          {std::clamp(box.max.x, -kMax, kMax), std::clamp(box.max.y, -kMax, kMax)}};
}

void requireValidRay(const Ray& ray, const char* who) {
  if (isFinite(ray.origin) && isFinite(ray.direction) && std::isfinite(ray.maxT)) return;
  char buf[160];
  std::snprintf(buf, sizeof buf, "origin {%g, %g}, direction {%g, %g}, maxT %g",
                static_cast<double>(ray.origin.x), static_cast<double>(ray.origin.y),
                static_cast<double>(ray.direction.x), static_cast<double>(ray.direction.y),
                static_cast<double>(ray.maxT));
  throw Error(std::string(who) + ": ray " + buf + " must be finite");
}

}  // namespace quadbin::detail
