// quadbin::Quadtree, the generic container: randomized churn against a
// brute-force list, outside values, split lines, merging, one-point piles,
// and the value types the header promises (ids, pointers, structs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <quadbin/broadphase/quadtree_container.hpp>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/pair_oracle.hpp"

using namespace quadbin;

namespace {

// GetBox for ids: looks the box up in an array the test owns.
template <class Float>
struct IdBox {
  const std::vector<BasicBox<Float>>* boxes = nullptr;
  BasicBox<Float> operator()(std::uint32_t id) const { return (*boxes)[id]; }
};

template <class Float>
using IdTree = Quadtree<std::uint32_t, IdBox<Float>, std::equal_to<std::uint32_t>, Float>;

using IdPair = std::pair<std::uint32_t, std::uint32_t>;

std::vector<IdPair> normalized(std::vector<IdPair> pairs) {
  for (auto& p : pairs) {
    EXPECT_NE(p.first, p.second) << "a value paired with itself";
    if (p.first > p.second) std::swap(p.first, p.second);
  }
  std::sort(pairs.begin(), pairs.end());
  EXPECT_TRUE(std::adjacent_find(pairs.begin(), pairs.end()) == pairs.end())
      << "a pair reported twice";
  return pairs;
}

template <class Float>
std::vector<IdPair> brutePairs(const std::vector<std::uint32_t>& live,
                               const std::vector<BasicBox<Float>>& boxes) {
  std::vector<BasicBox<Float>> liveBoxes;
  for (std::uint32_t id : live) liveBoxes.push_back(boxes[id]);
  std::vector<IdPair> out;
  for (const Pair& p : test::bruteForcePairs(liveBoxes)) {
    out.emplace_back(std::min(live[p.a], live[p.b]), std::max(live[p.a], live[p.b]));
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <class Float>
std::vector<std::uint32_t> bruteQuery(const std::vector<std::uint32_t>& live,
                                      const std::vector<BasicBox<Float>>& boxes,
                                      const BasicBox<Float>& q) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t id : live) {
    if (touches(boxes[id], q)) out.push_back(id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
  std::sort(v.begin(), v.end());
  EXPECT_TRUE(std::adjacent_find(v.begin(), v.end()) == v.end()) << "a value reported twice";
  return v;
}

// Random boxes in a root of [-100, 100]^2, with the cases a quadtree fears:
// on the split lines (multiples of 100 / 2^k), zero-size, bigger than the
// root, straddling its border, far outside.
template <class Float>
struct BoxMaker {
  std::mt19937& rng;

  Float uniform(double lo, double hi) {
    return static_cast<Float>(std::uniform_real_distribution<double>(lo, hi)(rng));
  }
  Float splitLine() {
    const int level = std::uniform_int_distribution<int>(0, 4)(rng);
    const double step = 100.0 / static_cast<double>(1 << level);
    const int k = std::uniform_int_distribution<int>(-(1 << level) + 1, (1 << level) - 1)(rng);
    return static_cast<Float>(step * k);
  }
  BasicBox<Float> centred(Float cx, Float cy, Float hx, Float hy) {
    return {{cx - hx, cy - hy}, {cx + hx, cy + hy}};
  }
  BasicBox<Float> operator()() {
    const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
    if (kind < 45)
      return centred(uniform(-100, 100), uniform(-100, 100), uniform(0, 4), uniform(0, 4));
    if (kind < 60) {  // small, straddling a split line
      const bool vertical = (rng() & 1u) != 0;
      const Float line = splitLine();
      const Float other = uniform(-99, 99);
      return vertical ? centred(line, other, uniform(0.01, 2), uniform(0.01, 2))
                      : centred(other, line, uniform(0.01, 2), uniform(0.01, 2));
    }
    if (kind < 68) return centred(splitLine(), splitLine(), 0, 0);  // points on line crossings
    if (kind < 73) return centred(splitLine(), splitLine(), 1, 1);  // on crossings, small
    if (kind < 78) {                                                // exactly a cell
      const Float x = splitLine();
      const Float y = splitLine();
      return {{x, y}, {x + Float(25), y + Float(12.5)}};
    }
    if (kind < 83)
      return centred(uniform(-100, 100), uniform(-100, 100), uniform(10, 40), uniform(10, 40));
    if (kind < 85)
      return centred(uniform(-100, 100), uniform(-100, 100), uniform(90, 300), uniform(90, 300));
    if (kind < 92) {  // straddling the root border
      const Float x = (rng() & 1u) ? Float(100) : Float(-100);
      return centred(x, uniform(-100, 100), uniform(0, 5), uniform(0, 5));
    }
    if (kind < 97)
      return centred(uniform(-1e6, 1e6), uniform(-1e6, 1e6), uniform(0, 10), uniform(0, 10));
    return centred(uniform(100.5, 120), uniform(-120, 120), uniform(0, 3), uniform(0, 3));
  }
};

struct ChurnConfig {
  std::uint32_t seed = 0;
  double looseness = 1;
  std::uint32_t threshold = 0;
  std::uint32_t maxDepth = 0;
  // Maps the [-100, 100]^2 scene to an awkward root (non-dyadic sizes and
  // offsets), so that cells and boxes meet rounding instead of exact halves.
  double scaleX = 1, scaleY = 1, offsetX = 0, offsetY = 0;
};

// Removing `absent`, a value not in the tree, throws and changes nothing.
template <class Float>
void expectAbsentRefused(IdTree<Float>& tree, std::uint32_t absent) {
  const std::size_t before = tree.size();
  const std::size_t nodesBefore = tree.nodeCount();
  EXPECT_THROW(tree.remove(absent), Error);
  EXPECT_FALSE(tree.contains(absent));
  EXPECT_EQ(tree.size(), before);
  EXPECT_EQ(tree.nodeCount(), nodesBefore);
}

// After a churn: the whole answers against brute force, then emptied,
// every merge happens and nothing is left behind.
template <class Float>
void checkAndEmpty(IdTree<Float>& tree, const std::vector<std::uint32_t>& live,
                   const std::vector<BasicBox<Float>>& boxes) {
  EXPECT_EQ(normalized(tree.findAllIntersections()), brutePairs(live, boxes));
  EXPECT_EQ(sorted(tree.query(tree.rootBox())),
            bruteQuery(live, boxes, BasicBox<Float>{tree.rootBox()}));
  for (std::uint32_t id : live) tree.remove(id);
  EXPECT_TRUE(tree.empty());
  EXPECT_EQ(tree.nodeCount(), 1u);
  EXPECT_EQ(tree.outsideCount(), 0u);
  EXPECT_TRUE(tree.findAllIntersections().empty());
}

template <class Float>
void churn(const ChurnConfig& config, int operations) {
  SCOPED_TRACE("seed " + std::to_string(config.seed) + " looseness " +
               std::to_string(config.looseness));
  std::mt19937 rng(config.seed);
  BoxMaker<Float> makeRawBox{rng};
  const auto map = [&config](const BasicBox<Float>& b) {
    const auto x = [&config](Float v) {
      return static_cast<Float>(v * config.scaleX + config.offsetX);
    };
    const auto y = [&config](Float v) {
      return static_cast<Float>(v * config.scaleY + config.offsetY);
    };
    return BasicBox<Float>{{x(b.min.x), y(b.min.y)}, {x(b.max.x), y(b.max.y)}};
  };
  const auto makeBox = [&] { return map(makeRawBox()); };
  std::vector<BasicBox<Float>> boxes;
  std::vector<std::uint32_t> live;  // the oracle: ids in the tree
  QuadtreeContainerOptions options;
  options.looseness = config.looseness;
  options.threshold = config.threshold;
  options.maxDepth = config.maxDepth;
  IdTree<Float> tree(map({{-100, -100}, {100, 100}}), IdBox<Float>{&boxes}, {}, options);

  std::vector<std::uint32_t> scratch;
  std::vector<IdPair> pairScratch;
  std::size_t sawNodes = 0;
  for (int op = 0; op < operations; ++op) {
    // Grow to a few hundred values, then churn around that size.
    const int roll = std::uniform_int_distribution<int>(0, 99)(rng);
    const bool growing = live.size() < 300;
    if (live.empty() || roll < (growing ? 55 : 30)) {
      const auto id = static_cast<std::uint32_t>(boxes.size());
      boxes.push_back(makeBox());
      tree.add(id);
      live.push_back(id);
    } else if (roll < 70) {
      const std::size_t k = std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng);
      tree.remove(live[k]);
      live[k] = live.back();
      live.pop_back();
      // Merging leaves no split node whose subtree is under-full: with
      // threshold values or fewer inside the root, the root is a leaf.
      if (live.size() - tree.outsideCount() <= config.threshold) {
        ASSERT_EQ(tree.nodeCount(), 1u) << "op " << op;
      }
    } else if (roll < 80) {  // move a value
      const std::size_t k = std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng);
      const BasicBox<Float> previous = boxes[live[k]];
      const auto step = static_cast<Float>(config.scaleX);
      boxes[live[k]] = (rng() & 1u) ? makeBox()
                                    : BasicBox<Float>{{previous.min.x + step, previous.min.y},
                                                      {previous.max.x + step, previous.max.y}};
      tree.update(live[k], previous);
    } else if (roll < 83) {  // removing an absent value throws and changes nothing
      boxes.push_back(makeBox());
      expectAbsentRefused(tree, static_cast<std::uint32_t>(boxes.size() - 1));
    } else if (roll < 98) {
      BasicBox<Float> q = makeBox();
      if (rng() & 1u)
        q = boxes[live[std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng)]];
      scratch.clear();
      tree.query(q, scratch);
      ASSERT_EQ(sorted(scratch), bruteQuery(live, boxes, q)) << "op " << op;
      if (!live.empty()) {
        EXPECT_TRUE(tree.contains(
            live[std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng)]));
      }
    } else {
      pairScratch.clear();
      tree.findAllIntersections(pairScratch);
      ASSERT_EQ(normalized(pairScratch), brutePairs(live, boxes)) << "op " << op;
    }
    ASSERT_EQ(tree.size(), live.size());
    sawNodes = std::max(sawNodes, tree.nodeCount());
  }
  if (config.maxDepth > 0) {
    EXPECT_GT(sawNodes, 1u) << "the churn never split the root";
  }
  EXPECT_LE(tree.depth(), config.maxDepth);
  checkAndEmpty(tree, live, boxes);
}

template <class Float>
class QuadtreeContainerTyped : public ::testing::Test {};
using Floats = ::testing::Types<float, double>;
TYPED_TEST_SUITE(QuadtreeContainerTyped, Floats);

}  // namespace

TYPED_TEST(QuadtreeContainerTyped, RandomChurnMatchesBruteForce) {
  for (std::uint32_t seed : {1u, 2u, 3u, 4u}) {
    churn<TypeParam>({seed, 1.0, 16, 8}, 4000);
    churn<TypeParam>({seed, 2.0, 16, 8}, 4000);
  }
  // Small thresholds and other depths exercise deep trees and many merges.
  churn<TypeParam>({11, 1.0, 1, 8}, 3000);
  churn<TypeParam>({12, 1.5, 2, 3}, 3000);
  churn<TypeParam>({13, 1.25, 4, 12}, 3000);
  churn<TypeParam>({14, 1.0, 3, 0}, 2000);
  // Awkward roots: rounding everywhere, tight and loose.
  churn<TypeParam>({21, 1.0, 4, 10, 0.0061, 0.017, 0.4, -3.3}, 3000);
  churn<TypeParam>({22, 2.0, 4, 10, 0.0061, 0.017, 0.4, -3.3}, 3000);
  churn<TypeParam>({23, 1.7, 16, 8, 1e3, 7.3, -2.5e4, 1e5}, 3000);
}

TYPED_TEST(QuadtreeContainerTyped, TenThousandValuesAtOnePoint) {
  using Float = TypeParam;
  // At the centre (on both split lines) and at a corner of the root.
  for (const BasicVec2<Float> point : {BasicVec2<Float>{0, 0}, BasicVec2<Float>{100, 100}}) {
    std::vector<BasicBox<Float>> boxes(10000, BasicBox<Float>{point, point});
    IdTree<Float> tree({{-100, -100}, {100, 100}}, IdBox<Float>{&boxes});
    for (std::uint32_t id = 0; id < boxes.size(); ++id) tree.add(id);
    EXPECT_EQ(tree.size(), 10000u);
    EXPECT_LE(tree.depth(), 8u);
    EXPECT_LE(tree.nodeCount(), 1u + 4u * 8u);  // one chain of splits, bounded
    EXPECT_EQ(tree.query(BasicBox<Float>{point, point}).size(), 10000u);
    // Zero-size boxes never overlap strictly, even at one point.
    EXPECT_TRUE(tree.findAllIntersections().empty());
    for (std::uint32_t id = 0; id < boxes.size(); ++id) tree.remove(id);
    EXPECT_EQ(tree.nodeCount(), 1u);
  }
  // With a size they all overlap: n (n - 1) / 2 pairs, each once.
  std::vector<BasicBox<Float>> boxes(1000, BasicBox<Float>{{1, 1}, {2, 2}});
  IdTree<Float> tree({{-100, -100}, {100, 100}}, IdBox<Float>{&boxes});
  for (std::uint32_t id = 0; id < boxes.size(); ++id) tree.add(id);
  const auto pairs = tree.findAllIntersections();
  EXPECT_EQ(pairs.size(), 1000u * 999u / 2u);
  EXPECT_EQ(normalized(pairs).size(), pairs.size());
}

TEST(QuadtreeContainer, SmallValuesOnTheCentreLinesPileUpUnlessLoose) {
  std::vector<AABB> boxes;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> along(-99, 99);
  for (int i = 0; i < 1000; ++i) {
    const float t = along(rng);
    // Tiny boxes across the vertical or the horizontal centre line.
    boxes.push_back(i % 2 ? AABB{{-0.5f, t}, {0.5f, t + 1}} : AABB{{t, -0.5f}, {t + 1, 0.5f}});
  }
  auto getBox = [&boxes](std::uint32_t id) { return boxes[id]; };
  using Tree = Quadtree<std::uint32_t, decltype(getBox)>;

  Tree tight({{-100, -100}, {100, 100}}, getBox);
  QuadtreeContainerOptions looseOptions;
  looseOptions.looseness = 2.0;
  Tree loose({{-100, -100}, {100, 100}}, looseOptions, getBox);
  for (std::uint32_t id = 0; id < boxes.size(); ++id) {
    tight.add(id);
    loose.add(id);
  }
  // Seed 000 semantics: a box across a split line stays in the parent.
  EXPECT_EQ(tight.stats().atRoot, 1000u);
  // Loose: each value goes down to a cell about its size.
  EXPECT_LT(loose.stats().atRoot, 20u);
  EXPECT_LT(loose.stats().largestNode, 100u);
  EXPECT_GT(loose.depth(), 3u);
  EXPECT_EQ(loose.outsideCount(), 0u);

  const AABB camera{{-10, -10}, {10, 10}};
  std::vector<std::uint32_t> expected;
  for (std::uint32_t id = 0; id < boxes.size(); ++id) {
    if (touches(boxes[id], camera)) expected.push_back(id);
  }
  EXPECT_EQ(sorted(tight.query(camera)), expected);
  EXPECT_EQ(sorted(loose.query(camera)), expected);
  EXPECT_EQ(normalized(tight.findAllIntersections()), normalized(loose.findAllIntersections()));
}

TEST(QuadtreeContainer, MergesChildrenBackWhenUnderFull) {
  std::vector<AABB> boxes;
  for (int i = 0; i < 200; ++i) {
    const auto x = static_cast<float>(i % 20) * 9.0f - 90.0f;
    const auto y = static_cast<float>(i / 20) * 9.0f - 90.0f;
    boxes.push_back({{x, y}, {x + 1, y + 1}});
  }
  auto getBox = [&boxes](std::uint32_t id) { return boxes[id]; };
  Quadtree<std::uint32_t, decltype(getBox)> tree({{-100, -100}, {100, 100}}, getBox);
  for (std::uint32_t id = 0; id < boxes.size(); ++id) tree.add(id);
  const std::size_t split = tree.nodeCount();
  EXPECT_GT(split, 5u);
  EXPECT_GE(tree.depth(), 2u);
  const std::size_t bytes = tree.memoryBytes();

  for (std::uint32_t id = 0; id < 184; ++id) tree.remove(id);
  EXPECT_EQ(tree.size(), 16u);
  EXPECT_EQ(tree.nodeCount(), 1u) << "16 values left (= threshold): all merged into the root";
  EXPECT_EQ(tree.depth(), 0u);
  EXPECT_EQ(tree.query({{-100, -100}, {100, 100}}).size(), 16u);

  // Freed nodes are reused: refilling takes the same nodes back (the tree's
  // shape does not depend on the order of adds) without growing the pool.
  for (std::uint32_t id = 0; id < 184; ++id) tree.add(id);
  EXPECT_EQ(tree.nodeCount(), split);
  EXPECT_EQ(tree.stats().nodes, split);
  // Memory is bounded: the same churn repeated settles and then allocates
  // nothing more (freed blocks may come back under another parent, so their
  // value lists can still grow during the first rounds).
  std::vector<std::size_t> bytesPerRound = {bytes};
  for (int round = 0; round < 8; ++round) {
    for (std::uint32_t id = 0; id < 184; ++id) tree.remove(id);
    for (std::uint32_t id = 0; id < 184; ++id) tree.add(id);
    bytesPerRound.push_back(tree.memoryBytes());
  }
  EXPECT_EQ(bytesPerRound[4], bytesPerRound.back());

  tree.clear();
  EXPECT_TRUE(tree.empty());
  EXPECT_EQ(tree.nodeCount(), 1u);
  EXPECT_TRUE(tree.query({{-100, -100}, {100, 100}}).empty());
  for (std::uint32_t id = 0; id < boxes.size(); ++id) tree.add(id);
  EXPECT_EQ(tree.size(), 200u);
  EXPECT_EQ(tree.query({{-100, -100}, {100, 100}}).size(), 200u);
}

TEST(QuadtreeContainer, ValuesOutsideTheRootAreKept) {
  std::vector<AABB> boxes = {
      {{-1e6f, -1e6f}, {-1e6f + 1, -1e6f + 1}},  // far away
      {{95, 0}, {105, 10}},                      // across the root border
      {{-200, -200}, {200, 200}},                // bigger than the root
      {{0, 0}, {1, 1}},                          // inside
      {{-1e6f + 0.5f, -1e6f + 0.5f}, {-1e6f + 2, -1e6f + 2}},
      {{-std::numeric_limits<float>::infinity(), 5},
       {std::numeric_limits<float>::infinity(), 6}},  // an infinite band
  };
  auto getBox = [&boxes](std::uint32_t id) { return boxes[id]; };
  Quadtree<std::uint32_t, decltype(getBox)> tree({{-100, -100}, {100, 100}}, getBox);
  for (std::uint32_t id = 0; id < boxes.size(); ++id) tree.add(id);
  EXPECT_EQ(tree.outsideCount(), 5u);
  EXPECT_EQ(sorted(tree.query({{-1e6f, -1e6f}, {-1e6f, -1e6f}})), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(sorted(tree.query({{0.5f, 0.5f}, {0.5f, 0.5f}})), (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(normalized(tree.findAllIntersections()),
            (std::vector<IdPair>{{0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 5}}));
  tree.remove(2);
  tree.remove(0);
  EXPECT_EQ(normalized(tree.findAllIntersections()), (std::vector<IdPair>{{1, 5}}));
  EXPECT_EQ(tree.outsideCount(), 3u);
  EXPECT_THROW(tree.remove(0), Error);
}

TEST(QuadtreeContainer, TouchingCountsForQueriesNotForIntersections) {
  std::vector<AABB> boxes = {{{0, 0}, {10, 10}}, {{10, 0}, {20, 10}}, {{5, 5}, {15, 15}}};
  auto getBox = [&boxes](std::uint32_t id) { return boxes[id]; };
  Quadtree<std::uint32_t, decltype(getBox)> tree({{0, 0}, {20, 20}}, getBox);
  for (std::uint32_t id = 0; id < 3; ++id) tree.add(id);
  EXPECT_EQ(sorted(tree.query({{20, 10}, {30, 30}})), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(normalized(tree.findAllIntersections()), (std::vector<IdPair>{{0, 2}, {1, 2}}));
}

TEST(QuadtreeContainer, RefusesBadInputWithNamedValues) {
  auto getBox = [](const AABB& b) { return b; };
  struct AabbEqual {
    bool operator()(const AABB& a, const AABB& b) const { return a == b; }
  };
  using Tree = Quadtree<AABB, decltype(getBox), AabbEqual>;
  const auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const Error& e) {
      return e.what();
    }
    return "no throw";
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_NE(message([&] {
              Tree({{0, 0}, {nan, 1}}, getBox);
            }).find("rootBox must be finite"),
            std::string::npos);
  EXPECT_NE(message([&] { Tree({{0, 0}, {inf, 1}}, getBox); }).find("inf"), std::string::npos);
  EXPECT_NE(message([&] { Tree({{0, 0}, {0, 1}}, getBox); }).find("min < max"), std::string::npos);
  EXPECT_NE(message([&] {
              Tree({{5, 0}, {1, 1}}, getBox);
            }).find("{{5, 0}, {1, 1}}"),
            std::string::npos);
  QuadtreeContainerOptions bad;
  bad.threshold = 0;
  EXPECT_NE(message([&] {
              Tree({{0, 0}, {1, 1}}, bad, getBox);
            }).find("threshold must be >= 1, got 0"),
            std::string::npos);
  bad = {};
  bad.maxDepth = 31;
  EXPECT_NE(message([&] {
              Tree({{0, 0}, {1, 1}}, bad, getBox);
            }).find("maxDepth must be <= 30, got 31"),
            std::string::npos);
  bad = {};
  bad.looseness = 0.5;
  EXPECT_NE(message([&] {
              Tree({{0, 0}, {1, 1}}, bad, getBox);
            }).find("looseness must be in [1, 2], got 0.5"),
            std::string::npos);
  bad.looseness = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Tree({{0, 0}, {1, 1}}, bad, getBox), Error);

  Tree tree({{0, 0}, {100, 100}}, getBox);
  tree.add({{1, 1}, {2, 2}});
  EXPECT_NE(message([&] {
              tree.add({{1, nan}, {2, 2}});
            }).find("Quadtree::add"),
            std::string::npos);
  EXPECT_THROW(tree.add({{3, 3}, {2, 2}}), Error);
  EXPECT_THROW((void)tree.query({{3, 3}, {2, 2}}), Error);
  EXPECT_NE(message([&] {
              tree.remove({{5, 5}, {6, 6}});
            }).find("value not found"),
            std::string::npos);
  EXPECT_EQ(tree.size(), 1u);
  tree.remove({{1, 1}, {2, 2}});
  EXPECT_THROW(tree.remove({{1, 1}, {2, 2}}), Error);
  EXPECT_TRUE(tree.empty());
}

TEST(QuadtreeContainer, PointerValues) {
  struct Sprite {
    AABB box;
    int layer;
  };
  std::vector<Sprite> sprites;
  for (int i = 0; i < 300; ++i) {
    const auto x = static_cast<float>((i * 37) % 500);
    const auto y = static_cast<float>((i * 91) % 500);
    sprites.push_back({{{x, y}, {x + 8, y + 8}}, i % 3});
  }
  auto getBox = [](const Sprite* s) { return s->box; };
  Quadtree<const Sprite*, decltype(getBox)> tree({{0, 0}, {512, 512}}, getBox);
  for (const Sprite& s : sprites) tree.add(&s);
  const AABB camera{{100, 100}, {300, 220}};
  std::vector<const Sprite*> visible = tree.query(camera);
  std::size_t expected = 0;
  for (const Sprite& s : sprites) expected += touches(s.box, camera) ? 1u : 0u;
  EXPECT_EQ(visible.size(), expected);
  for (const Sprite* s : visible) EXPECT_TRUE(touches(s->box, camera));
  for (std::size_t i = 0; i < sprites.size(); i += 2) tree.remove(&sprites[i]);
  EXPECT_EQ(tree.size(), 150u);
  EXPECT_TRUE(tree.contains(&sprites[1]));
  EXPECT_FALSE(tree.contains(&sprites[0]));
}

namespace {
struct Unit {
  std::uint32_t id = 0;
  BasicBox<double> box;
  int team = 0;
  // Units are the same unit when their ids are: team and box may differ.
  friend bool operator==(const Unit& a, const Unit& b) { return a.id == b.id; }
};
struct UnitBox {
  BasicBox<double> operator()(const Unit& u) const { return u.box; }
};
}  // namespace

TEST(QuadtreeContainer, StructValuesInDoubleWithUpdate) {
  Quadtree<Unit, UnitBox, std::equal_to<>, double> tree({{0, 0}, {1e4, 1e4}});
  std::vector<Unit> units;
  for (std::uint32_t i = 0; i < 500; ++i) {
    const auto x = static_cast<double>((i * 7919u) % 9973u);
    const auto y = static_cast<double>((i * 104729u) % 9967u);
    units.push_back({i, {{x, y}, {x + 30, y + 30}}, static_cast<int>(i % 2)});
    tree.add(units.back());
  }
  // Move everyone; update finds each at its previous box.
  for (Unit& u : units) {
    const BasicBox<double> previous = u.box;
    u.box.min.x += 12.5;
    u.box.max.x += 12.5;
    u.team = 1 - u.team;
    tree.update(u, previous);
  }
  const BasicBox<double> area{{2000, 2000}, {6000, 4000}};
  std::vector<Unit> found;
  tree.query(area, found);
  std::size_t expected = 0;
  for (const Unit& u : units) expected += touches(u.box, area) ? 1u : 0u;
  ASSERT_EQ(found.size(), expected);
  for (const Unit& u : found) {
    EXPECT_TRUE(touches(u.box, area));
    EXPECT_EQ(u.team, units[u.id].team) << "update stores the value given";
  }
  std::vector<std::pair<Unit, Unit>> pairs;
  tree.findAllIntersections(pairs);
  std::vector<BasicBox<double>> unitBoxes;
  for (const Unit& u : units) unitBoxes.push_back(u.box);
  const std::size_t brute = test::bruteForcePairs(unitBoxes).size();
  EXPECT_EQ(pairs.size(), brute);
  Unit stale = units[3];
  stale.box.min.x -= 500;
  stale.box.max.x -= 500;
  EXPECT_THROW(tree.update(units[3], stale.box), Error);
  EXPECT_EQ(tree.size(), 500u);
  // Removing at the box it was stored with works even if the caller's copy moved.
  const BasicBox<double> stored = units[4].box;
  units[4].box = {{0, 0}, {1, 1}};
  tree.remove(units[4], stored);
  EXPECT_EQ(tree.size(), 499u);
}

TEST(QuadtreeContainer, BoxConversions) {
  const AABB a{{1, 2}, {3, 4}};
  const BasicBox<float> f = a;
  const BasicBox<double> d = a;
  static_assert(std::is_same_v<BasicBox<float>, AABB>, "one geometry: AABB is BasicBox<float>");
  static_assert(!std::is_convertible_v<BasicBox<double>, AABB>, "double to float only explicitly");
  EXPECT_EQ(f, a);
  EXPECT_EQ(static_cast<AABB>(d), a);
  EXPECT_EQ(d.min.x, 1.0);
  EXPECT_EQ(f.center(), (BasicVec2<float>{2, 3}));
  EXPECT_TRUE(touches(f, BasicBox<float>{{3, 4}, {5, 5}}));
  EXPECT_FALSE(overlaps(f, BasicBox<float>{{3, 4}, {5, 5}}));
  EXPECT_TRUE(contains(f, BasicBox<float>{{1, 2}, {1, 2}}));
  EXPECT_TRUE(f == a);  // AABB converts, BasicBox does not convert back implicitly
}
