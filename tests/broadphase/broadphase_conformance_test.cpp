// Every broad phase against brute force: the reference scenes at several
// sizes and seeds over 100 moving frames (exercising incremental updates),
// and the edge cases of DESIGN.md. New structures are picked up from
// allBroadPhaseTypes() automatically.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <quadbin/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <string>

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"
#include "support/sanitized.hpp"

using namespace quadbin;
using scenes::SceneKind;

namespace {

std::vector<Pair> sortedPairs(BroadPhase& bp, std::span<const AABB> boxes) {
  bp.update(boxes);
  std::vector<Pair> pairs;
  bp.findPairs(pairs);
  for (const Pair& p : pairs) EXPECT_LT(p.a, p.b);
  std::sort(pairs.begin(), pairs.end());
  EXPECT_TRUE(std::adjacent_find(pairs.begin(), pairs.end()) == pairs.end())
      << "a pair reported twice";
  return pairs;
}

std::string describe(const std::vector<Pair>& got, const std::vector<Pair>& want) {
  return test::describePairDifference(got, want);
}

// A structure under test: every registered type with default options, plus
// option variants that take other code paths.
struct Variant {
  std::string name;
  BroadPhaseType type;
  std::function<std::unique_ptr<BroadPhase>()> make;
};

// gtest prints parameters in test listings: the name, not the bytes.
// NOLINTNEXTLINE(readability-identifier-naming): the name gtest looks up
void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (auto type : allBroadPhaseTypes()) {
    std::string name(toString(type));
    std::replace(name.begin(), name.end(), '-', '_');
    out.push_back({name, type, [type] { return makeBroadPhase(type); }});
  }
  out.push_back({"quadtree_loose", BroadPhaseType::Quadtree, [] {
                   return std::make_unique<QuadtreeBroadPhase>(QuadtreeOptions{4, 6, 2.0f, true});
                 }});
  out.push_back({"quadtree_rebuilt", BroadPhaseType::Quadtree, [] {
                   return std::make_unique<QuadtreeBroadPhase>(QuadtreeOptions{16, 8, 1.0f, false});
                 }});
  out.push_back({"bin_grid_single_level", BroadPhaseType::BinGrid, [] {
                   BinGridOptions o;
                   o.multiLevel = false;
                   return std::make_unique<BinGrid>(o);
                 }});
  out.push_back({"bin_grid_fixed_cell", BroadPhaseType::BinGrid, [] {
                   BinGridOptions o;
                   o.cellSize = 3.0f;
                   return std::make_unique<BinGrid>(o);
                 }});
  return out;
}

class Conformance : public ::testing::TestWithParam<Variant> {
 protected:
  [[nodiscard]] std::unique_ptr<BroadPhase> make() const { return GetParam().make(); }
  [[nodiscard]] bool isBruteForce() const { return GetParam().type == BroadPhaseType::BruteForce; }

  void expectExact(BroadPhase& bp, std::span<const AABB> boxes, const std::string& what) {
    const auto got = sortedPairs(bp, boxes);
    const auto want = test::sweepPairs(boxes);
    ASSERT_EQ(got.size(), want.size()) << what << ": " << describe(got, want);
    ASSERT_TRUE(got == want) << what << ": " << describe(got, want);
  }

  void runScene(SceneKind kind, std::uint32_t n, std::uint64_t seed, int frames) {
    auto scene = scenes::generate(kind, n, seed);
    auto bp = make();
    bp->setBounds(scene.world);
    std::vector<AABB> boxes;
    for (int f = 0; f < frames; ++f) {
      scenes::advance(scene);
      scenes::boxes(scene, boxes);
      expectExact(*bp, boxes,
                  std::string(scenes::toString(kind)) + " n=" + std::to_string(n) +
                      " seed=" + std::to_string(seed) + " frame=" + std::to_string(f));
      if (HasFatalFailure()) return;
    }
  }
};

std::string paramName(const ::testing::TestParamInfo<Variant>& info) { return info.param.name; }

}  // namespace

TEST(Oracle, BruteForceMatchesTheSweep) {
  for (auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    auto scene = scenes::generate(kind, 2000, 5);
    std::vector<AABB> boxes;
    scenes::boxes(scene, boxes);
    BruteForce bf;
    EXPECT_EQ(sortedPairs(bf, boxes), test::sweepPairs(boxes));
    EXPECT_EQ(test::bruteForcePairs(boxes), test::sweepPairs(boxes));
  }
}

TEST_P(Conformance, ReferenceScenesSmall) {
  for (auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    for (std::uint64_t seed : {1u, 2u, 42u}) {
      for (std::uint32_t n : {10u, 100u, 1000u}) {
        runScene(kind, n, seed, 100);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_P(Conformance, ReferenceScenesTenThousand) {
  if (isBruteForce()) GTEST_SKIP() << "n^2 at 10,000: covered by the oracle test";
  // 100 frames; 25 under the sanitizers, which look for memory errors
  // (the frames after the first few repeat the same code on moved boxes).
  const int frames = test::kSanitized ? 25 : 100;
  for (auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    runScene(kind, 10000, 3, frames);
    if (HasFatalFailure()) return;
  }
}

TEST_P(Conformance, BoxesOnSplitLines) {
  // Edges and centres exactly on the halves, quarters and eighths of the
  // world, where quadtrees and grids split.
  std::vector<AABB> boxes;
  for (int i = 0; i <= 16; ++i) {
    for (int j = 0; j <= 16; ++j) {
      const float x = 100.0f * static_cast<float>(i) / 16, y = 100.0f * static_cast<float>(j) / 16;
      boxes.push_back({{x - 3.125f, y - 3.125f}, {x + 3.125f, y + 3.125f}});  // centred on a line
      boxes.push_back({{x, y}, {x + 6.25f, y + 6.25f}});                      // edge on a line
    }
  }
  auto bp = make();
  bp->setBounds({{0, 0}, {100, 100}});
  expectExact(*bp, boxes, "split lines");
}

TEST_P(Conformance, ZeroSizeHugeAndOutsideBoxes) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> in(0, 100), out(-500, 600), size(0, 4);
  std::vector<AABB> boxes;
  for (int i = 0; i < 300; ++i) {
    const Vec2 p{in(rng), in(rng)};
    boxes.emplace_back(p, p + Vec2{size(rng), size(rng)});
  }
  for (int i = 0; i < 100; ++i) {  // zero size, some on top of each other
    const Vec2 p{std::floor(in(rng)), std::floor(in(rng))};
    boxes.emplace_back(p, p);
  }
  for (int i = 0; i < 100; ++i) {  // far outside the bounds
    const Vec2 p{out(rng), out(rng)};
    boxes.emplace_back(p, p + Vec2{size(rng), size(rng)});
  }
  boxes.push_back({{-1000, -1000}, {1000, 1000}});  // larger than the world
  boxes.push_back({{-5, 40}, {105, 41}});           // crosses it
  boxes.push_back({{1e6f, 1e6f}, {1e6f + 1, 1e6f + 1}});
  boxes.push_back({{1e6f + 0.5f, 1e6f}, {1e6f + 2, 1e6f + 1}});  // a pair far away
  auto bp = make();
  bp->setBounds({{0, 0}, {100, 100}});
  expectExact(*bp, boxes, "edge boxes");
  // Move everything and look again (incremental paths).
  for (auto& b : boxes) {
    const Vec2 d{size(rng) - 2, size(rng) - 2};
    b = {b.min + d, b.max + d};
  }
  expectExact(*bp, boxes, "edge boxes moved");
}

TEST_P(Conformance, TenThousandAtOnePoint) {
  // Zero-size boxes at one point: no strict overlap, but every split sees
  // all of them on the same side. No unbounded recursion, bounded memory.
  std::vector<AABB> points(10000, AABB{{50, 50}, {50, 50}});
  auto bp = make();
  bp->setBounds({{0, 0}, {100, 100}});
  bp->update(points);
  std::vector<Pair> pairs;
  bp->findPairs(pairs);
  EXPECT_TRUE(pairs.empty());
  EXPECT_LT(bp->memoryBytes(), 64u * 1024 * 1024) << "memory blew up";
  // Two thousand unit boxes at one point: every pair, once.
  std::vector<AABB> stacked(2000, AABB{{50, 50}, {51, 51}});
  bp->update(stacked);
  pairs.clear();
  bp->findPairs(pairs);
  EXPECT_EQ(pairs.size(), 2000u * 1999u / 2u);
  std::sort(pairs.begin(), pairs.end());
  EXPECT_TRUE(std::adjacent_find(pairs.begin(), pairs.end()) == pairs.end());
  EXPECT_LT(bp->memoryBytes(), 64u * 1024 * 1024) << "memory blew up";
}

TEST_P(Conformance, BodiesAddedAndRemovedBetweenSteps) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(0, 200), size(0.5f, 6);
  auto bp = make();
  bp->setBounds({{0, 0}, {200, 200}});
  std::vector<AABB> boxes;
  for (int frame = 0; frame < 60; ++frame) {
    // Grow and shrink the set; move a random third of the survivors.
    const std::size_t target = 200 + static_cast<std::size_t>((frame * 37) % 400);
    const std::size_t keep = std::min(boxes.size(), target);
    boxes.resize(keep);
    for (auto& b : boxes) {
      if (rng() % 3 == 0) {
        const Vec2 d{size(rng) - 3, size(rng) - 3};
        b = {b.min + d, b.max + d};
      }
    }
    while (boxes.size() < target) {
      const Vec2 p{pos(rng), pos(rng)};
      boxes.emplace_back(p, p + Vec2{size(rng), size(rng)});
    }
    expectExact(*bp, boxes, "frame " + std::to_string(frame));
    if (HasFatalFailure()) return;
  }
  boxes.clear();
  expectExact(*bp, boxes, "empty");
}

TEST_P(Conformance, QueryMatchesAScan) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> pos(-20, 220), size(0, 30);
  auto scene = scenes::generate(SceneKind::Mixed, 2000, 4);
  std::vector<AABB> boxes;
  scenes::boxes(scene, boxes);
  auto bp = make();
  bp->setBounds(scene.world);
  bp->update(boxes);
  const float L = scene.world.max.x;
  std::uniform_real_distribution<float> where(-0.1f * L, 1.1f * L), extent(0, 0.2f * L);
  for (int q = 0; q < 200; ++q) {
    const Vec2 p{where(rng), where(rng)};
    const AABB box{p, p + Vec2{extent(rng), extent(rng)}};
    std::vector<std::uint32_t> got;
    bp->query(box, got);
    std::sort(got.begin(), got.end());
    std::vector<std::uint32_t> want;
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (touches(boxes[i], box)) want.push_back(i);
    }
    ASSERT_EQ(got, want) << "query " << q;
    // Ray candidates must include every box the ray really hits.
    const Ray ray{p, {extent(rng) - 0.1f * L, extent(rng) - 0.1f * L}, 1.0f};
    std::vector<std::uint32_t> candidates;
    bp->queryRay(ray, candidates);
    std::sort(candidates.begin(), candidates.end());
    ASSERT_TRUE(std::adjacent_find(candidates.begin(), candidates.end()) == candidates.end());
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (raycast(ray, boxes[i])) {
        ASSERT_TRUE(std::binary_search(candidates.begin(), candidates.end(), i))
            << "ray " << q << " missed " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllStructures, Conformance, ::testing::ValuesIn(variants()), paramName);
