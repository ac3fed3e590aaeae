#pragma once
// Internal to the engine: the snapshot format of World::snapshot and
// World::restore (docs/snapshots.md), apart from the World so that world.cpp
// only gathers and commits the state.

#include <cstddef>
#include <cstdint>
#include <quadbin/engine/world_def.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "bodies/filtering.hpp"
#include "contacts/contact.hpp"
#include "events/sensor_set.hpp"

namespace quadbin::snapshots {

inline constexpr std::uint32_t kFormatVersion = 3;
/// Version 3 with the bodies' outlines: what a world with outlines writes.
inline constexpr std::uint32_t kHullFormatVersion = 4;
/// The awake byte of a disabled body (World::setEnabled); 0 and 1 are
/// asleep and awake.
inline constexpr std::uint8_t kDisabled = 2;

/// What a snapshot is written from: the world's state, by reference.
struct View {
  const WorldDef& def;
  const BodyStore& bodies;
  std::span<const std::uint32_t> slotOf;      // dense -> slot
  std::span<const std::uint32_t> generation;  // slot -> generation
  std::span<const std::uint32_t> freeSlots;   // in the order they are reused (back first)
  std::span<const contacts::Contact> contacts;
  std::span<const std::uint64_t> colourUse;  // per ball: the colours its contacts hold
  std::span<const TouchKey> touching;        // the last step's touching pairs, sorted
  // Events and sensors (appended block): contacts of destroyed bodies that
  // end at the next step, sensor overlaps and their pending ends, sorted.
  std::span<const TouchKey> pendingEnd;
  std::span<const SensorKey> sensorOverlaps;
  std::span<const SensorKey> sensorPendingEnd;
  const BodyFilters& filters;  // per body: user data and collision filter
};

/// What a snapshot restores: the same state, owned, checked for
/// consistency (every index in range, island lists closed, ...).
struct State {
  WorldDef def;  // the simulation fields; the task system is left unset
  BodyStore bodies;
  std::vector<std::uint32_t> slotOf, denseOf, generation, freeSlots;
  std::vector<contacts::Contact> contacts;
  std::vector<std::uint64_t> colourUse;
  std::vector<TouchKey> touching;
  std::vector<TouchKey> pendingEnd;
  std::vector<SensorKey> sensorOverlaps, sensorPendingEnd;
  BodyFilters filters;
};

[[nodiscard]] std::vector<std::byte> write(const View& view);
/// Parses and validates the whole buffer; throws Error with the reason
/// (prefixed "World::restore: ") and changes nothing on any fault.
[[nodiscard]] State read(std::span<const std::byte> buffer);

}  // namespace quadbin::snapshots
