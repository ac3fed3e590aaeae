// predict: one step traced on one thread (tasks/trace.hpp), replayed for
// P workers: the predicted time per stage and per step (docs/perf-cli.md,
// `predict`; the model and its calibration: docs/perf.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <quadbin/engine/world.hpp>
#include <quadbin/scenes/scene.hpp>
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
      scenes::boxes(scene, boxes);
    }
    {
      const TraceStage stage(*tracing, "update");
      structure->update(boxes);
    }
    const TraceStage stage(*tracing, "find pairs");
    pairs.clear();
    structure->findPairs(pairs);
  });
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
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
}

}  // namespace

int predictCommand(const PredictOptions& o) {
  if (o.steps == 0) throw UsageError("--steps must be at least 1");
  for (const auto p : o.threads) {
    if (p == 0) throw UsageError("--threads must be at least 1");
  }
  const auto workloads =
      measure::parseWorkloads(o.workloads.empty() ? std::vector<std::string>{"B"} : o.workloads);
  const auto scenes =
      measure::parseScenes(o.scenes.empty() ? std::vector<std::string>{"all"} : o.scenes);
  const auto sizes = o.sizes.empty() ? std::vector<std::uint32_t>{100000} : o.sizes;
  const TraceCosts costs{o.regionNs, o.barrierNs, o.taskNs};
  const Machine machine = describeMachine();
  Table table;
  table.columns = {"workload",  "scene",   "n",     "stage",        "threads", "work_ms",
                   "serial_ms", "regions", "tasks", "predicted_ms", "speedup"};
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
      }
    }
  }
  const auto dir = o.outDir.empty() ? defaultResultDir(machine) : std::filesystem::path(o.outDir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create " + dir.string() + ": " + ec.message());
  char cost[96];
  std::snprintf(cost, sizeof cost, "{\"region_ns\": %g, \"barrier_ns\": %g, \"task_ns\": %g}",
                o.regionNs, o.barrierNs, o.taskNs);
  const JsonObject options{{"workloads", measure::workloadList(workloads)},
                           {"sizes", measure::numberList(sizes)},
                           {"structure", jsonString(o.structure)},
                           {"threads", measure::numberList(o.threads)},
                           {"warmup", std::to_string(o.warmup)},
                           {"steps", std::to_string(o.steps)},
                           {"costs", cost}};
  std::vector<std::filesystem::path> written;
  try {
    written = writeResults(dir, "predict", table, machine, options, o.argv);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::printf("\nresults:");
  for (const auto& p : written) std::printf(" %s", p.string().c_str());
  std::printf("\n");
  return 0;
}

}  // namespace quadbin::perf
