// Google Benchmark of the World's bulk calls at 1,000,000 balls, each beside
// its peer: createBodies against createBody one at a time, positions()
// against reading position(bodyAt(i)), restore() beside snapshot().
//   quadbin-world-micro --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>

#include <quadbin/engine/world.hpp>
#include <random>
#include <vector>

namespace {

using namespace quadbin;

constexpr int kBalls = 1000000;

WorldDef def(benchmark::State& state) {
  WorldDef d;
  d.bounds = {{0, 0}, {10000, 10000}};
  d.threadCount = static_cast<std::uint32_t>(state.range(0));  // 0: all hardware threads
  d.logLevel = LogLevel::Error;
  return d;
}

const std::vector<BodyDef>& balls() {
  static const std::vector<BodyDef> defs = [] {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> pos(1.0f, 9999.0f), vel(-5.0f, 5.0f);
    std::vector<BodyDef> out;
    out.reserve(kBalls);
    for (int i = 0; i < kBalls; ++i) {
      out.push_back(BodyDef::ball({pos(rng), pos(rng)}, 0.5f, {vel(rng), vel(rng)}));
    }
    return out;
  }();
  return defs;
}

void createBodies(benchmark::State& state) {
  for (auto _ : state) {
    World w(def(state));
    benchmark::DoNotOptimize(w.createBodies(balls()));
    state.PauseTiming();  // not the teardown
    w = World(def(state));
    state.ResumeTiming();
  }
}

void createBodyLoop(benchmark::State& state) {
  for (auto _ : state) {
    World w(def(state));
    for (const BodyDef& d : balls()) benchmark::DoNotOptimize(w.createBody(d));
    state.PauseTiming();
    w = World(def(state));
    state.ResumeTiming();
  }
}

// A renderer's read each frame: any change (here one setVelocity; a step
// does the same) makes the next positions() copy every body again.
void positionsAfterChange(benchmark::State& state) {
  World w(def(state));
  (void)w.createBodies(balls());
  const BodyId first = w.bodyAt(0);
  for (auto _ : state) {
    w.setVelocity(first, {1, 0});
    benchmark::DoNotOptimize(w.positions().data());
  }
}

void positionLoop(benchmark::State& state) {
  World w(def(state));
  (void)w.createBodies(balls());
  std::vector<Vec2> out(kBalls);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) out[i] = w.position(w.bodyAt(i));
    benchmark::DoNotOptimize(out.data());
  }
}

void snapshot(benchmark::State& state) {
  World w(def(state));
  (void)w.createBodies(balls());
  w.step(1.0f / 60.0f);
  for (auto _ : state) benchmark::DoNotOptimize(w.snapshot());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(w.snapshot().size()));
}

void restore(benchmark::State& state) {
  World w(def(state));
  (void)w.createBodies(balls());
  w.step(1.0f / 60.0f);
  const std::vector<std::byte> saved = w.snapshot();
  World target(def(state));
  for (auto _ : state) target.restore(saved);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(saved.size()));
}

}  // namespace

// Argument: WorldDef::threadCount (1: the calling thread only; 0: all).
BENCHMARK(createBodies)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(createBodyLoop)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(positionsAfterChange)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(positionLoop)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(snapshot)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(restore)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
