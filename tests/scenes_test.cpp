// The scene generator reproduces BENCHMARKS.md's reference pair counts; the
// pile is deterministic and starts without overlaps.
#include <gtest/gtest.h>

#include <algorithm>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <sstream>

using namespace quadbin;
using scenes::SceneKind;

namespace {

struct Reference {
  SceneKind kind;
  std::uint32_t n;
  std::uint64_t pairs;
};

// After 70 frames of Workload A (10 warm-up + 60 timed), default seed.
const Reference kReferences[] = {
    {SceneKind::Uniform, 1000, 264},      {SceneKind::Clustered, 1000, 724},
    {SceneKind::Mixed, 1000, 199},        {SceneKind::Uniform, 10000, 2571},
    {SceneKind::Clustered, 10000, 19704}, {SceneKind::Mixed, 10000, 2017},
};

}  // namespace

TEST(Scenes, NamesRoundTrip) {
  for (auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    EXPECT_EQ(scenes::parseSceneKind(scenes::toString(kind)), kind);
  }
  EXPECT_FALSE(scenes::parseSceneKind("gaussian"));
}

TEST(Scenes, ReproduceTheReferencePairCounts) {
  for (const auto& ref : kReferences) {
    auto scene = scenes::generate(ref.kind, ref.n);
    for (int frame = 0; frame < 70; ++frame) scenes::advance(scene);
    EXPECT_EQ(scenes::countPairsExact(scene), ref.pairs)
        << scenes::toString(ref.kind) << " N = " << ref.n;
  }
}

TEST(Scenes, BruteForceOnFloatBoxesAgreesWithTheReference) {
  for (const auto& ref : kReferences) {
    if (ref.n > 1000) continue;
    auto scene = scenes::generate(ref.kind, ref.n);
    for (int frame = 0; frame < 70; ++frame) scenes::advance(scene);
    std::vector<AABB> boxes;
    scenes::boxes(scene, boxes);
    BruteForce bf;
    bf.update(boxes);
    std::vector<Pair> pairs;
    bf.findPairs(pairs);
    // Float boxes may differ by a pair or two at the boundaries.
    EXPECT_NEAR(static_cast<double>(pairs.size()), static_cast<double>(ref.pairs), 2.0);
  }
}

TEST(Scenes, DeterministicAndSeeded) {
  const auto a = scenes::generate(SceneKind::Mixed, 500, 7);
  const auto b = scenes::generate(SceneKind::Mixed, 500, 7);
  const auto c = scenes::generate(SceneKind::Mixed, 500, 8);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.r, b.r);
  EXPECT_NE(a.x, c.x);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_GE(a.r[i], 0.5);
    EXPECT_LE(a.r[i], 16.0);
    EXPECT_GE(a.x[i], a.r[i]);
    EXPECT_LE(a.x[i], a.maxX - a.r[i]);
  }
}

TEST(Scenes, FileRoundTripIsExact) {
  const auto scene = scenes::generate(SceneKind::Clustered, 200);
  std::stringstream file;
  scenes::writeScene(file, scene);
  const auto back = scenes::readScene(file);
  EXPECT_EQ(back.x, scene.x);
  EXPECT_EQ(back.vy, scene.vy);
  EXPECT_EQ(back.r, scene.r);
  EXPECT_EQ(back.maxX, scene.maxX);
}

TEST(Scenes, MalformedFilesNameTheProblem) {
  auto refused = [](const std::string& text, const std::string& mentions) {
    std::istringstream in(text);
    try {
      (void)scenes::readScene(in, "f.csv");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
  };
  refused("", "empty");
  refused("world 0 0 1 1\n", "f.csv:1");
  refused("# world 0 0 -1 1\nx,y,vx,vy,radius\n", "MIN < MAX");
  refused("# world 0 0 1 1\nx,y,radius\n", "header");
  refused("# world 0 0 1 1\nx,y,vx,vy,radius\n1,2,3,4\n", "f.csv:3");
  refused("# world 0 0 1 1\nx,y,vx,vy,radius\n1,2,3,4,abc\n", "'abc'");
  refused("# world 0 0 1 1\nx,y,vx,vy,radius\n1,2,3,4,0\n", "radius");
  refused("# world 0 0 1 1\nx,y,vx,vy,radius\n1,2,3,4,1,5\n", "5 comma");
}

TEST(Scenes, MakeWorldHasOneBallPerRow) {
  const auto scene = scenes::generate(SceneKind::Mixed, 300);
  World w = scenes::makeWorld(scene);
  ASSERT_EQ(w.bodyCount(), 300u);
  EXPECT_FLOAT_EQ(w.radius(w.bodyAt(17)), static_cast<float>(scene.r[17]));
  EXPECT_EQ(w.def().bounds, scene.world);
}

TEST(Scenes, PileNameRoundTrips) {
  EXPECT_EQ(scenes::toString(SceneKind::Pile), "pile");
  EXPECT_EQ(scenes::parseSceneKind("pile"), SceneKind::Pile);
}

TEST(Scenes, PileIsDeterministicFromNAndSeed) {
  const auto a = scenes::generate(SceneKind::Pile, 700, 7);
  const auto b = scenes::generate(SceneKind::Pile, 700, 7);
  const auto c = scenes::generate(SceneKind::Pile, 700, 8);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.vx, b.vx);
  EXPECT_EQ(a.vy, b.vy);
  EXPECT_EQ(a.r, b.r);
  EXPECT_EQ(a.maxX, b.maxX);
  EXPECT_EQ(a.maxY, b.maxY);
  EXPECT_NE(a.x, c.x);
  EXPECT_NE(a.vy, c.vy);
  EXPECT_EQ(a.y, c.y);  // the grid's rows do not depend on the seed
  EXPECT_EQ(a.maxY, c.maxY);
}

TEST(Scenes, PileHasNBallsInsideTheBoxWithoutOverlaps) {
  for (const std::uint32_t n : {1u, 2u, 5u, 99u, 100u, 101u, 1000u, 2025u}) {
    const auto s = scenes::generate(SceneKind::Pile, n);
    ASSERT_EQ(s.size(), n);
    ASSERT_EQ(s.r.size(), n);
    ASSERT_EQ(s.vx.size(), n);
    // About sqrt(N) balls across: W = ceil(sqrt(N)) * 2.2 + 2.
    std::uint32_t columns = 1;
    while (columns * columns < n) ++columns;
    EXPECT_DOUBLE_EQ(s.minX, 0.0);
    EXPECT_DOUBLE_EQ(s.minY, 0.0);
    EXPECT_NEAR(s.maxX, columns * 2.2 + 2.0, 1e-9) << n;
    double top = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(s.r[i], 1.0);
      EXPECT_GE(s.x[i] - s.r[i], s.minX + 1.0) << n << " ball " << i;
      EXPECT_LE(s.x[i] + s.r[i], s.maxX - 1.0) << n << " ball " << i;
      EXPECT_GE(s.y[i] - s.r[i], s.minY + 1.0) << n << " ball " << i;
      EXPECT_LE(s.y[i] + s.r[i], s.maxY) << n << " ball " << i;
      EXPECT_GE(s.vx[i], -1.0);
      EXPECT_LE(s.vx[i], 1.0);
      EXPECT_GE(s.vy[i], -1.0);
      EXPECT_LE(s.vy[i], 1.0);
      top = std::max(top, s.y[i] + s.r[i]);
    }
    EXPECT_DOUBLE_EQ(s.y.front(), 2.0);
    EXPECT_NEAR(s.maxY, 1.1 * top, 1e-9) << n;  // 10 % headroom over the top row
    for (std::uint32_t i = 0; i < n; ++i) {
      for (std::uint32_t j = i + 1; j < n; ++j) {
        const double dx = s.x[i] - s.x[j], dy = s.y[i] - s.y[j];
        ASSERT_GE(dx * dx + dy * dy, 2.09 * 2.09) << n << ": balls " << i << " and " << j;
      }
    }
    // The world accepts every ball (createBody refuses one outside).
    World w = scenes::makeWorld(s, scenes::worldDefFor(SceneKind::Pile));
    EXPECT_EQ(w.bodyCount(), n);
  }
}

TEST(Scenes, WorldDefForSetsTheScenesPhysics) {
  WorldDef base;
  base.threadCount = 3;
  base.velocityIterations = 5;
  for (const auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    const WorldDef def = scenes::worldDefFor(kind, base);
    EXPECT_FALSE(def.enableSleep);
    EXPECT_EQ(def.restitution, 1.0f);
    ASSERT_TRUE(def.restitutionThreshold.has_value());
    EXPECT_EQ(*def.restitutionThreshold, 0.0f);
    EXPECT_EQ(def.gravity.x, 0.0f);
    EXPECT_EQ(def.gravity.y, 0.0f);
    EXPECT_EQ(def.threadCount, 3u);  // the rest is kept
    EXPECT_EQ(def.velocityIterations, 5u);
  }
  const WorldDef pile = scenes::worldDefFor(SceneKind::Pile, base);
  EXPECT_TRUE(pile.enableSleep);
  EXPECT_EQ(pile.restitution, 0.5f);
  ASSERT_TRUE(pile.restitutionThreshold.has_value());
  EXPECT_EQ(*pile.restitutionThreshold, 1.0f);
  EXPECT_EQ(pile.gravity.x, 0.0f);
  EXPECT_EQ(pile.gravity.y, -9.8f);
  EXPECT_EQ(pile.threadCount, 3u);
}
