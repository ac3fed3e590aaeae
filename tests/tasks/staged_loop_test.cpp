// StagedLoop (tasks/internal/quadbin/tasks/staged_loop.hpp): stages of
// disjoint work run in order, passes until one hits nothing, and the same
// bits as a plain serial loop on every task system, including one that
// claims eight threads but runs its tasks one after the other (the region
// must never wait for a task to start).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <quadbin/tasks/staged_loop.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/on_the_caller_task_system.hpp"
#include "support/thread_pool_task_system.hpp"

namespace {

using namespace quadbin;

using OnTheCaller = test::OnTheCallerTaskSystem;

struct Row {
  std::uint32_t a, b;
};

// Random pairs over `values` values, coloured greedily (16 colours whose
// pairs share no value, then an overflow group that may), in colour order.
struct Problem {
  std::vector<Row> rows;
  std::vector<std::uint32_t> start;  // colour c is [start[c], start[c + 1]); the last: overflow
  std::uint32_t values = 0;
};

Problem makeProblem(std::uint32_t values, std::uint32_t pairs) {
  constexpr std::uint32_t kColours = 16;
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> pick(0, values - 1);
  std::vector<std::uint32_t> used(values, 0);
  std::vector<std::vector<Row>> byColour(kColours + 1);
  for (std::uint32_t k = 0; k < pairs; ++k) {
    const std::uint32_t a = pick(rng), b = pick(rng);
    if (a == b) continue;
    std::uint32_t c = 0;
    while (c < kColours && ((used[a] | used[b]) >> c & 1u) != 0) ++c;
    if (c < kColours) used[a] = used[b] = used[a] | used[b] | 1u << c;
    byColour[c].push_back({a, b});
  }
  Problem p;
  p.values = values;
  for (const auto& colour : byColour) {
    p.start.push_back(static_cast<std::uint32_t>(p.rows.size()));
    p.rows.insert(p.rows.end(), colour.begin(), colour.end());
  }
  p.start.push_back(static_cast<std::uint32_t>(p.rows.size()));
  return p;
}

struct Outcome {
  std::vector<std::uint32_t> bits;      // the values' raw bits
  std::vector<std::uint32_t> passHits;  // hits of each pass run
  std::vector<std::uint32_t> stamps;    // per row: the clock when it was last run
  std::uint32_t clock = 0;
};

// Gauss-Seidel-like: each row pulls its two values together; a row hits
// while it still moves them noticeably.
bool relaxRow(std::vector<float>& v, const Row& r) {
  const float d = (v[r.b] - v[r.a]) * 0.3f;
  v[r.a] += d;
  v[r.b] -= d * 0.5f;
  return std::abs(d) > 1e-3f;
}

std::vector<float> startValues(std::uint32_t n) {
  std::vector<float> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 2654435761u) % 1000u);
  return v;
}

// `segmented`: each stage but the serial one in three segments of uneven
// sizes (one of them empty in every third stage).
Outcome withStagedLoop(TaskSystem& tasks, const Problem& p, std::uint32_t passes,
                       bool segmented = false) {
  std::vector<float> v = startValues(p.values);
  Outcome out;
  out.stamps.assign(p.rows.size(), 0);
  StagedLoop loop;
  const auto colours = static_cast<std::uint32_t>(p.start.size() - 1);
  for (std::uint32_t c = 0; c < colours; ++c) {
    const std::uint32_t count = p.start[c + 1] - p.start[c];
    if (count == 0) continue;
    if (segmented && c + 1 < colours) {
      const std::uint32_t one = c % 3 == 0 ? 0 : count / 3 + 7 * c;
      const std::uint32_t first = std::min(count, one), second = (count - first) / 2;
      loop.addSegments(p.start[c], {first, second, count - first - second});
    } else {
      loop.add(p.start[c], count, c + 1 == colours);
    }
  }
  loop.run(
      tasks, 256, passes,
      [&](std::uint32_t begin, std::uint32_t end) {
        std::uint32_t hits = 0;
        for (std::uint32_t k = begin; k < end; ++k) {
          out.stamps[k] = out.clock;
          hits += relaxRow(v, p.rows[k]) ? 1u : 0u;
        }
        return hits;
      },
      [&] { ++out.clock; },
      [&](std::uint32_t hits) {
        out.passHits.push_back(hits);
        return hits != 0;
      });
  for (float f : v) out.bits.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

// The same as a plain loop.
Outcome serially(const Problem& p, std::uint32_t passes) {
  std::vector<float> v = startValues(p.values);
  Outcome out;
  out.stamps.assign(p.rows.size(), 0);
  for (std::uint32_t pass = 0; pass < passes; ++pass) {
    std::uint32_t hits = 0;
    for (std::size_t c = 0; c + 1 < p.start.size(); ++c) {
      if (p.start[c + 1] == p.start[c]) continue;
      ++out.clock;
      for (std::uint32_t k = p.start[c]; k < p.start[c + 1]; ++k) {
        out.stamps[k] = out.clock;
        hits += relaxRow(v, p.rows[k]) ? 1u : 0u;
      }
    }
    out.passHits.push_back(hits);
    if (hits == 0) break;
  }
  for (float f : v) out.bits.push_back(std::bit_cast<std::uint32_t>(f));
  return out;
}

void expectSame(const Outcome& got, const Outcome& want, const char* name) {
  EXPECT_EQ(got.passHits, want.passHits) << name;
  EXPECT_EQ(got.clock, want.clock) << name;
  EXPECT_TRUE(got.stamps == want.stamps) << name << ": a row ran under another stage's clock";
  EXPECT_TRUE(got.bits == want.bits) << name << ": different values";
}

// The task systems every StagedLoop test runs on: serial, one that runs its
// tasks one after another, thread pools of the given sizes, and oneTBB
// (not under ThreadSanitizer, which cannot see into it).
std::vector<std::pair<std::string, std::shared_ptr<TaskSystem>>> taskSystems(
    std::initializer_list<std::uint32_t> poolSizes) {
  std::vector<std::pair<std::string, std::shared_ptr<TaskSystem>>> systems;
  systems.emplace_back("serial", std::make_shared<SerialTaskSystem>());
  systems.emplace_back("one-after-another", std::make_shared<OnTheCaller>(8, false));
  systems.emplace_back("last-first", std::make_shared<OnTheCaller>(4, true));
  for (const std::uint32_t size : poolSizes) {
    systems.emplace_back("pool-" + std::to_string(size),
                         std::make_shared<test::ThreadPoolTaskSystem>(size));
  }
#if !defined(__SANITIZE_THREAD__)
  systems.emplace_back("tbb-2", makeTbbTaskSystem(2));
  systems.emplace_back("tbb-8", makeTbbTaskSystem(8));
#endif
  return systems;
}

TEST(StagedLoop, SameBitsAsASerialLoopOnEveryTaskSystem) {
  const Problem p = makeProblem(4000, 30000);
  ASSERT_GT(p.start.back() - p.start[p.start.size() - 2], 0u) << "the overflow group is used";
  const auto systems = taskSystems({3, 8});
  // 3 passes (all hit), 20 (more than one region), 200 (stops early).
  for (std::uint32_t passes : {3u, 20u, 200u}) {
    const Outcome want = serially(p, passes);
    ASSERT_FALSE(want.passHits.empty());
    if (passes == 200) {
      ASSERT_EQ(want.passHits.back(), 0u) << "the passes should stop on their own";
      ASSERT_LT(want.passHits.size(), 200u);
    }
    for (const auto& [name, tasks] : systems) {
      expectSame(withStagedLoop(*tasks, p, passes), want, name.c_str());
      expectSame(withStagedLoop(*tasks, p, passes, true), want, (name + " segmented").c_str());
    }
  }
}

// Stages of the given sizes, each a random matching of the values (no two
// of its rows share one); the last is the serial group.
Problem makeStages(std::uint32_t values, const std::vector<std::uint32_t>& sizes) {
  std::mt19937 rng(11);
  std::vector<std::uint32_t> perm(values);
  Problem p;
  p.values = values;
  for (const std::uint32_t size : sizes) {
    p.start.push_back(static_cast<std::uint32_t>(p.rows.size()));
    for (std::uint32_t i = 0; i < values; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (std::size_t k = 0; k < size; ++k) p.rows.push_back({perm[2 * k], perm[2 * k + 1]});
  }
  p.start.push_back(static_cast<std::uint32_t>(p.rows.size()));
  return p;
}

// Stages of one block (256 rows here) are run by the thread that ended the
// stage before, with no hand-over: runs of them, one first in a pass, one
// last, between stages of many blocks, in one region and across regions.
TEST(StagedLoop, StagesOfOneBlockRunInOrder) {
  const Problem p = makeStages(3000, {200, 1400, 30, 1, 256, 700, 257, 90, 1300, 4, 12, 40});
  const auto systems = taskSystems({2, 5});
  for (std::uint32_t passes : {1u, 2u, 9u, 17u, 200u}) {
    const Outcome want = serially(p, passes);
    for (const auto& [name, tasks] : systems) {
      for (int repeat = 0; repeat < 5; ++repeat) {
        expectSame(withStagedLoop(*tasks, p, passes), want, name.c_str());
      }
    }
  }
}

// A stage's blocks are cut into one slice per task, and a task runs its own
// slice first (the same rows, so the same balls, in every colour and pass:
// they stay in its core's cache), then what is left of the others'.
TEST(StagedLoop, EachTaskTakesItsOwnSliceFirst) {
  OnTheCaller tasks(4, true);  // task 3 of 4 runs alone
  StagedLoop loop;
  loop.add(0, 10 * 64, false);   // 10 blocks of 64: slices [0, 2) [2, 5) [5, 7) [7, 10)
  loop.add(640, 3 * 64, false);  // 3 blocks: slices [0, 0) [0, 1) [1, 2) [2, 3)
  std::vector<std::uint32_t> order;
  loop.run(
      tasks, 64, 2,
      [&](std::uint32_t begin, std::uint32_t end) {
        EXPECT_EQ(end - begin, 64u);
        order.push_back(begin < 640 ? begin / 64 : 100 + (begin - 640) / 64);
        return 1u;
      },
      [] {}, [](std::uint32_t) { return true; });
  const std::vector<std::uint32_t> pass{7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 102, 100, 101};
  std::vector<std::uint32_t> want = pass;
  want.insert(want.end(), pass.begin(), pass.end());
  EXPECT_EQ(order, want);
}

// A stage of segments: blocks never straddle two, and a task's slice is
// its share of each segment in turn.
TEST(StagedLoop, SlicesTakeTheirShareOfEverySegment) {
  OnTheCaller tasks(4, true);  // task 3 of 4 runs alone
  StagedLoop loop;
  // 3 and 5 blocks of 64: slices [0, 0) [0, 1) [1, 2) [2, 3) and
  // [0, 1) [1, 2) [2, 3) [3, 5).
  loop.addSegments(0, {3 * 64, 0, 5 * 64});
  loop.addSegments(512, {100, 30});  // blocks [512, 576) [576, 612) [612, 642)
  std::vector<std::uint32_t> begins, ends;
  loop.run(
      tasks, 64, 1,
      [&](std::uint32_t begin, std::uint32_t end) {
        begins.push_back(begin);
        ends.push_back(end);
        return 1u;
      },
      [] {}, [](std::uint32_t) { return true; });
  const std::vector<std::uint32_t> wantBegins{128, 384, 448, 192, 0, 256, 64, 320, 576, 612, 512};
  const std::vector<std::uint32_t> wantEnds{192, 448, 512, 256, 64, 320, 128, 384, 612, 642, 576};
  EXPECT_EQ(begins, wantBegins);
  EXPECT_EQ(ends, wantEnds);
}

TEST(StagedLoop, NothingToRun) {
  SerialTaskSystem serial;
  StagedLoop loop;
  int calls = 0;
  loop.run(
      serial, 64, 5, [&](std::uint32_t, std::uint32_t) { return ++calls, 0u; }, [&] { ++calls; },
      [&](std::uint32_t) { return ++calls, true; });
  EXPECT_EQ(calls, 0);
  loop.add(0, 10, false);
  loop.run(
      serial, 64, 0, [&](std::uint32_t, std::uint32_t) { return ++calls, 0u; }, [&] { ++calls; },
      [&](std::uint32_t) { return ++calls, true; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
