// What run, sweep and scaling share (measure_common.hpp).
#include "measure_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "structures.hpp"
#include "world_peers.hpp"

namespace quadbin::perf::measure {

using scenes::SceneKind;

// Times: the median, min, p10, p90 and max over the repetitions of each
// repetition's median over its frames; cpu_ms the same median of CPU time
// (the thread's for 1 thread, the process's for several); others_cpus the
// CPUs other processes kept busy meanwhile, load_avg the largest 1-minute
// load average seen.
const std::vector<std::string> kBaseColumns = {
    "workload",       "scene",       "n",       "structure", "threads", "frames", "repetitions",
    "median_ms",      "min_ms",      "p10_ms",  "p90_ms",    "max_ms",  "cpu_ms", "pairs",
    "bytes_per_body", "others_cpus", "load_avg"};
// Appended to every B and C row (blank on A rows): the final state's
// overlaps and the median time of each stage of the step.
const std::vector<std::string> kWorldColumns = {"overlaps",
                                                "max_penetration",
                                                "stage_integrate_ms",
                                                "stage_broad_phase_ms",
                                                "stage_narrow_phase_ms",
                                                "stage_solver_ms",
                                                "stage_position_ms",
                                                "stage_sleep_ms",
                                                "stage_events_ms"};
std::uint32_t hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

namespace {

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::vector<char> parseWorkloads(const std::vector<std::string>& names) {
  std::vector<char> out;
  for (const auto& name : names) {
    const std::string w = lower(name);
    if (w == "a" || w == "b") {
      const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    } else {
      throw UsageError("unknown workload '" + name + "' (A or B)");
    }
  }
  return out;
}

std::vector<SceneKind> parseScenes(const std::vector<std::string>& names) {
  std::vector<SceneKind> out;
  auto add = [&](SceneKind k) {
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  };
  for (const auto& name : names) {
    if (name == "all") {
      for (auto k : {SceneKind::Uniform, SceneKind::Clustered, SceneKind::Mixed}) add(k);
    } else if (auto k = scenes::parseSceneKind(name)) {
      add(*k);
    } else {
      throw UsageError("unknown scene '" + name + "' (uniform, clustered, mixed, pile or all)");
    }
  }
  return out;
}

/// Names or "all" -> structure names, in list order, each once. `all`
/// means every structure, or quadbin's own only when `quadbinOnly`.
std::vector<std::string> parseStructures(const std::vector<std::string>& names, bool quadbinOnly) {
  auto known = structureNames();
  if (!quadbinOnly) {
    for (auto& peer : worldPeerNames()) known.push_back(std::move(peer));
  }
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& name : names) {
    if (name == "all") {
      for (const auto& s : known) {
        if (!quadbinOnly || isQuadbinStructure(s)) add(s);
      }
    } else if (std::find(known.begin(), known.end(), name) != known.end()) {
      if (quadbinOnly && !isQuadbinStructure(name)) {
        throw UsageError("'" + name + "' is a peer: only quadbin's structures run the world " +
                         "step (see 'quadbin-perf list')");
      }
      add(name);
    } else {
      throw UsageError("unknown broad phase '" + name + "' (see 'quadbin-perf list')");
    }
  }
  return out;
}

Config planned(const MeasureOptions& o, char workload, scenes::SceneKind scene, std::uint32_t n,
               const std::string& structure, std::uint32_t threads, double timeBoxSeconds) {
  Config c;
  c.workload = workload;
  c.scene = scene;
  c.n = n;
  c.structure = structure;
  c.threads = threads;
  c.frames = o.frames;
  c.warmup = o.warmup;
  c.seed = o.seed;
  c.driftSteps = o.driftSteps;
  c.timeBoxSeconds = timeBoxSeconds;
  c.optimizeLayout = o.optimizeLayout;
  c.autoLayout = !o.noAutoLayout;
  return c;
}

void validate(const MeasureOptions& o) {
  if (o.frames == 0) throw UsageError("--frames must be at least 1");
  for (auto n : o.sizes) {
    if (n == 0) throw UsageError("--n must be at least 1");
  }
  for (auto t : o.threads) {
    if (t == 0) throw UsageError("--threads must be at least 1");
  }
  if (!(o.budget >= 0.0)) throw UsageError("--budget must be >= 0 seconds");
  if (!(o.configSeconds >= 0.0)) throw UsageError("--config-seconds must be >= 0 seconds");
  if (o.repetitions == 0) throw UsageError("--repetitions must be at least 1");
}

std::string sceneName(SceneKind k) { return std::string(scenes::toString(k)); }

std::vector<Cell> baseCells(const Outcome& o) {
  const Config& c = o.result.config;
  std::vector<Cell> row{text(std::string(1, c.workload)),
                        text(sceneName(c.scene)),
                        integer(c.n),
                        text(c.structure),
                        integer(c.threads),
                        integer(c.frames)};
  if (o.skipped) {
    for (int i = 0; i < 9; ++i) row.push_back(blank());
  } else {
    row.push_back(integer(o.repMs.size()));
    row.push_back(real(o.result.medianMs, 6));
    row.push_back(real(o.result.minMs, 6));
    row.push_back(real(o.p10Ms, 6));
    row.push_back(real(o.p90Ms, 6));
    row.push_back(real(o.result.maxMs, 6));
    row.push_back(real(o.result.cpuMs, 6));
    row.push_back(integer(o.result.pairs));
    row.push_back(real(o.result.bytesPerBody, 1));
  }
  row.push_back(o.load.wallS > 0.0 ? real(o.load.othersCpus(), 3) : blank());
  row.push_back(o.load.wallS > 0.0 ? real(o.load.loadAvgMax, 2) : blank());
  return row;
}

Cell driftCell(const Outcome& o) {
  return o.skipped || !o.result.energyDrift ? blank() : real(*o.result.energyDrift, 3, true);
}
Cell predictedCell(const Outcome& o) {
  return o.predictedSeconds ? real(*o.predictedSeconds, 3) : blank();
}
Cell statusCell(const Outcome& o) { return text(o.skipped ? "skipped" : "ok"); }

void appendWorldCells(std::vector<Cell>& row, const Outcome& o) {
  const auto& q = o.result.quality;
  row.push_back(o.skipped || !q ? blank() : integer(q->overlaps));
  row.push_back(o.skipped || !q ? blank() : real(q->maxPenetration, 4, true));
  const auto& st = o.result.stageMedians;
  for (const double StageTimes::*ms :
       {&StageTimes::integrateMs, &StageTimes::broadPhaseMs, &StageTimes::narrowPhaseMs,
        &StageTimes::solverMs, &StageTimes::positionMs, &StageTimes::sleepMs,
        &StageTimes::eventsMs}) {
    const bool has = !o.skipped && st && std::isfinite((*st).*ms);
    row.push_back(has ? real((*st).*ms, 6) : blank());
  }
}

/// The pile is a world-step scene: with Workload A it is refused when both
/// were named, and left out of A when the workloads are the default.
bool pileInA(const MeasureOptions& o, const std::vector<char>& workloads,
             const std::vector<SceneKind>& sceneKinds) {
  const bool pile =
      std::find(sceneKinds.begin(), sceneKinds.end(), SceneKind::Pile) != sceneKinds.end();
  const bool a = std::find(workloads.begin(), workloads.end(), 'A') != workloads.end();
  if (pile && a && !o.workloads.empty()) {
    throw UsageError(
        "the pile scene runs in Workload B only (a world under gravity: no Workload A motion); "
        "drop A from --workload or pile from --scene");
  }
  return pile && a;
}

std::string stringList(const std::vector<std::string>& v) {
  std::vector<std::string> items;
  items.reserve(v.size());
  for (const auto& s : v) items.push_back(jsonString(s));
  return jsonArray(items);
}
std::string sceneList(const std::vector<SceneKind>& v) {
  std::vector<std::string> names;
  names.reserve(v.size());
  for (auto k : v) names.push_back(sceneName(k));
  return stringList(names);
}
std::string workloadList(const std::vector<char>& v) {
  std::vector<std::string> names;
  names.reserve(v.size());
  for (char w : v) names.emplace_back(1, w);
  return stringList(names);
}

JsonObject commonOptions(const MeasureOptions& o) {
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", o.budget);
  return {{"frames", std::to_string(o.frames)},
          {"warmup", std::to_string(o.warmup)},
          {"repetitions", std::to_string(o.repetitions)},
          {"seed", std::to_string(o.seed)},
          {"budget_s", budget},
          {"drift_steps", std::to_string(o.driftSteps)},
          {"optimize_layout", o.optimizeLayout ? "true" : "false"},
          {"auto_layout", o.noAutoLayout ? "false" : "true"}};
}

std::string fixed(double v, int precision) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}
std::string msText(double ms) { return fixed(ms, ms < 1.0 ? 4 : ms < 100.0 ? 3 : 1); }
std::string skippedNote(const Outcome& o, double budget) {
  if (!o.skipReason.empty()) return "skipped: " + o.skipReason;
  return "skipped: predicted " + formatSeconds(o.predictedSeconds.value_or(0.0)) + " > budget " +
         formatSeconds(budget);
}

std::string describeConfig(const Config& c) {
  return std::string(1, c.workload) + " " + sceneName(c.scene) + " n=" + std::to_string(c.n) + " " +
         c.structure + " threads=" + std::to_string(c.threads);
}

/// The machine's load over `outcomes`; prints the one-line warning when busy.
MachineLoad summariseLoad(const std::vector<Outcome>& outcomes, unsigned cpus) {
  MachineLoad m;
  LoadUse all;
  for (const auto& o : outcomes) {
    all.add(o.load);
    if (o.load.wallS > 0.05 && o.load.othersCpus() > m.othersCpusMax) {
      m.othersCpusMax = o.load.othersCpus();
      m.maxDuring = describeConfig(o.result.config);
    }
  }
  m.othersCpusMean = all.othersCpus();
  m.loadAvgMax = all.loadAvgMax;
  m.busy = m.othersCpusMean >= kBusyMeanCpus || m.othersCpusMax >= kBusyPeakCpus;
  if (m.busy) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "the machine was busy: other processes used %.2f of its %u CPUs on average "
                  "(%.2f during %s), load average up to %.1f: times may be slow and noisy",
                  m.othersCpusMean, cpus, m.othersCpusMax, m.maxDuring.c_str(), m.loadAvgMax);
    m.warning = buf;
    std::fprintf(stderr, "quadbin-perf: warning: %s\n", buf);
  }
  return m;
}

/// Every configuration, `repetitions` rounds of them (round-robin: round 1
/// decides what is skipped and how many frames are timed, later rounds time
/// the same frames); then each outcome's figures over its rounds.
std::vector<Outcome> measureAll(Session& session, const std::vector<Config>& plan,
                                std::uint32_t repetitions) {
  session.plan(plan, repetitions);
  std::vector<Outcome> outcomes;
  outcomes.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) outcomes.push_back(session.measure(i, plan[i]));
  for (std::uint32_t round = 1; round < repetitions; ++round) {
    for (std::size_t i = 0; i < plan.size(); ++i) session.repeat(i, round, outcomes[i]);
  }
  session.progress().clear();
  for (auto& o : outcomes) summariseRepetitions(o);
  return outcomes;
}

void writeAndReport(const MeasureOptions& o, const Machine& machine, const std::string& name,
                    const Table& table, const JsonObject& options) {
  const auto dir = o.outDir.empty() ? defaultResultDir(machine) : std::filesystem::path(o.outDir);
  std::vector<std::filesystem::path> written;
  try {
    written = writeResults(dir, name, table, machine, options, o.argv);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::printf("\nresults:");
  for (const auto& p : written) std::printf(" %s", p.string().c_str());
  std::printf("\n");
}

}  // namespace quadbin::perf::measure
