#pragma once
/// \file
/// A task trace: what one step's parallel work is made of, recorded on one
/// thread, for predicting how it scales (quadbin-perf predict,
/// docs/scaling.md). TracingTaskSystem runs every
/// parallel call on the calling thread, cut as finely as the caller allows
/// (parallelFor into ranges of its grain, forkJoin into its tasks,
/// StagedLoop into its blocks), and times each piece: a region is one
/// parallel call, made of phases (a StagedLoop's stages, each after a
/// barrier; one phase otherwise), made of tasks. The caller names the
/// stages of its step (TraceStage); the time a stage spends outside every
/// region is its serial time. Work nested inside a task is part of that
/// task (not a region of its own). Internal to quadbin's layers and tools
/// (not installed).

#include <chrono>
#include <cstdint>
#include <quadbin/tasks/task_system.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace quadbin {

class TaskTrace {
 public:
  struct Phase {
    std::uint32_t firstTask = 0, taskCount = 0;
  };
  struct Region {
    std::uint32_t firstPhase = 0, phaseCount = 0;
    double wallNs = 0.0;  // the region's own time, tasks and bookkeeping
    bool joined = false;  // runs in the region before it (inOneRegion): no start of its own
  };
  struct Stage {
    std::string name;
    double wallNs = 0.0;  // from beginStage to the next beginStage or endStage
    std::uint32_t firstRegion = 0, regionCount = 0;
  };

  /// Ends the stage in progress, if any, and starts `name`.
  void beginStage(std::string_view name);
  /// Ends the stage in progress. Regions outside every stage go to one
  /// named "other".
  void endStage();
  void clear();

  [[nodiscard]] const std::vector<Stage>& stages() const noexcept { return stages_; }
  [[nodiscard]] const std::vector<Region>& regions() const noexcept { return regions_; }
  [[nodiscard]] const std::vector<Phase>& phases() const noexcept { return phases_; }
  [[nodiscard]] const std::vector<double>& tasks() const noexcept { return tasks_; }  // ns
  /// Sum of the task durations of stage s (its parallel work), ns.
  [[nodiscard]] double workNs(const Stage& s) const noexcept;
  /// Time of stage s outside its regions (its serial work), ns.
  [[nodiscard]] double serialNs(const Stage& s) const noexcept;

  // Recording, for TracingTaskSystem and StagedLoop.
  using Clock = std::chrono::steady_clock;
  void beginRegion();
  void beginPhase();
  void addTask(double ns) { tasks_.push_back(ns); }
  void endRegion();
  /// Parallel calls that run in one region (inOneRegion): until
  /// endFused, each region after the first is joined to the one before
  /// (it starts after a barrier); the time between them stays serial, as
  /// the leader runs it while the others wait.
  void beginFused();
  void endFused();
  [[nodiscard]] bool fused() const noexcept { return fused_; }
  /// True while a task runs: nested parallel work is the task's.
  [[nodiscard]] bool inTask() const noexcept { return depth_ > 0; }
  void enterTask() noexcept { ++depth_; }
  void leaveTask() noexcept { --depth_; }
  [[nodiscard]] static double nsSince(Clock::time_point t0) noexcept {
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  }

 private:
  void openStageIfNone();
  std::vector<Stage> stages_;
  std::vector<Region> regions_;
  std::vector<Phase> phases_;
  std::vector<double> tasks_;
  bool stageOpen_ = false;
  bool fused_ = false;
  std::uint32_t fusedRegions_ = 0;
  Clock::time_point stageStart_{}, regionStart_{};
  int depth_ = 0;
};

/// Runs everything on the calling thread, one grain-sized range or task at
/// a time, each timed into `trace`. threadCount() is 1, so the traced work
/// is the one-thread step's.
class TracingTaskSystem final : public TaskSystem {
 public:
  explicit TracingTaskSystem(TaskTrace& trace) noexcept : trace_(trace) {}
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return 1; }
  [[nodiscard]] TaskTrace& trace() const noexcept { return trace_; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t grain,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override;
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override;

 private:
  TaskTrace& trace_;
};

/// The trace `tasks` records into, or null (not a TracingTaskSystem, or
/// inside a traced task).
[[nodiscard]] inline TaskTrace* traceOf(TaskSystem& tasks) noexcept {
  auto* tracing = dynamic_cast<TracingTaskSystem*>(&tasks);
  if (tracing == nullptr || tracing->trace().inTask()) return nullptr;
  return &tracing->trace();
}

/// Names a stage of a step for the trace, for its scope: nothing when the
/// task system does not trace.
class TraceStage {
 public:
  TraceStage(TaskSystem& tasks, std::string_view name) : trace_(traceOf(tasks)) {
    if (trace_ != nullptr) trace_->beginStage(name);
  }
  ~TraceStage() {
    if (trace_ != nullptr) trace_->endStage();
  }
  TraceStage(const TraceStage&) = delete;
  TraceStage& operator=(const TraceStage&) = delete;

 private:
  TaskTrace* trace_;
};

/// What a region costs beyond its tasks when P > 1 workers run it, in ns:
/// starting it (waking the workers and spreading its tasks, a tree of
/// them: regionNs per doubling of the workers, log2(P) times in all),
/// each barrier between two phases of more than one task, and each task
/// (a claim, a steal down the same tree, its first touch of data: taskNs
/// per doubling of the workers too); and `slowdown`,
/// the factor on every task's own time while several workers run at once
/// (what the trace of one thread cannot see: shared memory bandwidth and
/// caches, a sibling hardware thread).
struct TraceCosts {
  double regionNs = 0.0;
  double barrierNs = 0.0;
  double taskNs = 0.0;
  double slowdown = 1.0;
};

/// A stage's prediction for P workers.
struct StagePrediction {
  std::string name;
  double workMs = 0.0;        // its tasks' total (one thread)
  double serialMs = 0.0;      // outside its regions
  std::uint32_t regions = 0;  // started: a region joined to the one before is not counted
  std::uint32_t tasks = 0;
  double predictedMs = 0.0;  // for P workers
};

/// Replays the trace on `workers` workers: each phase's tasks, in the
/// recorded order, go to the worker that is free first (greedy list
/// scheduling); a phase starts when the one before it has ended (a
/// barrier); serial time stays serial. With one worker it is the trace's
/// own time (no costs: a one-thread step runs no region). One entry per
/// stage name, in the order of first appearance: the runs of a stage that
/// recurs within a step add up.
[[nodiscard]] std::vector<StagePrediction> predict(const TaskTrace& trace, std::uint32_t workers,
                                                   const TraceCosts& costs);

}  // namespace quadbin
