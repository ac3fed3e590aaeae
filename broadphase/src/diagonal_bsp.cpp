// Built with -ffp-contract=off (quadbin_layer, cmake/QuadbinTarget.cmake): side() must round
// the same way wherever it is inlined, or a box's extreme corner and an owner
// point inside that box could land on different sides of a cut.
#include <quadbin/broadphase/diagonal_bsp.hpp>

#include "checks.hpp"
#include "float_math.hpp"
#include "region_tree/tree_broad_phase.hpp"

namespace quadbin {

namespace {

// A triangle (the root: the rectangle a..b) and, once split, its cut: the
// line through o along d. Child 0 ("left") takes side(p) >= 0. The cut is
// kept in double: over the whole float range its direction and the
// products below overflow a float, never a double.
struct TriShape {
  Vec2 a, b, c;
  double ox = 0.0, oy = 0.0, dx = 0.0, dy = 0.0;
};

// cross(d, p - o), in double. Rounded step by step, it still never
// decreases in y when d.x >= 0 and never decreases in x when d.y <= 0
// (subtraction and multiplication by a constant are monotonic), which is
// what makes the extreme-corner test below exact for every point of a box.
[[nodiscard]] inline double side(const TriShape& s, float x, float y) noexcept {
  return s.dx * (static_cast<double>(y) - s.oy) - s.dy * (static_cast<double>(x) - s.ox);
}

[[nodiscard]] inline double lengthSquaredOf(Vec2 p, Vec2 q) noexcept {
  const double x = detail::span(p.x, q.x), y = detail::span(p.y, q.y);
  return x * x + y * y;
}

// The cut through `from` toward `to`.
inline void setCut(TriShape& s, Vec2 from, Vec2 to) noexcept {
  s.ox = from.x;
  s.oy = from.y;
  s.dx = detail::span(from.x, to.x);
  s.dy = detail::span(from.y, to.y);
}

// [lo, hi] of a ray as floats, rounded outward.
inline detail::RaySpan raySpan(std::uint32_t child, double lo, double hi) noexcept {
  auto t0 = static_cast<float>(lo), t1 = static_cast<float>(hi);
  if (static_cast<double>(t0) > lo) t0 = std::nextafter(t0, -detail::kFloatMax);
  if (static_cast<double>(t1) < hi) t1 = std::nextafter(t1, detail::kFloatMax);
  return detail::RaySpan{child, t0, t1};
}

class BspPolicy {
 public:
  using Shape = TriShape;
  static constexpr std::uint32_t kMaxChildren = 2;
  static constexpr std::uint32_t kDepthCap = 64;
  static constexpr bool kHalfOpenRoot = false;
  // Triangles have no cheap exact point test that agrees with the cuts
  // (their corners were rounded); walking up the cuts is exact.
  static constexpr bool kOwnerByDescent = true;

  [[nodiscard]] Shape root(const AABB& r) const noexcept {
    Shape s{};
    s.a = r.min;
    s.b = r.max;
    return s;
  }

  bool split(Shape& s, std::uint32_t depth, std::uint32_t /*node*/,
             std::span<const detail::Item> /*items*/, Shape* children,
             std::uint32_t& count) const noexcept {
    count = 2;
    if (depth == 0) {
      // The rectangle, along its diagonal from the bottom-left corner.
      const Vec2 lo = s.a, hi = s.b;
      setCut(s, lo, hi);
      children[0] = Shape{lo, hi, {lo.x, hi.y}};  // above the diagonal
      children[1] = Shape{lo, {hi.x, lo.y}, hi};  // below it
      return true;
    }
    // From the vertex opposite the longest side to that side's midpoint.
    const Vec2 v[3] = {s.a, s.b, s.c};
    std::uint32_t longest = 0;
    double longestLength = lengthSquaredOf(v[0], v[1]);
    for (std::uint32_t e = 1; e < 3; ++e) {
      const double length = lengthSquaredOf(v[e], v[(e + 1) % 3]);
      if (length > longestLength) {
        longest = e;
        longestLength = length;
      }
    }
    const Vec2 p = v[longest], q = v[(longest + 1) % 3], apex = v[(longest + 2) % 3];
    const Vec2 mid{detail::midpoint(p.x, q.x), detail::midpoint(p.y, q.y)};
    setCut(s, apex, mid);
    if (s.dx == 0.0 && s.dy == 0.0) return false;  // shrunk below float precision
    const Shape withP{apex, p, mid};
    const Shape withQ{apex, mid, q};
    const bool pLeft = side(s, p.x, p.y) >= 0.0;
    children[0] = pLeft ? withP : withQ;
    children[1] = pLeft ? withQ : withP;
    return true;
  }

  // Left if the box's corner furthest to the left of the cut is on it or
  // left of it; right if its corner furthest to the right is strictly right.
  // Every point of the box then descends (pointChild) to a side it is in.
  [[nodiscard]] std::uint32_t insertMask(const Shape& s, float x0, float y0, float x1,
                                         float y1) const noexcept {
    const float leftX = s.dy <= 0.0 ? x1 : x0, leftY = s.dx >= 0.0 ? y1 : y0;
    const float rightX = s.dy <= 0.0 ? x0 : x1, rightY = s.dx >= 0.0 ? y0 : y1;
    const std::uint32_t mask =
        (side(s, leftX, leftY) >= 0.0 ? 1u : 0u) | (side(s, rightX, rightY) < 0.0 ? 2u : 0u);
    return mask != 0 ? mask : 3u;  // never NaN for finite boxes; both sides if it were
  }
  void insertMasks(const Shape& s, const detail::Item* items, std::uint32_t count,
                   std::uint16_t* masks) const noexcept {
    for (std::uint32_t i = 0; i < count; ++i) {
      masks[i] = static_cast<std::uint16_t>(
          insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
  }
  // The same rule finds every box touching a query box: a point they share
  // descends to a leaf holding the box, and the query box reaches it.
  [[nodiscard]] std::uint32_t queryMask(const Shape& s, const AABB& box) const noexcept {
    return insertMask(s, box.min.x, box.min.y, box.max.x, box.max.y);
  }
  [[nodiscard]] std::uint32_t pointChild(const Shape& s, float x, float y) const noexcept {
    return side(s, x, y) >= 0.0 ? 0u : 1u;
  }

  // The root is the rectangle a..b until its first cut; every other
  // region is the triangle a, b, c.
  static void drawLeaf(const Shape& s, std::uint32_t depth, std::uint32_t count,
                       BroadPhaseDraw& out) {
    if (depth == 0) {
      out.cell({s.a, s.b}, depth, count);
      return;
    }
    const Vec2 corners[3] = {s.a, s.b, s.c};
    out.polygon(corners, depth, count);
  }

  // The part of [t0, t1] on each side of the cut, widened by a tolerance
  // for rounding: side() along the ray is f0 + k t.
  std::uint32_t rayChildren(const Shape& s, const Shape* /*children*/, std::uint32_t /*count*/,
                            const Ray& ray, float t0, float t1,
                            detail::RaySpan* out) const noexcept {
    // In double: for finite rays and cuts nothing here overflows.
    const double f0 = side(s, ray.origin.x, ray.origin.y);
    const double k = s.dx * ray.direction.y - s.dy * ray.direction.x;
    const double reach = std::abs(static_cast<double>(ray.origin.x)) +
                         std::abs(static_cast<double>(ray.origin.y)) + std::abs(s.ox) +
                         std::abs(s.oy) +
                         (std::abs(static_cast<double>(ray.direction.x)) +
                          std::abs(static_cast<double>(ray.direction.y))) *
                             std::abs(static_cast<double>(ray.maxT));
    const double tol =
        1e-4 * (std::abs(s.dx) + std::abs(s.dy)) * reach + std::numeric_limits<double>::min();
    std::uint32_t n = 0;
    // Left: f0 + k t >= -tol. Right: f0 + k t <= tol.
    double lo = t0, hi = t1;
    if (k > 0.0) {
      lo = std::max(lo, (-tol - f0) / k);
    } else if (k < 0.0) {
      hi = std::min(hi, (-tol - f0) / k);
    } else if (!(f0 >= -tol)) {
      hi = lo - 1.0;
    }
    if (lo <= hi) out[n++] = raySpan(0, lo, hi);
    lo = t0;
    hi = t1;
    if (k > 0.0) {
      hi = std::min(hi, (tol - f0) / k);
    } else if (k < 0.0) {
      lo = std::max(lo, (tol - f0) / k);
    } else if (!(f0 <= tol)) {
      hi = lo - 1.0;
    }
    if (lo <= hi) out[n++] = raySpan(1, lo, hi);
    return n;
  }
};

}  // namespace

struct DiagonalBsp::Impl : detail::TreeBroadPhase<BspPolicy> {
  Impl(const DiagonalBspOptions& o, BspPolicy policy, const detail::TreeLimits& limits)
      : TreeBroadPhase(policy, limits), options(o) {}
  DiagonalBspOptions options;
};

DiagonalBsp::DiagonalBsp(const DiagonalBspOptions& options)
    : impl_(std::make_unique<Impl>(
          options, BspPolicy{},
          detail::makeLimits("DiagonalBspOptions", options.threshold, options.maxDepth,
                             BspPolicy::kDepthCap, options.maxSplitGrowth, 2))) {}
DiagonalBsp::~DiagonalBsp() = default;

const DiagonalBspOptions& DiagonalBsp::options() const noexcept { return impl_->options; }

void DiagonalBsp::setBounds(const AABB& bounds) { impl_->setBounds(bounds); }
void DiagonalBsp::update(std::span<const AABB> boxes) {
  detail::requireValidBoxes(boxes, "DiagonalBsp::update");
  impl_->update(boxes, tasks());
}
void DiagonalBsp::findPairs(std::vector<Pair>& out) { impl_->findPairs(out, tasks()); }
void DiagonalBsp::query(const AABB& box, std::vector<std::uint32_t>& out) const {
  impl_->query(detail::queryBox(box, "DiagonalBsp::query"), out);
}
void DiagonalBsp::queryRay(const Ray& ray, std::vector<std::uint32_t>& out) const {
  detail::requireValidRay(ray, "DiagonalBsp::queryRay");
  impl_->queryRay(ray, out);
}
std::size_t DiagonalBsp::size() const noexcept { return impl_->size(); }
std::size_t DiagonalBsp::memoryBytes() const noexcept {
  return sizeof(Impl) + impl_->memoryBytes();
}
RegionTreeStats DiagonalBsp::stats() const noexcept { return impl_->stats(); }
void DiagonalBsp::draw(BroadPhaseDraw& out) const { impl_->draw(out); }

}  // namespace quadbin
