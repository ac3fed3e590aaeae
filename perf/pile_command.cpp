// pile: drops the pile scene (N balls under gravity into a closed box) and
// follows it step by step: how long the fall takes to come to rest, and
// what a step costs while everything moves and once the pile sleeps.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <quadbin/engine/world.hpp>
#include <quadbin/error.hpp>
#include <quadbin/scenes/scene.hpp>

#include "commands.hpp"
#include "measure_common.hpp"
#include "quality.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "structures.hpp"
#include "workloads.hpp"

namespace quadbin::perf {

namespace {

using Clock = std::chrono::steady_clock;

// A second of steps at dt = 1/60: the windows of the two step-time medians.
constexpr std::uint32_t kStepsPerSecond = 60;
// The kinetic energy is at rest below this fraction of its peak.
constexpr double kRestFraction = 1e-3;

struct StepRow {
  double kineticEnergy = 0.0;
  std::uint32_t awakeBodies = 0;
  std::uint32_t contacts = 0;
  double ms = 0.0;
};

struct PileRun {
  std::uint32_t n = 0;
  std::uint32_t threads = 1;
  std::uint64_t seed = 0;
  std::vector<StepRow> steps;
  double peakEnergy = 0.0;
  std::uint32_t peakStep = 0;
  std::optional<std::uint32_t> restStep;  // first step of the rest that lasts
  double firstMedianMs = 0.0, lastMedianMs = 0.0;
  // The first second's median over the last one's (0: no last second time).
  [[nodiscard]] double firstOverLast() const {
    return lastMedianMs > 0.0 ? firstMedianMs / lastMedianMs : 0.0;
  }
  Quality quality;
  double wallSeconds = 0.0;
  std::string file;
};

double timeOf(std::uint32_t step) {
  return static_cast<double>(step + 1) / static_cast<double>(kStepsPerSecond);
}

double medianMs(const std::vector<StepRow>& rows, std::size_t from, std::size_t to) {
  std::vector<double> ms;
  for (std::size_t k = from; k < to && k < rows.size(); ++k) ms.push_back(rows[k].ms);
  return median(ms);
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// "rest at" as printed: a time, or "never".
std::string restAt(const std::optional<std::uint32_t>& step) {
  return step ? format("%.2f s", timeOf(*step)) : std::string("never");
}

PileRun runPile(BroadPhaseType type, std::uint32_t n, std::uint32_t threads, std::uint64_t seed,
                std::uint32_t steps, Progress& progress, std::size_t index) {
  PileRun run;
  run.n = n;
  run.threads = threads;
  run.seed = seed;
  const auto scene = scenes::generate(scenes::SceneKind::Pile, n, seed);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Pile);
  def.broadPhase = type;
  def.threadCount = threads;
  def.logLevel = LogLevel::Error;
  World world = scenes::makeWorld(scene, def);
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  const std::string what = "pile n=" + std::to_string(n) + " threads=" + std::to_string(threads) +
                           " seed=" + std::to_string(seed);
  const auto begin = Clock::now();
  run.steps.reserve(steps);
  for (std::uint32_t k = 0; k < steps; ++k) {
    if (k % 10 == 0) {
      progress.show(index, what + " step " + std::to_string(k) + "/" + std::to_string(steps));
    }
    const auto start = Clock::now();
    world.step(dt);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    run.steps.push_back(
        {world.kineticEnergy(), world.stats().awakeBodies, world.stats().contacts, ms});
  }
  run.wallSeconds = std::chrono::duration<double>(Clock::now() - begin).count();
  progress.finish(index);

  for (std::uint32_t k = 0; k < steps; ++k) {
    if (run.steps[k].kineticEnergy > run.peakEnergy) {
      run.peakEnergy = run.steps[k].kineticEnergy;
      run.peakStep = k;
    }
  }
  // At rest from the step after the last one at or above the threshold.
  const double threshold = kRestFraction * run.peakEnergy;
  std::uint32_t k = steps;
  while (k > 0 && run.steps[k - 1].kineticEnergy < threshold) --k;
  if (k < steps && run.peakEnergy > 0.0) run.restStep = k;
  run.firstMedianMs = medianMs(run.steps, 0, kStepsPerSecond);
  run.lastMedianMs =
      medianMs(run.steps, steps > kStepsPerSecond ? steps - kStepsPerSecond : 0, steps);
  run.quality = measureQuality(world);
  return run;
}

void writeSteps(const std::filesystem::path& path, const PileRun& run) {
  std::string csv = "step,time_s,kinetic_energy,awake_bodies,contacts,step_ms\n";
  char line[160];
  for (std::uint32_t k = 0; k < run.steps.size(); ++k) {
    const StepRow& s = run.steps[k];
    std::snprintf(line, sizeof line, "%u,%.6f,%.9g,%u,%u,%.6f\n", k, timeOf(k), s.kineticEnergy,
                  s.awakeBodies, s.contacts, s.ms);
    csv += line;
  }
  std::ofstream out(path, std::ios::binary);
  out << csv;
  out.close();
  if (!out) throw UsageError("cannot write " + path.string());
}

// What pileCommand runs: the sizes, thread counts, seeds and steps.
struct PilePlan {
  std::vector<std::uint32_t> sizes, threads;
  std::vector<std::uint64_t> seeds;
  std::uint32_t steps = 0;
  BroadPhaseType type = BroadPhaseType::Auto;
};

PilePlan planPile(const PileOptions& o) {
  PilePlan plan;
  using measure::sortedUnique;
  plan.sizes =
      sortedUnique(o.sizes.empty() ? std::vector<std::uint32_t>{500, 10000, 100000} : o.sizes);
  plan.threads = sortedUnique(o.threads.empty() ? std::vector<std::uint32_t>{1} : o.threads);
  plan.seeds = sortedUnique(o.seeds.empty() ? std::vector<std::uint64_t>{42} : o.seeds);
  for (const auto n : plan.sizes) {
    if (n == 0) throw UsageError("--n must be at least 1");
  }
  for (const auto t : plan.threads) {
    if (t == 0) throw UsageError("--threads must be at least 1");
  }
  if (!(o.seconds > 0.0) || !(o.seconds <= 86400.0)) {
    throw UsageError("--seconds must be > 0 (and at most 86400)");
  }
  plan.steps = static_cast<std::uint32_t>(
      std::max(1.0, std::round(o.seconds * static_cast<double>(kStepsPerSecond))));
  plan.type = worldBroadPhase(o.structure);
  return plan;
}

// One run per size, thread count and seed, in that order. With one seed
// the step files are pile_n<N>_t<T>.csv, with several
// pile_n<N>_t<T>_s<SEED>.csv.
std::vector<PileRun> measurePiles(const PilePlan& plan) {
  Progress progress;
  std::vector<double> weights;
  for (const auto n : plan.sizes) {
    for (std::size_t k = 0; k < plan.threads.size() * plan.seeds.size(); ++k) {
      weights.push_back(static_cast<double>(n));
    }
  }
  progress.plan(weights);
  std::vector<PileRun> runs;
  for (const auto n : plan.sizes) {
    for (const auto t : plan.threads) {
      for (const auto seed : plan.seeds) {
        runs.push_back(runPile(plan.type, n, t, seed, plan.steps, progress, runs.size()));
        runs.back().file = "pile_n" + std::to_string(n) + "_t" + std::to_string(t) +
                           (plan.seeds.size() > 1 ? "_s" + std::to_string(seed) : "") + ".csv";
      }
    }
  }
  progress.clear();
  return runs;
}

Table pileTable(const PileOptions& o, std::uint32_t steps, const std::vector<PileRun>& runs) {
  Table table;
  table.columns = {"n",
                   "threads",
                   "structure",
                   "seed",
                   "steps",
                   "peak_kinetic_energy",
                   "peak_time_s",
                   "rest_time_s",
                   "first_second_median_ms",
                   "last_second_median_ms",
                   "first_over_last",
                   "awake_bodies_end",
                   "contacts_end",
                   "overlaps",
                   "max_penetration",
                   "wall_s",
                   "steps_file"};
  for (const auto& run : runs) {
    const double ratio = run.firstOverLast();
    table.rows.push_back(
        {integer(run.n), integer(run.threads), text(o.structure), integer(run.seed), integer(steps),
         real(run.peakEnergy, 6, true), real(timeOf(run.peakStep), 6),
         run.restStep ? real(timeOf(*run.restStep), 6) : blank(), real(run.firstMedianMs, 6),
         real(run.lastMedianMs, 6), run.lastMedianMs > 0.0 ? real(ratio, 3) : blank(),
         integer(run.steps.back().awakeBodies), integer(run.steps.back().contacts),
         integer(run.quality.overlaps), real(run.quality.maxPenetration, 4, true),
         real(run.wallSeconds, 3), text(run.file)});
  }
  return table;
}

std::string seedList(const std::vector<std::uint64_t>& seeds) {
  std::string out;
  for (const auto seed : seeds) out += (out.empty() ? "" : ", ") + std::to_string(seed);
  return out;
}

// With several seeds: per size and thread count, the rest times over the
// seeds (smallest, median, largest; a run that never rests counts as
// later than any time) and how many never rest. The pile is chaotic: one
// seed's rest time says little about the next one's.
void printRestOverSeeds(const PilePlan& plan, const std::vector<PileRun>& runs) {
  if (plan.seeds.size() < 2) return;
  std::vector<std::vector<std::string>> rows;
  for (const auto n : plan.sizes) {
    for (const auto t : plan.threads) {
      std::vector<std::optional<std::uint32_t>> rest;
      for (const auto& run : runs) {
        if (run.n == n && run.threads == t) rest.push_back(run.restStep);
      }
      // nullopt (never) last.
      std::sort(rest.begin(), rest.end(),
                [](const auto& l, const auto& r) { return l && (!r || *l < *r); });
      const auto never = static_cast<std::size_t>(
          std::count_if(rest.begin(), rest.end(), [](const auto& r) { return !r.has_value(); }));
      const std::size_t mid = (rest.size() - 1) / 2;  // the lower median
      rows.push_back({withCommas(n), std::to_string(t), std::to_string(rest.size()),
                      restAt(rest.front()), restAt(rest[mid]), restAt(rest.back()),
                      std::to_string(never)});
    }
  }
  std::printf("\nRest over the seeds (%s):\n", seedList(plan.seeds).c_str());
  printTable({"n", "threads", "seeds", "first", "median", "last", "never"}, rows,
             std::vector<bool>(7, true));
}

void printPiles(const PileOptions& o, const PilePlan& plan, const std::vector<PileRun>& runs) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& run : runs) {
    const double ratio = run.firstOverLast();
    rows.push_back({withCommas(run.n), std::to_string(run.threads), std::to_string(run.seed),
                    format("%.4g", run.peakEnergy), format("%.2f s", timeOf(run.peakStep)),
                    restAt(run.restStep), format("%.3f", run.firstMedianMs),
                    format("%.3f", run.lastMedianMs),
                    run.lastMedianMs > 0.0 ? format("%.2fx", ratio) : "",
                    withCommas(run.steps.back().awakeBodies), withCommas(run.quality.overlaps),
                    format("%.3g", run.quality.maxPenetration)});
  }
  std::printf(
      "Pile: N balls of radius 1 dropped under gravity (0, -9.8) into a closed box, %u steps of "
      "1/60 s (%.4g s), %s, seed%s %s\n",
      plan.steps, static_cast<double>(plan.steps) / kStepsPerSecond, o.structure.c_str(),
      plan.seeds.size() > 1 ? "s" : "", seedList(plan.seeds).c_str());
  printTable({"n", "threads", "seed", "peak KE", "peak at", "rest at", "ms 1st s", "ms last s",
              "1st/last", "awake at end", "overlaps", "max pen."},
             rows, std::vector<bool>(12, true));
  std::printf(
      "rest at: the kinetic energy stays below 1e-3 of its peak from then on; ms 1st s, ms last "
      "s: median step time over the first and the last second\n");
  printRestOverSeeds(plan, runs);
}

JsonObject pileOptionsJson(const PileOptions& o, const PilePlan& plan) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", o.seconds);
  return JsonObject{{"sizes", measure::numberList(plan.sizes)},
                    {"threads", measure::numberList(plan.threads)},
                    {"seconds", seconds},
                    {"steps", std::to_string(plan.steps)},
                    {"structure", jsonString(o.structure)},
                    {"seeds", measure::numberList(plan.seeds)}};
}

}  // namespace

int pileCommand(const PileOptions& o) {
  const PilePlan plan = planPile(o);
  const Machine machine = describeMachine();
  const std::vector<PileRun> runs = measurePiles(plan);

  // Results: one file per run, then the summary (nothing before all ran).
  const auto dir = o.outDir.empty() ? defaultResultDir(machine) : std::filesystem::path(o.outDir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create " + dir.string() + ": " + ec.message());
  for (const auto& run : runs) writeSteps(dir / run.file, run);

  const Table table = pileTable(o, plan.steps, runs);
  printPiles(o, plan, runs);
  std::vector<std::filesystem::path> written;
  try {
    written = writeResults(dir, "pile", table, machine, pileOptionsJson(o, plan), o.argv);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::printf("\nresults:");
  for (const auto& p : written) std::printf(" %s", p.string().c_str());
  std::printf(" and %zu step file%s in %s\n", runs.size(), runs.size() == 1 ? "" : "s",
              dir.string().c_str());
  return 0;
}

}  // namespace quadbin::perf
