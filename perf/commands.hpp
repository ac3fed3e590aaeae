#pragma once
// quadbin-perf's subcommands (see docs/perf-cli.md for the contract). Each
// returns the process exit code; bad input throws UsageError (exit 2), a
// failed result check throws CheckFailure (exit 3).

#include <cstdint>
#include <string>
#include <vector>

namespace quadbin::perf {

/// Options of the measuring subcommands (run, sweep, scaling). Empty lists
/// mean "the subcommand's default".
struct MeasureOptions {
  std::vector<std::string> workloads;
  std::vector<std::string> scenes;
  std::vector<std::uint32_t> sizes;
  std::vector<std::string> structures;
  std::vector<std::uint32_t> threads;
  std::vector<std::string> ranges;  // sweep: small, medium, large, all
  std::uint32_t maxN = 0;           // sweep: 0 = no cap
  std::uint32_t frames = 60;
  std::uint32_t warmup = 10;
  /// Rounds over every configuration (round-robin); each figure is the
  /// median of the rounds' medians.
  std::uint32_t repetitions = 1;
  std::uint64_t seed = 42;
  std::uint32_t driftSteps = 0;
  double budget = 20.0;
  /// Seconds a configuration should take at most: slower ones measure fewer
  /// frames (never below kMinTimedFrames). 0: always --frames.
  double configSeconds = 0.0;
  std::string outDir;
  bool verbose = false;
  bool optimizeLayout = false;  // Config::optimizeLayout for every configuration
  bool noAutoLayout = false;    // Config::autoLayout off for every configuration
  /// run: the whole suite (every structure, 10,000 and 100,000, and
  /// 1,000,000 for A on uniform) instead of the headline run.
  bool full = false;
  std::vector<std::string> argv;  // for the JSON
};

int runCommand(const MeasureOptions& options);
int sweepCommand(const MeasureOptions& options);
int scalingCommand(const MeasureOptions& options);

/// Workload A or B over MPI ranks, run under mpirun (docs/perf-cli.md,
/// `mpi`; built when quadbin::mpi is).
struct MpiOptions {
  std::string workload = "B";
  std::vector<std::string> scenes;   // empty: uniform
  std::vector<std::uint32_t> sizes;  // empty: 100000
  bool weak = false;                 // N per rank: the scene has N x ranks balls
  std::uint32_t threads = 1;         // each rank's World::threadCount
  std::uint32_t frames = 60;
  std::uint32_t warmup = 10;
  std::uint64_t seed = 42;
  std::string outDir;
  std::vector<std::string> argv;  // for the JSON
};
int mpiCommand(const MpiOptions& options);

/// The pile over time (docs/perf-cli.md, `pile`).
struct PileOptions {
  std::vector<std::uint32_t> sizes;    // empty: 500, 10000, 100000
  std::vector<std::uint32_t> threads;  // empty: 1
  double seconds = 8.0;                // simulated seconds per run
  std::string structure = "auto";
  std::vector<std::uint64_t> seeds;  // empty: 42; several: one run per seed
  std::string outDir;
  std::vector<std::string> argv;  // for the JSON
};
int pileCommand(const PileOptions& options);

/// One step traced on one thread, replayed for P workers (docs/perf-cli.md,
/// `predict`).
struct PredictOptions {
  std::vector<std::string> workloads;  // empty: B
  std::vector<std::string> scenes;     // empty: all (uniform, clustered, mixed)
  std::vector<std::uint32_t> sizes;    // empty: 100000
  std::vector<std::uint32_t> threads{2, 4, 8, 16, 32, 64};
  std::string structure = "auto";
  std::uint32_t warmup = 10;  // untimed steps (frames) first
  std::uint32_t steps = 3;    // traced steps: the median one is kept
  std::uint64_t seed = 42;
  // The model's costs (docs/scaling.md).
  double regionNs = 0.0, barrierNs = 0.0, taskNs = 0.0, slowdown = 1.0;
  bool measureCosts = false;        // measure them on this machine first
  bool compare = false;             // step the world on P threads too (B, P <= hardware threads)
  std::uint32_t rounds = 5;         // --compare: interleaved rounds of `steps` steps
  std::vector<std::string> phases;  // stages whose phases are printed ("all": every one)
  std::string outDir;
  std::vector<std::string> argv;  // for the JSON
};
int predictCommand(const PredictOptions& options);

/// What each game feature costs per step (docs/perf-cli.md, `features`).
struct FeaturesOptions {
  std::vector<std::string> scenes;     // empty: uniform, clustered
  std::vector<std::uint32_t> sizes;    // empty: 10000, 100000
  std::vector<std::string> features;   // empty: all; the baseline always runs
  std::vector<std::uint32_t> threads;  // empty: 1
  std::uint32_t steps = 20;            // timed steps per world and round
  std::uint32_t warmup = 10;           // untimed steps per world first
  std::uint32_t repetitions = 5;       // rounds, interleaved over the worlds
  std::uint64_t seed = 42;
  std::string outDir;
  std::vector<std::string> argv;  // for the JSON
};
int featuresCommand(const FeaturesOptions& options);

struct PairsOptions {
  std::vector<std::string> sceneFiles;
  std::string structure;
  std::uint32_t threads = 1;
  std::string out;
  bool check = false;  // also compare the last frame with brute force
};
int pairsCommand(const PairsOptions& options);

struct SimulateOptions {
  std::string sceneFile;
  std::string scene;
  std::uint32_t n = 0;
  std::uint64_t seed = 42;
  std::uint32_t steps = 0;
  std::uint32_t threads = 1;
  std::string structure = "auto";
  std::string dumpState;
};
int simulateCommand(const SimulateOptions& options);

struct SceneOptions {
  std::string scene;
  std::uint32_t n = 0;
  std::uint64_t seed = 42;
  std::uint32_t frames = 0;  // Workload A frames to advance before writing
  std::string out;
};
int sceneCommand(const SceneOptions& options);

}  // namespace quadbin::perf
