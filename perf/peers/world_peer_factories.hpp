#pragma once
// The constructors of the world-step peers, for the registry in
// world_peers.cpp. Internal to the perf suite: callers use makeWorldPeer.

#include <string>

#include "../world_peers.hpp"

namespace quadbin::perf {

#if QUADBIN_HAVE_BOX2D
// peers/box2d_world_peer.cpp: "box2d-world"; "box2d-2.4".
[[nodiscard]] std::unique_ptr<WorldStepper> makeBox2dWorldPeer(const scenes::Scene& scene,
                                                               const WorldDef& def);
[[nodiscard]] std::string box2dEngineName();
#endif

#if QUADBIN_HAVE_CHIPMUNK
// peers/chipmunk_world_peer.cpp: "chipmunk-hash", "chipmunk-bbtree"; "chipmunk-7".
[[nodiscard]] std::unique_ptr<WorldStepper> makeChipmunkHashPeer(const scenes::Scene& scene,
                                                                 const WorldDef& def);
[[nodiscard]] std::unique_ptr<WorldStepper> makeChipmunkBBTreePeer(const scenes::Scene& scene,
                                                                   const WorldDef& def);
[[nodiscard]] std::string chipmunkEngineName();
#endif

}  // namespace quadbin::perf
