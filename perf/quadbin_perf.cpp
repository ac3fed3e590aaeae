// quadbin-perf: measures the broad phases and the world on the reference
// scenes of BENCHMARKS.md and writes CSV.
//   quadbin-perf run [--workload A|B] [--scene S] [--n N] [--broadphase NAME|all] ...
//   quadbin-perf list
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

#include "structures.hpp"
#include "workloads.hpp"

namespace {

using namespace quadbin;
using quadbin::perf::Config;
using quadbin::perf::Result;

[[noreturn]] void usageError(const std::string& message) {
  std::fprintf(stderr, "quadbin-perf: %s\n", message.c_str());
  std::exit(2);
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  return buf;
}

std::vector<std::string> parseStructures(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  const auto known = perf::structureNames();
  for (const auto& name : names) {
    if (name == "all") {
      out.insert(out.end(), known.begin(), known.end());
    } else if (std::find(known.begin(), known.end(), name) != known.end()) {
      out.push_back(name);
    } else {
      usageError("unknown broad phase '" + name + "' (see 'quadbin-perf list')");
    }
  }
  return out;
}

std::vector<scenes::SceneKind> parseScenes(const std::vector<std::string>& names) {
  std::vector<scenes::SceneKind> out;
  for (const auto& name : names) {
    if (auto s = scenes::parseSceneKind(name)) {
      out.push_back(*s);
    } else {
      usageError("unknown scene '" + name + "' (uniform, clustered, mixed)");
    }
  }
  return out;
}

void writeCsv(const std::filesystem::path& path, const std::vector<Result>& results) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  if (!out) usageError("cannot write " + path.string());
  out << "workload,scene,n,structure,threads,frames,median_ms,min_ms,max_ms,pairs,bytes_per_body\n";
  char line[512];
  for (const auto& r : results) {
    const auto& c = r.config;
    std::snprintf(line, sizeof line, "%c,%s,%u,%s,%u,%u,%.4f,%.4f,%.4f,%llu,%.1f\n", c.workload,
                  std::string(scenes::toString(c.scene)).c_str(), c.n, c.structure.c_str(),
                  c.threads, c.frames, r.medianMs, r.minMs, r.maxMs,
                  static_cast<unsigned long long>(r.pairs), r.bytesPerBody);
    out << line;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"quadbin-perf: broad phases and world steps on the reference scenes"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "print every structure name --broadphase accepts");

  auto* run = app.add_subcommand("run", "measure workloads A and B (the README's main job)");
  std::vector<std::string> workloads{"A", "B"}, sceneNames{"uniform", "clustered", "mixed"};
  std::vector<std::string> structureNames{"all"};
  std::vector<std::uint32_t> sizes{1000, 10000};
  std::uint32_t frames = 60, warmup = 10, threads = 1;
  std::uint64_t seed = scenes::kDefaultSeed;
  std::string outDir;
  run->add_option("--workload", workloads, "A (broad phase alone) and/or B (full step)");
  run->add_option("--scene", sceneNames, "uniform, clustered, mixed");
  run->add_option("--n", sizes, "body counts");
  run->add_option("--broadphase", structureNames, "structure names or 'all'");
  run->add_option("--threads", threads, "worker threads");
  run->add_option("--frames", frames, "timed frames");
  run->add_option("--warmup", warmup, "untimed frames first");
  run->add_option("--seed", seed, "scene seed");
  run->add_option("--out", outDir, "result folder (default perf/results/<host>)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    usageError(e.what());
  }

  if (*list) {
    for (const auto& name : perf::structureNames()) std::printf("%s\n", name.c_str());
    return 0;
  }

  const auto structures = parseStructures(structureNames);
  const auto sceneKinds = parseScenes(sceneNames);
  if (frames == 0) usageError("--frames must be at least 1");
  std::vector<Result> results;
  std::printf("%-3s %-10s %9s %-14s %7s %10s %10s %10s %12s\n", "wl", "scene", "n", "structure",
              "threads", "median_ms", "min_ms", "max_ms", "pairs");
  for (const auto& w : workloads) {
    if (w != "A" && w != "B") usageError("unknown workload '" + w + "' (A or B)");
    for (auto scene : sceneKinds) {
      for (auto n : sizes) {
        for (auto s : structures) {
          Config c{w[0], scene, n, s, threads, frames, warmup, seed};
          const Result r = w == "A" ? perf::runWorkloadA(c) : perf::runWorkloadB(c);
          results.push_back(r);
          std::printf("%-3s %-10s %9u %-14s %7u %10.3f %10.3f %10.3f %12llu\n", w.c_str(),
                      std::string(scenes::toString(scene)).c_str(), n, s.c_str(), threads,
                      r.medianMs, r.minMs, r.maxMs, static_cast<unsigned long long>(r.pairs));
          std::fflush(stdout);
        }
      }
    }
  }
  const std::filesystem::path dir = outDir.empty() ? "perf/results/" + hostName() : outDir;
  writeCsv(dir / "run.csv", results);
  std::printf("results: %s\n", (dir / "run.csv").c_str());
  return 0;
}
