#include <quadbin/broadphase/dynamic_centre_quadtree.hpp>

#include "checks.hpp"
#include "float_math.hpp"
#include "region_tree/rect_grid_policy.hpp"
#include "region_tree/tree_broad_phase.hpp"

namespace quadbin {

namespace {

// Seed 002's dynamic centre: cut at the mean of the bodies' centres, each
// clamped into the cell so that the cut stays inside it.
class MeanCutter {
 public:
  static constexpr std::uint32_t kSide = 2;

  explicit MeanCutter(std::uint32_t sampleSize) noexcept : sampleSize_(sampleSize) {}

  bool chooseCuts(detail::RectShape& s, std::uint32_t depth, std::uint32_t node,
                  std::span<const detail::Item> items) const noexcept {
    const auto count = static_cast<std::uint32_t>(items.size());
    Mean mean;
    if (sampleSize_ > 0 && sampleSize_ < count) {
      // xorshift32 seeded from the node: the same input gives the same tree.
      std::uint32_t state = 0x9E3779B9u ^ (node * 0x85EBCA6Bu) ^ (depth * 0xC2B2AE35u);
      if (state == 0) state = 1;
      mean = Mean::of(s, sampleSize_, [&](std::uint32_t) -> const detail::Item& {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return items[state % count];
      });
    }
    // A sample whose centres coincide says little: use every body.
    if (mean.degenerate()) {
      mean = Mean::of(s, count, [&](std::uint32_t k) -> const detail::Item& { return items[k]; });
      if (mean.degenerate()) return false;  // all centres equal: no cut separates them
    }
    s.cutX[0] = detail::clampCut(static_cast<float>(mean.sumX / mean.n), s.x0, s.x1);
    s.cutY[0] = detail::clampCut(static_cast<float>(mean.sumY / mean.n), s.y0, s.y1);
    return true;
  }

 private:
  struct Mean {
    double sumX = 0.0, sumY = 0.0;
    double n = 0.0;
    float loX = 0.0f, hiX = 0.0f, loY = 0.0f, hiY = 0.0f;

    // Mean and spread of the centres of `count` items (clamped into the
    // cell). Summed in two lanes per axis: one chain of dependent double
    // additions would be the slowest part of the build. The order is fixed,
    // so the result is the same on every run.
    template <class Pick>
    [[nodiscard]] static Mean of(const detail::RectShape& s, std::uint32_t count, Pick pick) {
      constexpr float kInf = std::numeric_limits<float>::infinity();
      // Centres are halves added (min + max overflows a float near the
      // largest one), clamped into the cell, whose infinite root side (the
      // nudge past a box at the largest float) counts as the largest float.
      const float hiX = std::min(s.x1, detail::kFloatMax), hiY = std::min(s.y1, detail::kFloatMax);
      Mean m;
      m.n = count;
#if defined(__SSE2__)
      // Both axes at once: lanes 0 and 1 of (x0, y0, x1, y1) + (x1, y1, ..)
      // are the centre; two double accumulators, summed in a fixed order.
      const __m128 cellLo = _mm_setr_ps(s.x0, s.y0, s.x0, s.y0);
      const __m128 cellHi = _mm_setr_ps(hiX, hiY, hiX, hiY);
      const __m128 half = _mm_set1_ps(0.5f);
      const auto centre = [&](const detail::Item& item) {
        float corners[4];
        std::memcpy(corners, &item, sizeof corners);
        const __m128 box = _mm_mul_ps(_mm_loadu_ps(corners), half);  // halves: no overflow
        const __m128 mid = _mm_add_ps(box, _mm_movehl_ps(box, box));
        return _mm_min_ps(_mm_max_ps(mid, cellLo), cellHi);
      };
      __m128d sumA = _mm_setzero_pd(), sumB = _mm_setzero_pd();
      __m128 lo = _mm_set1_ps(kInf), hi = _mm_set1_ps(-kInf);
      std::uint32_t k = 0;
      for (; k + 2 <= count; k += 2) {
        const __m128 a = centre(pick(k));
        const __m128 b = centre(pick(k + 1));
        sumA = _mm_add_pd(sumA, _mm_cvtps_pd(a));
        sumB = _mm_add_pd(sumB, _mm_cvtps_pd(b));
        lo = _mm_min_ps(lo, _mm_min_ps(a, b));
        hi = _mm_max_ps(hi, _mm_max_ps(a, b));
      }
      if (k < count) {
        const __m128 a = centre(pick(k));
        sumA = _mm_add_pd(sumA, _mm_cvtps_pd(a));
        lo = _mm_min_ps(lo, a);
        hi = _mm_max_ps(hi, a);
      }
      double sums[2];
      _mm_storeu_pd(sums, _mm_add_pd(sumA, sumB));
      float los[4], his[4];
      _mm_storeu_ps(los, lo);
      _mm_storeu_ps(his, hi);
      m.sumX = sums[0];
      m.sumY = sums[1];
      m.loX = los[0];
      m.loY = los[1];
      m.hiX = his[0];
      m.hiY = his[1];
#else
      m.loX = m.loY = kInf;
      m.hiX = m.hiY = -kInf;
      for (std::uint32_t k = 0; k < count; ++k) {
        const detail::Item& item = pick(k);
        const float cx = detail::clampCut(0.5f * item.x0 + 0.5f * item.x1, s.x0, hiX);
        const float cy = detail::clampCut(0.5f * item.y0 + 0.5f * item.y1, s.y0, hiY);
        m.sumX += cx;
        m.sumY += cy;
        m.loX = std::min(m.loX, cx);
        m.hiX = std::max(m.hiX, cx);
        m.loY = std::min(m.loY, cy);
        m.hiY = std::max(m.hiY, cy);
      }
#endif
      return m;
    }
    [[nodiscard]] bool degenerate() const noexcept {
      return n == 0.0 || (loX == hiX && loY == hiY);
    }
  };

  std::uint32_t sampleSize_;
};

using Policy = detail::RectGridPolicy<MeanCutter>;

}  // namespace

struct DynamicCentreQuadtree::Impl : detail::TreeBroadPhase<Policy> {
  Impl(const DynamicCentreQuadtreeOptions& o, Policy policy, const detail::TreeLimits& limits)
      : TreeBroadPhase(policy, limits), options(o) {}
  DynamicCentreQuadtreeOptions options;
};

DynamicCentreQuadtree::DynamicCentreQuadtree(const DynamicCentreQuadtreeOptions& options)
    : impl_(std::make_unique<Impl>(
          options, Policy(MeanCutter(options.sampleSize)),
          detail::makeLimits("DynamicCentreQuadtreeOptions", options.threshold, options.maxDepth,
                             Policy::kDepthCap, options.maxSplitGrowth, 4))) {}
DynamicCentreQuadtree::~DynamicCentreQuadtree() = default;

const DynamicCentreQuadtreeOptions& DynamicCentreQuadtree::options() const noexcept {
  return impl_->options;
}

void DynamicCentreQuadtree::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void DynamicCentreQuadtree::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "DynamicCentreQuadtree::update");
  impl_->update(boxes, tasks());
}
void DynamicCentreQuadtree::findPairs(std::vector<Pair>& out) { impl_->findPairs(out, tasks()); }
void DynamicCentreQuadtree::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(detail::queryBox(box, "DynamicCentreQuadtree::query"), out);
}
void DynamicCentreQuadtree::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "DynamicCentreQuadtree::queryRay");
  impl_->queryRay(ray, out);
}
std::size_t DynamicCentreQuadtree::size() const noexcept { return impl_->size(); }
std::size_t DynamicCentreQuadtree::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
RegionTreeStats DynamicCentreQuadtree::stats() const noexcept { return impl_->stats(); }
void DynamicCentreQuadtree::draw(BroadPhaseDraw& out) const { impl_->draw(out); }

}  // namespace quadbin
