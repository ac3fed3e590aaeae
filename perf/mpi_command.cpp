// mpi: Workload A or B over MPI ranks (quadbin::mpi), run under mpirun:
//   mpirun -np P quadbin-perf mpi --scene S --n N [--weak] [--workload B]
// Every rank builds the reference scene and creates its share of the balls
// (index % P); each frame is timed on every rank and the slowest rank's
// time is the frame's. Rank 0 prints and writes <out>/mpi.csv and mpi.json
// (docs/perf-cli.md, `mpi`; docs/distributed.md).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <quadbin/mpi/distributed_boxes.hpp>
#include <quadbin/mpi/distributed_world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "measure_common.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace quadbin::perf {

namespace {

struct Frame {
  double ms = 0.0;      // the slowest rank's wall time
  double cpuMs = 0.0;   // the ranks' mean CPU time
  double commMs = 0.0;  // the ranks' mean time in MPI calls
  double bytes = 0.0;   // sent by all ranks
  double ghosts = 0.0;  // held by all ranks
  double imbalance = 1.0;
  double stepMs = 0.0;  // the ranks' mean time in World::step
};

struct MpiResult {
  std::string workload, scene;
  std::uint32_t n = 0;
  int ranks = 1;
  bool weak = false;
  std::uint32_t threads = 1;
  std::uint32_t frames = 0;
  Frame median;
  std::uint64_t pairs = 0;  // A: the last frame's, all ranks
};

double cpuMs() { return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 != 0 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// One frame's figures from every rank.
Frame gatherFrame(double wallMs, double cpu, const mpi::DistributedStats& s, int ranks) {
  double mine[6] = {wallMs,
                    cpu,
                    s.communicationMs,
                    static_cast<double>(s.bytesSent),
                    static_cast<double>(s.ghosts),
                    s.stepMs};
  double most[6], sum[6];
  MPI_Allreduce(mine, most, 6, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(mine, sum, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return {most[0], sum[1] / ranks, sum[2] / ranks, sum[3], sum[4], s.imbalance, sum[5] / ranks};
}

Frame medianOf(const std::vector<Frame>& frames) {
  const auto of = [&](double Frame::*field) {
    std::vector<double> v;
    v.reserve(frames.size());
    for (const Frame& f : frames) v.push_back(f.*field);
    return median(v);
  };
  return {of(&Frame::ms),     of(&Frame::cpuMs),     of(&Frame::commMs), of(&Frame::bytes),
          of(&Frame::ghosts), of(&Frame::imbalance), of(&Frame::stepMs)};
}

MpiResult measureB(const MpiOptions& o, scenes::SceneKind kind, std::uint32_t n, int rank,
                   int ranks) {
  const scenes::Scene scene = scenes::generate(kind, n, o.seed);
  mpi::DistributedDef def;
  def.world = scenes::worldDefFor(kind);
  def.world.bounds = scene.world;
  def.world.threadCount = o.threads;
  mpi::DistributedWorld world(MPI_COMM_WORLD, def);
  std::vector<BodyDef> mine;
  {
    const World w = scenes::makeWorld(scene, def.world);  // positions put inside
    for (auto i = static_cast<std::uint32_t>(rank); i < w.bodyCount();
         i += static_cast<std::uint32_t>(ranks)) {
      const BodyId id = w.bodyAt(i);
      BodyDef d = BodyDef::ball(w.position(id), w.radius(id), w.velocity(id));
      d.friction = scene.friction;
      d.rollingResistance = scene.rollingResistance;
      mine.push_back(d);
    }
  }
  (void)world.createBodies(mine);
  std::vector<Frame> frames;
  for (std::uint32_t f = 0; f < o.warmup + o.frames; ++f) {
    const double c0 = cpuMs();
    const double t0 = MPI_Wtime();
    world.step(static_cast<float>(scenes::kDefaultDt));
    const double wall = 1000.0 * (MPI_Wtime() - t0), cpu = cpuMs() - c0;
    const Frame frame = gatherFrame(wall, cpu, world.stats(), ranks);
    if (f >= o.warmup) frames.push_back(frame);
  }
  MpiResult r{"B",      std::string(scenes::toString(kind)),
              n,        ranks,
              o.weak,   o.threads,
              o.frames, medianOf(frames),
              0};
  return r;
}

MpiResult measureA(const MpiOptions& o, scenes::SceneKind kind, std::uint32_t n, int rank,
                   int ranks) {
  const scenes::Scene scene = scenes::generate(kind, n, o.seed);
  mpi::DistributedBoxes boxes(MPI_COMM_WORLD, scene.minX, scene.minY, scene.maxX, scene.maxY);
  std::vector<mpi::MovingBall> mine;
  for (auto i = static_cast<std::uint32_t>(rank); i < scene.size();
       i += static_cast<std::uint32_t>(ranks)) {
    mine.push_back({i, scene.x[i], scene.y[i], scene.vx[i], scene.vy[i], scene.r[i]});
  }
  boxes.add(mine);
  std::vector<Frame> frames;
  for (std::uint32_t f = 0; f < o.warmup + o.frames; ++f) {
    const double c0 = cpuMs();
    const double t0 = MPI_Wtime();
    boxes.frame(scenes::kDefaultDt);
    const double wall = 1000.0 * (MPI_Wtime() - t0), cpu = cpuMs() - c0;
    const Frame frame = gatherFrame(wall, cpu, boxes.stats(), ranks);
    if (f >= o.warmup) frames.push_back(frame);
  }
  std::uint64_t pairs = boxes.pairs().size(), all = 0;
  MPI_Allreduce(&pairs, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return {"A",      std::string(scenes::toString(kind)),
          n,        ranks,
          o.weak,   o.threads,
          o.frames, medianOf(frames),
          all};
}

Table table(const std::vector<MpiResult>& results) {
  Table t;
  t.columns = {"workload",
               "scene",
               "n",
               "ranks",
               "weak",
               "n_per_rank",
               "threads",
               "frames",
               "ms_median",
               "cpu_ms_median",
               "comm_ms",
               "world_step_ms",
               "bytes_per_step",
               "ghosts_per_step",
               "ghost_fraction",
               "imbalance",
               "pairs"};
  for (const MpiResult& r : results) {
    const double perRank = static_cast<double>(r.n) / r.ranks;
    t.rows.push_back({text(r.workload), text(r.scene), integer(r.n), integer(r.ranks),
                      integer(r.weak ? 1 : 0), integer(static_cast<unsigned long long>(perRank)),
                      integer(r.threads), integer(r.frames), real(r.median.ms, 4),
                      real(r.median.cpuMs, 4), real(r.median.commMs, 4),
                      r.workload == "B" ? real(r.median.stepMs, 4) : blank(),
                      integer(static_cast<unsigned long long>(r.median.bytes)),
                      integer(static_cast<unsigned long long>(r.median.ghosts)),
                      real(r.median.ghosts / static_cast<double>(r.n), 5),
                      real(r.median.imbalance, 3), r.workload == "A" ? integer(r.pairs) : blank()});
  }
  return t;
}

}  // namespace

int mpiCommand(const MpiOptions& o) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) MPI_Init(nullptr, nullptr);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<MpiResult> results;
  int code = 0;
  try {
    if (o.workload != "A" && o.workload != "B") {
      throw UsageError("--workload: A or B, not '" + o.workload + "'");
    }
    if (o.threads == 0 || o.frames == 0) throw UsageError("--threads and --frames must be >= 1");
    const std::vector<std::string> names =
        o.scenes.empty() ? std::vector<std::string>{"uniform"} : o.scenes;
    const std::vector<std::uint32_t> sizes =
        o.sizes.empty() ? std::vector<std::uint32_t>{100000} : o.sizes;
    for (const std::string& name : names) {
      const auto kind = scenes::parseSceneKind(name);
      if (!kind || *kind == scenes::SceneKind::Pile) {
        throw UsageError("--scene: uniform, clustered or mixed, not '" + name + "'");
      }
      for (const std::uint32_t size : sizes) {
        const std::uint32_t n = o.weak ? size * static_cast<std::uint32_t>(ranks) : size;
        results.push_back(o.workload == "A" ? measureA(o, *kind, n, rank, ranks)
                                            : measureB(o, *kind, n, rank, ranks));
        if (rank == 0) {
          const MpiResult& r = results.back();
          std::printf(
              "%s %-9s n %-9u ranks %d  %.3f ms/step (cpu %.3f, comm %.3f, world %.3f)  %.0f "
              "bytes, "
              "%.0f ghosts, imbalance %.3f\n",
              r.workload.c_str(), r.scene.c_str(), r.n, r.ranks, r.median.ms, r.median.cpuMs,
              r.median.commMs, r.median.stepMs, r.median.bytes, r.median.ghosts,
              r.median.imbalance);
        }
      }
    }
    if (rank == 0) {
      const Machine machine = describeMachine();
      const auto dir =
          o.outDir.empty() ? defaultResultDir(machine) : std::filesystem::path(o.outDir);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) throw UsageError("cannot create " + dir.string() + ": " + ec.message());
      const JsonObject options{
          {"workload", jsonString(o.workload)}, {"ranks", std::to_string(ranks)},
          {"weak", o.weak ? "true" : "false"},  {"threads", std::to_string(o.threads)},
          {"frames", std::to_string(o.frames)}, {"warmup", std::to_string(o.warmup)}};
      for (const auto& p : writeResults(dir, "mpi", table(results), machine, options, o.argv)) {
        std::printf("results: %s\n", p.string().c_str());
      }
    }
  } catch (...) {
    MPI_Finalize();
    throw;
  }
  MPI_Finalize();
  return code;
}

}  // namespace quadbin::perf
