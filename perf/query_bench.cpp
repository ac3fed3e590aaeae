// quadbin-query-bench: the two costs of docs/queries.md and the "Open
// worlds" section of docs/broadphases.md, as medians of the process's CPU time.
//   spawn: 10,000 spawn-if-free balls, a queryRadius before each create,
//          against creating the same balls without the queries.
//   open:  a step of balls spread over 10x and 100x the side of an open
//          world's bounds, against a world whose bounds fit them.
//   adopt: the first setPosition after a step of 500,000 balls (the pair
//          limit's queries take the step's broad phase), against the next.
// Usage: quadbin-query-bench [spawn|open|adopt] [runs (default 5)] [structure]
//        (structure: only that one, by its toString name, e.g. bin-grid)
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <quadbin/engine/world.hpp>
#include <random>
#include <string>
#include <vector>

using namespace quadbin;

namespace {

// CPU time of the process, not wall-clock: the benchmark runs on one
// thread (threadCount = 1), and CPU time is steadier on a busy machine.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  }
};
double msSince(double t0) { return Clock::now() - t0; }
// Minor page faults of the process so far: fresh memory the kernel maps in,
// several microseconds each on a virtual machine.
long faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

WorldDef defFor(BroadPhaseType type, const AABB& bounds, Boundary boundary) {
  WorldDef def;
  def.bounds = bounds;
  def.boundary = boundary;
  def.broadPhase = type;
  def.threadCount = 1;
  def.logLevel = LogLevel::Off;
  return def;
}

struct Timing {
  double ms = 0;
  double faults = 0;
};

// The spawn-if-free loop: a queryRadius before each createBody, until
// kSpawns balls are placed; `placed` gets their positions. The candidate
// positions are drawn beforehand, so that neither loop's time holds the
// random number generator's.
constexpr int kSpawns = 10000;
std::vector<Vec2> candidates() {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> pos(1, 999);
  std::vector<Vec2> out(4 * static_cast<std::size_t>(kSpawns));
  for (Vec2& p : out) p = {pos(rng), pos(rng)};
  return out;
}
Timing queryAndCreate(BroadPhaseType type, std::vector<Vec2>& placed) {
  static const std::vector<Vec2> tries = candidates();
  placed.clear();
  placed.reserve(kSpawns);
  World world(defFor(type, {{0, 0}, {1000, 1000}}, Boundary::Closed));
  std::vector<BodyId> near;
  const long f0 = faults();
  const auto t0 = Clock::now();
  for (const Vec2 p : tries) {
    if (placed.size() == kSpawns) break;
    world.queryRadius(p, 0.5f, near);
    if (!near.empty()) continue;
    world.createBody(BodyDef::ball(p, 0.5f));
    placed.push_back(p);
  }
  return {msSince(t0), static_cast<double>(faults() - f0)};
}

// The same creates without the queries.
Timing createOnly(BroadPhaseType type, const std::vector<Vec2>& placed) {
  World world(defFor(type, {{0, 0}, {1000, 1000}}, Boundary::Closed));
  const long f0 = faults();
  const auto t0 = Clock::now();
  for (const Vec2 p : placed) world.createBody(BodyDef::ball(p, 0.5f));
  return {msSince(t0), static_cast<double>(faults() - f0)};
}

void spawn(int runs, const std::string& only) {
  std::printf("spawn-if-free, %d balls r = 0.5 in [0, 1000]^2, median of %d (ms)\n", kSpawns, runs);
  std::printf("%-20s %12s %12s %8s %16s\n", "structure", "create only", "query+create", "ratio",
              "page faults c/q");
  for (const BroadPhaseType type : {BroadPhaseType::Auto, BroadPhaseType::BinGrid,
                                    BroadPhaseType::Quadtree, BroadPhaseType::DynamicAabbTree}) {
    if (!only.empty() && only != toString(type)) continue;
    std::vector<double> with, without, faultsWith, faultsWithout;
    std::vector<Vec2> placed;
    queryAndCreate(type, placed);  // the positions (the same for every structure)
    for (int run = 0; run < runs; ++run) {
      // Alternate which loop runs first: the second finds the memory the
      // first freed, already mapped in.
      Timing a, b;
      if (run % 2 == 0) {
        a = createOnly(type, placed);
        b = queryAndCreate(type, placed);
      } else {
        b = queryAndCreate(type, placed);
        a = createOnly(type, placed);
      }
      without.push_back(a.ms);
      faultsWithout.push_back(a.faults);
      with.push_back(b.ms);
      faultsWith.push_back(b.faults);
    }
    const double a = median(without), b = median(with);
    std::printf("%-20s %12.2f %12.2f %8.2f %7.0f / %-7.0f\n", std::string(toString(type)).c_str(),
                a, b, b / a, median(faultsWithout), median(faultsWith));
  }
}

// Median step time of n balls spread uniformly over [0, side]^2, in a world
// whose bounds are [0, bound]^2.
double stepMs(BroadPhaseType type, float bound, float side, Boundary boundary, int runs) {
  constexpr int kBalls = 40000;
  World world(defFor(type, {{0, 0}, {bound, bound}}, boundary));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(1, side - 1), vel(-2, 2), rad(0.3f, 1.0f);
  std::vector<BodyDef> defs;
  defs.reserve(kBalls);
  for (int i = 0; i < kBalls; ++i) {
    defs.push_back(BodyDef::ball({pos(rng), pos(rng)}, rad(rng), {vel(rng), vel(rng)}));
  }
  world.createBodies(defs);
  for (int s = 0; s < 3; ++s) world.step(1.0f / 60.0f);
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    for (int s = 0; s < 5; ++s) world.step(1.0f / 60.0f);
    times.push_back(msSince(t0) / 5.0);
  }
  return median(times);
}

void open(int runs) {
  std::printf(
      "open world, 40,000 balls r in [0.3, 1], density 0.04 / unit^2, median of %d x 5 steps "
      "(ms/step)\n",
      runs);
  std::printf("%-12s %8s %14s %14s %8s\n", "structure", "spread", "fitting bounds",
              "open, bounds/k", "ratio");
  for (const BroadPhaseType type : {BroadPhaseType::Auto, BroadPhaseType::BinGrid}) {
    for (const float k : {10.0f, 100.0f}) {
      const float side = 1000.0f;  // 40,000 balls over 1000^2
      const double fit = stepMs(type, side, side, Boundary::Closed, runs);
      const double spread = stepMs(type, side / k, side, Boundary::Open, runs);
      std::printf("%-12s %7.0fx %14.3f %14.3f %8.2f\n", std::string(toString(type)).c_str(), k, fit,
                  spread, spread / fit);
    }
  }
}

// The first change after a step pays for taking the step's broad phase as
// the queries' index (its pass over every body's box); the next one only
// its own queries.
void adopt(int runs) {
  constexpr int kBalls = 500000;
  World world(defFor(BroadPhaseType::Auto, {{0, 0}, {1000, 1000}}, Boundary::Closed));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> pos(1, 999), vel(-2, 2);
  std::vector<BodyDef> defs;
  defs.reserve(kBalls);
  for (int i = 0; i < kBalls; ++i) {
    defs.push_back(BodyDef::ball({pos(rng), pos(rng)}, 0.5f, {vel(rng), vel(rng)}));
  }
  const std::vector<BodyId> ids = world.createBodies(defs);
  for (int s = 0; s < 3; ++s) world.step(1.0f / 60.0f);
  std::vector<double> first, next;
  for (int r = 0; r < runs; ++r) {
    world.step(1.0f / 60.0f);
    const BodyId a = ids[static_cast<std::size_t>(r) * 7919 % ids.size()];
    const BodyId b = ids[static_cast<std::size_t>(r) * 104729 % ids.size()];
    auto t0 = Clock::now();
    world.setPosition(a, world.position(a));
    first.push_back(msSince(t0));
    t0 = Clock::now();
    world.setPosition(b, world.position(b));
    next.push_back(msSince(t0));
  }
  std::printf("first setPosition after a step, %d balls r = 0.5 in [0, 1000]^2, median of %d\n",
              kBalls, runs);
  std::printf("first %.3f ms, next %.3f ms\n", median(first), median(next));
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Freed memory stays with the process (no trimming; no mmap below 32 MiB,
  // glibc's most): the loops run on memory already mapped in, and the
  // ratios compare the work, not the kernel's page faults, whichever loop
  // runs first.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
  const std::string what = argc > 1 ? argv[1] : "all";
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const std::string only = argc > 3 ? argv[3] : "";
  if (what == "spawn" || what == "all") spawn(runs, only);
  if (what == "open" || what == "all") open(runs);
  if (what == "adopt" || what == "all") adopt(runs);
  return 0;
}
