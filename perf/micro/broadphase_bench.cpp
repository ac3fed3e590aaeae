// Google Benchmark micro-benchmarks of the broad-phase kernels.
//   quadbin-micro --benchmark_filter=Quadtree
#include <benchmark/benchmark.h>

#include <quadbin/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>

namespace {

using namespace quadbin;

// A uniform scene where only `movingPercent` % of the bodies move each
// frame (by their Workload A velocity): the case incremental updates are for.
struct PartlyMoving {
  scenes::Scene scene;
  std::vector<AABB> boxes;
  std::vector<std::uint32_t> movers;

  PartlyMoving(std::uint32_t n, int movingPercent)
      : scene(scenes::generate(scenes::SceneKind::Uniform, n)) {
    std::mt19937 rng(1);
    for (std::uint32_t i = 0; i < n; ++i) {
      if (static_cast<int>(rng() % 100) < movingPercent) movers.push_back(i);
    }
    scenes::boxes(scene, boxes);
  }
  void frame() {
    for (const std::uint32_t i : movers) {
      scene.x[i] += scene.vx[i] / 60.0;
      scene.y[i] += scene.vy[i] / 60.0;
      const auto r = static_cast<float>(scene.r[i]);
      const auto x = static_cast<float>(scene.x[i]), y = static_cast<float>(scene.y[i]);
      boxes[i] = {{x - r, y - r}, {x + r, y + r}};
    }
  }
};

void quadtreeUpdate(benchmark::State& state, bool incremental) {
  PartlyMoving world(static_cast<std::uint32_t>(state.range(0)), static_cast<int>(state.range(1)));
  QuadtreeOptions options;
  options.incremental = incremental;
  QuadtreeBroadPhase tree(options);
  tree.setBounds(world.scene.world);
  tree.update(world.boxes);
  std::vector<Pair> pairs;
  std::uint64_t moved = 0, frames = 0;
  for (auto _ : state) {
    world.frame();
    tree.update(world.boxes);
    pairs.clear();
    tree.findPairs(pairs);
    benchmark::DoNotOptimize(pairs.data());
    moved += tree.movedLastUpdate();
    ++frames;
  }
  state.counters["changed_node_%"] = 100.0 * static_cast<double>(moved) /
                                     static_cast<double>(frames) /
                                     static_cast<double>(state.range(0));
}

void BM_QuadtreeIncremental(benchmark::State& state) { quadtreeUpdate(state, true); }
void BM_QuadtreeRebuilt(benchmark::State& state) { quadtreeUpdate(state, false); }

// Args: bodies, percent of bodies moving each frame.
BENCHMARK(BM_QuadtreeIncremental)
    ->Args({100000, 1})
    ->Args({100000, 10})
    ->Args({100000, 100})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuadtreeRebuilt)
    ->Args({100000, 1})
    ->Args({100000, 10})
    ->Args({100000, 100})
    ->Unit(benchmark::kMillisecond);

void BM_FindPairs(benchmark::State& state, BroadPhaseType type) {
  auto scene =
      scenes::generate(scenes::SceneKind::Uniform, static_cast<std::uint32_t>(state.range(0)));
  std::vector<AABB> boxes;
  scenes::boxes(scene, boxes);
  auto bp = makeBroadPhase(type);
  bp->setBounds(scene.world);
  std::vector<Pair> pairs;
  for (auto _ : state) {
    bp->update(boxes);
    pairs.clear();
    bp->findPairs(pairs);
    benchmark::DoNotOptimize(pairs.data());
  }
  state.counters["pairs"] = static_cast<double>(pairs.size());
}

void BM_Query(benchmark::State& state, BroadPhaseType type) {
  auto scene =
      scenes::generate(scenes::SceneKind::Uniform, static_cast<std::uint32_t>(state.range(0)));
  std::vector<AABB> boxes;
  scenes::boxes(scene, boxes);
  auto bp = makeBroadPhase(type);
  bp->setBounds(scene.world);
  bp->update(boxes);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> where(0, scene.world.max.x - 20);
  std::vector<std::uint32_t> out;
  for (auto _ : state) {
    const Vec2 p{where(rng), where(rng)};
    out.clear();
    bp->query({p, p + Vec2{20, 20}}, out);
    benchmark::DoNotOptimize(out.data());
  }
}

// The bin grid on Workload A frames (every body moves, walls reflect) by
// its cell size factor: args bodies, factor x 10.
void BM_BinGridCellFactor(benchmark::State& state) {
  auto scene =
      scenes::generate(scenes::SceneKind::Uniform, static_cast<std::uint32_t>(state.range(0)));
  BinGridOptions options;
  options.cellSizeFactor = static_cast<float>(state.range(1)) / 10.0f;
  BinGrid grid(options);
  grid.setBounds(scene.world);
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;
  for (auto _ : state) {
    state.PauseTiming();
    scenes::advance(scene);
    scenes::boxes(scene, boxes);
    state.ResumeTiming();
    grid.update(boxes);
    pairs.clear();
    grid.findPairs(pairs);
    benchmark::DoNotOptimize(pairs.data());
  }
  state.counters["pairs"] = static_cast<double>(pairs.size());
  state.counters["bytes_per_body"] =
      static_cast<double>(grid.memoryBytes()) / static_cast<double>(state.range(0));
}
BENCHMARK(BM_BinGridCellFactor)
    ->ArgsProduct({{1000000}, {20, 30, 40, 50}})
    ->Unit(benchmark::kMillisecond);

void registerAll() {
  for (auto type : allBroadPhaseTypes()) {
    if (type == BroadPhaseType::BruteForce) continue;
    const std::string name(toString(type));
    benchmark::RegisterBenchmark(("BM_FindPairs/" + name).c_str(), BM_FindPairs, type)
        ->Arg(10000)
        ->Arg(100000)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Query/" + name).c_str(), BM_Query, type)->Arg(100000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
