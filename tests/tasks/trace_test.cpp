// The task trace and the scaling predictor (quadbin/tasks/trace.hpp): the
// predictor on synthetic traces whose answer is known, and a traced
// StagedLoop's structure.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <quadbin/tasks/staged_loop.hpp>
#include <quadbin/tasks/trace.hpp>
#include <vector>

using namespace quadbin;

namespace {

// A trace of one stage made by hand: regions of phases of tasks (ns), and
// `serialNs` of the stage outside them.
class Synthetic {
 public:
  TaskTrace trace;
  // Each region: its phases, each a list of task durations.
  using Region = std::vector<std::vector<double>>;
  double build(const std::vector<Region>& regions) {
    trace.clear();
    trace.beginStage("stage");
    for (const Region& r : regions) {
      trace.beginRegion();
      for (const auto& phase : r) {
        trace.beginPhase();
        for (const double ns : phase) trace.addTask(ns);
      }
      trace.endRegion();
    }
    trace.endStage();
    return predict(trace, 1, {})[0].workMs;
  }
};

// The prediction of the regions alone: the synthetic stage's own clock
// time outside them (microseconds of building it) is its serial part.
double predicted(const TaskTrace& t, std::uint32_t p, TraceCosts c = {}) {
  const StagePrediction s = predict(t, p, c)[0];
  return s.predictedMs - s.serialMs;
}

}  // namespace

// P independent equal tasks on P workers: one task's time; on fewer, the
// rounds of them.
TEST(TracePredict, EqualTasksSpreadOverTheWorkers) {
  Synthetic s;
  s.build({{std::vector<double>(8, 1e6)}});  // 8 tasks of 1 ms
  EXPECT_NEAR(predicted(s.trace, 1), 8.0, 1e-9);
  EXPECT_NEAR(predicted(s.trace, 2), 4.0, 1e-9);
  EXPECT_NEAR(predicted(s.trace, 8), 1.0, 1e-9);
  EXPECT_NEAR(predicted(s.trace, 64), 1.0, 1e-9);  // no more than one task's time
  EXPECT_NEAR(predicted(s.trace, 3), 3.0, 1e-9);   // 3 + 3 + 2 tasks
}

// A chain (phases of one task each) does not get faster with workers.
TEST(TracePredict, AChainStaysSerial) {
  Synthetic s;
  s.build({{{1e6}, {2e6}, {3e6}}});
  for (const std::uint32_t p : {1u, 2u, 16u}) EXPECT_NEAR(predicted(s.trace, p), 6.0, 1e-9);
}

// One long task among many short ones bounds the phase: the others fill
// the remaining workers around it.
TEST(TracePredict, OneLongTaskAmongMany) {
  Synthetic s;
  std::vector<double> tasks{10e6};
  for (int i = 0; i < 20; ++i) tasks.push_back(1e6);
  s.build({{tasks}});
  EXPECT_NEAR(predicted(s.trace, 1), 30.0, 1e-9);
  EXPECT_NEAR(predicted(s.trace, 2), 15.0, 1e-9);  // 30 ms of work on 2 workers
  EXPECT_NEAR(predicted(s.trace, 3), 10.0, 1e-9);  // the long one bounds it from here on
  EXPECT_NEAR(predicted(s.trace, 4), 10.0, 1e-9);
  EXPECT_NEAR(predicted(s.trace, 32), 10.0, 1e-9);
}

// The costs: a region start and a task of a phase of several (each per
// doubling of the workers), a barrier between phases of several tasks (not
// before a phase of one); none on one worker (a one-thread step runs no
// region).
TEST(TracePredict, CostsOfRegionsBarriersAndTasks) {
  Synthetic s;
  s.build({{std::vector<double>(4, 1e6), {1e6}, std::vector<double>(4, 1e6)}});
  const TraceCosts c{100e3, 10e3, 1e3};  // 0.1 ms, 0.01 ms, 0.001 ms
  EXPECT_NEAR(predicted(s.trace, 1, c), 9.0, 1e-9);
  // 2 workers: 0.1 + (2 x 1.001) + (1) + 0.01 + (2 x 1.001)
  EXPECT_NEAR(predicted(s.trace, 2, c), 0.1 + 2.002 + 1.0 + 0.01 + 2.002, 1e-9);
  // 4 workers: the start and a task's cost twice over, one task each.
  EXPECT_NEAR(predicted(s.trace, 4, c), 0.2 + 1.002 + 1.0 + 0.01 + 1.002, 1e-9);
  // 3 workers: log2(3) starts and task costs, two rounds of tasks.
  const double task3 = 1.0 + 0.001 * std::log2(3.0);
  EXPECT_NEAR(predicted(s.trace, 3, c), 0.1 * std::log2(3.0) + 2 * task3 + 1.0 + 0.01 + 2 * task3,
              1e-9);
  EXPECT_NEAR(predicted(s.trace, 16, c), 0.4 + 1.004 + 1.0 + 0.01 + 1.004, 1e-9);
}

// The slowdown stretches the tasks of a phase that several workers share,
// not a phase of one task (it runs alone), and nothing on one worker.
TEST(TracePredict, SlowdownStretchesSharedPhasesOnly) {
  Synthetic s;
  s.build({{std::vector<double>(4, 1e6), {1e6}}});
  TraceCosts c;
  c.slowdown = 1.5;
  EXPECT_NEAR(predicted(s.trace, 1, c), 5.0, 1e-9);
  // 2 workers: (2 x 1.5) + 1
  EXPECT_NEAR(predicted(s.trace, 2, c), 4.0, 1e-9);
  EXPECT_NEAR(predicted(s.trace, 4, c), 2.5, 1e-9);
}

// The stage's time outside its regions is serial, at any worker count.
TEST(TracePredict, SerialTimeStaysSerial) {
  TaskTrace t;
  t.beginStage("busy");
  const auto t0 = TaskTrace::Clock::now();
  while (TaskTrace::nsSince(t0) < 2e6) {
  }
  t.endStage();
  const auto p = predict(t, 16, {});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].regions, 0u);
  EXPECT_GE(p[0].serialMs, 2.0);
  EXPECT_EQ(p[0].predictedMs, p[0].serialMs);
}

// A traced StagedLoop: one region per 8 passes; per stage a phase for the
// hook and a phase of its blocks; the blocks cover every index once; the
// work and the hits are those of the untraced loop.
TEST(TraceStagedLoop, BlocksAreTheTasks) {
  TaskTrace trace;
  TracingTaskSystem tracing(trace);
  StagedLoop loop;
  loop.add(0, 1000, false);  // 4 blocks of 256
  loop.add(1000, 10, true);  // serial: one block
  std::vector<int> seen(1010, 0);
  std::uint32_t passes = 0;
  trace.beginStage("loop");
  loop.run(
      tracing, 256, 10,
      [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) ++seen[i];
        return end - begin;
      },
      [] {},
      [&](std::uint32_t hits) {
        EXPECT_EQ(hits, 1010u);
        return ++passes < 10;
      });
  trace.endStage();
  for (const int n : seen) EXPECT_EQ(n, 10);
  ASSERT_EQ(trace.regions().size(), 2u);              // 8 passes, then 2
  EXPECT_EQ(trace.regions()[0].phaseCount, 8u * 5u);  // per pass: 2 x (hook, blocks), endPass
  std::uint32_t blockTasks = 0;
  for (const auto& phase : trace.phases()) {
    if (phase.taskCount > 1) {
      EXPECT_EQ(phase.taskCount, 4u);
      ++blockTasks;
    }
  }
  EXPECT_EQ(blockTasks, 10u);  // the big stage, once a pass
  const auto p = predict(trace, 4, {});
  EXPECT_EQ(p[0].tasks, trace.tasks().size());
  EXPECT_LT(p[0].predictedMs, predict(trace, 1, {})[0].predictedMs + 1e-12);
}

// parallelFor is cut at its grain, forkJoin into its tasks; work nested in
// a task is the task's.
TEST(TraceTaskSystem, RangesOfTheGrainAndNestedWorkInline) {
  TaskTrace trace;
  TracingTaskSystem tracing(trace);
  std::vector<int> seen(1000, 0);
  trace.beginStage("for");
  tracing.parallelFor(1000, 300, [&](std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) ++seen[i];
    tracing.parallelFor(10, 1, [](std::uint32_t, std::uint32_t) {});  // nested: inline
  });
  tracing.forkJoin(3, [](std::uint32_t) {});
  trace.endStage();
  for (const int n : seen) EXPECT_EQ(n, 1);
  ASSERT_EQ(trace.regions().size(), 2u);
  EXPECT_EQ(trace.phases()[0].taskCount, 4u);  // 300, 300, 300, 100
  EXPECT_EQ(trace.phases()[1].taskCount, 3u);
  EXPECT_EQ(trace.stages().size(), 1u);
  EXPECT_EQ(trace.stages()[0].regionCount, 2u);
}
