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
      for (std::uint32_t k = 0; k < sampleSize_; ++k) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        mean.add(s, items[state % count]);
      }
    }
    // A sample whose centres coincide says little: use every body.
    if (mean.degenerate()) {
      mean = Mean{};
      for (const detail::Item& item : items) mean.add(s, item);
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
    void add(const detail::RectShape& s, const detail::Item& item) noexcept {
      const float cx = detail::clampCut(0.5f * (item.x0 + item.x1), s.x0, s.x1);
      const float cy = detail::clampCut(0.5f * (item.y0 + item.y1), s.y0, s.y1);
      if (n == 0.0) {
        loX = hiX = cx;
        loY = hiY = cy;
      } else {
        loX = std::min(loX, cx);
        hiX = std::max(hiX, cx);
        loY = std::min(loY, cy);
        hiY = std::max(hiY, cy);
      }
      sumX += cx;
      sumY += cy;
      n += 1.0;
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
