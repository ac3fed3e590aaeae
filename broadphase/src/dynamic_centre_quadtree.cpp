#include <quadbin/broadphase/dynamic_centre_quadtree.hpp>

#include "region_tree.hpp"

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
    // cell), summed in four lanes: one chain of dependent double additions
    // would be the slowest part of the build. The order is fixed, so the
    // result is the same on every run.
    template <class Pick>
    [[nodiscard]] static Mean of(const detail::RectShape& s, std::uint32_t count, Pick pick) {
      constexpr float kInf = std::numeric_limits<float>::infinity();
      std::array<double, 4> sx{}, sy{};
      std::array<float, 4> lx{kInf, kInf, kInf, kInf}, hx{-kInf, -kInf, -kInf, -kInf};
      std::array<float, 4> ly = lx, hy = hx;
      auto add = [&](std::uint32_t lane, const detail::Item& item) {
        const float cx = detail::clampCut(0.5f * (item.x0 + item.x1), s.x0, s.x1);
        const float cy = detail::clampCut(0.5f * (item.y0 + item.y1), s.y0, s.y1);
        sx[lane] += cx;
        sy[lane] += cy;
        lx[lane] = std::min(lx[lane], cx);
        hx[lane] = std::max(hx[lane], cx);
        ly[lane] = std::min(ly[lane], cy);
        hy[lane] = std::max(hy[lane], cy);
      };
      std::uint32_t k = 0;
      for (; k + 4 <= count; k += 4) {
        for (std::uint32_t lane = 0; lane < 4; ++lane) add(lane, pick(k + lane));
      }
      for (; k < count; ++k) add(0, pick(k));
      Mean m;
      m.sumX = (sx[0] + sx[1]) + (sx[2] + sx[3]);
      m.sumY = (sy[0] + sy[1]) + (sy[2] + sy[3]);
      m.n = count;
      m.loX = std::min(std::min(lx[0], lx[1]), std::min(lx[2], lx[3]));
      m.hiX = std::max(std::max(hx[0], hx[1]), std::max(hx[2], hx[3]));
      m.loY = std::min(std::min(ly[0], ly[1]), std::min(ly[2], ly[3]));
      m.hiY = std::max(std::max(hy[0], hy[1]), std::max(hy[2], hy[3]));
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
  using TreeBroadPhase::TreeBroadPhase;
};

DynamicCentreQuadtree::DynamicCentreQuadtree(const DynamicCentreQuadtreeOptions& options)
    : options_(options),
      impl_(std::make_unique<Impl>(
          Policy(MeanCutter(options.sampleSize)),
          detail::makeLimits("DynamicCentreQuadtreeOptions", options.threshold, options.maxDepth,
                             Policy::kDepthCap, options.maxSplitGrowth, 4))) {}
DynamicCentreQuadtree::~DynamicCentreQuadtree() = default;

void DynamicCentreQuadtree::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void DynamicCentreQuadtree::update(std::span<const AABB> boxes) { impl_->update(boxes); }
void DynamicCentreQuadtree::findPairs(std::vector<Pair>& out) { impl_->findPairs(out); }
void DynamicCentreQuadtree::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(box, out);
}
void DynamicCentreQuadtree::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  impl_->queryRay(ray, out);
}
std::size_t DynamicCentreQuadtree::size() const noexcept { return impl_->size(); }
std::size_t DynamicCentreQuadtree::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
RegionTreeStats DynamicCentreQuadtree::stats() const noexcept { return impl_->stats(); }

}  // namespace quadbin
