// Built with -ffp-contract=off (broadphase/CMakeLists.txt): side() must round
// the same way wherever it is inlined, or a box's extreme corner and an owner
// point inside that box could land on different sides of a cut.
#include <quadbin/broadphase/diagonal_bsp.hpp>

#include "checks.hpp"
#include "region_tree.hpp"

namespace quadbin {

namespace {

// A triangle (the root: the rectangle a..b) and, once split, its cut: the
// line through o along d. Child 0 ("left") takes side(p) >= 0.
struct TriShape {
  Vec2 a, b, c;
  Vec2 o, d;
};

// cross(d, p - o). Rounded step by step, it still never decreases in y when
// d.x >= 0 and never decreases in x when d.y <= 0 (float subtraction and
// multiplication by a constant are monotonic), which is what makes the
// extreme-corner test below exact for every point of a box.
[[nodiscard]] inline float side(const TriShape& s, float x, float y) noexcept {
  return s.d.x * (y - s.o.y) - s.d.y * (x - s.o.x);
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
      s.o = lo;
      s.d = hi - lo;
      children[0] = Shape{lo, hi, {lo.x, hi.y}, {}, {}};  // above the diagonal
      children[1] = Shape{lo, {hi.x, lo.y}, hi, {}, {}};  // below it
      return true;
    }
    // From the vertex opposite the longest side to that side's midpoint.
    const Vec2 v[3] = {s.a, s.b, s.c};
    std::uint32_t longest = 0;
    float longestLength = lengthSquared(v[1] - v[0]);
    for (std::uint32_t e = 1; e < 3; ++e) {
      const float length = lengthSquared(v[(e + 1) % 3] - v[e]);
      if (length > longestLength) {
        longest = e;
        longestLength = length;
      }
    }
    const Vec2 p = v[longest], q = v[(longest + 1) % 3], apex = v[(longest + 2) % 3];
    const Vec2 mid = (p + q) * 0.5f;
    s.o = apex;
    s.d = mid - apex;
    if (s.d.x == 0.0f && s.d.y == 0.0f) return false;  // shrunk below float precision
    const Shape withP{apex, p, mid, {}, {}};
    const Shape withQ{apex, mid, q, {}, {}};
    const bool pLeft = side(s, p.x, p.y) >= 0.0f;
    children[0] = pLeft ? withP : withQ;
    children[1] = pLeft ? withQ : withP;
    return true;
  }

  // Left if the box's corner furthest to the left of the cut is on it or
  // left of it; right if its corner furthest to the right is strictly right.
  // Every point of the box then descends (pointChild) to a side it is in.
  [[nodiscard]] std::uint32_t insertMask(const Shape& s, float x0, float y0, float x1,
                                         float y1) const noexcept {
    const float leftX = s.d.y <= 0.0f ? x1 : x0, leftY = s.d.x >= 0.0f ? y1 : y0;
    const float rightX = s.d.y <= 0.0f ? x0 : x1, rightY = s.d.x >= 0.0f ? y0 : y1;
    const std::uint32_t mask =
        (side(s, leftX, leftY) >= 0.0f ? 1u : 0u) | (side(s, rightX, rightY) < 0.0f ? 2u : 0u);
    return mask != 0 ? mask : 3u;  // NaN (overflow): both sides, never lost
  }
  void insertMasks(const Shape& s, const detail::Item* items, std::uint32_t count,
                   std::uint16_t* masks) const noexcept {
#if defined(__SSE2__)
    // Both extreme corners in one register: (leftX, leftY, rightX, rightY)
    // picked from (x0, y0, x1, y1) and its halves swapped, then side() for
    // both with the same roundings as the scalar one: -(d.y * dx) is exact,
    // so d.x * dy + -(d.y * dx) rounds like d.x * dy - d.y * dx.
    const auto all = static_cast<int>(0xFFFFFFFFu);
    const __m128 swapPick =
        _mm_castsi128_ps(_mm_setr_epi32(s.d.y <= 0.0f ? all : 0, s.d.x >= 0.0f ? all : 0,
                                        s.d.y <= 0.0f ? all : 0, s.d.x >= 0.0f ? all : 0));
    const __m128 origin = _mm_setr_ps(s.o.x, s.o.y, s.o.x, s.o.y);
    const __m128 scale = _mm_setr_ps(-s.d.y, s.d.x, -s.d.y, s.d.x);
    const __m128 zero = _mm_setzero_ps();
    for (std::uint32_t i = 0; i < count; ++i) {
      float corners[4];
      std::memcpy(corners, &items[i], sizeof corners);
      const __m128 box = _mm_loadu_ps(corners);
      const __m128 swapped = _mm_shuffle_ps(box, box, _MM_SHUFFLE(1, 0, 3, 2));
      const __m128 picked = _mm_or_ps(_mm_and_ps(swapPick, swapped), _mm_andnot_ps(swapPick, box));
      const __m128 terms = _mm_mul_ps(_mm_sub_ps(picked, origin), scale);
      const __m128 sides = _mm_add_ps(_mm_shuffle_ps(terms, terms, _MM_SHUFFLE(2, 3, 0, 1)), terms);
      const auto left = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmpge_ps(sides, zero)));
      const auto right = static_cast<std::uint32_t>(_mm_movemask_ps(_mm_cmplt_ps(sides, zero)));
      const std::uint32_t mask = (left & 1u) | ((right >> 1) & 2u);
      masks[i] = static_cast<std::uint16_t>(mask != 0 ? mask : 3u);
      assert(masks[i] == insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
#else
    for (std::uint32_t i = 0; i < count; ++i) {
      masks[i] = static_cast<std::uint16_t>(
          insertMask(s, items[i].x0, items[i].y0, items[i].x1, items[i].y1));
    }
#endif
  }
  // The same rule finds every box touching a query box: a point they share
  // descends to a leaf holding the box, and the query box reaches it.
  [[nodiscard]] std::uint32_t queryMask(const Shape& s, const AABB& box) const noexcept {
    return insertMask(s, box.min.x, box.min.y, box.max.x, box.max.y);
  }
  [[nodiscard]] std::uint32_t pointChild(const Shape& s, float x, float y) const noexcept {
    return side(s, x, y) >= 0.0f ? 0u : 1u;
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
    const float f0 = side(s, ray.origin.x, ray.origin.y);
    const float k = s.d.x * ray.direction.y - s.d.y * ray.direction.x;
    const float reach = std::abs(ray.origin.x) + std::abs(ray.origin.y) + std::abs(s.o.x) +
                        std::abs(s.o.y) +
                        (std::abs(ray.direction.x) + std::abs(ray.direction.y)) * ray.maxT;
    const float tol =
        1e-4f * (std::abs(s.d.x) + std::abs(s.d.y)) * reach + std::numeric_limits<float>::min();
    std::uint32_t n = 0;
    // Left: f0 + k t >= -tol. Right: f0 + k t <= tol.
    float lo = t0, hi = t1;
    if (k > 0.0f) {
      lo = std::max(lo, (-tol - f0) / k);
    } else if (k < 0.0f) {
      hi = std::min(hi, (-tol - f0) / k);
    } else if (!(f0 >= -tol)) {
      hi = lo - 1.0f;
    }
    if (lo <= hi) out[n++] = detail::RaySpan{0, lo, hi};
    lo = t0;
    hi = t1;
    if (k > 0.0f) {
      hi = std::min(hi, (tol - f0) / k);
    } else if (k < 0.0f) {
      lo = std::max(lo, (tol - f0) / k);
    } else if (!(f0 <= tol)) {
      hi = lo - 1.0f;
    }
    if (lo <= hi) out[n++] = detail::RaySpan{1, lo, hi};
    return n;
  }
};

}  // namespace

struct DiagonalBsp::Impl : detail::TreeBroadPhase<BspPolicy> {
  using TreeBroadPhase::TreeBroadPhase;
};

DiagonalBsp::DiagonalBsp(const DiagonalBspOptions& options)
    : options_(options),
      impl_(std::make_unique<Impl>(
          BspPolicy{}, detail::makeLimits("DiagonalBspOptions", options.threshold, options.maxDepth,
                                          BspPolicy::kDepthCap, options.maxSplitGrowth, 2))) {}
DiagonalBsp::~DiagonalBsp() = default;

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
