// Worlds are bit-identical for any thread count: the final state after
// QUADBIN_DETERMINISM_STEPS steps of each reference scene (1,000 and 20,000
// balls) compared on the raw float bits of x, y, vx, vy, for 1, 2, 3, 4 and
// 8 threads, for every parallel broad phase. 300 steps in Release; fewer in
// Debug, where a step is ten times slower, and under the sanitizers, which
// look for memory errors and races (tests/CMakeLists.txt sets the number).
// The contact list is put in canonical order before the solver, so the
// state is also the same for every broad phase; what differs per structure
// is its parallel build and pair search, which runs inside every step here.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/thread_pool_task_system.hpp"

#ifndef QUADBIN_DETERMINISM_STEPS
#define QUADBIN_DETERMINISM_STEPS 300
#endif

namespace {

using namespace quadbin;

struct Case {
  BroadPhaseType type;
  scenes::SceneKind scene;
  std::uint32_t n;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (BroadPhaseType t : allBroadPhaseTypes()) {
    if (!makeBroadPhase(t)->usesTaskSystem()) continue;
    for (auto scene :
         {scenes::SceneKind::Uniform, scenes::SceneKind::Clustered, scenes::SceneKind::Mixed}) {
      for (std::uint32_t n : {1000u, 20000u}) all.push_back({t, scene, n});
    }
  }
  return all;
}

std::string caseName(const testing::TestParamInfo<Case>& info) {
  std::string name = std::string(toString(info.param.type)) + "_" +
                     std::string(scenes::toString(info.param.scene)) + "_" +
                     std::to_string(info.param.n);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Appends the raw float bits of body id's x, y, vx and vy.
void appendBits(const World& world, BodyId id, std::vector<std::uint32_t>& bits) {
  const Vec2 p = world.position(id), v = world.velocity(id);
  for (float f : {p.x, p.y, v.x, v.y}) bits.push_back(std::bit_cast<std::uint32_t>(f));
}

struct State {
  std::vector<std::uint32_t> bits;  // x, y, vx, vy of each body, as raw float bits
  std::uint32_t contacts = 0;
};

State run(const Case& c, std::uint32_t threads, bool pool) {
  const auto scene = scenes::generate(c.scene, c.n);
  WorldDef def;
  def.broadPhase = c.type;
  def.logLevel = LogLevel::Error;
#if defined(__SANITIZE_THREAD__)
  def.taskSystem = test::makeTestTaskSystem(threads);
  (void)pool;
#else
  if (pool) {
    def.taskSystem = std::make_shared<test::ThreadPoolTaskSystem>(threads);
  } else {
    def.threadCount = threads;
  }
#endif
  World world = scenes::makeWorld(scene, def);
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  State s;
  for (int step = 0; step < QUADBIN_DETERMINISM_STEPS; ++step) {
    world.step(dt);
    s.contacts += world.stats().contacts;
  }
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) {
    appendBits(world, world.bodyAt(i), s.bits);
  }
  return s;
}

class Determinism : public testing::TestWithParam<Case> {};

TEST_P(Determinism, SameBitsForEveryThreadCount) {
  const Case c = GetParam();
#if defined(__SANITIZE_THREAD__)
  // Under TSan a step is about 20 times slower: the full matrix would take
  // about an hour on CI's two cores. The engine's parallel phases are the
  // same whatever the structure, and each structure's own parallel code is
  // run under TSan by ParallelPairs; so here one structure per family of
  // parallel code: the bin grid, the incremental quadtree, and the region
  // trees' shared machinery (leaf-quadtree; the nona-tree, dynamic-centre
  // quadtree and diagonal BSP run the same code). All of them run here in
  // the release and asan builds.
  if (c.type != BroadPhaseType::BinGrid && c.type != BroadPhaseType::Quadtree &&
      c.type != BroadPhaseType::LeafQuadtree) {
    GTEST_SKIP() << "under TSan, one structure per family of parallel code";
  }
#endif
  const State reference = run(c, 1, false);
  ASSERT_EQ(reference.bits.size(), 4u * c.n);
  EXPECT_GT(reference.contacts, 0u) << "the scene should collide";
  for (std::uint32_t threads : {2u, 3u, 4u, 8u}) {
    const State s = run(c, threads, false);
    ASSERT_EQ(s.contacts, reference.contacts) << threads << " threads";
    const auto diff = std::mismatch(s.bits.begin(), s.bits.end(), reference.bits.begin());
    ASSERT_TRUE(diff.first == s.bits.end())
        << threads << " threads: body " << (diff.first - s.bits.begin()) / 4 << " differs";
  }
#if !defined(__SANITIZE_THREAD__)
  // A scheduler of the game's own, through WorldDef::taskSystem (on the
  // small scenes only: it changes nothing the thread counts do not cover).
  if (c.n <= 1000) {
    const State s = run(c, 3, true);
    EXPECT_TRUE(s.bits == reference.bits) << "thread pool";
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(ParallelStructures, Determinism, testing::ValuesIn(cases()), caseName);

}  // namespace

namespace {

// A pile under gravity with sleeping on: islands fall asleep and wake in
// the same steps, and the state is the same bits, for any thread count.
std::vector<std::uint32_t> pileState(std::uint32_t threads) {
  WorldDef def;
  def.bounds = {{0, 0}, {50, 80}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.5f;
  def.logLevel = LogLevel::Error;
#if defined(__SANITIZE_THREAD__)
  def.taskSystem = test::makeTestTaskSystem(threads);
#else
  def.threadCount = threads;
#endif
  World world(def);
  for (std::uint32_t i = 0; i < 400; ++i) {
    const float x = 2.0f + static_cast<float>(i % 20) * 2.3f + static_cast<float>(i % 7) * 0.01f;
    const float y = 2.0f + static_cast<float>(i / 20) * 2.4f;
    world.createBody(BodyDef::ball({x, y}, 1.0f, {static_cast<float>(i % 5) - 2.0f, 0.0f}));
  }
  std::vector<std::uint32_t> bits;
  for (int step = 0; step < 240; ++step) {
    world.step(1.0f / 60.0f);
    bits.push_back(world.stats().awakeBodies);
  }
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) {
    const BodyId id = world.bodyAt(i);
    appendBits(world, id, bits);
    bits.push_back(world.isAwake(id) ? 1u : 0u);
  }
  return bits;
}

}  // namespace

TEST(Determinism, SleepingPileSameBitsForEveryThreadCount) {
  const std::vector<std::uint32_t> reference = pileState(1);
  for (std::uint32_t threads : {2u, 3u, 4u, 8u}) {
    EXPECT_TRUE(pileState(threads) == reference) << threads << " threads";
  }
}

namespace {

// A hexagonal lattice of 36,100 balls packed 2 % too tight, created in a
// shuffled order, with random velocities: about three touching contacts
// per ball (more than 100,000 rows in every colour loop, in a few dozen
// colours), resting iterations, impacts and position passes all busy. The
// colour loop runs them in one parallel region per run of passes
// (StagedLoop); the state must be the same bits for 1, 2 and 8 threads.
struct DenseState {
  std::vector<std::uint32_t> bits;
  std::uint64_t contacts = 0, impulses = 0;
  std::uint32_t firstContacts = 0;
};

DenseState denseLattice(std::uint32_t threads) {
  constexpr std::uint32_t kSide = 190;
  constexpr float kSpacing = 0.98f;  // radius 0.5: neighbours overlap by 0.02
  WorldDef def;
  def.bounds = {{-2.0f, -2.0f}, {kSide * kSpacing + 3.0f, kSide * kSpacing + 3.0f}};
  def.logLevel = LogLevel::Error;
#if defined(__SANITIZE_THREAD__)
  def.taskSystem = test::makeTestTaskSystem(threads);
#else
  def.threadCount = threads;
#endif
  World world(def);
  std::vector<std::uint32_t> order(std::size_t{kSide} * kSide);
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(10);
  std::shuffle(order.begin(), order.end(), rng);
  std::uniform_real_distribution<float> speed(-1.0f, 1.0f);
  for (const std::uint32_t k : order) {
    const std::uint32_t row = k / kSide, col = k % kSide;
    const float x = (static_cast<float>(col) + 0.5f * static_cast<float>(row % 2)) * kSpacing;
    const float y = static_cast<float>(row) * kSpacing * 0.8660254f;
    const float vx = speed(rng), vy = speed(rng);
    world.createBody(BodyDef::ball({x, y}, 0.5f, {vx, vy}));
  }
  DenseState s;
  const int steps = std::min(QUADBIN_DETERMINISM_STEPS, 20);
  for (int step = 0; step < steps; ++step) {
    world.step(1.0f / 60.0f);
    if (step == 0) s.firstContacts = world.stats().contacts;
    s.contacts += world.stats().contacts;
    s.impulses += world.stats().impulses;
  }
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) {
    appendBits(world, world.bodyAt(i), s.bits);
  }
  return s;
}

}  // namespace

TEST(Determinism, DenseLatticeSameBitsFor1To8Threads) {
  const DenseState reference = denseLattice(1);
  ASSERT_GT(reference.firstContacts, 100000u) << "the lattice should be dense";
  EXPECT_GT(reference.impulses, 0u) << "impacts should run too";
  for (std::uint32_t threads : {2u, 8u}) {
    const DenseState s = denseLattice(threads);
    EXPECT_EQ(s.contacts, reference.contacts) << threads << " threads";
    EXPECT_EQ(s.impulses, reference.impulses) << threads << " threads";
    const auto diff = std::mismatch(s.bits.begin(), s.bits.end(), reference.bits.begin());
    EXPECT_TRUE(diff.first == s.bits.end())
        << threads << " threads: body " << (diff.first - s.bits.begin()) / 4 << " differs";
  }
}
