#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <quadbin/broadphase/sweep_and_prune.hpp>
#include <quadbin/error.hpp>
#include <string>

#include "sort_keys.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>

#include "checks.hpp"
#endif

namespace quadbin {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// The SIMD sweep reads up to 7 floats past the last real entry: pad with
// sentinels whose min is +inf so every window stops there.
constexpr std::size_t kPad = 16;

[[nodiscard]] inline float minOn(const AABB& b, int axis) noexcept {
  return axis == 0 ? b.min.x : b.min.y;
}

[[nodiscard]] inline std::uint64_t keyOf(const AABB& b, int axis, std::uint32_t id) noexcept {
  return detail::sortKey(minOn(b, axis), id);
}

}  // namespace

struct SweepAndPrune::Impl {
  explicit Impl(const SweepAndPruneOptions& options);
  void update(std::span<const AABB> boxes);
  void findPairs(std::vector<Pair>& out);
  void query(const AABB& box, std::vector<std::uint32_t>& out) const;
  [[nodiscard]] std::size_t memoryBytes() const noexcept;
  void draw(BroadPhaseDraw& out) const;

  void fullSort(std::span<const AABB> boxes);
  [[nodiscard]] bool insertionSort(std::size_t maxShifts) noexcept;
  void gather(std::span<const AABB> boxes);

  SweepAndPruneOptions options_;
  int axis_ = 0;
  // Sorted keys: order-preserving bits of min on the axis (high 32 bits),
  // proxy index (low 32 bits). One 64-bit compare orders by (min, index).
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint64_t> scratch_;  // radix sort / merge buffer
  // Structure of arrays in sorted order, plus one +inf sentinel in minA_ so
  // the sweep needs no bounds check.
  std::vector<float> minA_, maxA_, minB_, maxB_;
  std::vector<std::uint32_t> ids_;
  float maxExtentA_ = 0.0f;  // widest box on the axis: bounds query's scan
  std::uint64_t fullSorts_ = 0;
  std::uint64_t incrementalSorts_ = 0;
};

SweepAndPrune::Impl::Impl(const SweepAndPruneOptions& options) : options_(options) {
  if (options.maxShiftsPerProxy == 0) {
    throw Error("SweepAndPruneOptions.maxShiftsPerProxy must be > 0, got 0");
  }
  if (!(options.fullSortFraction >= 0.0f && options.fullSortFraction <= 1.0f)) {
    throw Error("SweepAndPruneOptions.fullSortFraction must be in [0, 1], got " +
                std::to_string(options.fullSortFraction));
  }
  if (options.axis == SweepAndPruneOptions::Axis::Y) axis_ = 1;
  minA_.assign(kPad, kInf);
}

void SweepAndPrune::Impl::fullSort(std::span<const AABB> boxes) {
  const std::size_t n = boxes.size();
  if (options_.axis == SweepAndPruneOptions::Axis::Auto) {
    // The axis of larger spread of the centres: fewer boxes share a window.
    double sx = 0, sy = 0, sxx = 0, syy = 0;
    for (const AABB& b : boxes) {
      const double cx = 0.5 * (double{b.min.x} + double{b.max.x});
      const double cy = 0.5 * (double{b.min.y} + double{b.max.y});
      sx += cx;
      sy += cy;
      sxx += cx * cx;
      syy += cy * cy;
    }
    const double inv = n > 0 ? 1.0 / static_cast<double>(n) : 0.0;
    const double varX = sxx * inv - (sx * inv) * (sx * inv);
    const double varY = syy * inv - (sy * inv) * (sy * inv);
    axis_ = varY > varX ? 1 : 0;
  }
  keys_.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    keys_[i] = keyOf(boxes[i], axis_, static_cast<std::uint32_t>(i));
  if (n < 256) {
    std::sort(keys_.begin(), keys_.end());
  } else {
    detail::radixSortByHigh32(keys_, scratch_);
  }
  ++fullSorts_;
}

bool SweepAndPrune::Impl::insertionSort(std::size_t maxShifts) noexcept {
  std::uint64_t* k = keys_.data();
  const std::size_t n = keys_.size();
  std::size_t shifts = 0;
  for (std::size_t i = 1; i < n; ++i) {
    const std::uint64_t key = k[i];
    if (k[i - 1] <= key) continue;
    std::size_t j = i;
    do {
      k[j] = k[j - 1];
      --j;
    } while (j > 0 && k[j - 1] > key);
    k[j] = key;
    shifts += i - j;
    if (shifts > maxShifts) return false;
  }
  return true;
}

void SweepAndPrune::Impl::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "SweepAndPrune::update");
  const std::size_t n = boxes.size();
  assert(n <= std::numeric_limits<std::uint32_t>::max());
  const std::size_t prev = ids_.size();
  const std::size_t changed = n > prev ? n - prev : prev - n;
  if (prev == 0 || n == 0 ||
      static_cast<double>(changed) > options_.fullSortFraction * static_cast<double>(n)) {
    fullSort(boxes);
  } else {
    // Keep the previous order of the survivors, with their new keys.
    std::size_t kept = 0;
    for (const std::uint64_t old : keys_) {
      const auto id = static_cast<std::uint32_t>(old);
      if (id < n) keys_[kept++] = keyOf(boxes[id], axis_, id);
    }
    keys_.resize(kept);
    if (!insertionSort(options_.maxShiftsPerProxy * kept)) {
      fullSort(boxes);  // badly broken: cheaper to start over (and re-pick the axis)
    } else {
      if (n > prev) {
        // Newcomers sorted apart, then one linear merge.
        const std::size_t added = n - prev;
        scratch_.resize(kept + added);
        std::uint64_t* tail = scratch_.data() + kept;
        for (std::size_t i = 0; i < added; ++i) {
          const auto id = static_cast<std::uint32_t>(prev + i);
          tail[i] = keyOf(boxes[id], axis_, id);
        }
        std::sort(tail, tail + added);
        std::merge(keys_.begin(), keys_.end(), tail, tail + added, scratch_.begin());
        keys_.swap(scratch_);
      }
      ++incrementalSorts_;
    }
  }
  assert(keys_.size() == n);
  assert(std::is_sorted(keys_.begin(), keys_.end()));
  gather(boxes);
}

void SweepAndPrune::Impl::gather(std::span<const AABB> boxes) {
  const std::size_t n = keys_.size();
  minA_.resize(n + kPad);
  maxA_.resize(n + kPad);
  minB_.resize(n + kPad);
  maxB_.resize(n + kPad);
  ids_.resize(n);
  float widest = 0.0f;
  const bool onX = axis_ == 0;
  for (std::size_t k = 0; k < n; ++k) {
    const auto id = static_cast<std::uint32_t>(keys_[k]);
    const AABB& b = boxes[id];
    const float lo = onX ? b.min.x : b.min.y, hi = onX ? b.max.x : b.max.y;
    minA_[k] = lo;
    maxA_[k] = hi;
    minB_[k] = onX ? b.min.y : b.min.x;
    maxB_[k] = onX ? b.max.y : b.max.x;
    ids_[k] = id;
    widest = std::max(widest, hi - lo);
  }
  for (std::size_t k = n; k < n + kPad; ++k) {
    minA_[k] = kInf;
    maxA_[k] = -kInf;
    minB_[k] = kInf;
    maxB_[k] = -kInf;
  }
  maxExtentA_ = widest;
}

void SweepAndPrune::Impl::draw(BroadPhaseDraw& out) const {
  const auto axis = static_cast<std::uint32_t>(axis_);
  for (std::uint32_t k = 0; k < ids_.size(); ++k) out.interval(axis, minA_[k], maxA_[k], k);
}

void SweepAndPrune::Impl::findPairs(std::vector<Pair>& out) {
  const std::size_t n = ids_.size();
  const float* minA = minA_.data();
  const float* maxA = maxA_.data();
  const float* minB = minB_.data();
  const float* maxB = maxB_.data();
  const std::uint32_t* ids = ids_.data();
  for (std::size_t k = 0; k < n; ++k) {
    const float hiA = maxA[k], loA = minA[k], loB = minB[k], hiB = maxB[k];
    const std::uint32_t self = ids[k];
    std::size_t j = k + 1;
#if defined(__SSE2__)
    // Eight candidates at a time, in two SSE blocks. minA is sorted, so the
    // lanes still inside the window form a prefix; a block that is not
    // full ends the window.
    const __m128 vHiA = _mm_set1_ps(hiA), vLoA = _mm_set1_ps(loA);
    const __m128 vLoB = _mm_set1_ps(loB), vHiB = _mm_set1_ps(hiB);
    const auto block = [&](std::size_t at, int& windowMask) {
      const __m128 inWindow = _mm_cmplt_ps(_mm_loadu_ps(minA + at), vHiA);
      windowMask = _mm_movemask_ps(inWindow);
      __m128 hit = _mm_and_ps(inWindow, _mm_cmplt_ps(vLoA, _mm_loadu_ps(maxA + at)));
      hit = _mm_and_ps(hit, _mm_cmplt_ps(_mm_loadu_ps(minB + at), vHiB));
      hit = _mm_and_ps(hit, _mm_cmplt_ps(vLoB, _mm_loadu_ps(maxB + at)));
      return _mm_movemask_ps(hit);
    };
    for (;; j += 16) {
      int window0 = 0, window1 = 0, window2 = 0, window3 = 0;
      const int hit0 = block(j, window0);
      const int hit1 = block(j + 4, window1);
      const int hit2 = block(j + 8, window2);
      const int hit3 = block(j + 12, window3);
      auto hitMask = static_cast<unsigned>(hit0 | (hit1 << 4) | (hit2 << 8) | (hit3 << 12));
      while (hitMask != 0) {
        const auto lane = static_cast<std::size_t>(std::countr_zero(hitMask));
        hitMask &= hitMask - 1;
        const std::uint32_t other = ids[j + lane];
        out.push_back({std::min(self, other), std::max(self, other)});
      }
      if ((window0 & window1 & window2 & window3) != 0xF) break;
    }
#else
    for (; minA[j] < hiA; ++j) {
      // Non-short-circuit &: no branch per test. minA[j] < hiA holds; the
      // strict test on the axis needs loA < maxA[j] too (equal mins).
      if ((loA < maxA[j]) & (minB[j] < hiB) & (loB < maxB[j])) {
        const std::uint32_t other = ids[j];
        out.push_back({std::min(self, other), std::max(self, other)});
      }
    }
#endif
  }
}

void SweepAndPrune::Impl::query(const AABB& given, std::vector<std::uint32_t>& out) const {
  const AABB box = detail::queryBox(given, "SweepAndPrune::query");
  const std::size_t n = ids_.size();
  if (n == 0) return;
  const bool onX = axis_ == 0;
  const float qLoA = onX ? box.min.x : box.min.y, qHiA = onX ? box.max.x : box.max.y;
  const float qLoB = onX ? box.min.y : box.min.x, qHiB = onX ? box.max.y : box.max.x;
  // Every proxy touching the box has min in [qLoA - widest, qHiA]. The lower
  // end is widened by a relative 2^-20 (float rounding of the subtraction
  // and of the extent); the exact test below decides.
  float lo = qLoA - maxExtentA_ * (1.0f + 0x1p-20f);
  lo -= std::abs(lo) * 0x1p-20f + std::numeric_limits<float>::min();
  const float* first = minA_.data();
  const float* last = first + n;
  const auto begin = static_cast<std::size_t>(std::lower_bound(first, last, lo) - first);
  // The end by galloping from begin: a small query's strip is short, and
  // its entries are next to begin in memory.
  std::size_t step = 1, below = begin;
  while (below + step < n && !(qHiA < first[below + step])) {
    below += step;
    step *= 2;
  }
  const float* stop = first + std::min(n, below + step);
  const auto end = static_cast<std::size_t>(std::upper_bound(first + below, stop, qHiA) - first);
  for (std::size_t k = begin; k < end; ++k) {
    if (qLoA <= maxA_[k] && minB_[k] <= qHiB && qLoB <= maxB_[k]) out.push_back(ids_[k]);
  }
}

std::size_t SweepAndPrune::Impl::memoryBytes() const noexcept {
  return (keys_.capacity() + scratch_.capacity()) * sizeof(std::uint64_t) +
         (minA_.capacity() + maxA_.capacity() + minB_.capacity() + maxB_.capacity()) *
             sizeof(float) +
         ids_.capacity() * sizeof(std::uint32_t);
}

SweepAndPrune::SweepAndPrune(const SweepAndPruneOptions& options)
    : impl_(std::make_unique<Impl>(options)) {}
SweepAndPrune::~SweepAndPrune() = default;

void SweepAndPrune::update(std::span<const AABB> boxes) { impl_->update(boxes); }
void SweepAndPrune::findPairs(std::vector<Pair>& out) { impl_->findPairs(out); }
void SweepAndPrune::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(box, out);
}
std::size_t SweepAndPrune::size() const noexcept { return impl_->ids_.size(); }
std::size_t SweepAndPrune::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
void SweepAndPrune::draw(BroadPhaseDraw& out) const { impl_->draw(out); }
int SweepAndPrune::sortAxis() const noexcept { return impl_->axis_; }
std::uint64_t SweepAndPrune::fullSorts() const noexcept { return impl_->fullSorts_; }
std::uint64_t SweepAndPrune::incrementalSorts() const noexcept { return impl_->incrementalSorts_; }

}  // namespace quadbin
