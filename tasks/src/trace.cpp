// TaskTrace, TracingTaskSystem and the scaling predictor (trace.hpp).
#include <quadbin/tasks/trace.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>

namespace quadbin {

void TaskTrace::beginStage(std::string_view name) {
  endStage();
  stages_.push_back({std::string(name), 0.0, static_cast<std::uint32_t>(regions_.size()), 0});
  stageOpen_ = true;
  stageStart_ = Clock::now();
}

void TaskTrace::endStage() {
  if (!stageOpen_) return;
  Stage& s = stages_.back();
  s.wallNs = nsSince(stageStart_);
  s.regionCount = static_cast<std::uint32_t>(regions_.size()) - s.firstRegion;
  stageOpen_ = false;
}

void TaskTrace::clear() {
  stages_.clear();
  regions_.clear();
  phases_.clear();
  tasks_.clear();
  stageOpen_ = false;
  fused_ = false;
  depth_ = 0;
}

void TaskTrace::openStageIfNone() {
  if (!stageOpen_) beginStage("other");
}

void TaskTrace::beginRegion() {
  openStageIfNone();
  // Inside a fused scope every region but the first runs in the region
  // the scope started: it costs a barrier, not a start.
  regions_.push_back(
      {static_cast<std::uint32_t>(phases_.size()), 0, 0.0, fused_ && fusedRegions_ > 0});
  if (fused_) ++fusedRegions_;
  regionStart_ = Clock::now();
}

void TaskTrace::beginPhase() {
  phases_.push_back({static_cast<std::uint32_t>(tasks_.size()), 0});
  ++regions_.back().phaseCount;
}

void TaskTrace::endRegion() {
  Region& r = regions_.back();
  r.wallNs = nsSince(regionStart_);
  for (std::uint32_t p = r.firstPhase; p < r.firstPhase + r.phaseCount; ++p) {
    phases_[p].taskCount = (p + 1 < phases_.size() ? phases_[p + 1].firstTask
                                                   : static_cast<std::uint32_t>(tasks_.size())) -
                           phases_[p].firstTask;
  }
}

void TaskTrace::beginFused() {
  fused_ = true;
  fusedRegions_ = 0;
}

void TaskTrace::endFused() { fused_ = false; }

double TaskTrace::workNs(const Stage& s) const noexcept {
  double ns = 0.0;
  for (std::uint32_t r = s.firstRegion; r < s.firstRegion + s.regionCount; ++r) {
    const Region& region = regions_[r];
    for (std::uint32_t p = region.firstPhase; p < region.firstPhase + region.phaseCount; ++p) {
      for (std::uint32_t t = 0; t < phases_[p].taskCount; ++t) {
        ns += tasks_[phases_[p].firstTask + t];
      }
    }
  }
  return ns;
}

double TaskTrace::serialNs(const Stage& s) const noexcept {
  double inRegions = 0.0;
  for (std::uint32_t r = s.firstRegion; r < s.firstRegion + s.regionCount; ++r) {
    inRegions += regions_[r].wallNs;
  }
  return std::max(0.0, s.wallNs - inRegions);
}

void TracingTaskSystem::runParallelFor(std::uint32_t count, std::uint32_t grain,
                                       FunctionRef<void(std::uint32_t, std::uint32_t)> body) {
  if (trace_.inTask()) {
    body(0, count);
    return;
  }
  trace_.beginRegion();
  trace_.beginPhase();
  for (std::uint32_t begin = 0; begin < count; begin += grain) {
    const std::uint32_t end = count - begin > grain ? begin + grain : count;
    const auto t0 = TaskTrace::Clock::now();
    trace_.enterTask();
    body(begin, end);
    trace_.leaveTask();
    trace_.addTask(TaskTrace::nsSince(t0));
  }
  trace_.endRegion();
}

void TracingTaskSystem::runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) {
  if (trace_.inTask()) {
    for (std::uint32_t i = 0; i < count; ++i) task(i);
    return;
  }
  trace_.beginRegion();
  trace_.beginPhase();
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto t0 = TaskTrace::Clock::now();
    trace_.enterTask();
    task(i);
    trace_.leaveTask();
    trace_.addTask(TaskTrace::nsSince(t0));
  }
  trace_.endRegion();
}

namespace {

// Greedy list scheduling of tasks [first, first + count) on `workers`
// workers all free at 0: each task, in order, to the worker free first.
double schedule(const std::vector<double>& tasks, std::uint32_t first, std::uint32_t count,
                std::uint32_t workers, double perTask, double slowdown) {
  if (count == 0) return 0.0;
  if (workers <= 1 || count == 1) {
    double sum = 0.0;
    for (std::uint32_t t = 0; t < count; ++t) sum += tasks[first + t] * slowdown + perTask;
    return sum;
  }
  std::priority_queue<double, std::vector<double>, std::greater<>> freeAt;
  for (std::uint32_t w = 0; w < std::min(workers, count); ++w) freeAt.push(0.0);
  double end = 0.0;
  for (std::uint32_t t = 0; t < count; ++t) {
    const double start = freeAt.top();
    freeAt.pop();
    const double done = start + tasks[first + t] * slowdown + perTask;
    end = std::max(end, done);
    freeAt.push(done);
  }
  return end;
}

}  // namespace

std::vector<StagePrediction> predict(const TaskTrace& trace, std::uint32_t workers,
                                     const TraceCosts& costs) {
  const bool parallel = workers > 1;
  const TraceCosts none{};  // slowdown 1
  const TraceCosts& c = parallel ? costs : none;
  std::vector<StagePrediction> out;
  for (const TaskTrace::Stage& s : trace.stages()) {
    // A stage that runs several times in a step (the solve's rounds of
    // impacts and escapees) is one row: its runs add up.
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const StagePrediction& q) { return q.name == s.name; });
    if (same == out.end()) {
      out.emplace_back();
      out.back().name = s.name;
      same = out.end() - 1;
    }
    StagePrediction& p = *same;
    p.workMs += trace.workNs(s) * 1e-6;
    p.serialMs += trace.serialNs(s) * 1e-6;
    double ns = trace.serialNs(s);
    for (std::uint32_t r = s.firstRegion; r < s.firstRegion + s.regionCount; ++r) {
      const TaskTrace::Region& region = trace.regions()[r];
      // Starting a region wakes the workers and spreads its tasks as a
      // tree: a cost per doubling of the workers; so is claiming a task
      // (stolen down the same tree).
      const double doublings = std::log2(static_cast<double>(workers));
      const double perTask = c.taskNs * doublings;
      // A region joined to the one before (inOneRegion) starts as a
      // phase of it does: after a barrier.
      double regionNs = region.joined ? 0.0 : c.regionNs * doublings;
      if (!region.joined) ++p.regions;
      for (std::uint32_t k = 0; k < region.phaseCount; ++k) {
        const TaskTrace::Phase& phase = trace.phases()[region.firstPhase + k];
        p.tasks += phase.taskCount;
        // A phase of one task runs on whichever thread ended the last one:
        // no barrier to wait at.
        if ((k > 0 || region.joined) && phase.taskCount > 1) regionNs += c.barrierNs;
        regionNs +=
            schedule(trace.tasks(), phase.firstTask, phase.taskCount, workers,
                     phase.taskCount > 1 ? perTask : 0.0, phase.taskCount > 1 ? c.slowdown : 1.0);
      }
      ns += regionNs;
    }
    p.predictedMs += ns * 1e-6;
  }
  return out;
}

}  // namespace quadbin
