#include "workloads.hpp"

#include "structures.hpp"

#include <algorithm>
#include <chrono>
#include <quadbin/engine/world.hpp>
#include <vector>

namespace quadbin::perf {

namespace {

using Clock = std::chrono::steady_clock;

void summarise(std::vector<double>& times, Result& r) {
  std::sort(times.begin(), times.end());
  r.minMs = times.front();
  r.maxMs = times.back();
  const std::size_t mid = times.size() / 2;
  r.medianMs = times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
}

}  // namespace

Result runWorkloadA(const Config& c) {
  Result r{c};
  auto scene = scenes::generate(c.scene, c.n, c.seed);
  auto structure = makeStructure(c.structure);
  structure->setBounds(scene.world);
  structure->setTaskSystem(makeTaskSystem(c.threads));
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;
  std::vector<double> times;
  for (std::uint32_t frame = 0; frame < c.warmup + c.frames; ++frame) {
    scenes::advance(scene);  // the motion is the same for every structure: not timed
    const auto start = Clock::now();
    scenes::boxes(scene, boxes);
    structure->update(boxes);
    pairs.clear();
    structure->findPairs(pairs);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (frame >= c.warmup) times.push_back(ms);
  }
  summarise(times, r);
  r.pairs = pairs.size();
  r.bytesPerBody = static_cast<double>(structure->memoryBytes()) / c.n;
  return r;
}

Result runWorkloadB(const Config& c) {
  Result r{c};
  const auto scene = scenes::generate(c.scene, c.n, c.seed);
  WorldDef def;
  def.broadPhase = parseBroadPhaseType(c.structure).value_or(BroadPhaseType::Auto);
  def.threadCount = c.threads;
  def.logLevel = LogLevel::Error;
  World world = scenes::makeWorld(scene, def);
  std::vector<double> times;
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  for (std::uint32_t frame = 0; frame < c.warmup + c.frames; ++frame) {
    const auto start = Clock::now();
    world.step(dt);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (frame >= c.warmup) times.push_back(ms);
  }
  summarise(times, r);
  r.pairs = world.stats().contacts;
  r.bytesPerBody = static_cast<double>(world.broadPhase().memoryBytes()) / c.n;
  return r;
}

}  // namespace quadbin::perf
