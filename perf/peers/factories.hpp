#pragma once
// The constructors of the peers and baselines, for the registry in
// peers.cpp. Internal to the perf suite: callers use makePeer(name).

#include <memory>

#include "../structures.hpp"

namespace quadbin::perf {

// baselines/uniform_grid.cpp: "baseline-grid".
[[nodiscard]] std::unique_ptr<Structure> makeUniformGridBaseline();

#if QUADBIN_HAVE_BOX2D
// peers/box2d_peer.cpp: "box2d-tree" (b2DynamicTree queried per moved proxy)
// and "box2d-broadphase" (b2BroadPhase::UpdatePairs).
[[nodiscard]] std::unique_ptr<Structure> makeBox2dTreePeer();
[[nodiscard]] std::unique_ptr<Structure> makeBox2dBroadPhasePeer();
#endif

#if QUADBIN_HAVE_BULLET
// peers/bullet_peer.cpp: "bullet-dbvt" (btDbvtBroadphase) and "bullet-sap"
// (bt32BitAxisSweep3).
[[nodiscard]] std::unique_ptr<Structure> makeBulletDbvtPeer();
[[nodiscard]] std::unique_ptr<Structure> makeBulletSapPeer();
#endif

}  // namespace quadbin::perf
