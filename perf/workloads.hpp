#pragma once
// The workloads of BENCHMARKS.md, measured on one configuration each.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>

namespace quadbin::perf {

struct Config {
  char workload = 'A';  // 'A': broad phase alone, 'B': full world step
  scenes::SceneKind scene = scenes::SceneKind::Uniform;
  std::uint32_t n = 1000;
  std::string structure = "brute-force";  // a name from structureNames()
  std::uint32_t threads = 1;
  std::uint32_t frames = 60;
  std::uint32_t warmup = 10;
  std::uint64_t seed = scenes::kDefaultSeed;
};

struct Result {
  Config config;
  double medianMs = 0, minMs = 0, maxMs = 0;
  std::uint64_t pairs = 0;  // A: pairs of the last frame; B: contacts of the last step
  double bytesPerBody = 0;
};

[[nodiscard]] Result runWorkloadA(const Config& config);
[[nodiscard]] Result runWorkloadB(const Config& config);

}  // namespace quadbin::perf
