// The registry of peer engines and baselines the perf suite compares with.
// Each peer is compiled in when its library is found (see perf/CMakeLists.txt).
#include "../structures.hpp"
#include "factories.hpp"

namespace quadbin::perf {

namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<Structure> (*make)();
};

// In the order `quadbin-perf list` prints them: peers, then baselines.
constexpr Entry kEntries[] = {
#if QUADBIN_HAVE_BOX2D
    {"box2d-tree", makeBox2dTreePeer},          {"box2d-broadphase", makeBox2dBroadPhasePeer},
#endif
#if QUADBIN_HAVE_BULLET
    {"bullet-dbvt", makeBulletDbvtPeer},        {"bullet-sap", makeBulletSapPeer},
#endif
    {"baseline-grid", makeUniformGridBaseline},
};

}  // namespace

std::vector<std::string> peerNames() {
  std::vector<std::string> names;
  for (const auto& entry : kEntries) names.emplace_back(entry.name);
  return names;
}

std::unique_ptr<Structure> makePeer(std::string_view name) {
  for (const auto& entry : kEntries) {
    if (entry.name == name) return entry.make();
  }
  return nullptr;
}

}  // namespace quadbin::perf
