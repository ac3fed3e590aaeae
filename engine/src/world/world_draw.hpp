#pragma once
// Internal to the engine: World::draw's work (world_draw.cpp), on the
// world's state as World::Impl holds it.

#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/world_draw.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <span>

#include "bodies/body_store.hpp"
#include "events/sensor_set.hpp"
#include "queries/query_delta.hpp"

namespace quadbin {

/// What World::draw reads: the bodies, their ids and the broad phase
/// refreshed with the bodies' tight boxes (the query index).
struct DrawInput {
  const BodyStore& bodies;
  std::span<const std::uint32_t> slotOf;
  std::span<const std::uint32_t> generation;
  std::uint32_t worldId;
  const WorldDef& def;
  const BroadPhase& broad;
  const QueryDelta& delta;                    // bodies changed since the broad phase was filled
  std::span<const SensorKey> sensorOverlaps;  // after the last step, sorted
  std::span<const std::uint32_t> denseOf;     // per slot: its dense index
  TaskSystem& tasks;
};

/// Calls `out` for what `options` asks, in the order world_draw.hpp
/// documents. The region, if any, was validated by the caller.
void drawWorld(const DrawInput& in, const WorldDrawOptions& options, WorldDraw& out);

}  // namespace quadbin
