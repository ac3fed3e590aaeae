// inOneRegion (tasks/internal/quadbin/tasks/one_region.hpp): a sequence of
// parallel calls with serial work between them gives the bits of the same
// calls on one thread, on every task system (TBB, a std::thread pool that
// TSan sees through, one that runs its tasks one after the other), runs
// every task of every phase once, keeps nested calls inline, passes
// exceptions on, draws the calls on other task systems in, and is traced
// as regions joined to the first.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <quadbin/tasks/one_region.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <quadbin/tasks/trace.hpp>
#include <random>
#include <stdexcept>
#include <vector>

#include "support/on_the_caller_task_system.hpp"
#include "support/thread_pool_task_system.hpp"

namespace {

using namespace quadbin;

// A pipeline of dependent phases: chunked sums, their prefix (serial, on
// the leader), a scatter that reads it, a forkJoin over a count the
// previous phase decided, repeated for `rounds`.
std::vector<std::uint64_t> pipeline(TaskSystem& tasks, std::uint32_t n, std::uint32_t rounds,
                                    std::uint32_t width = 64) {
  std::vector<std::uint64_t> a(n), out(n);
  std::iota(a.begin(), a.end(), 1);
  std::vector<std::uint64_t> sums;
  inOneRegion(tasks, width, [&](TaskSystem& team) {
    for (std::uint32_t r = 0; r < rounds; ++r) {
      constexpr std::uint32_t kChunk = 1000;
      const std::uint32_t chunks = chunkCount(n, kChunk);
      sums.assign(chunks, 0);
      forEachChunk(team, n, kChunk, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) sums[c] += a[i] * (r + 1);
      });
      std::uint64_t running = 0;
      for (std::uint64_t& s : sums) running = std::exchange(s, running) + s;
      team.parallelFor(n, 333, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) out[i] = sums[i / kChunk] ^ (a[i] << 3);
      });
      const auto many = static_cast<std::uint32_t>(running % 7);  // 0 to 6 tasks
      team.forkJoin(many, [&](std::uint32_t t) { out[t] += t + running; });
      a.swap(out);
    }
  });
  return a;
}

TEST(OneRegion, SameBitsOnEveryTaskSystem) {
  SerialTaskSystem serial;
  const std::vector<std::uint64_t> expected = pipeline(serial, 20'000, 40);
  for (const std::uint32_t threads : {2u, 3u, 8u, 16u, 64u}) {
#if !defined(__SANITIZE_THREAD__)  // TSan cannot see TBB's hand-offs (docs/concurrency.md)
    const auto tbb = makeTbbTaskSystem(threads);
    EXPECT_EQ(pipeline(*tbb, 20'000, 40), expected) << "TBB, " << threads << " threads";
#endif
    test::ThreadPoolTaskSystem pool(threads);
    EXPECT_EQ(pipeline(pool, 20'000, 40), expected) << "pool, " << threads << " threads";
  }
#if !defined(__SANITIZE_THREAD__)
  // More threads than a region keeps its slices for in itself.
  const auto wide = makeTbbTaskSystem(80);
  EXPECT_EQ(pipeline(*wide, 20'000, 40, 80), expected) << "TBB, 80 threads";
#endif
  test::OnTheCallerTaskSystem one(8, true);  // the last task comes first
  EXPECT_EQ(pipeline(one, 20'000, 40), expected) << "tasks one after another";
  TaskTrace trace;
  TracingTaskSystem tracing(trace);
  EXPECT_EQ(pipeline(tracing, 20'000, 40), expected) << "traced";
}

TEST(OneRegion, EveryTaskOfEveryPhaseOnce) {
  // Thousands of short phases of random sizes: the claims of one phase
  // never leak into the next.
  for (const std::uint32_t threads : {2u, 4u, 16u}) {
    test::ThreadPoolTaskSystem pool(threads);
    std::mt19937 rng(threads);
    std::vector<std::uint32_t> sizes(5'000);
    for (std::uint32_t& s : sizes) s = static_cast<std::uint32_t>(rng() % 40);
    std::vector<std::atomic<std::uint32_t>> runs(64);
    std::uint64_t missing = 0;
    inOneRegion(pool, threads, [&](TaskSystem& team) {
      for (const std::uint32_t size : sizes) {
        for (auto& r : runs) r.store(0, std::memory_order_relaxed);
        if (size % 2 == 0) {
          team.forkJoin(size, [&](std::uint32_t t) { runs[t].fetch_add(1); });
        } else {
          team.parallelFor(size, 2, [&](std::uint32_t begin, std::uint32_t end) {
            for (std::uint32_t t = begin; t < end; ++t) runs[t].fetch_add(1);
          });
        }
        for (std::uint32_t t = 0; t < runs.size(); ++t) {
          missing += runs[t].load(std::memory_order_relaxed) != (t < size ? 1u : 0u);
        }
      }
    });
    EXPECT_EQ(missing, 0u) << threads << " threads";
  }
}

TEST(OneRegion, NestedCallsRunInsideTheRegion) {
  test::ThreadPoolTaskSystem pool(4);
  std::vector<std::uint32_t> cells(std::size_t{64} * 64, 0);
  std::uint32_t innerRegions = 0;
  inOneRegion(pool, 4, [&](TaskSystem& team) {
    // A call from inside a task runs inline on its thread.
    team.forkJoin(64, [&](std::uint32_t row) {
      team.parallelFor(64, 4, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t c = begin; c < end; ++c) cells[row * 64 + c] += row + c;
      });
    });
    // inOneRegion on the team: part of this region.
    inOneRegion(team, 4, [&](TaskSystem& inner) {
      EXPECT_EQ(&inner, &team);
      ++innerRegions;
      inner.forkJoin(64, [&](std::uint32_t row) {
        for (std::uint32_t c = 0; c < 64; ++c) cells[row * 64 + c] *= 2;
      });
    });
  });
  EXPECT_EQ(innerRegions, 1u);
  for (std::uint32_t row = 0; row < 64; ++row) {
    for (std::uint32_t c = 0; c < 64; ++c) ASSERT_EQ(cells[row * 64 + c], 2 * (row + c));
  }
}

TEST(OneRegion, ExceptionsReachTheCaller) {
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    test::ThreadPoolTaskSystem pool(threads);
    std::atomic<std::uint32_t> ran{0};
    EXPECT_THROW(inOneRegion(pool, threads,
                             [&](TaskSystem& team) {
                               team.forkJoin(32, [&](std::uint32_t t) {
                                 ran.fetch_add(1);
                                 if (t == 5) throw std::runtime_error("task 5");
                               });
                               ADD_FAILURE() << "went on past a phase that threw";
                             }),
                 std::runtime_error);
    if (threads > 1) {
      EXPECT_EQ(ran.load(), 32u) << "every task of the phase still runs";
    }
    EXPECT_THROW(inOneRegion(pool, threads,
                             [&](TaskSystem& team) {
                               team.forkJoin(4, [](std::uint32_t) {});
                               throw std::logic_error("the leader");
                             }),
                 std::logic_error);
    // The system is usable again.
    std::vector<std::uint32_t> v(100, 0);
    inOneRegion(pool, threads,
                [&](TaskSystem& team) { team.forkJoin(100, [&](std::uint32_t i) { v[i] = i; }); });
    EXPECT_EQ(v[99], 99u);
  }
}

// Counts the calls that reach it.
class Counting final : public TaskSystem {
 public:
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return 4; }
  std::uint32_t calls = 0;

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    ++calls;
    body(0, count);
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    ++calls;
    for (std::uint32_t i = 0; i < count; ++i) task(i);
  }
};

TEST(OneRegion, CallsOnOtherSystemsJoinTheRegionOrRunInline) {
  test::ThreadPoolTaskSystem pool(4);
  Counting other;
  std::vector<std::uint32_t> hits(16, 0);
  other.forkJoin(16, [&](std::uint32_t i) { hits[i] += 1; });
  EXPECT_EQ(other.calls, 1u) << "outside a region: its own";
  inOneRegion(pool, 4, [&](TaskSystem&) {
    // From the leader: a phase of the region, not a call of `other`.
    other.forkJoin(16, [&](std::uint32_t i) { hits[i] += 10; });
    other.parallelFor(16, 2, [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) hits[i] += 100;
    });
    // From a task: inline.
    pool.forkJoin(16, [&](std::uint32_t i) {
      other.forkJoin(1, [&](std::uint32_t) {});
      other.parallelFor(8, 1, [&](std::uint32_t, std::uint32_t) {});
      hits[i] += 1000;
    });
    // A serial system keeps its word: the calling thread, in order.
    std::vector<std::uint32_t> order;
    serialTaskSystem().forkJoin(16, [&](std::uint32_t i) { order.push_back(i); });
    for (std::uint32_t i = 0; i < 16; ++i) EXPECT_EQ(order[i], i);
    // inOneRegion on another system from the leader: part of this one.
    inOneRegion(other, 4, [&](TaskSystem& team) {
      team.forkJoin(16, [&](std::uint32_t i) { hits[i] += 10000; });
    });
  });
  EXPECT_EQ(other.calls, 1u) << "a call from the region reached the other system";
  for (const std::uint32_t h : hits) EXPECT_EQ(h, 11111u);
}

// Runs the first task, then fails to start the others.
class FailsAfterTheFirst final : public TaskSystem {
 public:
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return 4; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    body(0, count);
  }
  void runForkJoin(std::uint32_t, FunctionRef<void(std::uint32_t)> task) override {
    task(0);
    throw std::runtime_error("queue full");
  }
};

TEST(OneRegion, ASystemThatFailsAfterTheWorkIsDoneLosesOnlyHelpers) {
  FailsAfterTheFirst tasks;
  std::vector<std::uint32_t> v(64, 0);
  EXPECT_NO_THROW(inOneRegion(tasks, 4, [&](TaskSystem& team) {
    team.forkJoin(64, [&](std::uint32_t i) { v[i] = i + 1; });
  }));
  for (std::uint32_t i = 0; i < 64; ++i) ASSERT_EQ(v[i], i + 1);
  // When body throws, that is what comes out.
  EXPECT_THROW(inOneRegion(tasks, 4, [&](TaskSystem&) { throw std::logic_error("body"); }),
               std::logic_error);
}

TEST(OneRegion, TracedAsRegionsJoinedToTheFirst) {
  TaskTrace trace;
  TracingTaskSystem tracing(trace);
  {
    const TraceStage stage(tracing, "fused");
    inOneRegion(tracing, 16, [&](TaskSystem& team) {
      team.forkJoin(5, [](std::uint32_t) {});
      team.parallelFor(100, 10, [](std::uint32_t, std::uint32_t) {});
      inOneRegion(team, 16, [](TaskSystem& inner) { inner.forkJoin(3, [](std::uint32_t) {}); });
    });
    tracing.forkJoin(2, [](std::uint32_t) {});  // after the region: a region of its own
  }
  ASSERT_EQ(trace.stages().size(), 1u);
  ASSERT_EQ(trace.regions().size(), 4u);
  const bool joined[] = {false, true, true, false};
  const std::uint32_t tasks[] = {5, 10, 3, 2};
  for (std::uint32_t r = 0; r < 4; ++r) {
    const TaskTrace::Region& region = trace.regions()[r];
    EXPECT_EQ(region.joined, joined[r]) << "region " << r;
    ASSERT_EQ(region.phaseCount, 1u);
    EXPECT_EQ(trace.phases()[region.firstPhase].taskCount, tasks[r]) << "region " << r;
  }
  // Two starts, two barriers (the joined regions), 20 tasks.
  const TraceCosts costs{1000.0, 100.0, 10.0, 1.0};
  const auto p = predict(trace, 16, costs);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].regions, 2u);
  EXPECT_EQ(p[0].tasks, 20u);
  const auto free = predict(trace, 16, {});
  EXPECT_NEAR((p[0].predictedMs - free[0].predictedMs) * 1e6,
              2 * 1000.0 * 4 + 2 * 100.0 + 4 * 10.0 * 4, 1e-6 * 1e6);
}

}  // namespace
