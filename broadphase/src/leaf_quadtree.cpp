#include <quadbin/broadphase/leaf_quadtree.hpp>

#include "checks.hpp"
#include "float_math.hpp"
#include "region_tree/rect_grid_policy.hpp"
#include "region_tree/tree_broad_phase.hpp"

namespace quadbin {

namespace {

// Seeds 001/003: every cell cut at its middle, on float coordinates (the
// seed's integer rectangles lose a unit per level).
struct MiddleCutter {
  static constexpr std::uint32_t kSide = 2;
  bool chooseCuts(detail::RectShape& s, std::uint32_t /*depth*/, std::uint32_t /*node*/,
                  std::span<const detail::Item> /*items*/) const noexcept {
    s.cutX[0] = middle(s.x0, s.x1);
    s.cutY[0] = middle(s.y0, s.y1);
    return true;
  }
  // In double: a cell spanning the float range has no float width. A root
  // side may be infinite (the nudge above a box at the largest float): its
  // middle is taken from the largest float instead.
  static float middle(float lo, float hi) noexcept {
    return detail::clampCut(detail::midpoint(lo, std::min(hi, detail::kFloatMax)), lo, hi);
  }
};

using Policy = detail::RectGridPolicy<MiddleCutter>;

}  // namespace

struct LeafQuadtree::Impl : detail::TreeBroadPhase<Policy> {
  Impl(const LeafQuadtreeOptions& o, Policy policy, const detail::TreeLimits& limits)
      : TreeBroadPhase(policy, limits), options(o) {}
  LeafQuadtreeOptions options;
};

LeafQuadtree::LeafQuadtree(const LeafQuadtreeOptions& options)
    : impl_(std::make_unique<Impl>(
          options, Policy(MiddleCutter{}),
          detail::makeLimits("LeafQuadtreeOptions", options.threshold, options.maxDepth,
                             Policy::kDepthCap, options.maxSplitGrowth, 4))) {}
LeafQuadtree::~LeafQuadtree() = default;

const LeafQuadtreeOptions& LeafQuadtree::options() const noexcept { return impl_->options; }

void LeafQuadtree::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void LeafQuadtree::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "LeafQuadtree::update");
  impl_->update(boxes, tasks());
}
void LeafQuadtree::findPairs(std::vector<Pair>& out) { impl_->findPairs(out, tasks()); }
void LeafQuadtree::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(detail::queryBox(box, "LeafQuadtree::query"), out);
}
void LeafQuadtree::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "LeafQuadtree::queryRay");
  impl_->queryRay(ray, out);
}
std::size_t LeafQuadtree::size() const noexcept { return impl_->size(); }
std::size_t LeafQuadtree::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
void LeafQuadtree::clear() noexcept { impl_->clear(); }
void LeafQuadtree::insert(std::uint32_t index, const AABB& box) {
  detail::requireValidBox(box, index, "LeafQuadtree::insert");
  impl_->insert(index, box);
}
void LeafQuadtree::retrieve(const AABB& box, std::vector<std::uint32_t>& out) {
  impl_->retrieve(detail::queryBox(box, "LeafQuadtree::retrieve"), out, tasks());
}
RegionTreeStats LeafQuadtree::stats() const noexcept { return impl_->stats(); }
void LeafQuadtree::draw(BroadPhaseDraw& out) const { impl_->draw(out); }

}  // namespace quadbin
