// features: what each game feature (filtering, sensors, materials,
// friction, kinematic bodies, events, pre-solve, forces, drawing) costs per
// step on the reference scenes: a baseline world and one world per feature
// on the same scene, stepped in interleaved rounds so that the machine's
// load falls on all of them alike.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <quadbin/tasks/task_system.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "feature_worlds.hpp"
#include "load.hpp"
#include "measure_common.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "workloads.hpp"

namespace quadbin::perf {

namespace {

using Clock = std::chrono::steady_clock;

// One scene, size and thread count: the baseline and the features on it.
struct Group {
  scenes::SceneKind scene = scenes::SceneKind::Uniform;
  std::uint32_t n = 0;
  std::uint32_t threads = 1;
};

// One world's figures over the rounds.
struct Measured {
  Group group;
  Feature feature = Feature::Baseline;
  std::vector<double> repMs, repCpuMs;  // each round's median per step
  std::vector<double> ratios;           // each round's ms over the baseline's
  std::vector<double> cpuRatios;        // each round's CPU ms over the baseline's
  std::uint32_t contacts = 0;           // of the last step
  double workPerStep = 0.0;             // the feature's work, per step
  LoadUse load;
};

// ---------------------------------------------------------------- plan

struct Plan {
  std::vector<Group> groups;
  std::vector<Feature> features;  // Baseline first
};

std::vector<Feature> parseFeatures(const std::vector<std::string>& names) {
  std::vector<Feature> out{Feature::Baseline};
  auto add = [&](Feature f) {
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  };
  for (const auto& name : names) {
    if (name == "all") {
      for (const Feature f : allFeatures()) add(f);
    } else if (const auto f = parseFeature(name)) {
      add(*f);
    } else {
      std::string known;
      for (const Feature k : allFeatures()) {
        known += featureName(k);
        known += ", ";
      }
      throw UsageError(std::string("unknown feature '")
                           .append(name)
                           .append("' (")
                           .append(known)
                           .append("or all)"));
    }
  }
  if (names.empty()) out = allFeatures();
  return out;
}

Plan makePlan(const FeaturesOptions& o) {
  if (o.steps == 0) throw UsageError("--steps must be at least 1");
  if (o.repetitions == 0) throw UsageError("--repetitions must be at least 1");
  const auto sizes =
      measure::sortedUnique(o.sizes.empty() ? std::vector<std::uint32_t>{10000, 100000} : o.sizes);
  const auto threads =
      measure::sortedUnique(o.threads.empty() ? std::vector<std::uint32_t>{1} : o.threads);
  for (const auto n : sizes) {
    if (n == 0) throw UsageError("--n must be at least 1");
  }
  for (const auto t : threads) {
    if (t == 0 || t > 1024) throw UsageError("--threads must be in [1, 1024]");
  }
  const auto kinds = measure::parseScenes(
      o.scenes.empty() ? std::vector<std::string>{"uniform", "clustered"} : o.scenes);
  Plan plan;
  plan.features = parseFeatures(o.features);
  for (const auto kind : kinds) {
    for (const auto n : sizes) {
      for (const auto t : threads) plan.groups.push_back({kind, n, t});
    }
  }
  return plan;
}

// ---------------------------------------------------------------- measure

// `steps` steps of `world`: the median wall and CPU ms per step.
void timeSteps(FeatureWorld& world, std::uint32_t steps, std::uint32_t threads, Measured& m) {
  std::vector<double> ms, cpu;
  ms.reserve(steps);
  cpu.reserve(steps);
  const CpuSample before = sampleCpu();
  for (std::uint32_t k = 0; k < steps; ++k) {
    const double cpu0 = cpuNowMs(threads);
    const auto start = Clock::now();
    world.step();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    cpu.push_back(cpuNowMs(threads) - cpu0);
  }
  m.load.add(before, sampleCpu());
  m.repMs.push_back(median(ms));
  m.repCpuMs.push_back(median(cpu));
}

// The baseline and every feature on one group, in interleaved rounds: each
// round times every world once, starting one world later than the round
// before, so that no world always runs first.
std::vector<Measured> measureGroup(const FeaturesOptions& o, const Plan& plan, const Group& g,
                                   Progress& progress, std::size_t index) {
  const auto what = measure::sceneName(g.scene) + " n=" + std::to_string(g.n) +
                    " threads=" + std::to_string(g.threads);
  progress.show(index, what + ": making the worlds");
  const auto scene = scenes::generate(g.scene, g.n, o.seed);
  const auto tasks = makeTaskSystem(g.threads);
  std::vector<std::unique_ptr<FeatureWorld>> worlds;
  std::vector<Measured> out;
  for (const Feature f : plan.features) {
    worlds.push_back(std::make_unique<FeatureWorld>(f, scene, g.scene, tasks));
    for (std::uint32_t k = 0; k < o.warmup; ++k) worlds.back()->step();
    out.push_back(Measured{g, f, {}, {}, {}, {}, 0, 0.0, {}});
  }
  const std::size_t count = worlds.size();
  for (std::uint32_t round = 0; round < o.repetitions; ++round) {
    progress.show(
        index, what + " round " + std::to_string(round + 1) + "/" + std::to_string(o.repetitions));
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t w = (k + round) % count;
      timeSteps(*worlds[w], o.steps, g.threads, out[w]);
    }
    for (std::size_t w = 0; w < count; ++w) {
      const double base = out[0].repMs[round], baseCpu = out[0].repCpuMs[round];
      out[w].ratios.push_back(base > 0.0 ? out[w].repMs[round] / base : 0.0);
      out[w].cpuRatios.push_back(baseCpu > 0.0 ? out[w].repCpuMs[round] / baseCpu : 0.0);
    }
  }
  const double total = static_cast<double>(o.warmup) + static_cast<double>(o.steps) * o.repetitions;
  for (std::size_t w = 0; w < count; ++w) {
    out[w].contacts = worlds[w]->contacts();
    out[w].workPerStep = static_cast<double>(worlds[w]->work()) / total;
  }
  progress.finish(index);
  return out;
}

std::vector<Measured> measurePlan(const FeaturesOptions& o, const Plan& plan) {
  Progress progress;
  std::vector<double> weights;
  for (const auto& g : plan.groups) {
    weights.push_back(static_cast<double>(g.n) * static_cast<double>(plan.features.size()));
  }
  progress.plan(weights);
  std::vector<Measured> all;
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    auto group = measureGroup(o, plan, plan.groups[i], progress, i);
    all.insert(all.end(), group.begin(), group.end());
  }
  progress.clear();
  return all;
}

// ---------------------------------------------------------------- report

double minOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double maxOf(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

Table makeTable(const FeaturesOptions& o, const std::vector<Measured>& all) {
  Table table;
  table.columns = {"scene",         "n",           "threads",   "feature",   "steps",
                   "repetitions",   "median_ms",   "min_ms",    "max_ms",    "cpu_ms",
                   "ratio",         "ratio_min",   "ratio_max", "cpu_ratio", "contacts",
                   "work_per_step", "others_cpus", "load_avg"};
  for (const auto& m : all) {
    table.rows.push_back(
        {text(measure::sceneName(m.group.scene)), integer(m.group.n), integer(m.group.threads),
         text(std::string(featureName(m.feature))), integer(o.steps), integer(o.repetitions),
         real(quantile(m.repMs, 0.5), 6), real(minOf(m.repMs), 6), real(maxOf(m.repMs), 6),
         real(quantile(m.repCpuMs, 0.5), 6), real(quantile(m.ratios, 0.5), 4),
         real(minOf(m.ratios), 4), real(maxOf(m.ratios), 4), real(quantile(m.cpuRatios, 0.5), 4),
         integer(m.contacts), real(m.workPerStep, 1), real(m.load.othersCpus(), 2),
         real(m.load.loadAvgMax, 2)});
  }
  return table;
}

// The printed table of one group, and the same as markdown.
void printGroup(const std::vector<Measured>& all, std::size_t from, std::size_t to,
                std::string& markdown) {
  const Group& g = all[from].group;
  const std::string title = measure::sceneName(g.scene) + ", N = " + withCommas(g.n) + ", " +
                            std::to_string(g.threads) + " thread(s)";
  std::printf("\n%s\n", title.c_str());
  markdown += "\n### " + title +
              "\n\n| feature | ms/step | CPU ms/step | on/off | on/off "
              "min-max | CPU on/off | contacts | work/step |\n|---|--:|--:|--:|--:|--:|--:|--:|\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = from; i < to; ++i) {
    const Measured& m = all[i];
    std::vector<std::string> row{
        std::string(featureName(m.feature)),
        measure::msText(quantile(m.repMs, 0.5)),
        measure::msText(quantile(m.repCpuMs, 0.5)),
        measure::fixed(quantile(m.ratios, 0.5), 3),
        measure::fixed(minOf(m.ratios), 2) + "-" + measure::fixed(maxOf(m.ratios), 2),
        measure::fixed(quantile(m.cpuRatios, 0.5), 3),
        withCommas(m.contacts),
        measure::fixed(m.workPerStep, 0)};
    markdown += "|";
    for (const auto& cell : row) markdown += " " + cell + " |";
    markdown += "\n";
    rows.push_back(std::move(row));
  }
  printTable(
      {"feature", "ms/step", "CPU ms", "on/off", "min-max", "CPU on/off", "contacts", "work/step"},
      rows, {false, true, true, true, true, true, true, true});
}

std::string printAll(const FeaturesOptions& o, const Plan& plan, const std::vector<Measured>& all) {
  std::printf(
      "Per-feature cost: each feature's world against the baseline on the same scene, %u "
      "interleaved rounds of %u steps (after %u warm-up steps), medians over the rounds; "
      "on/off: the median over the rounds of the feature's ms/step over the baseline's\n",
      o.repetitions, o.steps, o.warmup);
  std::string markdown = "## Features\n\n";
  for (const Feature f : plan.features) {
    markdown += "- `" + std::string(featureName(f)) + "`: " + std::string(featureHow(f)) + "\n";
  }
  const std::size_t perGroup = plan.features.size();
  for (std::size_t from = 0; from < all.size(); from += perGroup) {
    printGroup(all, from, from + perGroup, markdown);
  }
  std::printf("work/step: events read, callbacks drawn or forces applied per step\n");
  return markdown;
}

void writeFeatureResults(const FeaturesOptions& o, Machine& machine,
                         const std::vector<Measured>& all, const std::string& markdown) {
  std::vector<Outcome> outcomes;
  for (const auto& m : all) {
    Outcome out;
    Config& c = out.result.config;
    c.workload = 'B';
    c.scene = m.group.scene;
    c.n = m.group.n;
    c.structure = "auto+" + std::string(featureName(m.feature));
    c.threads = m.group.threads;
    out.load = m.load;
    outcomes.push_back(std::move(out));
  }
  machine.load = measure::summariseLoad(outcomes, machine.logicalCpus);
  const JsonObject options{{"steps", std::to_string(o.steps)},
                           {"warmup", std::to_string(o.warmup)},
                           {"repetitions", std::to_string(o.repetitions)},
                           {"seed", std::to_string(o.seed)}};
  const auto dir = o.outDir.empty() ? defaultResultDir(machine) : std::filesystem::path(o.outDir);
  std::vector<std::filesystem::path> written;
  try {
    written = writeResults(dir, "features", makeTable(o, all), machine, options, o.argv);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  const auto md = dir / "features.md";
  std::ofstream file(md, std::ios::binary);
  file << "# quadbin-perf features, " << machine.date << "\n" << markdown;
  file.close();
  if (!file) throw UsageError("cannot write " + md.string());
  std::printf("\nresults:");
  for (const auto& p : written) std::printf(" %s", p.string().c_str());
  std::printf(" %s\n", md.string().c_str());
}

}  // namespace

int featuresCommand(const FeaturesOptions& o) {
  const Plan plan = makePlan(o);
  Machine machine = describeMachine();
  const auto all = measurePlan(o, plan);
  const std::string markdown = printAll(o, plan, all);
  writeFeatureResults(o, machine, all, markdown);
  return 0;
}

}  // namespace quadbin::perf
