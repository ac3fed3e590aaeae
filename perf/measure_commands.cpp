// sweep and scaling: plan the configurations, measure them through a
// Session (budget, progress), print a summary table and write
// <out>/<command>.{csv,json} and <out>/machine.json. (run: run_command.cpp.)
#include <algorithm>
#include <cstdio>
#include <map>

#include "measure_common.hpp"
#include "world_peers.hpp"

namespace quadbin::perf {

using namespace measure;
using scenes::SceneKind;

// ---------------------------------------------------------------- sweep

namespace {

// The sweep's N: --n, or the --range ones, capped at --max-n.
std::vector<std::uint32_t> sweepSizes(const MeasureOptions& o) {
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
  return sizes;
}

Table sweepTable(const std::vector<Outcome>& outcomes) {
  Table table;
  table.columns = kBaseColumns;
  for (const char* c : {"steps_per_s", "energy_drift", "predicted_s", "status"})
    table.columns.emplace_back(c);
  table.columns.insert(table.columns.end(), kWorldColumns.begin(), kWorldColumns.end());
  for (const auto& out : outcomes) {
    auto row = baseCells(out);
    const bool measured = !out.skipped && out.result.medianMs > 0.0;
    row.push_back(measured ? real(1000.0 / out.result.medianMs, 1) : blank());
    row.push_back(driftCell(out));
    row.push_back(predictedCell(out));
    row.push_back(statusCell(out));
    appendWorldCells(row, out);
    table.rows.push_back(std::move(row));
  }
  return table;
}

// One table per scene and thread count: steps per second, N by structure.
void printSweep(const MeasureOptions& o, const std::vector<Outcome>& outcomes,
                const std::vector<SceneKind>& sceneKinds, const std::vector<std::uint32_t>& threads,
                const std::vector<std::string>& structures,
                const std::vector<std::uint32_t>& sizes) {
  std::map<std::tuple<int, std::uint32_t, std::uint32_t, std::string>, const Outcome*> byKey;
  for (const auto& out : outcomes) {
    const auto& c = out.result.config;
    byKey[{static_cast<int>(c.scene), c.threads, c.n, c.structure}] = &out;
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
            row.push_back(withCommas(
                static_cast<unsigned long long>(std::llround(1000.0 / out->result.medianMs))));
          } else {
            row.emplace_back("-");
          }
        }
        rows.push_back(std::move(row));
      }
      printTable(header, rows, std::vector<bool>(header.size(), true));
    }
  }
}

void printSkipped(const std::vector<Outcome>& outcomes, double budget) {
  std::size_t skipped = 0;
  for (const auto& out : outcomes) skipped += out.skipped;
  if (skipped) {
    std::printf(
        "skipped: %zu configuration%s predicted over the budget of %s (--budget 0 runs "
        "everything)\n",
        skipped, skipped == 1 ? "" : "s", formatSeconds(budget).c_str());
  }
}

}  // namespace

int sweepCommand(const MeasureOptions& o) {
  validate(o);
  Machine machine = describeMachine();
  const auto sceneKinds =
      parseScenes(o.scenes.empty() ? std::vector<std::string>{"uniform"} : o.scenes);
  const auto structures =
      parseStructures(o.structures.empty() ? std::vector<std::string>{"all"} : o.structures, true);
  std::vector<std::uint32_t> threads = o.threads;
  if (threads.empty()) threads = {1, hardwareThreads()};
  threads = sortedUnique(threads);
  const std::vector<std::uint32_t> sizes = sweepSizes(o);

  std::vector<Config> plan;
  for (const auto scene : sceneKinds) {
    for (const auto t : threads) {
      for (const auto& s : structures) {
        for (const auto n : sizes) {
          plan.push_back(planned(o, 'C', scene, n, s, t));
        }
      }
    }
  }
  Session session(o.budget, o.verbose);
  const auto outcomes = measureAll(session, plan, o.repetitions);
  machine.load = summariseLoad(outcomes, machine.logicalCpus);

  const Table table = sweepTable(outcomes);
  printSweep(o, outcomes, sceneKinds, threads, structures, sizes);
  printSkipped(outcomes, o.budget);

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

namespace {

// The first measured thread count's outcome of each (workload, scene, n,
// structure): what the others must match, and the speed-up's base.
using Baselines = std::map<std::tuple<char, int, std::uint32_t, std::string>, const Outcome*>;

std::vector<std::uint32_t> scalingThreads(const MeasureOptions& o) {
  std::vector<std::uint32_t> threads = o.threads;
  if (threads.empty()) {
    for (std::uint32_t t = 1; t < hardwareThreads(); t *= 2) threads.push_back(t);
    threads.push_back(hardwareThreads());
  }
  threads.push_back(1);  // the baseline of the speed-up
  return sortedUnique(threads);
}

std::vector<Config> scalingPlan(const MeasureOptions& o, const std::vector<char>& workloads,
                                const std::vector<SceneKind>& sceneKinds,
                                const std::vector<std::string>& structures,
                                const std::vector<std::uint32_t>& threads,
                                const std::vector<std::uint32_t>& sizes) {
  const bool skipPileInA = pileInA(o, workloads, sceneKinds);
  std::vector<Config> plan;
  for (const char w : workloads) {
    for (const auto scene : sceneKinds) {
      if (w == 'A' && scene == SceneKind::Pile && skipPileInA) continue;
      for (const auto n : sizes) {
        for (const auto& s : structures) {
          // Scaling is quadbin's: peers are single-threaded.
          if ((w == 'B' && !isQuadbinStructure(s)) || isWorldPeer(s)) continue;
          for (const auto t : threads) {
            plan.push_back(planned(o, w, scene, n, s, t));
          }
        }
      }
    }
  }
  if (plan.empty()) throw UsageError("nothing to run: no structure takes part in these workloads");
  return plan;
}

// CheckFailure when `out` computed something else than its baseline `b`.
void checkSameResult(const Outcome& out, const Result& b, Session& session) {
  if (b.pairs == out.result.pairs && b.resultHash == out.result.resultHash) return;
  const auto& c = out.result.config;
  session.progress().clear();
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "result differs with the thread count: %c %s n=%u %s: threads=%u gives %llu "
      "%s and hash %016llx, threads=%u gave %llu and %016llx",
      c.workload, sceneName(c.scene).c_str(), c.n, c.structure.c_str(), c.threads,
      static_cast<unsigned long long>(out.result.pairs), c.workload == 'A' ? "pairs" : "contacts",
      static_cast<unsigned long long>(out.result.resultHash), b.config.threads,
      static_cast<unsigned long long>(b.pairs), static_cast<unsigned long long>(b.resultHash));
  throw CheckFailure(buf);
}

// Every configuration once, each checked against its baseline as it ends.
std::vector<Outcome> measureScaling(Session& session, const std::vector<Config>& plan,
                                    Baselines& baseline) {
  std::vector<Outcome> outcomes;
  session.plan(plan);
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
    checkSameResult(out, it->second->result, session);
  }
  session.progress().clear();
  for (auto& out : outcomes) summariseRepetitions(out);
  return outcomes;
}

std::optional<double> speedupOf(const Outcome& out, const Baselines& baseline) {
  const auto& c = out.result.config;
  const auto it = baseline.find({c.workload, static_cast<int>(c.scene), c.n, c.structure});
  if (out.skipped || it == baseline.end() || it->second->result.config.threads != 1 ||
      !(out.result.medianMs > 0.0)) {
    return std::nullopt;
  }
  return it->second->result.medianMs / out.result.medianMs;
}

std::string hashText(std::uint64_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The CSV table, and the summary printed.
Table reportScaling(const MeasureOptions& o, const std::vector<Outcome>& outcomes,
                    const Baselines& baseline) {
  Table table;
  table.columns = kBaseColumns;
  for (const char* c : {"speedup", "result_hash", "energy_drift", "predicted_s", "status"}) {
    table.columns.emplace_back(c);
  }
  table.columns.insert(table.columns.end(), kWorldColumns.begin(), kWorldColumns.end());
  std::vector<std::vector<std::string>> rows;
  for (const auto& out : outcomes) {
    const auto& c = out.result.config;
    auto row = baseCells(out);
    const auto s = speedupOf(out, baseline);
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
  return table;
}

}  // namespace

int scalingCommand(const MeasureOptions& o) {
  validate(o);
  Machine machine = describeMachine();
  const auto workloads =
      parseWorkloads(o.workloads.empty() ? std::vector<std::string>{"A", "B"} : o.workloads);
  const auto sceneKinds =
      parseScenes(o.scenes.empty() ? std::vector<std::string>{"uniform"} : o.scenes);
  const auto structures = parseStructures(
      o.structures.empty() ? std::vector<std::string>{"auto"} : o.structures, false);
  const auto threads = scalingThreads(o);
  const auto sizes = o.sizes.empty() ? std::vector<std::uint32_t>{1000000} : sortedUnique(o.sizes);
  const auto plan = scalingPlan(o, workloads, sceneKinds, structures, threads, sizes);

  Session session(o.budget, o.verbose);
  Baselines baseline;
  const auto outcomes = measureScaling(session, plan, baseline);
  machine.load = summariseLoad(outcomes, machine.logicalCpus);
  const Table table = reportScaling(o, outcomes, baseline);

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
