// quadbin-kinematic-cost: what kinematic bodies cost on the 20,000-ball
// uniform scene (docs/physics.md, "Kinematic bodies"). Median step time of
// 5 runs of 100 steps (after 20 warm-up steps), 2 threads. Modes: 0
// baseline, 1 sixteen idle kinematic boxes, 2 a paddle at 5 radii per step,
// 3 a paddle at 1 radius per step; argv[1] picks them (default: all).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>
using namespace quadbin;
int main(int argc, char** argv) {
  const auto scene = scenes::generate(scenes::SceneKind::Uniform, 20000);
  const float side = scene.world.max.x - scene.world.min.x;
  const char* names[] = {"baseline", "16 idle kinematic boxes", "1 sweeping paddle (5 r/step)",
                         "1 sweeping paddle (1 r/step)"};
  for (int mode = 0; mode < 4; ++mode) {
    if (argc > 1 && std::strchr(argv[1], static_cast<char>('0' + mode)) == nullptr) continue;
    std::vector<double> ms;
    for (int run = 0; run < 5; ++run) {
      WorldDef def = scenes::worldDefFor(scenes::SceneKind::Uniform);
      def.threadCount = 2;
      def.logLevel = LogLevel::Error;
      World w = scenes::makeWorld(scene, def);
      if (mode == 1) {
        for (int i = 0; i < 16; ++i) {
          const float x = side * (0.1f + 0.05f * static_cast<float>(i));
          w.createBody(BodyDef::kinematicBox({{x, side * 0.5f}, {x + 2, side * 0.5f + 2}}));
        }
      } else if (mode >= 2) {
        const float speed = mode == 2 ? 300.0f : 60.0f;  // 5 or 1 radii per step
        w.createBody(BodyDef::kinematicBox({{50, side * 0.375f}, {51, side * 0.625f}}, {speed, 0}));
      }
      const float dt = 1.0f / 60.0f;
      for (int i = 0; i < 20; ++i) w.step(dt);
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) w.step(dt);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
          100);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-32s median %.3f ms/step (min %.3f, max %.3f)\n", names[mode], ms[2], ms[0],
                ms[4]);
  }
}
