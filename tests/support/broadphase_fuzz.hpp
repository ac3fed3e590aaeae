#pragma once
// A differential fuzzer of the broad phases: a program of random adds,
// removes, moves, box queries and ray queries, run on a structure and on
// brute force side by side, with boxes drawn from every scale float has
// (ordinary worlds, coordinates up to +-3.4e38, points, boxes spanning the
// whole range). Shared by the GoogleTest suite (seeded programs) and the
// libFuzzer target (programs read from the fuzzer's bytes).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <ostream>
#include <quadbin/broadphase.hpp>
#include <quadbin/error.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "pair_diff.hpp"    // test::pairDifference
#include "pair_oracle.hpp"  // test::bruteForcePairs

namespace quadbin::test::fuzz {

/// The choices of a program: from a seeded generator, or from bytes (a
/// libFuzzer input; exhausted bytes read as zeros and end the program).
class Source {
 public:
  explicit Source(std::uint64_t seed) : rng_(seed) {}
  Source(const std::uint8_t* data, std::size_t size)
      : bytes_(data), size_(size), fromBytes_(true) {}

  std::uint64_t next() {
    if (!fromBytes_) return rng_();
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | (at_ < size_ ? bytes_[at_++] : 0u);
    return v;
  }
  /// An integer in [0, n).
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
  /// A double in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  [[nodiscard]] bool exhausted() const noexcept { return fromBytes_ && at_ >= size_; }

 private:
  std::mt19937_64 rng_;
  const std::uint8_t* bytes_ = nullptr;
  std::size_t size_ = 0;
  std::size_t at_ = 0;
  bool fromBytes_ = false;
};

constexpr float kMax = std::numeric_limits<float>::max();

/// A finite float from one of several scales.
inline float coordinate(Source& src, std::span<const AABB> existing) {
  switch (src.below(8)) {
    case 0:
    case 1:
    case 2:  // an ordinary world
      return static_cast<float>(src.unit() * 100.0);
    case 3: {  // any magnitude, up to the largest float
      const double v = std::pow(10.0, src.unit() * 38.54);
      return static_cast<float>(std::min<double>(v, kMax)) * (src.below(2) ? 1.0f : -1.0f);
    }
    case 4: {
      static const float kEdges[] = {kMax,
                                     -kMax,
                                     3e38f,
                                     -3e38f,
                                     1e30f,
                                     -1e30f,
                                     0.0f,
                                     1e-38f,
                                     -1e-38f,
                                     std::nextafter(kMax, 0.0f),
                                     std::numeric_limits<float>::denorm_min(),
                                     1.7e38f};
      return kEdges[src.below(sizeof kEdges / sizeof kEdges[0])];
    }
    case 5: {  // a coordinate of another box, a few ulps away
      if (existing.empty()) return 0.0f;
      const AABB& b = existing[src.below(static_cast<std::uint32_t>(existing.size()))];
      const float base = std::array{b.min.x, b.min.y, b.max.x, b.max.y}[src.below(4)];
      float v = base;
      const int steps = static_cast<int>(src.below(5)) - 2;
      for (int s = 0; s < std::abs(steps); ++s) v = std::nextafter(v, steps > 0 ? kMax : -kMax);
      return v;
    }
    case 6:  // a large ordinary world
      return static_cast<float>((src.unit() - 0.5) * 2e9);
    default:  // a cluster near a far-away point
      return static_cast<float>(1e30 + src.unit() * 1e24);
  }
}

/// A size for a box whose min is `lo`: the max is at most the largest float.
inline float upper(Source& src, float lo) {
  double size = 0.0;
  switch (src.below(6)) {
    case 0:  // a point
      break;
    case 1: {  // a few ulps
      float v = lo;
      for (std::uint32_t s = src.below(4) + 1; s > 0; --s) v = std::nextafter(v, kMax);
      return v;
    }
    case 2:
    case 3:
      size = src.unit() * 5.0;
      break;
    case 4:
      size = std::pow(10.0, src.unit() * 38.8);
      break;
    default:  // to the end of the range
      return kMax;
  }
  return static_cast<float>(std::min<double>(static_cast<double>(lo) + size, kMax));
}

inline AABB randomBox(Source& src, std::span<const AABB> existing) {
  if (src.below(40) == 0) return {{-kMax, -kMax}, {kMax, kMax}};  // the whole range
  if (!existing.empty() && src.below(8) == 0) {                   // a copy of another box
    return existing[src.below(static_cast<std::uint32_t>(existing.size()))];
  }
  AABB b;
  b.min.x = coordinate(src, existing);
  b.min.y = coordinate(src, existing);
  // Either both axes at one scale or each its own.
  b.max.x = upper(src, b.min.x);
  b.max.y = upper(src, b.min.y);
  if (src.below(4) == 0) {  // a box spanning the range on one axis
    if (src.below(2)) {
      b.min.x = -kMax;
      b.max.x = kMax;
    } else {
      b.min.y = -kMax;
      b.max.y = kMax;
    }
  }
  return b;
}

inline Ray randomRay(Source& src, std::span<const AABB> existing) {
  Ray r;
  r.origin = {coordinate(src, existing), coordinate(src, existing)};
  const Vec2 to{coordinate(src, existing), coordinate(src, existing)};
  const double dx = static_cast<double>(to.x) - r.origin.x;
  const double dy = static_cast<double>(to.y) - r.origin.y;
  r.direction = {static_cast<float>(std::clamp<double>(dx, -kMax, kMax)),
                 static_cast<float>(std::clamp<double>(dy, -kMax, kMax))};
  switch (src.below(4)) {
    case 0:
      r.direction.x = 0.0f;
      break;
    case 1:
      r.direction.y = 0.0f;
      break;
    default:
      break;
  }
  r.maxT = std::array{1.0f, 0.0f, 0.5f, 2.0f, 1e30f}[src.below(5)];
  return r;
}

/// A structure with its options.
struct Variant {
  std::string name;
  std::function<std::unique_ptr<BroadPhase>()> make;
};
// gtest prints parameters in test listings: the name, not the bytes.
// NOLINTNEXTLINE(readability-identifier-naming): the name gtest looks up
inline void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

/// Every type through makeBroadPhase, and option sets that take other paths
/// or sit at the limits of what the options accept.
inline std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (BroadPhaseType type : allBroadPhaseTypes()) {
    out.push_back({std::string(toString(type)), [type] { return makeBroadPhase(type); }});
  }
  out.push_back({"quadtree-loose-deep", [] {
                   return std::make_unique<QuadtreeBroadPhase>(QuadtreeOptions{1, 24, 2.0f, true});
                 }});
  out.push_back({"quadtree-rebuilt", [] {
                   return std::make_unique<QuadtreeBroadPhase>(QuadtreeOptions{2, 24, 1.0f, false});
                 }});
  out.push_back({"bin-grid-single-level", [] {
                   BinGridOptions o;
                   o.multiLevel = false;
                   return std::make_unique<BinGrid>(o);
                 }});
  out.push_back({"bin-grid-fixed-cell", [] {
                   BinGridOptions o;
                   o.cellSize = 3.0f;
                   return std::make_unique<BinGrid>(o);
                 }});
  out.push_back({"sweep-and-prune-y", [] {
                   SweepAndPruneOptions o;
                   o.axis = SweepAndPruneOptions::Axis::Y;
                   o.maxShiftsPerProxy = 1;
                   return std::make_unique<SweepAndPrune>(o);
                 }});
  out.push_back(
      {"dynamic-aabb-tree-tight", [] {
         return std::make_unique<DynamicAabbTree>(DynamicAabbTreeOptions{0.0f, 0.0f, 1.0f});
       }});
  out.push_back(
      {"dynamic-aabb-tree-fat", [] {
         return std::make_unique<DynamicAabbTree>(DynamicAabbTreeOptions{4.0f, 1.0f, 0.0f});
       }});
  out.push_back({"leaf-quadtree-growth4", [] {
                   return std::make_unique<LeafQuadtree>(LeafQuadtreeOptions{1, 32, 4.0f});
                 }});
  out.push_back({"nona-tree-growth4", [] {
                   return std::make_unique<NonaTree>(NonaTreeOptions{1, 32, 4.0f});
                 }});
  out.push_back({"dynamic-centre-quadtree-growth4", [] {
                   return std::make_unique<DynamicCentreQuadtree>(
                       DynamicCentreQuadtreeOptions{1, 32, 0, 4.0f});
                 }});
  out.push_back({"dynamic-centre-quadtree-sampled", [] {
                   return std::make_unique<DynamicCentreQuadtree>(
                       DynamicCentreQuadtreeOptions{2, 15, 3, 2.0f});
                 }});
  out.push_back({"diagonal-bsp-deep", [] {
                   return std::make_unique<DiagonalBsp>(DiagonalBspOptions{1, 64, 4.0f});
                 }});
  out.push_back({"auto-switching", [] {
                   AutoOptions o;
                   o.smallBelow = 6;
                   o.mediumBelow = 14;
                   o.small = BroadPhaseType::Quadtree;
                   o.medium = BroadPhaseType::DynamicAabbTree;
                   o.large = BroadPhaseType::BinGrid;
                   return std::make_unique<AutoBroadPhase>(o);
                 }});
  return out;
}

/// What a program checks after every step, and what it saw.
struct Outcome {
  std::string failure;            ///< empty when every answer matched brute force
  std::uint64_t pairHash = 0;     ///< of every findPairs answer in order (serial = parallel)
  std::size_t largestMemory = 0;  ///< memoryBytes() / (bodies + 1), the worst seen
  std::uint32_t steps = 0;
};

/// The bound every structure's memoryBytes() must stay under for n boxes
/// (docs/broadphase-limits.md): fixed tables plus a bounded number of bytes
/// per box, whatever the coordinates.
[[nodiscard]] inline std::size_t memoryBound(std::size_t n) {
  return (std::size_t{1} << 20) + 4096 * n;
}

namespace detail {
inline std::string text(const AABB& b) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "{{%.9g, %.9g}, {%.9g, %.9g}}", static_cast<double>(b.min.x),
                static_cast<double>(b.min.y), static_cast<double>(b.max.x),
                static_cast<double>(b.max.y));
  return buf;
}
inline std::string text(const Ray& r) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "ray{{%.9g, %.9g}, {%.9g, %.9g}, %.9g}",
                static_cast<double>(r.origin.x), static_cast<double>(r.origin.y),
                static_cast<double>(r.direction.x), static_cast<double>(r.direction.y),
                static_cast<double>(r.maxT));
  return buf;
}
inline std::string boxesText(std::span<const AABB> boxes) {
  std::string s;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    s += "  [" + std::to_string(i) + "] " + text(boxes[i]) + "\n";
  }
  return s;
}
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}
}  // namespace detail

/// One step's change to the boxes, drawn from `src`: add, remove from the
/// end or the middle, move a little, replace.
inline void mutateBoxes(Source& src, std::vector<AABB>& boxes, std::uint32_t maxBoxes) {
  switch (src.below(6)) {
    case 0:
    case 1:  // add some
      for (std::uint32_t k = src.below(6) + 1; k > 0 && boxes.size() < maxBoxes; --k) {
        boxes.push_back(randomBox(src, boxes));
      }
      break;
    case 2:  // remove from the end
      for (std::uint32_t k = src.below(4) + 1; k > 0 && !boxes.empty(); --k) boxes.pop_back();
      break;
    case 3:  // remove one from the middle: the last takes its index
      if (!boxes.empty()) {
        const std::uint32_t i = src.below(static_cast<std::uint32_t>(boxes.size()));
        boxes[i] = boxes.back();
        boxes.pop_back();
      }
      break;
    case 4:  // move some a little
      for (std::uint32_t k = src.below(8); k > 0 && !boxes.empty(); --k) {
        AABB& b = boxes[src.below(static_cast<std::uint32_t>(boxes.size()))];
        const auto dx = static_cast<float>(src.unit() - 0.5);
        const auto dy = static_cast<float>(src.unit() - 0.5);
        const AABB moved{{b.min.x + dx, b.min.y + dy}, {b.max.x + dx, b.max.y + dy}};
        if (isFinite(moved) && moved.isValid()) b = moved;
      }
      break;
    default:  // replace some
      for (std::uint32_t k = src.below(4) + 1; k > 0 && !boxes.empty(); --k) {
        boxes[src.below(static_cast<std::uint32_t>(boxes.size()))] = randomBox(src, boxes);
      }
      break;
  }
}

/// findPairs against brute force; what differs, or "" (`got`, `want`:
/// scratch). Mixes the pairs into `o.pairHash`.
inline std::string checkPairs(BroadPhase& bp, const std::vector<AABB>& boxes, Outcome& o,
                              std::vector<Pair>& got, std::vector<Pair>& want) {
  got.clear();
  bp.findPairs(got);
  for (const Pair& p : got) o.pairHash = detail::mix(o.pairHash, p.key());
  o.pairHash = detail::mix(o.pairHash, got.size());
  std::sort(got.begin(), got.end());
  test::bruteForcePairs(boxes, want);
  if (got == want) return "";
  std::string s =
      "findPairs: " + std::to_string(got.size()) + " pairs, want " + std::to_string(want.size());
  const test::PairDifference d = test::pairDifference(got, want);
  for (const Pair& p : d.missing) {
    s += " missing(" + std::to_string(p.a) + "," + std::to_string(p.b) + ")";
  }
  for (const Pair& p : d.extra) {
    s += " extra(" + std::to_string(p.a) + "," + std::to_string(p.b) + ")";
  }
  return s;
}

/// Up to two box queries and two ray queries drawn from `src`, against
/// brute force; what differs, or "" (`hits`, `expect`: scratch).
inline std::string checkQueries(Source& src, BroadPhase& bp, const std::vector<AABB>& boxes,
                                std::vector<std::uint32_t>& hits,
                                std::vector<std::uint32_t>& expect) {
  for (std::uint32_t q = src.below(3); q > 0; --q) {
    const AABB box = randomBox(src, boxes);
    hits.clear();
    bp.query(box, hits);
    std::sort(hits.begin(), hits.end());
    expect.clear();
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (touches(boxes[i], box)) expect.push_back(i);
    }
    if (hits != expect) {
      return "query " + detail::text(box) + ": " + std::to_string(hits.size()) + " proxies, want " +
             std::to_string(expect.size());
    }
  }
  for (std::uint32_t q = src.below(3); q > 0; --q) {
    const Ray ray = randomRay(src, boxes);
    hits.clear();
    bp.queryRay(ray, hits);
    std::sort(hits.begin(), hits.end());
    if (std::adjacent_find(hits.begin(), hits.end()) != hits.end()) {
      return "queryRay " + detail::text(ray) + ": a proxy twice";
    }
    // Every exact hit inside the ray's bounds must be there; nothing
    // that is neither a hit nor in the bounds may be.
    const AABB reach = ray.bounds();
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      const bool hit = raycast(ray, boxes[i]).has_value();
      const bool near = touches(boxes[i], reach);
      const bool listed = std::binary_search(hits.begin(), hits.end(), i);
      if (hit && near && !listed) {
        return "queryRay " + detail::text(ray) + ": misses " + std::to_string(i);
      }
      if (listed && !hit && !near) {
        return "queryRay " + detail::text(ray) + ": lists " + std::to_string(i);
      }
    }
  }
  return "";
}

/// Runs one program of at most `maxSteps` steps on `bp` (fresh), against
/// brute force. Stops at the first difference.
inline Outcome run(Source& src, BroadPhase& bp, std::uint32_t maxSteps, std::uint32_t maxBoxes) {
  Outcome o;
  std::vector<AABB> boxes;
  if (src.below(2)) {
    const float side = std::array{100.0f, 1.0f, 1e6f, 1e30f}[src.below(4)];
    bp.setBounds({{0.0f, 0.0f}, {side, side}});
  }
  std::vector<Pair> got, want;
  std::vector<std::uint32_t> hits, expect;
  auto fail = [&](const std::string& what) {
    o.failure =
        what + "\nafter " + std::to_string(o.steps) + " steps; boxes:\n" + detail::boxesText(boxes);
  };
  for (; o.steps < maxSteps && !src.exhausted(); ++o.steps) {
    mutateBoxes(src, boxes, maxBoxes);
    try {
      bp.update(boxes);
      if (bp.size() != boxes.size()) return fail("size() = " + std::to_string(bp.size())), o;
      const std::size_t bytes = bp.memoryBytes();
      if (bytes > memoryBound(boxes.size())) {
        return fail("memoryBytes() = " + std::to_string(bytes) + " over the bound for " +
                    std::to_string(boxes.size()) + " boxes"),
               o;
      }
      o.largestMemory = std::max(o.largestMemory, bytes / (boxes.size() + 1));
      if (auto why = checkPairs(bp, boxes, o, got, want); !why.empty()) return fail(why), o;
      if (auto why = checkQueries(src, bp, boxes, hits, expect); !why.empty()) {
        return fail(why), o;
      }
    } catch (const std::exception& e) {
      return fail(std::string("threw ") + e.what()), o;
    }
  }
  return o;
}

}  // namespace quadbin::test::fuzz
