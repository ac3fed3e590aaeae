// run, sweep and scaling: plan the configurations, measure them through a
// Session (budget, pair-count reference, progress), print a summary table
// and write <out>/<command>.{csv,json} and <out>/machine.json.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "commands.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "structures.hpp"

namespace quadbin::perf {

namespace {

using scenes::SceneKind;

const std::vector<std::string> kBaseColumns = {
    "workload",  "scene",  "n",      "structure", "threads",       "frames",
    "median_ms", "min_ms", "max_ms", "pairs",     "bytes_per_body"};
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
// The peer whose time every Workload A row is compared with.
constexpr const char* kBox2d = "box2d-tree";

std::uint32_t hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

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
  const auto known = structureNames();
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

std::vector<std::uint32_t> sortedUnique(std::vector<std::uint32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
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
    for (int i = 0; i < 5; ++i) row.push_back(blank());
  } else {
    row.push_back(real(o.result.medianMs, 6));
    row.push_back(real(o.result.minMs, 6));
    row.push_back(real(o.result.maxMs, 6));
    row.push_back(integer(o.result.pairs));
    row.push_back(real(o.result.bytesPerBody, 1));
  }
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
    row.push_back(o.skipped || !st ? blank() : real((*st).*ms, 6));
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
  for (const auto& s : v) items.push_back(jsonString(s));
  return jsonArray(items);
}
template <class T>
std::string numberList(const std::vector<T>& v) {
  std::vector<std::string> items;
  for (const auto& x : v) items.push_back(std::to_string(x));
  return jsonArray(items);
}
std::string sceneList(const std::vector<SceneKind>& v) {
  std::vector<std::string> names;
  for (auto k : v) names.push_back(sceneName(k));
  return stringList(names);
}
std::string workloadList(const std::vector<char>& v) {
  std::vector<std::string> names;
  for (char w : v) names.emplace_back(1, w);
  return stringList(names);
}

JsonObject commonOptions(const MeasureOptions& o) {
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", o.budget);
  return {{"frames", std::to_string(o.frames)},
          {"warmup", std::to_string(o.warmup)},
          {"seed", std::to_string(o.seed)},
          {"budget_s", budget},
          {"drift_steps", std::to_string(o.driftSteps)}};
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

std::vector<Outcome> measureAll(Session& session, const std::vector<Config>& plan) {
  session.plan(plan);
  std::vector<Outcome> outcomes;
  outcomes.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) outcomes.push_back(session.measure(i, plan[i]));
  session.progress().clear();
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

}  // namespace

// ---------------------------------------------------------------- run

int runCommand(const MeasureOptions& o) {
  validate(o);
  const Machine machine = describeMachine();
  const auto workloads =
      parseWorkloads(o.workloads.empty() ? std::vector<std::string>{"A", "B"} : o.workloads);
  const auto sceneKinds =
      parseScenes(o.scenes.empty() ? std::vector<std::string>{"all"} : o.scenes);
  const auto structures =
      parseStructures(o.structures.empty() ? std::vector<std::string>{"all"} : o.structures, false);
  const auto threads = o.threads.empty() ? std::vector<std::uint32_t>{1} : sortedUnique(o.threads);

  std::map<std::string, std::uint32_t> defaultMax;
  for (const auto& s : structures) defaultMax[s] = makeStructure(s)->defaultRunMaxBodies();
  const bool skipPileInA = pileInA(o, workloads, sceneKinds);
  std::vector<Config> plan;
  std::set<std::string> peersInB;
  for (const char w : workloads) {
    for (const auto scene : sceneKinds) {
      if (w == 'A' && scene == SceneKind::Pile && skipPileInA) continue;
      std::vector<std::uint32_t> sizes = sortedUnique(o.sizes);
      if (sizes.empty()) {
        sizes = {10000, 100000};
        if (w == 'A' && scene == SceneKind::Uniform) sizes.push_back(1000000);
      }
      for (const auto n : sizes) {
        for (const auto& s : structures) {
          if (w == 'B' && !isQuadbinStructure(s)) {
            // A note for peers asked for by name; `all` means "all that take part".
            if (std::find(o.structures.begin(), o.structures.end(), s) != o.structures.end()) {
              peersInB.insert(s);
            }
            continue;
          }
          for (const auto t : threads) {
            plan.push_back(
                {w, scene, n, s, t, o.frames, o.warmup, o.seed, o.driftSteps, o.configSeconds, {}});
            // A peer whose setup is too slow for the main job at this N
            // is shown as skipped unless asked for by name.
            const std::uint32_t maxN = defaultMax.at(s);
            if (maxN != 0 && n > maxN &&
                std::find(o.structures.begin(), o.structures.end(), s) == o.structures.end()) {
              plan.back().skipReason = "its untimed setup is too slow above " + withCommas(maxN) +
                                       " bodies for the main job; name it in --broadphase to "
                                       "run it";
            }
          }
        }
      }
    }
  }
  if (!peersInB.empty()) {
    std::string names;
    for (const auto& s : peersInB) {
      if (!names.empty()) names += ", ";
      names += s;
    }
    std::fprintf(stderr,
                 "quadbin-perf: note: %s take%s part in Workload A only (the world step "
                 "runs quadbin's structures)\n",
                 names.c_str(), peersInB.size() == 1 ? "s" : "");
  }
  if (plan.empty()) throw UsageError("nothing to run: no structure takes part in these workloads");

  Session session(o.budget, o.verbose);
  const auto outcomes = measureAll(session, plan);

  // Speed against Box2D: its median over ours, same workload/scene/n/threads.
  std::map<std::tuple<char, int, std::uint32_t, std::uint32_t>, double> box2d;
  for (const auto& out : outcomes) {
    const auto& c = out.result.config;
    if (c.structure == kBox2d && !out.skipped) {
      box2d[{c.workload, static_cast<int>(c.scene), c.n, c.threads}] = out.result.medianMs;
    }
  }
  auto vsBox2d = [&](const Outcome& out) -> std::optional<double> {
    const auto& c = out.result.config;
    const auto it = box2d.find({c.workload, static_cast<int>(c.scene), c.n, c.threads});
    if (out.skipped || it == box2d.end() || !(out.result.medianMs > 0.0)) return std::nullopt;
    return it->second / out.result.medianMs;
  };

  Table table;
  table.columns = kBaseColumns;
  for (const char* c : {"vs_box2d", "energy_drift", "predicted_s", "status"})
    table.columns.push_back(c);
  table.columns.insert(table.columns.end(), kWorldColumns.begin(), kWorldColumns.end());
  for (const auto& out : outcomes) {
    auto row = baseCells(out);
    const auto speed = vsBox2d(out);
    row.push_back(speed ? real(*speed, 3) : blank());
    row.push_back(driftCell(out));
    row.push_back(predictedCell(out));
    row.push_back(statusCell(out));
    appendWorldCells(row, out);
    table.rows.push_back(std::move(row));
  }

  for (const char w : workloads) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& out : outcomes) {
      const auto& c = out.result.config;
      if (c.workload != w) continue;
      std::vector<std::string> row{sceneName(c.scene), withCommas(c.n), c.structure,
                                   std::to_string(c.threads)};
      if (out.skipped) {
        row.emplace_back("");
        row.emplace_back("skipped");
        row.resize(w == 'A' ? 9 : 11);
        row.push_back(skippedNote(out, o.budget));
      } else {
        const auto speed = vsBox2d(out);
        // The steps timed: fewer than --frames where the time-box cut them.
        row.push_back(std::to_string(c.frames));
        row.push_back(msText(out.result.medianMs));
        row.push_back(withCommas(out.result.pairs));
        row.push_back(fixed(out.result.bytesPerBody, 1));
        if (w == 'A') row.push_back(speed ? fixed(*speed, 2) + "x" : "");
        if (w == 'B') {
          char drift[32] = "";
          if (out.result.energyDrift) {
            std::snprintf(drift, sizeof drift, "%+.2e", *out.result.energyDrift);
          }
          row.emplace_back(drift);
          const auto& q = out.result.quality;
          row.push_back(q ? withCommas(q->overlaps) : "");
          char pen[32] = "";
          if (q) std::snprintf(pen, sizeof pen, "%.3g", q->maxPenetration);
          row.emplace_back(pen);
        }
      }
      rows.push_back(std::move(row));
    }
    if (rows.empty()) continue;
    std::printf("%sWorkload %c: %s, median of %u %s after %u warm-up%s\n",
                w == workloads.front() ? "" : "\n", w,
                w == 'A' ? "broad phase alone" : "full world step", o.frames,
                w == 'A' ? "frames" : "steps", o.warmup,
                o.configSeconds > 0.0 ? " (fewer, at least 10, where a configuration would "
                                        "take over --config-seconds: see the frames column)"
                                      : "");
    std::vector<std::string> header{"scene",
                                    "n",
                                    "structure",
                                    "threads",
                                    w == 'A' ? "frames" : "steps",
                                    w == 'A' ? "ms/frame" : "ms/step",
                                    w == 'A' ? "pairs" : "contacts",
                                    "bytes/body",
                                    w == 'A' ? "vs box2d" : "energy drift"};
    if (w == 'B') {
      header.emplace_back("overlaps");
      header.emplace_back("max pen.");
    }
    printTable(header, rows, {false, true, false, true, true, true, true, true, true, true, true});
  }

  JsonObject options{
      {"workloads", workloadList(workloads)},
      {"scenes", sceneList(sceneKinds)},
      {"sizes", o.sizes.empty() ? jsonString("default") : numberList(sortedUnique(o.sizes))},
      {"structures", stringList(structures)},
      {"threads", numberList(threads)}};
  for (auto& m : commonOptions(o)) options.push_back(std::move(m));
  char configSeconds[32];
  std::snprintf(configSeconds, sizeof configSeconds, "%g", o.configSeconds);
  options.push_back({"config_seconds", configSeconds});
  writeAndReport(o, machine, "run", table, options);
  return 0;
}

// ---------------------------------------------------------------- sweep

int sweepCommand(const MeasureOptions& o) {
  validate(o);
  const Machine machine = describeMachine();
  const auto sceneKinds =
      parseScenes(o.scenes.empty() ? std::vector<std::string>{"uniform"} : o.scenes);
  const auto structures =
      parseStructures(o.structures.empty() ? std::vector<std::string>{"all"} : o.structures, true);
  std::vector<std::uint32_t> threads = o.threads;
  if (threads.empty()) threads = {1, hardwareThreads()};
  threads = sortedUnique(threads);

  std::vector<std::uint32_t> sizes = o.sizes;
  if (sizes.empty()) {
    auto addRange = [&](std::uint32_t from, std::uint32_t to, std::uint32_t step) {
      for (std::uint32_t n = from; n <= to; n += step) sizes.push_back(n);
    };
    const auto ranges = o.ranges.empty() ? std::vector<std::string>{"all"} : o.ranges;
    for (const auto& r : ranges) {
      if (r == "small" || r == "all") addRange(10, 100, 10);
      if (r == "medium" || r == "all") addRange(100, 1000, 100);
      if (r == "large" || r == "all") addRange(1000, 30000, 1000);
      if (r != "small" && r != "medium" && r != "large" && r != "all") {
        throw UsageError("unknown range '" + r + "' (small, medium, large or all)");
      }
    }
  }
  sizes = sortedUnique(sizes);
  if (o.maxN) std::erase_if(sizes, [&](std::uint32_t n) { return n > o.maxN; });
  if (sizes.empty()) throw UsageError("nothing to run: no N left (see --range, --n, --max-n)");

  std::vector<Config> plan;
  for (const auto scene : sceneKinds) {
    for (const auto t : threads) {
      for (const auto& s : structures) {
        for (const auto n : sizes) {
          plan.push_back({'C', scene, n, s, t, o.frames, o.warmup, o.seed, o.driftSteps, 0.0, {}});
        }
      }
    }
  }
  Session session(o.budget, o.verbose);
  const auto outcomes = measureAll(session, plan);

  Table table;
  table.columns = kBaseColumns;
  for (const char* c : {"steps_per_s", "energy_drift", "predicted_s", "status"})
    table.columns.push_back(c);
  table.columns.insert(table.columns.end(), kWorldColumns.begin(), kWorldColumns.end());
  std::map<std::tuple<int, std::uint32_t, std::uint32_t, std::string>, const Outcome*> byKey;
  for (const auto& out : outcomes) {
    const auto& c = out.result.config;
    byKey[{static_cast<int>(c.scene), c.threads, c.n, c.structure}] = &out;
    auto row = baseCells(out);
    const bool measured = !out.skipped && out.result.medianMs > 0.0;
    row.push_back(measured ? real(1000.0 / out.result.medianMs, 1) : blank());
    row.push_back(driftCell(out));
    row.push_back(predictedCell(out));
    row.push_back(statusCell(out));
    appendWorldCells(row, out);
    table.rows.push_back(std::move(row));
  }

  bool first = true;
  for (const auto scene : sceneKinds) {
    for (const auto t : threads) {
      std::printf(
          "%sWorkload C: world steps per second, %s, threads=%u (median of %u steps "
          "after %u warm-up)\n",
          first ? "" : "\n", sceneName(scene).c_str(), t, o.frames, o.warmup);
      first = false;
      std::vector<std::string> header{"n"};
      header.insert(header.end(), structures.begin(), structures.end());
      std::vector<std::vector<std::string>> rows;
      for (const auto n : sizes) {
        std::vector<std::string> row{withCommas(n)};
        for (const auto& s : structures) {
          const Outcome* out = byKey.at({static_cast<int>(scene), t, n, s});
          if (out->skipped) {
            row.emplace_back("skipped");
          } else if (out->result.medianMs > 0.0) {
            row.push_back(
                withCommas(static_cast<unsigned long long>(1000.0 / out->result.medianMs + 0.5)));
          } else {
            row.emplace_back("-");
          }
        }
        rows.push_back(std::move(row));
      }
      printTable(header, rows, std::vector<bool>(header.size(), true));
    }
  }
  std::size_t skipped = 0;
  for (const auto& out : outcomes) skipped += out.skipped;
  if (skipped) {
    std::printf(
        "skipped: %zu configuration%s predicted over the budget of %s (--budget 0 runs "
        "everything)\n",
        skipped, skipped == 1 ? "" : "s", formatSeconds(o.budget).c_str());
  }

  std::vector<std::string> rangeNames =
      o.ranges.empty() ? std::vector<std::string>{"all"} : o.ranges;
  JsonObject options{{"scenes", sceneList(sceneKinds)},
                     {"sizes", numberList(sizes)},
                     {"ranges", o.sizes.empty() ? stringList(rangeNames) : jsonString("--n")},
                     {"structures", stringList(structures)},
                     {"threads", numberList(threads)}};
  for (auto& m : commonOptions(o)) options.push_back(std::move(m));
  writeAndReport(o, machine, "sweep", table, options);
  return 0;
}

// ---------------------------------------------------------------- scaling

int scalingCommand(const MeasureOptions& o) {
  validate(o);
  const Machine machine = describeMachine();
  const auto workloads =
      parseWorkloads(o.workloads.empty() ? std::vector<std::string>{"A", "B"} : o.workloads);
  const auto sceneKinds =
      parseScenes(o.scenes.empty() ? std::vector<std::string>{"uniform"} : o.scenes);
  const auto structures = parseStructures(
      o.structures.empty() ? std::vector<std::string>{"auto"} : o.structures, false);
  std::vector<std::uint32_t> threads = o.threads;
  if (threads.empty()) {
    for (std::uint32_t t = 1; t < hardwareThreads(); t *= 2) threads.push_back(t);
    threads.push_back(hardwareThreads());
  }
  threads.push_back(1);  // the baseline of the speed-up
  threads = sortedUnique(threads);
  const auto sizes = o.sizes.empty() ? std::vector<std::uint32_t>{1000000} : sortedUnique(o.sizes);

  const bool skipPileInA = pileInA(o, workloads, sceneKinds);
  std::vector<Config> plan;
  for (const char w : workloads) {
    for (const auto scene : sceneKinds) {
      if (w == 'A' && scene == SceneKind::Pile && skipPileInA) continue;
      for (const auto n : sizes) {
        for (const auto& s : structures) {
          if (w == 'B' && !isQuadbinStructure(s)) continue;
          for (const auto t : threads) {
            plan.push_back({w, scene, n, s, t, o.frames, o.warmup, o.seed, o.driftSteps, 0.0, {}});
          }
        }
      }
    }
  }
  if (plan.empty()) throw UsageError("nothing to run: no structure takes part in these workloads");
  Session session(o.budget, o.verbose);
  std::vector<Outcome> outcomes;
  session.plan(plan);
  // The baseline (first measured thread count) of each group, to compare with.
  std::map<std::tuple<char, int, std::uint32_t, std::string>, const Outcome*> baseline;
  outcomes.reserve(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    outcomes.push_back(session.measure(i, plan[i]));
    const Outcome& out = outcomes.back();
    if (out.skipped) continue;
    const auto& c = out.result.config;
    const auto key = std::make_tuple(c.workload, static_cast<int>(c.scene), c.n, c.structure);
    const auto it = baseline.find(key);
    if (it == baseline.end()) {
      baseline[key] = &out;
      continue;
    }
    const Result& b = it->second->result;
    if (b.pairs != out.result.pairs || b.resultHash != out.result.resultHash) {
      session.progress().clear();
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "result differs with the thread count: %c %s n=%u %s: threads=%u gives %llu "
                    "%s and hash %016llx, threads=%u gave %llu and %016llx",
                    c.workload, sceneName(c.scene).c_str(), c.n, c.structure.c_str(), c.threads,
                    static_cast<unsigned long long>(out.result.pairs),
                    c.workload == 'A' ? "pairs" : "contacts",
                    static_cast<unsigned long long>(out.result.resultHash), b.config.threads,
                    static_cast<unsigned long long>(b.pairs),
                    static_cast<unsigned long long>(b.resultHash));
      throw CheckFailure(buf);
    }
  }
  session.progress().clear();

  auto speedup = [&](const Outcome& out) -> std::optional<double> {
    const auto& c = out.result.config;
    const auto it = baseline.find({c.workload, static_cast<int>(c.scene), c.n, c.structure});
    if (out.skipped || it == baseline.end() || it->second->result.config.threads != 1 ||
        !(out.result.medianMs > 0.0)) {
      return std::nullopt;
    }
    return it->second->result.medianMs / out.result.medianMs;
  };
  auto hashText = [](std::uint64_t h) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return std::string(buf);
  };

  Table table;
  table.columns = kBaseColumns;
  for (const char* c : {"speedup", "result_hash", "energy_drift", "predicted_s", "status"}) {
    table.columns.push_back(c);
  }
  table.columns.insert(table.columns.end(), kWorldColumns.begin(), kWorldColumns.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& out : outcomes) {
    const auto& c = out.result.config;
    auto row = baseCells(out);
    const auto s = speedup(out);
    row.push_back(s ? real(*s, 3) : blank());
    row.push_back(out.skipped ? blank() : text(hashText(out.result.resultHash)));
    row.push_back(driftCell(out));
    row.push_back(predictedCell(out));
    row.push_back(statusCell(out));
    appendWorldCells(row, out);
    table.rows.push_back(std::move(row));

    std::vector<std::string> line{std::string(1, c.workload), sceneName(c.scene), withCommas(c.n),
                                  c.structure, std::to_string(c.threads)};
    if (out.skipped) {
      line.emplace_back("skipped");
      line.resize(9);
      line.push_back(skippedNote(out, o.budget));
    } else {
      line.push_back(msText(out.result.medianMs));
      line.push_back(s ? fixed(*s, 2) + "x" : "");
      line.push_back(withCommas(out.result.pairs));
      line.push_back(hashText(out.result.resultHash));
    }
    rows.push_back(std::move(line));
  }
  std::printf("Thread scaling: median of %u frames/steps after %u warm-up; hardware threads: %u\n",
              o.frames, o.warmup, hardwareThreads());
  printTable({"wl", "scene", "n", "structure", "threads", "ms/step", "speed-up", "pairs/contacts",
              "result hash"},
             rows, {false, false, true, false, true, true, true, true, false});
  std::printf("identical results for every thread count: yes\n");

  JsonObject options{{"workloads", workloadList(workloads)},
                     {"scenes", sceneList(sceneKinds)},
                     {"sizes", numberList(sizes)},
                     {"structures", stringList(structures)},
                     {"threads", numberList(threads)}};
  for (auto& m : commonOptions(o)) options.push_back(std::move(m));
  writeAndReport(o, machine, "scaling", table, options);
  return 0;
}

}  // namespace quadbin::perf
