// Broad phases on a task system: the same pairs, in the same order, for
// 1, 2, 3, 4 and 8 threads as serially, on the reference scenes at sizes
// where the work is really split (several chunks, several subtree tasks);
// and still exactly the strict-overlap set.
#include <gtest/gtest.h>

#include <algorithm>
#include <quadbin/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

#include "support/pair_diff.hpp"
#include "support/pair_oracle.hpp"
#include "support/thread_pool_task_system.hpp"

namespace {

using namespace quadbin;

std::vector<BroadPhaseType> parallelTypes() {
  std::vector<BroadPhaseType> types;
  for (BroadPhaseType t : allBroadPhaseTypes()) {
    if (makeBroadPhase(t)->usesTaskSystem()) types.push_back(t);
  }
  return types;
}

struct Case {
  BroadPhaseType type;
  scenes::SceneKind scene;
  std::uint32_t n;
};

std::string caseName(const testing::TestParamInfo<Case>& info) {
  std::string name = std::string(toString(info.param.type)) + "_" +
                     std::string(scenes::toString(info.param.scene)) + "_" +
                     std::to_string(info.param.n);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (BroadPhaseType t : parallelTypes()) {
    for (auto scene :
         {scenes::SceneKind::Uniform, scenes::SceneKind::Clustered, scenes::SceneKind::Mixed}) {
      for (std::uint32_t n : {1000u, 20000u}) all.push_back({t, scene, n});
    }
  }
  return all;
}

class ParallelPairs : public testing::TestWithParam<Case> {};

// Frames of the scene's motion, pairs of each frame.
std::vector<std::vector<Pair>> run(const Case& c, const std::shared_ptr<TaskSystem>& tasks) {
  constexpr int kFrames = 3;
  auto scene = scenes::generate(c.scene, c.n);
  auto bp = makeBroadPhase(c.type);
  bp->setBounds(scene.world);
  if (tasks) bp->setTaskSystem(tasks);
  std::vector<std::vector<Pair>> frames;
  std::vector<AABB> boxes;
  for (int f = 0; f < kFrames; ++f) {
    scenes::boxes(scene, boxes);
    bp->update(boxes);
    frames.emplace_back();
    bp->findPairs(frames.back());
    for (int k = 0; k < 10; ++k) scenes::advance(scene);
  }
  return frames;
}

TEST_P(ParallelPairs, SameListForEveryThreadCount) {
  const Case c = GetParam();
  const auto serial = run(c, nullptr);
  // Exact: the brute-force oracle's set (its sweep form, for the large scenes).
  {
    auto scene = scenes::generate(c.scene, c.n);
    std::vector<AABB> boxes;
    scenes::boxes(scene, boxes);
    ASSERT_EQ(test::sorted(serial.front()), test::sweepPairs(boxes));
  }
  for (std::uint32_t threads : {1u, 2u, 3u, 4u, 8u}) {
    const auto parallel = run(c, test::makeTestTaskSystem(threads));
    ASSERT_EQ(parallel.size(), serial.size());
    for (std::size_t f = 0; f < serial.size(); ++f) {
      ASSERT_EQ(parallel[f], serial[f]) << threads << " threads, frame " << f;
    }
  }
#if !defined(__SANITIZE_THREAD__)
  const auto pool = run(c, std::make_shared<test::ThreadPoolTaskSystem>(3));
  EXPECT_EQ(pool, serial) << "a user-supplied scheduler";
#endif
}

INSTANTIATE_TEST_SUITE_P(AllParallelStructures, ParallelPairs, testing::ValuesIn(cases()),
                         caseName);

// findPairsInto puts the same pairs, in the same order, in place of what
// the list held (longer or shorter lists of other pairs, on 3 threads);
// the driver's box pass on a task system gives the serial boxes.
TEST(ParallelPairs, FindPairsIntoReplacesWhatTheListHeld) {
  const auto tasks = test::makeTestTaskSystem(3);
  for (BroadPhaseType type : allBroadPhaseTypes()) {
    if (type == BroadPhaseType::BruteForce) continue;  // n^2 / 2 at 20,000
    for (auto kind : {scenes::SceneKind::Uniform, scenes::SceneKind::Clustered}) {
      auto scene = scenes::generate(kind, 20000);
      auto appended = makeBroadPhase(type), replaced = makeBroadPhase(type);
      for (auto* bp : {appended.get(), replaced.get()}) {
        bp->setBounds(scene.world);
        bp->setTaskSystem(tasks);
      }
      std::vector<AABB> boxes, serialBoxes;
      std::vector<Pair> into(250000, Pair{7, 9});  // more than any frame's pairs
      for (int f = 0; f < 4; ++f) {
        scenes::boxes(scene, boxes, *tasks);
        scenes::boxes(scene, serialBoxes);
        ASSERT_EQ(boxes, serialBoxes);
        appended->update(boxes);
        replaced->update(boxes);
        std::vector<Pair> expected;
        appended->findPairs(expected);
        replaced->findPairsInto(into);
        ASSERT_EQ(into, expected) << toString(type) << " frame " << f;
        if (f == 1) into.resize(3);  // then fewer than the pairs
        for (int k = 0; k < 10; ++k) scenes::advance(scene);
      }
    }
  }
}

TEST(ParallelPairs, SomeStructuresAreParallel) {
  const auto types = parallelTypes();
  EXPECT_NE(std::find(types.begin(), types.end(), BroadPhaseType::BinGrid), types.end());
}

}  // namespace

namespace {

// The quadtree's parallel top-down build gives the tree of one-by-one
// insertion in index order: same nodes, same lists, so the same pairs in the
// same order (a tight tree's pair order does not depend on node numbers).
TEST(ParallelQuadtree, TopDownBuildEqualsInsertionOneByOne) {
  for (auto kind :
       {scenes::SceneKind::Uniform, scenes::SceneKind::Clustered, scenes::SceneKind::Mixed}) {
    auto scene = scenes::generate(kind, 30000);
    std::vector<AABB> boxes;
    scenes::boxes(scene, boxes);
    QuadtreeBroadPhase topDown, oneByOne;
    topDown.setBounds(scene.world);
    oneByOne.setBounds(scene.world);
    topDown.setTaskSystem(test::makeTestTaskSystem(4));
    topDown.update(boxes);
    oneByOne.update(std::span<const AABB>(boxes).first(1));  // a root, then inserts
    oneByOne.update(boxes);
    EXPECT_EQ(oneByOne.movedLastUpdate(), boxes.size() - 1);
    EXPECT_EQ(topDown.nodeCount(), oneByOne.nodeCount()) << scenes::toString(kind);
    std::vector<Pair> a, b;
    topDown.findPairs(a);
    oneByOne.findPairs(b);
    EXPECT_EQ(a, b) << scenes::toString(kind);
    // And the incremental frames after it agree too.
    for (int f = 0; f < 3; ++f) {
      for (int k = 0; k < 5; ++k) scenes::advance(scene);
      scenes::boxes(scene, boxes);
      topDown.update(boxes);
      oneByOne.update(boxes);
      a.clear();
      b.clear();
      topDown.findPairs(a);
      oneByOne.findPairs(b);
      EXPECT_EQ(a, b) << scenes::toString(kind) << " frame " << f;
    }
  }
}

}  // namespace
