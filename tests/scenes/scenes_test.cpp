// The scene generator reproduces docs/benchmarks.md's reference pair counts; the
// pile is deterministic and starts without overlaps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <quadbin/broadphase.hpp>
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

// The scene-file contract (docs/perf-cli.md, "Scene files"): what is
// accepted, and that every refusal names file:line and the problem.
namespace {

const std::string kWorld10 = "# world 0 0 10 10\nx,y,vx,vy,radius\n";

scenes::Scene read(const std::string& text,
                   scenes::Placement placement = scenes::Placement::InsideWorld) {
  std::istringstream in(text);
  return scenes::readScene(in, "f.csv", placement);
}

// Refused, with a message that holds every one of `mentions`; returns it.
std::string refusal(const std::string& text, std::initializer_list<std::string> mentions,
                    scenes::Placement placement = scenes::Placement::InsideWorld) {
  try {
    (void)read(text, placement);
  } catch (const Error& e) {
    std::string what = e.what();
    for (const auto& m : mentions) {
      EXPECT_NE(what.find(m), std::string::npos) << m << " in " << what;
    }
    return what;
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  return {};
}

}  // namespace

TEST(SceneFile, DenormalsAreNumbersAndUnderflowReadsAsZero) {
  const auto s = read(kWorld10 + "5,5,1e-310,4.9406564584124654e-324,1\n5,5,1e-400,-1e-400,1\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.vx[0], std::strtod("1e-310", nullptr));
  EXPECT_GT(s.vx[0], 0.0);
  EXPECT_EQ(s.vy[0], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(s.vx[1], 0.0);
  EXPECT_EQ(s.vy[1], 0.0);
  const auto w = read("# world 1e-310 0 10 10\nx,y,vx,vy,radius\n");
  EXPECT_EQ(w.minX, std::strtod("1e-310", nullptr));
}

TEST(SceneFile, OverflowNanAndInfinityAreRefused) {
  refusal(kWorld10 + "5,5,1e400,0,1\n", {"f.csv:3", "vx", "'1e400'", "too large"});
  refusal(kWorld10 + "5,5,0,-1e309,1\n", {"f.csv:3", "vy", "too large"});
  for (const char* token : {"nan", "NaN", "-nan", "nan(0x1)", "inf", "-inf", "infinity", "INF"}) {
    refusal(kWorld10 + "5,5," + token + ",0,1\n", {"f.csv:3", "vx", "not finite"});
    refusal(kWorld10 + token + ",5,0,0,1\n", {"f.csv:3", "x", "not finite"});
    refusal(kWorld10 + "5,5,0,0," + token + "\n", {"f.csv:3", "radius"});
    refusal(std::string("# world 0 ") + token + " 10 10\nx,y,vx,vy,radius\n",
            {"f.csv:1", "MINY", "not finite"});
  }
}

TEST(SceneFile, TrailingJunkOnTheWorldLineIsRefused) {
  refusal("# world 0 0 100 100 junk\nx,y,vx,vy,radius\n", {"f.csv:1", "'junk'", "MAXY"});
  refusal("# world 0 0 100 100 5\nx,y,vx,vy,radius\n", {"f.csv:1", "'5'"});
  refusal("# world 0 0 100\nx,y,vx,vy,radius\n", {"f.csv:1", "4 numbers"});
  refusal("# world 0 0 100 100x\nx,y,vx,vy,radius\n", {"f.csv:1", "MAXY", "'100x'"});
  refusal("#world 0 0 100 100\nx,y,vx,vy,radius\n", {"f.csv:1", "# world MINX"});
  refusal("# World 0 0 100 100\nx,y,vx,vy,radius\n", {"f.csv:1", "# world MINX"});
}

TEST(SceneFile, BlanksAtLineEndsAndAroundFieldsAreAccepted) {
  const auto s = read(
      "# world 0 0 10 10 \t\r\n"
      "x,y,vx,vy,radius \r\n"
      "5,5,0,0,1 \n"
      "5,5,0,0,1\t\r\n"
      " 4 , 6 ,\t1, -2 ,0.5\r\n"
      "5,5,0,0,1\r\n");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s.x[2], 4.0);
  EXPECT_EQ(s.y[2], 6.0);
  EXPECT_EQ(s.vx[2], 1.0);
  EXPECT_EQ(s.vy[2], -2.0);
  EXPECT_EQ(s.r[2], 0.5);
  EXPECT_EQ(s.maxY, 10.0);
}

TEST(SceneFile, JunkInOrAfterANumberIsRefused) {
  refusal(kWorld10 + "5,5,0,0,1 x\n", {"f.csv:3", "radius", "'1 x'", "not a number"});
  refusal(kWorld10 + "5,5,0,0,1x\n", {"f.csv:3", "'1x'", "not a number"});
  refusal(kWorld10 + "5,5,0 0,0,1\n", {"f.csv:3", "vx", "'0 0'"});
  refusal(kWorld10 + "5,,0,0,1\n", {"f.csv:3", "y", "empty"});
  refusal(kWorld10 + "5,5,0,0,\n", {"f.csv:3", "radius", "empty"});
  refusal(kWorld10 + "5,5,0,0,\v1\n", {"f.csv:3", "radius", "not a number"});
  refusal(kWorld10 + "5,5,0,0,1,\n", {"f.csv:3", "5 comma", "got 6"});
  refusal(kWorld10 + "5;5;0;0;1\n", {"f.csv:3", "5 comma", "got 1"});
  refusal(kWorld10 + "5,5,0,0,1\n5,5,0,0,1 # note\n", {"f.csv:4", "radius", "not a number"});
}

TEST(SceneFile, EmptyAndCommentLinesAreSkippedAfterTheWorldLine) {
  const auto s = read(
      "# world 0 0 10 10\n"
      "\n"
      "# written by hand\n"
      "x,y,vx,vy,radius\n"
      "\n"
      "   # a comment\n"
      "1,1,0,0,1\n"
      "\t\r\n"
      "#\n"
      "2,2,0,0,1\n"
      "\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.x[1], 2.0);
  EXPECT_EQ(read("# world 0 0 1 1\nx,y,vx,vy,radius\n").size(), 0u);
  // Line numbers count the skipped lines.
  refusal("# world 0 0 10 10\n\n# c\nx,y,vx,vy,radius\n\n1,1,0,0,abc\n", {"f.csv:6", "'abc'"});
  // The world line comes first.
  refusal("\n# world 0 0 10 10\nx,y,vx,vy,radius\n", {"f.csv:1", "# world MINX"});
  refusal("# a comment\n# world 0 0 10 10\nx,y,vx,vy,radius\n", {"f.csv:1", "# world MINX"});
}

TEST(SceneFile, AMissingOrWrongHeaderIsRefused) {
  refusal("", {"f.csv:1", "empty file"});
  refusal("# world 0 0 10 10\n", {"f.csv:2", "missing header"});
  refusal("# world 0 0 10 10\n\n# c\n", {"f.csv:4", "missing header"});
  refusal("# world 0 0 10 10\n1,1,0,0,1\n", {"f.csv:2", "expected header"});
  refusal("# world 0 0 10 10\nx, y, vx, vy, radius\n", {"f.csv:2", "expected header"});
  refusal("x,y,vx,vy,radius\n1,1,0,0,1\n", {"f.csv:1", "# world MINX"});
}

TEST(SceneFile, TheWorldNeedsMinBelowMaxInDoubleAndFloat) {
  refusal("# world 0 0 0 10\nx,y,vx,vy,radius\n", {"f.csv:1", "MIN < MAX"});
  refusal("# world 0 5 10 5\nx,y,vx,vy,radius\n", {"f.csv:1", "MIN < MAX"});
  refusal("# world 0 6 10 5\nx,y,vx,vy,radius\n", {"f.csv:1", "MIN < MAX"});
  // 1e-50 and 1 + 1e-12 round to the float MIN: no World has such bounds.
  refusal("# world 0 0 1e-50 10\nx,y,vx,vy,radius\n", {"f.csv:1", "float"});
  refusal("# world 0 1 10 1.000000000001\nx,y,vx,vy,radius\n", {"f.csv:1", "float"});
  EXPECT_EQ(read("# world 0 0 1e-30 10\nx,y,vx,vy,radius\n").maxX, 1e-30);
}

TEST(SceneFile, ABallMustLieInsideTheWorld) {
  // Touching the walls is inside: r <= x <= MAXX - r.
  const auto s = read("# world -4 2 10 12\nx,y,vx,vy,radius\n-3,3,0,0,1\n9,11,0,0,1\n");
  ASSERT_EQ(s.size(), 2u);
  World w = scenes::makeWorld(s);
  EXPECT_EQ(w.bodyCount(), 2u);
  refusal(kWorld10 + "50,5,0,0,1\n", {"f.csv:3", "x = 50", "outside the world", "1 <= x <= 9"});
  refusal(kWorld10 + "5,5,0,0,1\n0.5,5,0,0,1\n", {"f.csv:4", "x = 0.5", "1 <= x <= 9"});
  refusal(kWorld10 + "5,9.5,0,0,1\n", {"f.csv:3", "y = 9.5", "1 <= y <= 9"});
  refusal(kWorld10 + "5,-5,0,0,1\n", {"f.csv:3", "y = -5"});
  refusal(kWorld10 + "9.000000000000002,5,0,0,1\n", {"f.csv:3", "outside the world"});
  // pairs's files: the world is only the bounds, balls may lie anywhere.
  const auto anywhere = read(kWorld10 + "50,-5,0,0,1\n", scenes::Placement::Anywhere);
  ASSERT_EQ(anywhere.size(), 1u);
  EXPECT_EQ(anywhere.x[0], 50.0);
  EXPECT_EQ(anywhere.y[0], -5.0);
}

TEST(SceneFile, ARadiusWiderThanTheWorldIsRefusedWithItsLine) {
  refusal(kWorld10 + "5,5,0,0,6\n", {"f.csv:3", "radius 6", "does not fit", "on x"});
  refusal("# world 0 0 100 10\nx,y,vx,vy,radius\n50,5,0,0,5.5\n", {"f.csv:3", "on y"});
  refusal("# world 0 0 1e-30 10\nx,y,vx,vy,radius\n0,5,0,0,1\n", {"f.csv:3", "does not fit"});
  EXPECT_EQ(read(kWorld10 + "5,5,0,0,5\n").size(), 1u);  // exactly as wide
  EXPECT_EQ(read(kWorld10 + "5,5,0,0,60\n", scenes::Placement::Anywhere).r[0], 60.0);
}

TEST(SceneFile, ABallThatFitsOnlyInDoubleIsRefused) {
  // Found by search: MINX + r <= x <= MAXX - r holds in double, but once
  // rounded to float the ball spans more than the world (first), or the
  // World's own test (x - r >= MINX in float) fails (second).
  refusal("# world 1.1 0 44.4334 100\nx,y,vx,vy,radius\n22.7667,50,0,0,21.6667\n",
          {"f.csv:3", "float"});
  refusal("# world 1000.7 0 1077.439 100\nx,y,vx,vy,radius\n1039.0695,50,0,0,38.3695\n",
          {"f.csv:3", "float"});
  // makeWorld refuses them too, rather than clamp with lo > hi.
  auto s = read("# world 1.1 0 44.4334 100\nx,y,vx,vy,radius\n22.7667,50,0,0,21.6667\n",
                scenes::Placement::Anywhere);
  EXPECT_THROW((void)scenes::makeWorld(s), Error);
}

TEST(SceneFile, ZeroOrNegativeRadiiAreRefused) {
  for (const char* r : {"0", "-0", "-1", "-1e-310", "0x0p0"}) {
    refusal(kWorld10 + "5,5,0,0," + r + "\n", {"f.csv:3", "radius", "must be > 0"});
  }
}

TEST(SceneFile, ValuesOutsideTheWorldsLimitsAreRefusedWithTheLimit) {
  const std::string big = "# world -1e7 -1e7 1e7 1e7\nx,y,vx,vy,radius\n";
  refusal("# world -2e7 0 10 10\nx,y,vx,vy,radius\n", {"f.csv:1", "MINX", "1e+07"});
  refusal("# world 0 0 10 10000000.5\nx,y,vx,vy,radius\n", {"f.csv:1", "MAXY", "1e+07"});
  refusal(big + "2e7,0,0,0,1e7\n", {"f.csv:3", "x", "1e+07"}, scenes::Placement::Anywhere);
  refusal(big + "0,-1.5e7,0,0,1e7\n", {"f.csv:3", "y", "1e+07"}, scenes::Placement::Anywhere);
  refusal(big + "0,0,0,0,1e-7\n", {"f.csv:3", "radius", "1e-06", "1e+07"});
  refusal(big + "0,0,0,0,2e7\n", {"f.csv:3", "radius", "1e-06", "1e+07"},
          scenes::Placement::Anywhere);
  refusal(big + "9e6,0,0,0,1\n", {"f.csv:3", "radius", "2^-20"});
  refusal(big + "0,0,2e8,0,1\n", {"f.csv:3", "velocity", "1e+08"});
  refusal(big + "0,0,8e7,-8e7,1\n", {"f.csv:3", "velocity", "1e+08"});  // |v| = 1.13e8
  // At the limits: accepted, and the World takes it and steps.
  const auto s = read(big +
                      "0,0,1e8,0,1e7\n"
                      "-8e6,9e6,0,-1e8,9\n"
                      "0.5,0.5,6e7,8e7,1e-6\n");
  ASSERT_EQ(s.size(), 3u);
  World w = scenes::makeWorld(s, scenes::worldDefFor(SceneKind::Uniform));
  EXPECT_EQ(w.bodyCount(), 3u);
  w.step(1.0f / 60.0f);
}

TEST(SceneFile, ErrorsQuoteAtMostFortyCharactersOfAToken) {
  const std::string digits(1'000'000, '7');
  const std::string what = refusal(kWorld10 + "5,5,0,0," + digits + "\n", {"f.csv:3", "radius"});
  EXPECT_LT(what.size(), 200u) << what.substr(0, 300);
  EXPECT_NE(what.find("'" + std::string(40, '7') + "...'"), std::string::npos) << what;
  const std::string junk = refusal(kWorld10 + "5,5,0,0,1" + std::string(5000, 'x') + "\n", {});
  EXPECT_LT(junk.size(), 200u);
  const std::string header = refusal("# world 0 0 10 10\n" + std::string(100000, 'h') + "\n", {});
  EXPECT_LT(header.size(), 200u);
  const std::string world = refusal("# universe " + std::string(100000, 'u') + "\n", {});
  EXPECT_LT(world.size(), 200u);
  const std::string wide = refusal("# world 0 0 10 " + digits + "\nx,y,vx,vy,radius\n", {});
  EXPECT_LT(wide.size(), 200u);
  // A million-digit number that is a double is read.
  EXPECT_EQ(read(kWorld10 + "5,5,0." + digits + ",0,1\n").vx[0], 0.7777777777777778);
}

TEST(SceneFile, WhatMakeWorldRefusesIsNamed) {
  scenes::Scene s = read(kWorld10 + "5,5,0,0,1\n");
  s.x[0] = 50.0;  // placed by hand, outside
  try {
    (void)scenes::makeWorld(s);
    ADD_FAILURE() << "makeWorld accepted a ball outside the world";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ball 0"), std::string::npos) << e.what();
  }
  s.x[0] = 5.0;
  s.r[0] = 6.0;  // wider than the world: no clamp with lo > hi
  EXPECT_THROW((void)scenes::makeWorld(s), Error);
}
