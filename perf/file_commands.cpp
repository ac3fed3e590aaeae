// pairs and simulate: the subcommands others use to check quadbin's results
// on their own inputs (scene files) and to compare runs bit for bit.
#include <tbb/global_control.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <quadbin/engine/world.hpp>
#include <quadbin/error.hpp>
#include <quadbin/scenes/scene.hpp>

#include "commands.hpp"
#include "runner.hpp"
#include "structures.hpp"
#include "workloads.hpp"

namespace quadbin::perf {

namespace {

scenes::Scene loadScene(const std::string& path, scenes::Placement placement) {
  try {
    return scenes::readSceneFile(path, placement);
  } catch (const Error& e) {
    throw UsageError(e.what());  // names file:line and the problem
  }
}

std::ofstream openOutput(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError("cannot write " + path);
  return out;
}

AABB unite(const AABB& a, const AABB& b) {
  return {{std::min(a.min.x, b.min.x), std::min(a.min.y, b.min.y)},
          {std::max(a.max.x, b.max.x), std::max(a.max.y, b.max.y)}};
}

}  // namespace

int pairsCommand(const PairsOptions& o) {
  if (o.sceneFiles.empty()) throw UsageError("pairs needs at least one --scene-file");
  if (o.out.empty()) throw UsageError("pairs needs --out PAIRS.csv");
  if (o.threads == 0) throw UsageError("--threads must be at least 1");
  auto structure = makeStructure(o.structure);
  if (!structure) {
    throw UsageError("unknown broad phase '" + o.structure + "' (see 'quadbin-perf list')");
  }
  // Every frame is read (and checked) before anything runs.
  std::vector<scenes::Scene> frames;
  frames.reserve(o.sceneFiles.size());
  // Boxes need not lie inside the bounds (a hint to the broad phase).
  for (const auto& path : o.sceneFiles) {
    frames.push_back(loadScene(path, scenes::Placement::Anywhere));
  }

  const tbb::global_control threads(tbb::global_control::max_allowed_parallelism, o.threads);
  AABB bounds = frames.front().world;
  for (const auto& f : frames) bounds = unite(bounds, f.world);
  structure->setBounds(bounds);
  std::vector<AABB> boxes;
  std::vector<Pair> pairs;
  for (const auto& f : frames) {
    scenes::boxes(f, boxes);
    structure->update(boxes);
    pairs.clear();
    structure->findPairs(pairs);
  }

  // The contract says each pair once, a < b, within range: a result that
  // breaks it is reported rather than written out tidied up.
  const auto count = static_cast<std::uint32_t>(boxes.size());
  for (const Pair p : pairs) {
    if (!(p.a < p.b) || p.b >= count) {
      throw CheckFailure(o.structure + " reported an invalid pair (" + std::to_string(p.a) + ", " +
                         std::to_string(p.b) + ") on the last frame of " + std::to_string(count) +
                         " boxes");
    }
  }
  std::sort(pairs.begin(), pairs.end());
  if (const auto dup = std::adjacent_find(pairs.begin(), pairs.end()); dup != pairs.end()) {
    throw CheckFailure(o.structure + " reported the pair (" + std::to_string(dup->a) + ", " +
                       std::to_string(dup->b) + ") more than once");
  }
  if (o.check) {
    auto reference = makeStructure("brute-force");
    std::vector<Pair> expected;
    reference->update(boxes);
    reference->findPairs(expected);
    std::sort(expected.begin(), expected.end());
    if (expected != pairs) {
      std::vector<Pair> missing, extra;
      std::set_difference(expected.begin(), expected.end(), pairs.begin(), pairs.end(),
                          std::back_inserter(missing));
      std::set_difference(pairs.begin(), pairs.end(), expected.begin(), expected.end(),
                          std::back_inserter(extra));
      throw CheckFailure(o.structure + " differs from brute-force on the last frame: " +
                         std::to_string(missing.size()) + " pairs missing, " +
                         std::to_string(extra.size()) + " extra");
    }
  }

  auto out = openOutput(o.out);
  char line[32];
  for (const Pair p : pairs) {
    const int len = std::snprintf(line, sizeof line, "%u,%u\n", p.a, p.b);
    out.write(line, len);
  }
  out.close();
  if (!out) throw UsageError("cannot write " + o.out);
  std::printf("%zu pairs among %u boxes (last of %zu frames, %s) -> %s\n", pairs.size(), count,
              frames.size(), o.structure.c_str(), o.out.c_str());
  return 0;
}

int simulateCommand(const SimulateOptions& o) {
  if (o.dumpState.empty()) throw UsageError("simulate needs --dump-state OUT.csv");
  if (o.sceneFile.empty() == o.scene.empty()) {
    throw UsageError("simulate needs either --scene-file F or --scene NAME --n N");
  }
  const BroadPhaseType type = worldBroadPhase(o.structure);
  scenes::Scene scene;
  if (!o.sceneFile.empty()) {
    scene = loadScene(o.sceneFile, scenes::Placement::InsideWorld);  // as the World needs
  } else {
    const auto kind = scenes::parseSceneKind(o.scene);
    if (!kind) {
      throw UsageError("unknown scene '" + o.scene + "' (uniform, clustered, mixed, pile)");
    }
    if (o.n == 0) throw UsageError("simulate --scene needs --n N (at least 1)");
    scene = scenes::generate(*kind, o.n, o.seed);
  }
  // A scene file's balls are elastic (no gravity, restitution 1 with
  // threshold 0, no sleeping), as are the reference scenes; the pile falls.
  const auto physics =
      o.sceneFile.empty() ? *scenes::parseSceneKind(o.scene) : scenes::SceneKind::Uniform;
  WorldDef def = scenes::worldDefFor(physics);
  def.broadPhase = type;
  def.threadCount = o.threads;
  def.logLevel = LogLevel::Error;
  std::optional<World> world;
  try {
    world.emplace(scenes::makeWorld(scene, def));
  } catch (const Error& e) {
    throw UsageError(std::string("cannot build the world: ") + e.what());
  }
  // Creation order (the scene's rows): the world may renumber its bodies
  // as it steps (WorldDef::autoLayout), their ids stay.
  std::vector<BodyId> created(world->bodyCount());
  for (std::uint32_t i = 0; i < world->bodyCount(); ++i) created[i] = world->bodyAt(i);
  const double energy0 = world->kineticEnergy();
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  for (std::uint32_t k = 0; k < o.steps; ++k) world->step(dt);

  auto out = openOutput(o.dumpState);
  out << "x,y,vx,vy\n";
  char line[160];
  std::uint64_t hash = fnv1a(nullptr, 0);
  for (const BodyId id : created) {
    const Vec2 p = world->position(id), v = world->velocity(id);
    const float state[4] = {p.x, p.y, v.x, v.y};
    hash = fnv1a(state, sizeof state, hash);
    const int len =
        std::snprintf(line, sizeof line, "%a,%a,%a,%a\n", static_cast<double>(p.x),
                      static_cast<double>(p.y), static_cast<double>(v.x), static_cast<double>(v.y));
    out.write(line, len);
  }
  out.close();
  if (!out) throw UsageError("cannot write " + o.dumpState);
  std::printf(
      "%u bodies, %u steps (%s, threads=%u): kinetic energy %.9g -> %.9g, state hash "
      "%016llx -> %s\n",
      world->bodyCount(), o.steps, o.structure.c_str(), o.threads, energy0, world->kineticEnergy(),
      static_cast<unsigned long long>(hash), o.dumpState.c_str());
  return 0;
}

int sceneCommand(const SceneOptions& o) {
  const auto kind = scenes::parseSceneKind(o.scene);
  if (!kind) throw UsageError("unknown scene '" + o.scene + "' (uniform, clustered, mixed, pile)");
  if (o.n == 0) throw UsageError("--n must be at least 1");
  if (*kind == scenes::SceneKind::Pile && o.frames > 0) {
    throw UsageError("--frames: the pile has no Workload A motion (it falls in a World)");
  }
  if (o.out.empty()) throw UsageError("scene needs --out FILE");
  auto scene = scenes::generate(*kind, o.n, o.seed);
  for (std::uint32_t k = 0; k < o.frames; ++k) scenes::advance(scene);
  auto out = openOutput(o.out);
  scenes::writeScene(out, scene);
  out.close();
  if (!out) throw UsageError("cannot write " + o.out);
  std::printf("%s n=%u seed=%llu after %u frames -> %s\n", o.scene.c_str(), o.n,
              static_cast<unsigned long long>(o.seed), o.frames, o.out.c_str());
  return 0;
}

}  // namespace quadbin::perf
