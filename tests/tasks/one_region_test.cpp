// inOneRegion (tasks/internal/quadbin/tasks/one_region.hpp): a sequence of
// parallel calls with serial work between them gives the bits of the same
// calls on one thread, on every task system (TBB, a std::thread pool that
// TSan sees through, one that runs its tasks one after the other), runs
// every task of every phase once, keeps nested calls inline, passes
// exceptions on, and is traced as one region.
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

#include "support/thread_pool_task_system.hpp"

namespace {

using namespace quadbin;

// Claims `threads` threads and runs the tasks one after the other on the
// caller: the first task that comes must do the whole region.
class OneAfterAnother final : public TaskSystem {
 public:
  explicit OneAfterAnother(std::uint32_t threads) : threads_(threads) {}
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return threads_; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    body(0, count);
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    for (std::uint32_t i = 0; i < count; ++i) task(count - 1 - i);
  }

 private:
  std::uint32_t threads_;
};

// A pipeline of dependent phases: chunked sums, their prefix (serial, on
// the leader), a scatter that reads it, a forkJoin over a count the
// previous phase decided, repeated for `rounds`.
std::vector<std::uint64_t> pipeline(TaskSystem& tasks, std::uint32_t n, std::uint32_t rounds) {
  std::vector<std::uint64_t> a(n), out(n);
  std::iota(a.begin(), a.end(), 1);
  std::vector<std::uint64_t> sums;
  inOneRegion(tasks, 64, [&](TaskSystem& team) {
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
  OneAfterAnother one(8);
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
  std::vector<std::uint32_t> cells(64 * 64, 0);
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
    inOneRegion(pool, threads, [&](TaskSystem& team) {
      team.forkJoin(100, [&](std::uint32_t i) { v[i] = i; });
    });
    EXPECT_EQ(v[99], 99u);
  }
}

TEST(OneRegion, TracedAsOneRegionWithItsSerialWorkBetween) {
  TaskTrace trace;
  TracingTaskSystem tracing(trace);
  {
    const TraceStage stage(tracing, "fused");
    inOneRegion(tracing, 16, [&](TaskSystem& team) {
      team.forkJoin(5, [](std::uint32_t) {});
      team.parallelFor(100, 10, [](std::uint32_t, std::uint32_t) {});
      inOneRegion(team, 16, [](TaskSystem& inner) { inner.forkJoin(3, [](std::uint32_t) {}); });
    });
  }
  ASSERT_EQ(trace.stages().size(), 1u);
  ASSERT_EQ(trace.regions().size(), 1u);
  const TaskTrace::Region& region = trace.regions()[0];
  // gap, 5 tasks, gap, 10 ranges, gap, 3 tasks, gap
  ASSERT_EQ(region.phaseCount, 7u);
  const std::uint32_t expected[] = {1, 5, 1, 10, 1, 3, 1};
  for (std::uint32_t p = 0; p < 7; ++p) {
    EXPECT_EQ(trace.phases()[region.firstPhase + p].taskCount, expected[p]) << "phase " << p;
  }
  // The region's tasks, its gaps included, are its time; none of it is
  // the stage's serial time beyond the bookkeeping.
  EXPECT_LE(trace.workNs(trace.stages()[0]), region.wallNs + 1.0);
  const TraceCosts costs{1000.0, 100.0, 10.0, 1.0};
  const auto one = predict(trace, 16, costs);
  // One region start, three barriers (the phases of more than one task).
  const double overhead = one[0].predictedMs * 1e6 - trace.serialNs(trace.stages()[0]);
  EXPECT_GE(overhead, 1000.0 * 4 + 3 * 100.0);
}

}  // namespace
