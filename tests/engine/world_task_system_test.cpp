// World::setThreadCount: systems are reused per count, so any number of
// calls costs a bounded amount of memory, and a replaced system is let go.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <quadbin/quadbin.hpp>
#include <set>
#include <string>

using namespace quadbin;

namespace {

// Resident memory of this process in KiB (Linux), or -1.
long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

// Runs parallel work on the world's system, so that an arena is really
// entered (oneTBB keeps the memory of every arena that ran work).
void useTasks(World& w) {
  std::atomic<std::uint32_t> sum{0};
  w.taskSystem().parallelFor(64, 1, [&](std::uint32_t begin, std::uint32_t end) {
    sum.fetch_add(end - begin, std::memory_order_relaxed);
  });
  ASSERT_EQ(sum.load(), 64u);
}

}  // namespace

TEST(WorldTaskSystem, TheCountInUseKeepsItsSystem) {
  WorldDef def;
  def.threadCount = 3;
  World w(def);
  TaskSystem* first = &w.taskSystem();
  for (int i = 0; i < 100; ++i) w.setThreadCount(3);
  EXPECT_EQ(&w.taskSystem(), first);
  w.setThreadCount(2);
  EXPECT_NE(&w.taskSystem(), first);
  EXPECT_EQ(w.taskSystem().threadCount(), 2u);
  w.setThreadCount(3);  // back to the first count: its system again
  EXPECT_EQ(&w.taskSystem(), first);
  EXPECT_EQ(w.def().threadCount, 3u);
}

TEST(WorldTaskSystem, AReplacedGameSystemIsLetGo) {
  auto mine = makeTbbTaskSystem(2);
  const std::weak_ptr<TaskSystem> watch = mine;
  WorldDef def;
  def.taskSystem = std::move(mine);
  World w(def);
  def.taskSystem = nullptr;  // the world holds the only reference now
  w.createBody(BodyDef::ball({50, 50}, 1, {1, 0}));
  w.step(1.0f / 60.0f);
  EXPECT_FALSE(watch.expired());
  w.setThreadCount(1);
  EXPECT_TRUE(watch.expired()) << "the world still holds the system it replaced";
  EXPECT_EQ(w.def().taskSystem, nullptr);
  w.step(1.0f / 60.0f);
}

// 10,000 calls over four counts, each system put to work: at most four
// systems ever exist, and resident memory does not grow with the calls
// (before, every call made a oneTBB arena that was never given back:
// about 80 MiB over such a loop).
TEST(WorldTaskSystem, TenThousandCallsDoNotGrowMemory) {
  World w;
  w.createBody(BodyDef::ball({50, 50}, 1, {1, 0}));
  std::set<const TaskSystem*> seen;
  auto round = [&](int calls) {
    for (int i = 0; i < calls; ++i) {
      w.setThreadCount(static_cast<std::uint32_t>(1 + i % 4));
      seen.insert(&w.taskSystem());
      if (i % 10 < 4) useTasks(w);  // 4,000 arena entries in all
    }
  };
  round(100);  // every system made, arenas warm
  [[maybe_unused]] const long before = residentKiB();
  round(10'000);
  [[maybe_unused]] const long after = residentKiB();
  EXPECT_EQ(seen.size(), 4u);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // (Sanitizers hold freed memory back, so resident size says nothing there.)
  if (before > 0) {
    EXPECT_LT(after - before, 2048) << before << " KiB -> " << after << " KiB";
  }
#endif
  w.step(1.0f / 60.0f);
}
