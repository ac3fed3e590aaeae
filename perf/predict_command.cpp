// predict: one step traced on one thread (tasks/trace.hpp), replayed for
// P workers: the predicted time per stage and per step (docs/perf-cli.md,
// `predict`; the model and its calibration: docs/scaling.md).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <quadbin/engine/world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <quadbin/tasks/staged_loop.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <quadbin/tasks/trace.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "measure_common.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "structures.hpp"

namespace quadbin::perf {

namespace {

// One traced step (B) or frame (A) of a configuration.
struct Traced {
  char workload = 'B';
  scenes::SceneKind scene = scenes::SceneKind::Uniform;
  std::uint32_t n = 0;
  TaskTrace trace;
};

double totalNs(const TaskTrace& t) {
  double ns = 0.0;
  for (const auto& s : t.stages()) ns += s.wallNs;
  return ns;
}

// Traces `o.steps` steps after `o.warmup` and keeps the one whose total
// time is the median (one step can be slowed by the machine).
template <class StepFn>
void traceMedian(const PredictOptions& o, TaskTrace& trace, StepFn&& stepOnce) {
  for (std::uint32_t k = 0; k < o.warmup; ++k) {
    trace.clear();
    stepOnce();
  }
  std::vector<TaskTrace> kept(o.steps);
  for (auto& t : kept) {
    trace.clear();
    stepOnce();
    trace.endStage();
    t = trace;
  }
  std::sort(kept.begin(), kept.end(),
            [](const TaskTrace& a, const TaskTrace& b) { return totalNs(a) < totalNs(b); });
  trace = kept[kept.size() / 2];
}

void traceWorld(const PredictOptions& o, Traced& t) {
  const auto scene = scenes::generate(t.scene, t.n, o.seed);
  WorldDef def = scenes::worldDefFor(t.scene);
  const auto type = parseBroadPhaseType(o.structure);
  if (!type)
    throw UsageError("unknown broad phase '" + o.structure + "' (see 'quadbin-perf list')");
  def.broadPhase = *type;
  def.logLevel = LogLevel::Error;
  def.taskSystem = std::make_shared<TracingTaskSystem>(t.trace);
  World world = scenes::makeWorld(scene, def);
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  traceMedian(o, t.trace, [&] { world.step(dt); });
}

void traceBroadPhase(const PredictOptions& o, Traced& t) {
  auto scene = scenes::generate(t.scene, t.n, o.seed);
  auto structure = makeStructure(o.structure);
  if (!structure) throw UsageError("unknown broad phase '" + o.structure + "'");
  structure->setBounds(scene.world);
  auto tracing = std::make_shared<TracingTaskSystem>(t.trace);
  structure->setTaskSystem(tracing);
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;
  traceMedian(o, t.trace, [&] {
    scenes::advance(scene);
    {
      const TraceStage stage(*tracing, "boxes");
      scenes::boxes(scene, boxes, *tracing);
    }
    {
      const TraceStage stage(*tracing, "update");
      structure->update(boxes);
    }
    const TraceStage stage(*tracing, "find pairs");
    structure->findPairsInto(pairs);
  });
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}

// The median over 31 batches of `calls` calls of fn, ns per call.
template <class Fn>
double nsPerCall(std::uint32_t calls, Fn&& fn) {
  std::vector<double> batches;
  for (int b = 0; b < 31; ++b) {
    const auto t0 = TaskTrace::Clock::now();
    for (std::uint32_t k = 0; k < calls; ++k) fn();
    batches.push_back(TaskTrace::nsSince(t0) / calls);
  }
  return medianOf(std::move(batches));
}

// --measure-costs: the three costs of the model on this machine's task
// system with all its hardware threads (docs/scaling.md, "The model").
// region: a fork-join of one empty task per thread, after serial work on
// the caller (as a step's regions mostly are), per doubling of the
// workers. task: the extra time of a parallelFor of many one-item ranges
// over a fork-join started back to back, per range and worker. barrier:
// the extra time of a StagedLoop stage of one block per thread, less that
// stage's tasks.
TraceCosts measureCosts(std::uint32_t threads) {
  const auto system = makeTbbTaskSystem(threads);
  TaskSystem& tasks = *system;
  std::atomic<std::uint32_t> sink{0};
  auto touch = [&](std::uint32_t i) { sink.fetch_add(i, std::memory_order_relaxed); };
  TraceCosts c;
  // A region after 50 us of serial work on the caller (the workers may
  // have gone idle), the gap not counted.
  {
    std::vector<double> samples;
    for (int k = 0; k < 2001; ++k) {
      const auto gap = TaskTrace::Clock::now();
      while (TaskTrace::nsSince(gap) < 50e3) {
      }
      const auto t0 = TaskTrace::Clock::now();
      tasks.forkJoin(threads, touch);
      samples.push_back(TaskTrace::nsSince(t0));
    }
    // The model's cost is per doubling of the workers.
    c.regionNs = medianOf(std::move(samples)) / std::max(1.0, std::log2(threads));
  }
  constexpr std::uint32_t kRanges = 4096;
  const double many = nsPerCall(20, [&] {
    tasks.parallelFor(kRanges, 1, [&](std::uint32_t b, std::uint32_t) { touch(b); });
  });
  const double hot = nsPerCall(200, [&] { tasks.forkJoin(threads, touch); });
  c.taskNs = std::max(0.0, many - hot) * threads / kRanges / std::max(1.0, std::log2(threads));
  constexpr std::uint32_t kStages = 64;
  auto staged = [&](std::uint32_t stages) {
    StagedLoop loop;
    for (std::uint32_t s = 0; s < stages; ++s) loop.add(s * threads, threads, false);
    return nsPerCall(100, [&] {
      loop.run(
          tasks, 1, 1,
          [&](std::uint32_t b, std::uint32_t) {
            touch(b);
            return 0u;
          },
          [] {}, [](std::uint32_t) { return false; });
    });
  };
  const double one = staged(1), lots = staged(kStages + 1);
  c.barrierNs = std::max(0.0, (lots - one) / kStages - c.taskNs);
  return c;
}

// --phases: what a stage's regions are made of, phase by phase (its
// blocks or chunks: count, summed and largest duration), the phases of one
// task (the hooks and the one-block stages between them) summed per region.
void printPhases(const PredictOptions& o, const TaskTrace& trace) {
  const bool all = std::find(o.phases.begin(), o.phases.end(), "all") != o.phases.end();
  const auto us = [](double ns) { return ns / 1e3; };
  for (const TaskTrace::Stage& st : trace.stages()) {
    if (!all && std::find(o.phases.begin(), o.phases.end(), st.name) == o.phases.end()) continue;
    std::printf("phases of %s: %u region%s\n", st.name.c_str(), st.regionCount,
                st.regionCount == 1 ? "" : "s");
    for (std::uint32_t r = st.firstRegion; r < st.firstRegion + st.regionCount; ++r) {
      const TaskTrace::Region& region = trace.regions()[r];
      std::printf("  region %u: %u phase%s, %.1f us%s\n", r - st.firstRegion + 1, region.phaseCount,
                  region.phaseCount == 1 ? "" : "s", us(region.wallNs),
                  region.joined ? " (joined to the one before)" : "");
      std::uint32_t single = 0;
      double singleNs = 0.0;
      for (std::uint32_t p = region.firstPhase; p < region.firstPhase + region.phaseCount; ++p) {
        const TaskTrace::Phase& phase = trace.phases()[p];
        double sum = 0.0, most = 0.0;
        for (std::uint32_t k = phase.firstTask; k < phase.firstTask + phase.taskCount; ++k) {
          sum += trace.tasks()[k];
          most = std::max(most, trace.tasks()[k]);
        }
        if (phase.taskCount <= 1) {
          ++single;
          singleNs += sum;
          continue;
        }
        std::printf("    phase %u: %u tasks, %.1f us, largest %.1f us\n", p - region.firstPhase + 1,
                    phase.taskCount, us(sum), us(most));
      }
      if (single > 0) {
        std::printf("    %u phase%s of one task: %.1f us\n", single, single == 1 ? "" : "s",
                    us(singleNs));
      }
    }
  }
}

// The table of one configuration, and its CSV rows.
void report(const PredictOptions& o, const Traced& t, const TraceCosts& costs, Table& table) {
  const std::vector<StagePrediction> one = predict(t.trace, 1, costs);
  std::vector<std::vector<StagePrediction>> byP;
  for (const auto p : o.threads) byP.push_back(predict(t.trace, p, costs));
  std::vector<std::string> header{"stage", "work ms", "serial ms", "regions", "tasks", "1 thread"};
  for (const auto p : o.threads) header.push_back(std::to_string(p) + " threads");
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& stage, double work, double serial, std::uint32_t regions,
                 std::uint32_t tasks, double ms1, const std::vector<double>& predicted) {
    std::vector<std::string> row{
        stage, ms(work), ms(serial), std::to_string(regions), std::to_string(tasks), ms(ms1)};
    table.rows.push_back({text(std::string(1, t.workload)), text(measure::sceneName(t.scene)),
                          integer(t.n), text(stage), integer(1), real(work, 4), real(serial, 4),
                          integer(regions), integer(tasks), real(ms1, 4), real(1.0, 3)});
    for (std::size_t k = 0; k < o.threads.size(); ++k) {
      const double speedup = predicted[k] > 0.0 ? ms1 / predicted[k] : 0.0;
      char cell[64];
      std::snprintf(cell, sizeof cell, "%s (%.2fx)", ms(predicted[k]).c_str(), speedup);
      row.emplace_back(cell);
      table.rows.push_back({text(std::string(1, t.workload)), text(measure::sceneName(t.scene)),
                            integer(t.n), text(stage), integer(o.threads[k]), real(work, 4),
                            real(serial, 4), integer(regions), integer(tasks),
                            real(predicted[k], 4), real(speedup, 3)});
    }
    rows.push_back(std::move(row));
  };
  double work = 0.0, serial = 0.0, ms1 = 0.0;
  std::uint32_t regions = 0, tasks = 0;
  std::vector<double> step(o.threads.size(), 0.0);
  for (std::size_t s = 0; s < one.size(); ++s) {
    std::vector<double> predicted;
    for (std::size_t k = 0; k < o.threads.size(); ++k) {
      predicted.push_back(byP[k][s].predictedMs);
      step[k] += byP[k][s].predictedMs;
    }
    add(one[s].name, one[s].workMs, one[s].serialMs, one[s].regions, one[s].tasks,
        one[s].predictedMs, predicted);
    work += one[s].workMs;
    serial += one[s].serialMs;
    ms1 += one[s].predictedMs;
    regions += one[s].regions;
    tasks += one[s].tasks;
  }
  add("step", work, serial, regions, tasks, ms1, step);
  std::printf(
      "\nWorkload %c, %s, n = %s: one %s traced on one thread (the median of %u), "
      "predicted ms (speed-up) for P workers\n",
      t.workload, measure::sceneName(t.scene).c_str(), withCommas(t.n).c_str(),
      t.workload == 'B' ? "step" : "frame", o.steps);
  std::vector<bool> right(header.size(), true);
  right[0] = false;
  printTable(header, rows, right);
  if (!o.phases.empty()) printPhases(o, t.trace);
}

// --compare: the world stepped for real on 1 and each P up to the
// hardware threads, beside one more world stepped on the tracing task
// system: all in lockstep (the same state on any thread count,
// docs/concurrency.md), so that the predictions are for the very steps
// measured. Each of `o.rounds` rounds steps every world `o.steps` times,
// starting one world later than the round before (a burst of load falls on
// all alike); a round's speed-up is its 1-thread time over its P-thread
// time, measured or predicted, and the median round is reported.
void compareReport(const PredictOptions& o, const Traced& t, const TraceCosts& costs,
                   Table& table) {
  std::vector<std::uint32_t> ps{1};
  for (const auto p : o.threads) {
    if (p > 1 && p <= measure::hardwareThreads() && std::find(ps.begin(), ps.end(), p) == ps.end())
      ps.push_back(p);
  }
  const auto scene = scenes::generate(t.scene, t.n, o.seed);
  WorldDef def = scenes::worldDefFor(t.scene);
  def.broadPhase = *parseBroadPhaseType(o.structure);
  def.logLevel = LogLevel::Error;
  std::vector<World> worlds;
  worlds.reserve(ps.size() + 1);
  for (const auto p : ps) {
    def.threadCount = p;
    worlds.push_back(scenes::makeWorld(scene, def));
  }
  TaskTrace trace;
  def.taskSystem = std::make_shared<TracingTaskSystem>(trace);
  worlds.push_back(scenes::makeWorld(scene, def));
  const std::size_t traced = ps.size();
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  for (auto& w : worlds) {
    for (std::uint32_t k = 0; k < o.warmup; ++k) w.step(dt);
  }
  // [round][P]: measured and predicted ms per step.
  std::vector<std::vector<double>> measured(o.rounds, std::vector<double>(ps.size(), 0.0));
  std::vector<std::vector<double>> predicted = measured;
  for (std::uint32_t r = 0; r < o.rounds; ++r) {
    for (std::size_t j = 0; j <= ps.size(); ++j) {
      const std::size_t i = (j + r) % (ps.size() + 1);
      if (i == traced) {
        for (std::uint32_t k = 0; k < o.steps; ++k) {
          trace.clear();
          worlds[i].step(dt);
          trace.endStage();
          for (std::size_t q = 0; q < ps.size(); ++q) {
            for (const auto& st : predict(trace, ps[q], costs))
              predicted[r][q] += st.predictedMs / o.steps;
          }
        }
        continue;
      }
      const auto t0 = TaskTrace::Clock::now();
      for (std::uint32_t k = 0; k < o.steps; ++k) worlds[i].step(dt);
      measured[r][i] = TaskTrace::nsSince(t0) * 1e-6 / o.steps;
    }
  }
  // The median round's time and speed-up of P, from per-round values.
  auto median = [&](const std::vector<std::vector<double>>& v, std::size_t q, bool speedup) {
    std::vector<double> x;
    x.reserve(v.size());
    for (const auto& round : v) x.push_back(speedup ? round[0] / round[q] : round[q]);
    return medianOf(std::move(x));
  };
  std::printf(
      "measured on this machine beside predicted for the same steps (the median of %u rounds of "
      "%u steps):\n",
      o.rounds, o.steps);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t q = 0; q < ps.size(); ++q) {
    const double mMs = median(measured, q, false), pMs = median(predicted, q, false);
    const double mSpeed = median(measured, q, true), pSpeed = median(predicted, q, true);
    const double error = 100.0 * (pSpeed - mSpeed) / mSpeed;
    char m[64], pr[64], e[32];
    std::snprintf(m, sizeof m, "%s (%.2fx)", ms(mMs).c_str(), mSpeed);
    std::snprintf(pr, sizeof pr, "%s (%.2fx)", ms(pMs).c_str(), pSpeed);
    std::snprintf(e, sizeof e, "%+.1f %%", error);
    rows.push_back({std::to_string(ps[q]), m, pr, e});
    table.rows.push_back({text(std::string(1, t.workload)), text(measure::sceneName(t.scene)),
                          integer(t.n), integer(ps[q]), real(mMs, 4), real(mSpeed, 3), real(pMs, 4),
                          real(pSpeed, 3), real(error, 1)});
  }
  printTable({"threads", "measured ms", "predicted ms", "speed-up error"}, rows,
             {true, true, true, true});
}

}  // namespace

// The costs predict charges: the options', measured here with
// --measure-costs; UsageError for options out of range.
TraceCosts costsFor(const PredictOptions& o) {
  if (o.steps == 0) throw UsageError("--steps must be at least 1");
  if (o.rounds == 0) throw UsageError("--rounds must be at least 1");
  for (const auto p : o.threads) {
    if (p == 0) throw UsageError("--threads must be at least 1");
  }
  for (const double ns : {o.regionNs, o.barrierNs, o.taskNs}) {
    if (!(ns >= 0.0) || !(ns <= 1e9))
      throw UsageError("--region-ns, --barrier-ns and --task-ns must be between 0 and 1e9");
  }
  if (!(o.slowdown >= 1.0) || !(o.slowdown <= 100.0))
    throw UsageError("--slowdown must be between 1 and 100");
  TraceCosts costs{o.regionNs, o.barrierNs, o.taskNs, o.slowdown};
  if (o.measureCosts) {
    costs = measureCosts(measure::hardwareThreads());
    costs.slowdown = o.slowdown;
    std::printf("costs measured on %u threads: region %.0f ns, barrier %.0f ns, task %.0f ns\n",
                measure::hardwareThreads(), costs.regionNs, costs.barrierNs, costs.taskNs);
  }
  return costs;
}

int predictCommand(const PredictOptions& o) {
  const auto workloads =
      measure::parseWorkloads(o.workloads.empty() ? std::vector<std::string>{"B"} : o.workloads);
  const auto scenes =
      measure::parseScenes(o.scenes.empty() ? std::vector<std::string>{"all"} : o.scenes);
  const auto sizes = o.sizes.empty() ? std::vector<std::uint32_t>{100000} : o.sizes;
  const TraceCosts costs = costsFor(o);
  const Machine machine = describeMachine();
  Table table;
  table.columns = {"workload",  "scene",   "n",     "stage",        "threads", "work_ms",
                   "serial_ms", "regions", "tasks", "predicted_ms", "speedup"};
  Table compared;
  compared.columns = {"workload",
                      "scene",
                      "n",
                      "threads",
                      "measured_ms",
                      "measured_speedup",
                      "predicted_ms",
                      "predicted_speedup",
                      "error_pct"};
  for (const char w : workloads) {
    for (const auto scene : scenes) {
      if (w == 'A' && scene == scenes::SceneKind::Pile) {
        throw UsageError("the pile scene is for the world step (Workload B) only");
      }
      for (const auto n : sizes) {
        Traced t;
        t.workload = w;
        t.scene = scene;
        t.n = n;
        if (w == 'B') {
          traceWorld(o, t);
        } else {
          traceBroadPhase(o, t);
        }
        report(o, t, costs, table);
        if (o.compare && w == 'B') compareReport(o, t, costs, compared);
      }
    }
  }
  const auto dir = o.outDir.empty() ? defaultResultDir(machine) : std::filesystem::path(o.outDir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create " + dir.string() + ": " + ec.message());
  // region_per_doubling: the region cost counts log2(P) times (it once
  // counted once per region: scripts/fit_costs.py reads both).
  char cost[224];
  std::snprintf(cost, sizeof cost,
                "{\"region_ns\": %g, \"region_per_doubling\": true, \"barrier_ns\": %g, "
                "\"task_ns\": %g, \"task_per_doubling\": true, \"slowdown\": %g}",
                costs.regionNs, costs.barrierNs, costs.taskNs, costs.slowdown);
  const JsonObject options{{"workloads", measure::workloadList(workloads)},
                           {"sizes", measure::numberList(sizes)},
                           {"structure", jsonString(o.structure)},
                           {"threads", measure::numberList(o.threads)},
                           {"warmup", std::to_string(o.warmup)},
                           {"steps", std::to_string(o.steps)},
                           {"costs", cost},
                           {"costs_measured", o.measureCosts ? "true" : "false"},
                           {"rounds", std::to_string(o.rounds)}};
  std::vector<std::filesystem::path> written;
  try {
    written = writeResults(dir, "predict", table, machine, options, o.argv);
    if (!compared.rows.empty()) {
      for (auto& p : writeResults(dir, "predict_measured", compared, machine, options, o.argv)) {
        if (std::find(written.begin(), written.end(), p) == written.end()) written.push_back(p);
      }
    }
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::printf("\nresults:");
  for (const auto& p : written) std::printf(" %s", p.string().c_str());
  std::printf("\n");
  return 0;
}

}  // namespace quadbin::perf
