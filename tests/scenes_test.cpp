// The scene generator reproduces BENCHMARKS.md's reference pair counts.
#include <gtest/gtest.h>

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
