#include "workloads.hpp"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <quadbin/engine/world.hpp>
#include <vector>

#include "structures.hpp"

namespace quadbin::perf {

namespace {

using Clock = std::chrono::steady_clock;

void summarise(std::vector<double>& times, Result& r) {
  if (times.empty()) return;
  r.medianMs = median(times);  // sorts
  r.minMs = times.front();
  r.maxMs = times.back();
}

std::string frameName(const Config& c, std::uint32_t frame) {
  return std::string(1, c.workload) + " " + std::string(scenes::toString(c.scene)) +
         " n=" + std::to_string(c.n) + " frame " + std::to_string(frame) + " (of " +
         std::to_string(c.warmup + c.frames) + ", warm-up included, 0-based)";
}

// Whether a time-boxed configuration has timed enough frames.
bool timeBoxUp(const Config& c, const std::vector<double>& times) {
  if (!(c.timeBoxSeconds > 0.0) || times.size() < kMinTimedFrames) return false;
  double ms = 0.0;
  for (const double t : times) ms += t;
  return ms >= c.timeBoxSeconds * 1000.0;
}

}  // namespace

double median(std::vector<double>& values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

std::uint64_t fnv1a(const void* data, std::size_t size, std::uint64_t hash) noexcept {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

Result runWorkloadA(const Config& c, std::span<const std::uint64_t> expectedPairs) {
  // Structures that parallelise with oneTBB see at most this many threads.
  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                                    std::max<std::uint32_t>(c.threads, 1));
  if (c.scene == scenes::SceneKind::Pile) {
    throw std::invalid_argument("the pile scene is for the world step (Workload B) only");
  }
  Result r;
  r.config = c;
  auto scene = scenes::generate(c.scene, c.n, c.seed);
  auto structure = makeStructure(c.structure);
  if (!structure) throw std::invalid_argument("unknown structure '" + c.structure + "'");
  structure->setBounds(scene.world);
  structure->setTaskSystem(makeTaskSystem(c.threads));
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;
  std::vector<double> times;
  const std::uint32_t total = c.warmup + c.frames;
  times.reserve(c.frames);
  r.framePairs.reserve(total);
  for (std::uint32_t frame = 0; frame < total; ++frame) {
    scenes::advance(scene);  // the motion is the same for every structure: not timed
    const auto start = Clock::now();
    scenes::boxes(scene, boxes);
    structure->update(boxes);
    pairs.clear();
    structure->findPairs(pairs);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (frame >= c.warmup) times.push_back(ms);
    r.framePairs.push_back(pairs.size());
    const bool timeUp = timeBoxUp(c, times);
    if (frame < expectedPairs.size() && pairs.size() != expectedPairs[frame]) {
      throw CheckFailure("pair count mismatch: " + c.structure + " on " + frameName(c, frame) +
                         " reported " + std::to_string(pairs.size()) + " pairs, the reference " +
                         std::to_string(expectedPairs[frame]));
    }
    if (timeUp) break;
  }
  r.config.frames = static_cast<std::uint32_t>(times.size());
  summarise(times, r);
  r.pairs = pairs.size();
  r.bytesPerBody = c.n ? static_cast<double>(structure->memoryBytes()) / c.n : 0.0;
  // The digest covers the pair set, not its order: peers need not keep one.
  std::vector<std::uint64_t> keys(pairs.size());
  std::transform(pairs.begin(), pairs.end(), keys.begin(), [](Pair p) { return p.key(); });
  std::sort(keys.begin(), keys.end());
  r.resultHash = fnv1a(r.framePairs.data(), r.framePairs.size() * sizeof(std::uint64_t));
  r.resultHash = fnv1a(keys.data(), keys.size() * sizeof(std::uint64_t), r.resultHash);
  return r;
}

Result runWorkloadB(const Config& c) {
  Result r;
  r.config = c;
  const auto scene = scenes::generate(c.scene, c.n, c.seed);
  // The elastic scenes: restitution 1, restitutionThreshold 0, enableSleep
  // false; the pile: gravity, restitution 0.5, threshold 1, sleeping on.
  WorldDef def = scenes::worldDefFor(c.scene);
  const auto type = parseBroadPhaseType(c.structure);
  if (!type) {
    throw std::invalid_argument("'" + c.structure + "' is not a quadbin broad phase (the World " +
                                "runs quadbin's own; peers take part in Workload A only)");
  }
  def.broadPhase = *type;
  def.threadCount = c.threads;
  def.logLevel = LogLevel::Error;
  World world = scenes::makeWorld(scene, def);
  std::vector<double> times;
  std::vector<double> stages[7];
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  const double energy0 = world.kineticEnergy();
  const std::uint32_t total = c.warmup + c.frames;
  std::uint64_t hash = fnv1a(nullptr, 0);
  times.reserve(c.frames);
  for (std::uint32_t frame = 0; frame < std::max(total, c.driftSteps); ++frame) {
    const auto start = Clock::now();
    world.step(dt);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (frame >= c.warmup && frame < total) {
      times.push_back(ms);
      const StepStats& st = world.stats();
      const double stageMs[7] = {st.integrateMs, st.broadPhaseMs, st.narrowPhaseMs, st.solverMs,
                                 st.positionMs,  st.sleepMs,      st.eventsMs};
      for (int k = 0; k < 7; ++k) stages[k].push_back(stageMs[k]);
    }
    const bool timeUp = frame < total && timeBoxUp(c, times);
    if (frame + 1 == total || timeUp) r.pairs = world.stats().contacts;
    const std::uint32_t contacts = world.stats().contacts;
    hash = fnv1a(&contacts, sizeof contacts, hash);
    if (timeUp) break;
  }
  r.config.frames = static_cast<std::uint32_t>(times.size());
  summarise(times, r);
  r.bytesPerBody = c.n ? static_cast<double>(world.broadPhase().memoryBytes()) / c.n : 0.0;
  if (energy0 > 0.0) r.energyDrift = (world.kineticEnergy() - energy0) / energy0;
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) {
    const BodyId id = world.bodyAt(i);
    const Vec2 p = world.position(id), v = world.velocity(id);
    const float state[4] = {p.x, p.y, v.x, v.y};
    hash = fnv1a(state, sizeof state, hash);
  }
  r.resultHash = hash;
  r.quality = measureQuality(world);
  if (!times.empty()) {
    r.stageMedians =
        StageTimes{median(stages[0]), median(stages[1]), median(stages[2]), median(stages[3]),
                   median(stages[4]), median(stages[5]), median(stages[6])};
  }
  return r;
}

}  // namespace quadbin::perf
