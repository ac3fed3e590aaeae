// quadbin-world-draw-bench [N]: what World::draw costs (docs/debug-draw.md),
// on the uniform scene of N balls (default 100,000), 2 threads, with a
// drawer that only counts. For each set of options: the median of 5 draws
// each made right after a step (so including the refresh of the query
// index the step invalidated), of 5 repeated draws, and of the 5 steps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

using namespace quadbin;

namespace {

struct Count final : WorldDraw {
  std::size_t balls = 0, contacts = 0;
  void ball(const DrawnBall&) override { ++balls; }
  void contact(const DrawnContact&) override { ++contacts; }
};

double millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const auto n = static_cast<std::uint32_t>(argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Uniform);
  def.threadCount = 2;
  World world = scenes::makeWorld(scenes::generate(scenes::SceneKind::Uniform, n), def);
  for (int i = 0; i < 3; ++i) world.step(1.0f / 60.0f);
  const AABB b = world.def().bounds;
  const Vec2 size = b.max - b.min;
  struct Case {
    const char* name;
    bool contacts;
    float fraction;  // of the world's width and height in view
  };
  std::printf(
      "| balls | what | balls drawn | contacts drawn | draw after a step, ms | "
      "draw again, ms | step, ms |\n|---|---|---|---|---|---|---|\n");
  for (const Case c :
       {Case{"whole world, balls", false, 1.0f}, Case{"whole world, balls + contacts", true, 1.0f},
        Case{"10% x 10% view, balls", false, 0.1f},
        Case{"10% x 10% view, balls + contacts", true, 0.1f},
        Case{"1% x 1% view, balls + contacts", true, 0.01f}}) {
    WorldDrawOptions options;
    options.contacts = c.contacts;
    if (c.fraction < 1.0f) {
      const Vec2 half = size * (c.fraction * 0.5f);
      options.region = AABB{b.center() - half, b.center() + half};
    }
    std::vector<double> afterStep, again, step;
    Count count;
    for (int r = 0; r < 5; ++r) {
      auto start = std::chrono::steady_clock::now();
      world.step(1.0f / 60.0f);
      step.push_back(millisSince(start));
      count = Count{};
      start = std::chrono::steady_clock::now();
      world.draw(count, options);
      afterStep.push_back(millisSince(start));
      start = std::chrono::steady_clock::now();
      world.draw(count, options);
      again.push_back(millisSince(start));
    }
    std::printf("| %u | %s | %zu | %zu | %.3f | %.3f | %.2f |\n", n, c.name, count.balls / 2,
                count.contacts / 2, median(afterStep), median(again), median(step));
  }
  return 0;
}
