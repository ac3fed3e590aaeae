#include <quadbin/broadphase/nona_tree.hpp>

#include "checks.hpp"
#include "float_math.hpp"
#include "region_tree/rect_grid_policy.hpp"
#include "region_tree/tree_broad_phase.hpp"

namespace quadbin {

namespace {

// Seed 002's nona-tree: each side cut in thirds.
struct ThirdsCutter {
  static constexpr std::uint32_t kSide = 3;
  bool chooseCuts(detail::RectShape& s, std::uint32_t /*depth*/, std::uint32_t /*node*/,
                  std::span<const detail::Item> /*items*/) const noexcept {
    cutInThirds(s.x0, s.x1, s.cutX);
    cutInThirds(s.y0, s.y1, s.cutY);
    return true;
  }
  // In double: a cell spanning the float range has no float width (and a
  // root side may be infinite: its thirds are taken up to the largest float).
  static void cutInThirds(float lo, float hi, std::array<float, 2>& cuts) noexcept {
    const double third = detail::span(lo, std::min(hi, detail::kFloatMax)) / 3.0;
    cuts[0] = detail::clampCut(static_cast<float>(lo + third), lo, hi);
    // Computed from lo, not from cuts[0], and kept ascending after rounding.
    cuts[1] = std::max(cuts[0], detail::clampCut(static_cast<float>(lo + 2.0 * third), lo, hi));
  }
};

using Policy = detail::RectGridPolicy<ThirdsCutter>;

}  // namespace

struct NonaTree::Impl : detail::TreeBroadPhase<Policy> {
  Impl(const NonaTreeOptions& o, Policy policy, const detail::TreeLimits& limits)
      : TreeBroadPhase(policy, limits), options(o) {}
  NonaTreeOptions options;
};

NonaTree::NonaTree(const NonaTreeOptions& options)
    : impl_(std::make_unique<Impl>(
          options, Policy(ThirdsCutter{}),
          detail::makeLimits("NonaTreeOptions", options.threshold, options.maxDepth,
                             Policy::kDepthCap, options.maxSplitGrowth, 9))) {}
NonaTree::~NonaTree() = default;

const NonaTreeOptions& NonaTree::options() const noexcept { return impl_->options; }

void NonaTree::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void NonaTree::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "NonaTree::update");
  impl_->update(boxes, tasks());
}
void NonaTree::findPairs(std::vector<Pair>& out) { impl_->findPairs(out, tasks()); }
void NonaTree::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(detail::queryBox(box, "NonaTree::query"), out);
}
void NonaTree::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "NonaTree::queryRay");
  impl_->queryRay(ray, out);
}
std::size_t NonaTree::size() const noexcept { return impl_->size(); }
std::size_t NonaTree::memoryBytes() const noexcept { return sizeof(Impl) + impl_->memoryBytes(); }
RegionTreeStats NonaTree::stats() const noexcept { return impl_->stats(); }
void NonaTree::draw(BroadPhaseDraw& out) const { impl_->draw(out); }

}  // namespace quadbin
