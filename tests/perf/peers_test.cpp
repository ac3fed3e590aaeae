// The perf suite's peers (Box2D, Bullet, when compiled in) and baselines
// against the brute-force oracle: all of them fed the same frames side by side,
// as quadbin-perf runs them, and each must report brute force's pair set
// exactly (a < b, each pair once) on every frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <quadbin/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>

#include "structures.hpp"
#include "world_peers.hpp"

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"

using namespace quadbin;
using scenes::SceneKind;

namespace {

std::vector<std::string> expectedPeers() {
  std::vector<std::string> names;
#if QUADBIN_HAVE_BOX2D
  names.insert(names.end(), {"box2d-tree", "box2d-broadphase"});
#endif
#if QUADBIN_HAVE_BULLET
  names.insert(names.end(), {"bullet-dbvt", "bullet-sap"});
#endif
  names.emplace_back("baseline-grid");
  return names;
}

// The exact pair set: the brute-force oracle, and its sweep on x, fast
// enough to check every frame at 10,000 boxes in a Debug build
// (support/pair_oracle.hpp).
using test::bruteForcePairs;
using test::sorted;
using test::sweepPairs;

std::string describe(const std::vector<Pair>& got, const std::vector<Pair>& want) {
  return test::describePairDifference(got, want);
}

// Every peer and baseline compiled in, fed the same frames, checked against
// brute force on each.
class AllPeers {
 public:
  explicit AllPeers(const AABB& bounds) {
    for (const auto& name : perf::peerNames()) {
      peers_.push_back(perf::makePeer(name));
      peers_.back()->setBounds(bounds);
    }
  }

  /// One frame: update every peer, find pairs, compare with brute force.
  /// Returns false after the first failure (reported with `what`).
  bool frame(std::span<const AABB> boxes, const std::string& what) {
    return frame(boxes, what, bruteForcePairs(boxes));
  }
  /// The same, against the given sorted pair set.
  bool frame(std::span<const AABB> boxes, const std::string& what, const std::vector<Pair>& want) {
    for (auto& peer : peers_) {
      peer->update(boxes);
      if (!check(*peer, want, what)) return false;
    }
    return true;
  }

  /// Pairs again without an update: the same set.
  bool again(std::span<const AABB> boxes, const std::string& what) {
    const auto want = bruteForcePairs(boxes);
    for (auto& peer : peers_) {
      if (!check(*peer, want, what + " (findPairs again)")) return false;
    }
    return true;
  }

  /// Updates without finding pairs (the next frame must still be exact).
  void updateOnly(std::span<const AABB> boxes) {
    for (auto& peer : peers_) peer->update(boxes);
  }

  void expectMemory() const {
    for (const auto& peer : peers_) EXPECT_GT(peer->memoryBytes(), 0u) << peer->name();
  }

 private:
  static bool check(perf::Structure& peer, const std::vector<Pair>& want, const std::string& what) {
    std::vector<Pair> got;
    peer.findPairs(got);
    const bool ordered = std::all_of(got.begin(), got.end(), [](Pair p) { return p.a < p.b; });
    EXPECT_TRUE(ordered) << peer.name() << ", " << what << ": a pair with a >= b";
    got = sorted(std::move(got));
    EXPECT_TRUE(got == want) << peer.name() << ", " << what << ": " << describe(got, want);
    return ordered && got == want;
  }

  std::vector<std::unique_ptr<perf::Structure>> peers_;
};

std::string sceneName(SceneKind kind, std::uint32_t n) {
  return std::string(scenes::toString(kind)) + " n=" + std::to_string(n);
}

// `frames` moving frames of the scene; brute force is the oracle on every
// frame when `bruteForceEveryFrame`, else on the first and last (the sweep
// in between).
void runScene(SceneKind kind, std::uint32_t n, int frames, bool bruteForceEveryFrame) {
  auto scene = scenes::generate(kind, n);
  AllPeers peers(scene.world);
  std::vector<AABB> boxes;
  for (int f = 0; f < frames; ++f) {
    scenes::advance(scene);
    scenes::boxes(scene, boxes);
    std::vector<Pair> want;
    if (bruteForceEveryFrame || f == 0 || f == frames - 1) {
      want = bruteForcePairs(boxes);
      if (!bruteForceEveryFrame) {
        ASSERT_TRUE(sweepPairs(boxes) == want) << "the sweep is wrong";
      }
    } else {
      want = sweepPairs(boxes);
    }
    if (!peers.frame(boxes, sceneName(kind, n) + " frame=" + std::to_string(f), want)) return;
  }
  peers.expectMemory();
}

}  // namespace

TEST(Peers, RegistryListsTheCompiledInPeers) {
  EXPECT_EQ(perf::peerNames(), expectedPeers());
  const auto all = perf::structureNames();
  for (const auto& name : expectedPeers()) {
    auto peer = perf::makePeer(name);
    ASSERT_NE(peer, nullptr) << name;
    EXPECT_EQ(peer->name(), name);
    EXPECT_NE(std::find(all.begin(), all.end(), name), all.end()) << name;
    ASSERT_NE(perf::makeStructure(name), nullptr) << name;
    EXPECT_EQ(perf::makeStructure(name)->name(), name);
  }
  EXPECT_EQ(perf::makePeer("no-such-peer"), nullptr);
  EXPECT_EQ(perf::makePeer("brute-force"), nullptr);  // quadbin's own are not peers
}

TEST(Peers, ReferenceScenesAt1000) {
  for (auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    runScene(kind, 1000, 31, true);
  }
}

TEST(Peers, ReferenceScenesAt10000) {
  for (auto kind : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) {
    runScene(kind, 10000, 31, false);
  }
}

// Boxes outside the bounds given by setBounds: a fifth of the bodies drift
// out of the world further every frame (so structures with fixed bounds
// must grow or clamp), some far out (1e6) and overlapping one another, some
// straddling the border.
TEST(Peers, BoxesOutsideTheBounds) {
  auto scene = scenes::generate(SceneKind::Uniform, 1000);
  const auto world = scene.world;
  const float size = world.max.x - world.min.x;
  AllPeers peers(world);
  std::vector<AABB> boxes;
  for (int f = 0; f < 30; ++f) {
    scenes::advance(scene);
    scenes::boxes(scene, boxes);
    for (std::size_t i = 0; i < boxes.size(); i += 5) {
      const float shift = size * 0.1f * static_cast<float>(f + 1);
      const Vec2 d = i % 2 ? Vec2{shift, 0.5f * shift} : Vec2{-shift, -shift};
      boxes[i] = {boxes[i].min + d, boxes[i].max + d};
    }
    for (std::size_t i = 3; i < 60; i += 5) {  // far out, in a heap
      const auto k = static_cast<float>(i % 7);
      boxes[i] = {{1e6f + k, -1e6f + k}, {1e6f + k + 3, -1e6f + k + 3}};
    }
    boxes[1] = {{world.min.x - 5, world.min.y - 5}, {world.min.x + 5, world.min.y + 5}};
    boxes[2] = {{world.max.x - 1, world.min.y}, {world.max.x + 40, world.max.y}};  // a tall wall
    if (!peers.frame(boxes, "frame=" + std::to_string(f))) return;
  }
}

// Bodies added and removed between frames: the count grows and shrinks
// (down to none and back), persisting indices move.
TEST(Peers, BodiesAddedAndRemoved) {
  auto scene = scenes::generate(SceneKind::Clustered, 1500);
  AllPeers peers(scene.world);
  std::vector<AABB> boxes;
  for (int f = 0; f < 40; ++f) {
    scenes::advance(scene);
    scenes::boxes(scene, boxes);
    const std::size_t count = f == 20 ? 0 : (static_cast<std::size_t>(f) * 389) % 1500;
    boxes.resize(count);
    if (!peers.frame(boxes, "frame=" + std::to_string(f) + " count=" + std::to_string(count)))
      return;
  }
}

// Two updates before findPairs, and findPairs twice after one update.
TEST(Peers, UpdatesAndQueriesOutOfStep) {
  auto scene = scenes::generate(SceneKind::Mixed, 2000);
  AllPeers peers(scene.world);
  std::vector<AABB> boxes;
  for (int f = 0; f < 20; ++f) {
    scenes::advance(scene);
    scenes::boxes(scene, boxes);
    if (f % 3 == 0) {
      peers.updateOnly(boxes);
      for (int k = 0; k < 20; ++k) scenes::advance(scene);  // a big jump
      scenes::boxes(scene, boxes);
    }
    const std::string what = "frame=" + std::to_string(f);
    if (!peers.frame(boxes, what) || !peers.again(boxes, what)) return;
  }
}

TEST(Peers, EdgeCases) {
  const AABB world{{0, 0}, {100, 100}};
  AllPeers peers(world);
  ASSERT_TRUE(peers.frame({}, "empty"));
  std::vector<AABB> boxes;
  // Zero-size boxes: overlap only boxes that hold them in their interior.
  for (int i = 0; i < 50; ++i) {
    const float x = static_cast<float>(i % 10) * 10, y = static_cast<float>(i / 10) * 10;
    boxes.push_back({{x, y}, {x, y}});
  }
  boxes.push_back({{-1, -1}, {45, 45}});
  ASSERT_TRUE(peers.frame(boxes, "zero-size"));
  // Boxes that only touch on grid lines: no pairs.
  boxes.clear();
  for (int i = 0; i < 100; ++i) {
    const float x = static_cast<float>(i % 10) * 10, y = static_cast<float>(i / 10) * 10;
    boxes.push_back({{x, y}, {x + 10, y + 10}});
  }
  ASSERT_TRUE(peers.frame(boxes, "touching"));
  // A box larger than the world, and many boxes at one point.
  boxes.push_back({{-1000, -1000}, {1000, 1000}});
  for (int i = 0; i < 400; ++i) boxes.push_back({{50, 50}, {51, 51}});
  ASSERT_TRUE(peers.frame(boxes, "huge box and a heap"));
  boxes.resize(1);
  ASSERT_TRUE(peers.frame(boxes, "one box"));
}

#if QUADBIN_HAVE_BULLET
// Loading a sweep and prune is quadratic: bullet-sap refuses what would take
// hours, before touching anything.
TEST(Peers, BulletSapRefusesMillions) {
  auto sap = perf::makePeer("bullet-sap");
  const std::vector<AABB> many(250'001, AABB{{0, 0}, {1, 1}});
  EXPECT_THROW(sap->update(many), Error);
  const std::vector<AABB> two{AABB{{0, 0}, {2, 2}}, AABB{{1, 1}, {3, 3}}};
  sap->update(two);
  std::vector<Pair> pairs;
  sap->findPairs(pairs);
  EXPECT_EQ(pairs, (std::vector<Pair>{{0, 1}}));
}
#endif

// The world-step peers (Workload B) compiled in: each steps a reference
// scene with every ball kept, inside the walls, finite, and the elastic
// scene's kinetic energy about where it started.
TEST(WorldPeers, StepTheSceneInsideTheWalls) {
  std::vector<std::string> expected;
#if QUADBIN_HAVE_BOX2D
  expected.emplace_back("box2d-world");
#endif
#if QUADBIN_HAVE_CHIPMUNK
  expected.insert(expected.end(), {"chipmunk-hash", "chipmunk-bbtree"});
#endif
  EXPECT_EQ(perf::worldPeerNames(), expected);
  EXPECT_EQ(perf::makeWorldPeer("bin-grid", scenes::generate(SceneKind::Uniform, 10), {}), nullptr);
  for (const auto& name : expected) {
    for (auto kind : {SceneKind::Uniform, SceneKind::Mixed}) {
      const auto scene = scenes::generate(kind, 300);
      auto peer = perf::makeWorldPeer(name, scene, scenes::worldDefFor(kind));
      ASSERT_NE(peer, nullptr) << name;
      EXPECT_FALSE(perf::worldPeerEngine(name).empty()) << name;
      perf::BallState state;
      peer->state(state);
      const double e0 = perf::kineticEnergy(state);
      for (int step = 0; step < 30; ++step) peer->step(scenes::kDefaultDt);
      peer->state(state);
      ASSERT_EQ(state.x.size(), scene.size()) << name;
      for (std::size_t i = 0; i < state.x.size(); ++i) {
        ASSERT_TRUE(std::isfinite(state.x[i]) && std::isfinite(state.vx[i]))
            << name << " ball " << i;
        // Soft contacts may push a ball a little into a wall: half a radius.
        EXPECT_GE(state.x[i], scene.minX - 0.5 * state.r[i]) << name << " ball " << i;
        EXPECT_LE(state.x[i], scene.maxX + 0.5 * state.r[i]) << name << " ball " << i;
        EXPECT_GE(state.y[i], scene.minY - 0.5 * state.r[i]) << name << " ball " << i;
        EXPECT_LE(state.y[i], scene.maxY + 0.5 * state.r[i]) << name << " ball " << i;
      }
      EXPECT_NEAR(perf::kineticEnergy(state) / e0, 1.0, 0.1) << name;
    }
  }
}
