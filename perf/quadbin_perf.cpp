// quadbin-perf: measures the broad phases and the world on the reference
// scenes of docs/benchmarks.md, and checks results on scene files. The command
// line is a contract (docs/perf-cli.md): others check our numbers with it.
//   quadbin-perf run | sweep | scaling | pile | features | pairs | simulate | scene | list
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <quadbin/error.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "runner.hpp"
#include "structures.hpp"
#include "world_peers.hpp"

namespace {

using namespace quadbin::perf;

constexpr const char* kFooter =
    "Exit codes: 0 success; 1 unexpected failure; 2 bad usage or input (unknown name, malformed "
    "scene file, unwritable output: one line on stderr); 3 a result check failed (pair count "
    "differs from the reference, result depends on the thread count, invalid pair).\n"
    "Contract and file formats: docs/perf-cli.md.";

constexpr const char* kOutHelp =
    "result folder (default: a new perf/results/<hostname>-<date>-<time>, which git ignores; "
    "the committed reference is perf/results/reference/<machine>)";

int fail(int code, std::string message) {
  if (isatty(STDERR_FILENO) == 1) std::fprintf(stderr, "\r\033[K");  // a progress line
  for (auto& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::fprintf(stderr, "quadbin-perf: %s\n", message.c_str());
  return code;
}

/// The options run, sweep and scaling share.
void addMeasureOptions(CLI::App* cmd, MeasureOptions& o, const std::string& defaults) {
  cmd->add_option("--broadphase", o.structures,
                  "structure names (see 'list') or 'all'; repeat or comma-separate")
      ->delimiter(',');
  cmd->add_option("--scene", o.scenes,
                  "uniform, clustered, mixed, pile (world step only) or all (the first three)")
      ->delimiter(',');
  cmd->add_option("--n", o.sizes, "body counts")->delimiter(',');
  cmd->add_option("--threads", o.threads, "thread counts (>= 1)")->delimiter(',');
  cmd->add_option("--frames", o.frames, "timed frames (steps) per configuration");
  cmd->add_option("--warmup", o.warmup, "untimed frames (steps) first");
  cmd->add_option("--repetitions", o.repetitions,
                  "rounds over every configuration (round-robin, >= 1): each figure is the "
                  "median of the rounds, with min, p10, p90 and max in the CSV");
  cmd->add_option("--seed", o.seed, "scene seed");
  cmd->add_option("--budget", o.budget,
                  "seconds: skip (and report as skipped) configurations predicted to take "
                  "longer; 0 runs everything");
  cmd->add_option("--drift-steps", o.driftSteps,
                  "world workloads: take the kinetic energy drift after this many steps (more "
                  "steps run untimed); default: the measured steps");
  cmd->add_flag("--optimize-layout", o.optimizeLayout,
                "world workloads: call World::optimizeLayout() on each quadbin world before its "
                "warm-up (bodies renumbered in space order; peers unchanged)");
  cmd->add_flag("--no-auto-layout", o.noAutoLayout,
                "world workloads: WorldDef::autoLayout off in each quadbin world (its bodies "
                "stay in the order the scene created them)");
  cmd->add_option("--out", o.outDir, kOutHelp);
  cmd->add_flag("-v,--verbose", o.verbose, "one line per configuration on stderr as it ends");
  cmd->footer("Defaults: " + defaults);
}

// Every subcommand's options, bound to its CLI11 subcommand.
struct Commands {
  MeasureOptions runOpts, sweepOpts, scalingOpts;
  PileOptions pileOpts;
  MpiOptions mpiOpts;
  FeaturesOptions featuresOpts;
  PredictOptions predictOpts;
  PairsOptions pairsOpts;
  SimulateOptions simOpts;
  SceneOptions sceneOpts;
  std::string listWorkload = "A";
  CLI::App* run = nullptr;
  CLI::App* sweep = nullptr;
  CLI::App* scaling = nullptr;
  CLI::App* pile = nullptr;
  CLI::App* mpi = nullptr;
  CLI::App* features = nullptr;
  CLI::App* predict = nullptr;
  CLI::App* pairs = nullptr;
  CLI::App* simulate = nullptr;
  CLI::App* scene = nullptr;
  CLI::App* list = nullptr;
};

// predict's default costs, ns (docs/scaling.md, "The model"): region and
// task (each per doubling of the workers) fitted to the speed-ups measured
// on a 16-core machine (2 to 16 threads, Workload B at 100,000 and
// 1,000,000) and on the 2-core VM (2 threads, the same configurations),
// `predict --compare`, scripts/fit_costs.py; barrier as `--measure-costs`
// gave on 16 cores; slowdown 1.
constexpr double kRegionNs = 9750.0;
constexpr double kBarrierNs = 3000.0;
constexpr double kTaskNs = 750.0;
constexpr double kSlowdown = 1.0;

void setDefaults(Commands& c, int argc, char** argv) {
  // The main job's run must finish in a few minutes with the slow peers
  // and world steps at 100,000 included.
  // Three rounds of every configuration, each time-boxed to a second.
  c.runOpts.configSeconds = 1.0;
  c.runOpts.repetitions = 3;
  c.sweepOpts.frames = 30;
  c.sweepOpts.warmup = 5;
  // Scaling exists for N = 1,000,000, where one world-step configuration
  // alone takes about 20 s on a laptop core: its budget only guards against
  // a slow structure asked for by name.
  c.scalingOpts.budget = 120.0;
  for (auto* o : {&c.runOpts, &c.sweepOpts, &c.scalingOpts}) o->argv.assign(argv, argv + argc);
  c.pileOpts.argv.assign(argv, argv + argc);
  c.mpiOpts.argv.assign(argv, argv + argc);
  c.featuresOpts.argv.assign(argv, argv + argc);
  c.predictOpts.argv.assign(argv, argv + argc);
  // The model's calibrated costs (docs/scaling.md).
  c.predictOpts.regionNs = kRegionNs;
  c.predictOpts.barrierNs = kBarrierNs;
  c.predictOpts.taskNs = kTaskNs;
  c.predictOpts.slowdown = kSlowdown;
}

// run, sweep, scaling.
void addMeasureCommands(CLI::App& app, Commands& c) {
  c.run = app.add_subcommand(
      "run",
      "Workloads A (broad phase alone) and B (full world step): summary table, "
      "<out>/run.csv and run.json. Workload A pair counts are checked frame by frame against "
      "the first quadbin structure measured (exit 3 on a mismatch).");
  c.run->add_option("--workload", c.runOpts.workloads, "A and/or B")->delimiter(',');
  c.run->add_flag("--full", c.runOpts.full,
                  "the whole suite: every structure (--broadphase all) at 10,000 and 100,000 "
                  "bodies, and 1,000,000 for A on uniform; without it, the headline run: "
                  "quadbin's recommendation (auto) beside every peer at 100,000");
  c.run->add_option("--config-seconds", c.runOpts.configSeconds,
                    "time-box: stop timing a configuration once its timed frames add up to this "
                    "many seconds, with at least 5 timed (10 with --full; the frames column says "
                    "how many); 0 always times --frames");
  addMeasureOptions(c.run, c.runOpts,
                    "--workload A,B --scene all --n 100000 --broadphase auto and every peer "
                    "(each in its workload) --threads 1 --frames 60 --warmup 10 --repetitions 3 "
                    "--seed 42 --budget 20 --config-seconds 1; with --full, --n 10000,100000 "
                    "(and 1000000 for A on uniform) --broadphase all");

  c.sweep = app.add_subcommand(
      "sweep",
      "Workload C (the paper's figures 7-10): world steps per second against N, uniform "
      "scene, each quadbin structure, single- and multi-threaded: <out>/sweep.csv and "
      "sweep.json.");
  c.sweep
      ->add_option("--range", c.sweepOpts.ranges,
                   "small (10-100 step 10), medium (100-1,000 step 100), large (1,000-30,000 "
                   "step 1,000) or all; ignored when --n is given")
      ->delimiter(',');
  c.sweep->add_option("--max-n", c.sweepOpts.maxN, "leave out N above this");
  addMeasureOptions(c.sweep, c.sweepOpts,
                    "--range all --scene uniform --broadphase all (quadbin's) --threads "
                    "1,<hardware threads> --frames 30 --warmup 5 --repetitions 1 --budget 20");

  c.scaling = app.add_subcommand(
      "scaling",
      "Workloads A and B at N = 1,000,000 for 1, 2, 4, ... hardware threads: speed-up over 1 "
      "thread, and a check that pairs, contacts and the final state are identical for every "
      "thread count (exit 3 otherwise): <out>/scaling.csv and scaling.json.");
  c.scaling->add_option("--workload", c.scalingOpts.workloads, "A and/or B")->delimiter(',');
  addMeasureOptions(c.scaling, c.scalingOpts,
                    "--workload A,B --scene uniform --n 1000000 --broadphase auto --threads "
                    "1,2,4,...,<hardware threads> (1 is always added) --frames 60 --warmup 10 "
                    "--repetitions 1 --budget 120");
}

void addPredict(CLI::App& app, Commands& c) {
  PredictOptions& o = c.predictOpts;
  c.predict = app.add_subcommand(
      "predict",
      "Traces one step (B) or frame (A) on one thread and predicts its time on P workers by "
      "replaying the trace (greedy list scheduling of the recorded tasks, plus a cost per "
      "region, barrier and task): a table per configuration, <out>/predict.csv and "
      "predict.json.");
  c.predict->add_option("--workload", o.workloads, "A and/or B")->delimiter(',');
  c.predict->add_option("--scene", o.scenes, "uniform, clustered, mixed, pile (B) or all")
      ->delimiter(',');
  c.predict->add_option("--n", o.sizes, "body counts")->delimiter(',');
  c.predict->add_option("--threads", o.threads, "worker counts to predict (>= 1)")->delimiter(',');
  c.predict->add_option("--broadphase", o.structure, "a quadbin broad phase (default auto)");
  c.predict->add_option("--warmup", o.warmup, "untraced steps (frames) first");
  c.predict->add_option("--steps", o.steps, "traced steps (frames): the median one is kept");
  c.predict->add_option("--seed", o.seed, "scene seed");
  c.predict->add_option("--region-ns", o.regionNs,
                        "cost of starting a parallel region per doubling of the workers, ns");
  c.predict->add_option("--barrier-ns", o.barrierNs, "cost of a barrier between phases, ns");
  c.predict->add_option("--task-ns", o.taskNs, "cost per task per doubling of the workers, ns");
  c.predict->add_option("--slowdown", o.slowdown,
                        "factor (>= 1) on a task's time while several workers run at once");
  c.predict->add_flag("--measure-costs", o.measureCosts,
                      "measure the three costs on this machine (its hardware threads) and use "
                      "them");
  c.predict->add_flag("--compare", o.compare,
                      "Workload B: also step the world on each P up to the hardware threads, "
                      "interleaved, and print measured beside predicted (predict_measured.csv)");
  c.predict->add_option("--rounds", o.rounds, "--compare: interleaved rounds (median kept)");
  c.predict
      ->add_option("--phases", o.phases,
                   "stages (as the table names them, or all) whose regions are printed "
                   "phase by phase: tasks, their summed and largest time")
      ->delimiter(',');
  c.predict->add_option("--out", o.outDir, kOutHelp);
  c.predict->footer(
      "Defaults: --workload B --scene all --n 100000 --threads 2,4,8,16,32,64 --broadphase auto "
      "--warmup 10 --steps 3 --seed 42 --rounds 5, the costs measured in docs/scaling.md");
}

#ifdef QUADBIN_PERF_MPI
void addMpi(CLI::App& app, Commands& c) {
  MpiOptions& o = c.mpiOpts;
  c.mpi = app.add_subcommand(
      "mpi",
      "Workload A or B over MPI ranks (quadbin::mpi), under mpirun: the slowest rank's time per "
      "frame, CPU and MPI time, bytes sent, ghosts and imbalance per step: <out>/mpi.csv, "
      "mpi.json (docs/distributed.md).");
  c.mpi->add_option("--workload", o.workload, "A (broad phase) or B (world step)");
  c.mpi->add_option("--scene", o.scenes, "uniform, clustered, mixed")->delimiter(',');
  c.mpi->add_option("--n", o.sizes, "body counts (with --weak: per rank)")->delimiter(',');
  c.mpi->add_flag("--weak", o.weak, "weak scaling: N balls per rank");
  c.mpi->add_option("--threads", o.threads, "each rank's threads (default 1)");
  c.mpi->add_option("--frames", o.frames, "timed frames (steps)");
  c.mpi->add_option("--warmup", o.warmup, "untimed frames (steps) first");
  c.mpi->add_option("--seed", o.seed, "scene seed");
  c.mpi->add_option("--out", o.outDir, kOutHelp);
  c.mpi->footer(
      "Defaults: --workload B --scene uniform --n 100000 --threads 1 --frames 60 --warmup 10. "
      "Run as: mpirun -np P quadbin-perf mpi ...");
}
#endif

void addPileAndFeatures(CLI::App& app, Commands& c) {
  c.pile = app.add_subcommand(
      "pile",
      "Drops the pile scene (N balls of radius 1 under gravity into a closed box, sleeping on) "
      "and steps it at dt = 1/60: a CSV per run (step, time_s, kinetic_energy, awake_bodies, "
      "contacts, step_ms) and a summary per N (peak kinetic energy, rest time, median step "
      "time over the first and the last second, overlaps at the end): <out>/pile.csv, "
      "pile.json, pile_n<N>_t<T>.csv.");
  c.pile->add_option("--n", c.pileOpts.sizes, "body counts")->delimiter(',');
  c.pile->add_option("--seconds", c.pileOpts.seconds, "simulated seconds per run (default 8)");
  c.pile->add_option("--threads", c.pileOpts.threads, "thread counts (>= 1)")->delimiter(',');
  c.pile->add_option("--broadphase", c.pileOpts.structure, "a quadbin broad phase (default auto)");
  c.pile
      ->add_option("--seed", c.pileOpts.seeds,
                   "scene seeds (default 42); several: a run per seed and the rest times over "
                   "them")
      ->delimiter(',');
  c.pile->add_option("--out", c.pileOpts.outDir, kOutHelp);
  c.pile->footer(
      "Defaults: --n 500,10000,100000 --seconds 8 --threads 1 --broadphase auto --seed 42");

  c.features = app.add_subcommand(
      "features",
      "What each game feature costs per step: a baseline world and one world per feature "
      "(filter, sensors, materials, friction, kinematic, events, presolve, force, draw) on the "
      "same reference scene, stepped in interleaved rounds; ms/step, CPU ms/step and the ratio "
      "on/off: <out>/features.csv, features.json, features.md.");
  c.features->add_option("--scene", c.featuresOpts.scenes, "uniform, clustered, mixed, pile or all")
      ->delimiter(',');
  c.features->add_option("--n", c.featuresOpts.sizes, "body counts")->delimiter(',');
  c.features->add_option("--feature", c.featuresOpts.features, "feature names or all")
      ->delimiter(',');
  c.features->add_option("--threads", c.featuresOpts.threads, "thread counts (>= 1)")
      ->delimiter(',');
  c.features->add_option("--steps", c.featuresOpts.steps, "timed steps per world and round");
  c.features->add_option("--warmup", c.featuresOpts.warmup, "untimed steps per world first");
  c.features->add_option("--repetitions", c.featuresOpts.repetitions,
                         "interleaved rounds over the worlds (>= 1)");
  c.features->add_option("--seed", c.featuresOpts.seed, "scene seed");
  c.features->add_option("--out", c.featuresOpts.outDir, kOutHelp);
  c.features->footer(
      "Defaults: --scene uniform,clustered --n 10000,100000 --feature all --threads 1 --steps 20 "
      "--warmup 10 --repetitions 5 --seed 42");
}

// pairs, simulate, scene, list.
void addFileCommands(CLI::App& app, Commands& c) {
  c.pairs = app.add_subcommand(
      "pairs",
      "Loads scene files as consecutive frames into one structure (later frames go through "
      "its incremental update; proxy i = row i, counts may differ) and writes the last "
      "frame's overlapping pairs, one 'i,j' line each (i < j, 0-based rows, sorted).");
  c.pairs->add_option("--scene-file", c.pairsOpts.sceneFiles, "scene file, one per frame, in order")
      ->required();
  c.pairs->add_option("--broadphase", c.pairsOpts.structure, "one structure name (see 'list')")
      ->required();
  c.pairs->add_option("--threads", c.pairsOpts.threads, "threads (>= 1)");
  c.pairs->add_option("--out", c.pairsOpts.out, "the pairs file to write")->required();
  c.pairs->add_flag("--check", c.pairsOpts.check,
                    "also compare the last frame with brute force (exit 3 if different)");

  c.simulate = app.add_subcommand(
      "simulate",
      "Steps a World (elastic balls, or the pile under gravity; closed walls, dt = 1/60) and "
      "writes each body's final x,y,vx,vy as C hexadecimal floats (%a), one line per body in "
      "creation order after the header 'x,y,vx,vy', so that two runs compare bit for bit.");
  c.simulate->add_option("--scene-file", c.simOpts.sceneFile, "scene file (world bounds from it)");
  c.simulate->add_option("--scene", c.simOpts.scene,
                         "uniform, clustered, mixed or pile (with --n)");
  c.simulate->add_option("--n", c.simOpts.n, "body count of --scene");
  c.simulate->add_option("--seed", c.simOpts.seed, "seed of --scene (default 42)");
  c.simulate->add_option("--steps", c.simOpts.steps, "world steps")->required();
  c.simulate->add_option("--threads", c.simOpts.threads, "WorldDef::threadCount (>= 1, default 1)");
  c.simulate->add_option("--broadphase", c.simOpts.structure,
                         "a quadbin broad phase (default auto)");
  c.simulate->add_option("--dump-state", c.simOpts.dumpState, "the state file to write")
      ->required();

  c.scene = app.add_subcommand(
      "scene",
      "Writes a reference scene (docs/benchmarks.md) as a scene file, after --frames frames of the "
      "Workload A motion: inputs for 'pairs', 'simulate' and other engines.");
  c.scene->add_option("--scene", c.sceneOpts.scene, "uniform, clustered, mixed or pile")
      ->required();
  c.scene->add_option("--n", c.sceneOpts.n, "body count")->required();
  c.scene->add_option("--seed", c.sceneOpts.seed, "seed (default 42)");
  c.scene->add_option("--frames", c.sceneOpts.frames, "Workload A frames first (default 0)");
  c.scene->add_option("--out", c.sceneOpts.out, "the scene file to write")->required();

  c.list = app.add_subcommand(
      "list",
      "Prints the structure names --broadphase accepts, one per line: quadbin's own first, "
      "then the peers of Workload A (broad phases) or, with --workload B, of the world step.");
  c.list->add_option("--workload", c.listWorkload, "A (default) or B");
}

void printList(const std::string& workload) {
  if (workload == "A" || workload == "a") {
    for (const auto& name : structureNames()) std::printf("%s\n", name.c_str());
  } else if (workload == "B" || workload == "b") {
    for (const auto type : quadbin::allBroadPhaseTypes()) {
      std::printf("%s\n", std::string(quadbin::toString(type)).c_str());
    }
    for (const auto& name : worldPeerNames()) std::printf("%s\n", name.c_str());
  } else {
    throw UsageError("unknown workload '" + workload + "' (A or B)");
  }
}

int dispatch(const Commands& c) {
  if (*c.list) {
    printList(c.listWorkload);
    return 0;
  }
  if (*c.run) return runCommand(c.runOpts);
  if (*c.sweep) return sweepCommand(c.sweepOpts);
  if (*c.scaling) return scalingCommand(c.scalingOpts);
  if (*c.pile) return pileCommand(c.pileOpts);
#ifdef QUADBIN_PERF_MPI
  if (*c.mpi) return mpiCommand(c.mpiOpts);
#endif
  if (*c.features) return featuresCommand(c.featuresOpts);
  if (*c.predict) return predictCommand(c.predictOpts);
  if (*c.pairs) return pairsCommand(c.pairsOpts);
  if (*c.scene) return sceneCommand(c.sceneOpts);
  if (*c.simulate) {
    if (c.simOpts.threads == 0) throw UsageError("--threads must be at least 1");
    return simulateCommand(c.simOpts);
  }
  return 0;
}

// The command line's parse and dispatch; main catches what escapes it.
int run(int argc, char** argv) {
  CLI::App app{
      "quadbin-perf: broad phases and world steps on the reference scenes of docs/benchmarks.md, "
      "and result checks on scene files"};
  app.require_subcommand(1);

  Commands c;
  setDefaults(c, argc, argv);
  addMeasureCommands(app, c);
  addPileAndFeatures(app, c);
#ifdef QUADBIN_PERF_MPI
  addMpi(app, c);
#endif
  addPredict(app, c);
  addFileCommands(app, c);
  for (auto* cmd :
       {c.run, c.sweep, c.scaling, c.pile, c.features, c.pairs, c.simulate, c.scene, c.list}) {
    cmd->footer(cmd->get_footer() + (cmd->get_footer().empty() ? "" : "\n") + kFooter);
  }
  app.footer(std::string("Main job: 'quadbin-perf run' (scripts/run). 'quadbin-perf COMMAND "
                         "--help' lists a command's options.\n") +
             kFooter);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return fail(2, e.what());
  }

  try {
    return dispatch(c);
  } catch (const UsageError& e) {
    return fail(2, e.what());
  } catch (const CheckFailure& e) {
    return fail(3, e.what());
  } catch (const quadbin::Error& e) {
    return fail(2, e.what());
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // building the command line failed
    return fail(1, e.what());
  } catch (...) {
    return fail(1, "an unknown exception");
  }
}
