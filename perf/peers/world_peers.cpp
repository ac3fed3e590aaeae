// The registry of Workload B's peers (full world steps). Each is compiled in
// when its library is found (see perf/CMakeLists.txt).
#include "../world_peers.hpp"

#include <numbers>

#include "world_peer_factories.hpp"

namespace quadbin::perf {

namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<WorldStepper> (*make)(const scenes::Scene&, const WorldDef&);
  std::string (*engine)();
};

constexpr Entry kEntries[] = {
#if QUADBIN_HAVE_BOX2D
    {"box2d-world", makeBox2dWorldPeer, box2dEngineName},
#endif
#if QUADBIN_HAVE_CHIPMUNK
    {"chipmunk-hash", makeChipmunkHashPeer, chipmunkEngineName},
    {"chipmunk-bbtree", makeChipmunkBBTreePeer, chipmunkEngineName},
#endif
    {"", nullptr, nullptr},  // keeps the array non-empty without peers
};

}  // namespace

double kineticEnergy(const BallState& s) noexcept {
  double e = 0.0;
  for (std::size_t i = 0; i < s.r.size(); ++i) {
    e += 0.5 * std::numbers::pi * s.r[i] * s.r[i] * (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i]);
  }
  return e;
}

std::vector<std::string> worldPeerNames() {
  std::vector<std::string> names;
  for (const auto& entry : kEntries) {
    if (entry.make) names.emplace_back(entry.name);
  }
  return names;
}

bool isWorldPeer(std::string_view name) noexcept {
  for (const auto& entry : kEntries) {
    if (entry.make && entry.name == name) return true;
  }
  return false;
}

std::string worldPeerEngine(std::string_view name) {
  for (const auto& entry : kEntries) {
    if (entry.make && entry.name == name) return entry.engine();
  }
  return {};
}

std::unique_ptr<WorldStepper> makeWorldPeer(std::string_view name, const scenes::Scene& scene,
                                            const WorldDef& def) {
  for (const auto& entry : kEntries) {
    if (entry.make && entry.name == name) return entry.make(scene, def);
  }
  return nullptr;
}

}  // namespace quadbin::perf
