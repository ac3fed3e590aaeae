#include "workloads.hpp"

#include <tbb/global_control.h>
#include <ctime>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <quadbin/engine/world.hpp>
#include <vector>

#include "structures.hpp"

namespace quadbin::perf {

double cpuNowMs(std::uint32_t threads) noexcept {
  timespec ts{};
  clock_gettime(threads <= 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

namespace {

using Clock = std::chrono::steady_clock;

// quadbin's World behind the interface the peers share.
class QuadbinStepper final : public WorldStepper {
 public:
  explicit QuadbinStepper(World world) : world_(std::move(world)) {}
  void step(double dt) override { world_.step(static_cast<float>(dt)); }
  [[nodiscard]] std::uint32_t contacts() const override { return world_.stats().contacts; }
  [[nodiscard]] bool contactsAreFree() const noexcept override { return true; }
  void state(BallState& out) const override {
    out = {};
    for (std::uint32_t i = 0; i < world_.bodyCount(); ++i) {
      const BodyId id = world_.bodyAt(i);
      if (world_.type(id) != BodyType::Ball) continue;
      const Vec2 p = world_.position(id), v = world_.velocity(id);
      out.x.push_back(p.x);
      out.y.push_back(p.y);
      out.vx.push_back(v.x);
      out.vy.push_back(v.y);
      out.r.push_back(world_.radius(id));
    }
  }
  [[nodiscard]] std::optional<StageTimes> stageTimes() const override {
    const StepStats& st = world_.stats();
    // "integrate" keeps its meaning across peers: velocities and swept boxes.
    return StageTimes{st.integrateMs + st.sweptBoxesMs,
                      st.broadPhaseMs,
                      st.contactsMs,
                      st.solverMs,
                      st.positionMs,
                      st.sleepMs,
                      st.eventsMs};
  }
  [[nodiscard]] std::size_t broadPhaseBytes() const noexcept override {
    return world_.broadPhase().memoryBytes();
  }

 private:
  World world_;
};

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
  if (!(c.timeBoxSeconds > 0.0) || times.size() < c.minTimedFrames) return false;
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
  const std::shared_ptr<TaskSystem> tasks = makeTaskSystem(c.threads);
  structure->setTaskSystem(tasks);
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;
  std::vector<double> times, cpu;
  const std::uint32_t total = c.warmup + c.frames;
  times.reserve(c.frames);
  cpu.reserve(c.frames);
  r.framePairs.reserve(total);
  for (std::uint32_t frame = 0; frame < total; ++frame) {
    scenes::advance(scene);  // the motion is the same for every structure: not timed
    const double cpu0 = cpuNowMs(c.threads);
    const auto start = Clock::now();
    scenes::boxes(scene, boxes, *tasks);  // the driver's pass, on the structure's threads
    structure->update(boxes);
    structure->findPairsInto(pairs);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (frame >= c.warmup) {
      times.push_back(ms);
      cpu.push_back(cpuNowMs(c.threads) - cpu0);
    }
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
  r.cpuMs = median(cpu);
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
  std::unique_ptr<WorldStepper> stepper;
  if (const auto type = parseBroadPhaseType(c.structure)) {
    def.broadPhase = *type;
    def.threadCount = c.threads;
    def.autoLayout = c.autoLayout;
    def.logLevel = LogLevel::Error;
    World world = scenes::makeWorld(scene, def);
    if (c.optimizeLayout) world.optimizeLayout();
    stepper = std::make_unique<QuadbinStepper>(std::move(world));
  } else {
    stepper = makeWorldPeer(c.structure, scene, def);
  }
  if (!stepper) {
    throw std::invalid_argument("'" + c.structure + "' is neither a quadbin broad phase nor a " +
                                "world-step peer ('quadbin-perf list --workload B')");
  }
  std::vector<double> times, cpu;
  std::vector<double> stages[7];
  const double dt = scenes::kDefaultDt;
  BallState state;
  stepper->state(state);
  const double energy0 = kineticEnergy(state);
  const std::uint32_t total = c.warmup + c.frames;
  std::uint64_t hash = fnv1a(nullptr, 0);
  times.reserve(c.frames);
  cpu.reserve(c.frames);
  for (std::uint32_t frame = 0; frame < std::max(total, c.driftSteps); ++frame) {
    const double cpu0 = cpuNowMs(c.threads);
    const auto start = Clock::now();
    stepper->step(dt);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (frame >= c.warmup && frame < total) {
      times.push_back(ms);
      cpu.push_back(cpuNowMs(c.threads) - cpu0);
      if (const auto st = stepper->stageTimes()) {
        const double stageMs[7] = {st->integrateMs, st->broadPhaseMs, st->narrowPhaseMs,
                                   st->solverMs,    st->positionMs,   st->sleepMs,
                                   st->eventsMs};
        for (int k = 0; k < 7; ++k) stages[k].push_back(stageMs[k]);
      }
    }
    const bool timeUp = frame < total && timeBoxUp(c, times);
    if (frame + 1 == total || timeUp) r.pairs = stepper->contacts();
    if (stepper->contactsAreFree()) {
      const std::uint32_t contacts = stepper->contacts();
      hash = fnv1a(&contacts, sizeof contacts, hash);
    }
    if (timeUp) break;
  }
  r.config.frames = static_cast<std::uint32_t>(times.size());
  summarise(times, r);
  r.cpuMs = median(cpu);
  r.bytesPerBody = c.n ? static_cast<double>(stepper->broadPhaseBytes()) / c.n : 0.0;
  stepper->state(state);
  if (energy0 > 0.0) r.energyDrift = (kineticEnergy(state) - energy0) / energy0;
  for (std::size_t i = 0; i < state.x.size(); ++i) {
    const float s4[4] = {static_cast<float>(state.x[i]), static_cast<float>(state.y[i]),
                         static_cast<float>(state.vx[i]), static_cast<float>(state.vy[i])};
    hash = fnv1a(s4, sizeof s4, hash);
  }
  r.resultHash = hash;
  r.quality = measureQuality(state.x, state.y, state.r);
  if (!stages[0].empty()) {
    r.stageMedians =
        StageTimes{median(stages[0]), median(stages[1]), median(stages[2]), median(stages[3]),
                   median(stages[4]), median(stages[5]), median(stages[6])};
  }
  return r;
}

}  // namespace quadbin::perf
