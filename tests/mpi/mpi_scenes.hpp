#pragma once
// The reference scenes as the MPI tests give them to a DistributedWorld.
#include <cstdint>
#include <quadbin/mpi/distributed_world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

namespace quadbin::test {

// The balls of the reference scene as World would be given them (positions
// a hair outside the bounds put back, as scenes::makeWorld does), with the
// scene's materials.
inline std::vector<BodyDef> ballDefs(scenes::SceneKind kind, std::uint32_t n) {
  const scenes::Scene s = scenes::generate(kind, n);
  const World w = scenes::makeWorld(s, scenes::worldDefFor(kind));
  std::vector<BodyDef> defs;
  defs.reserve(w.bodyCount());
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    BodyDef d = BodyDef::ball(w.position(id), w.radius(id), w.velocity(id));
    d.friction = s.friction;
    d.rollingResistance = s.rollingResistance;
    defs.push_back(d);
  }
  return defs;
}

// The scene's world (its settings and bounds), one thread per rank.
inline mpi::DistributedDef distributedDef(scenes::SceneKind kind, std::uint32_t n) {
  mpi::DistributedDef def;
  def.world = scenes::worldDefFor(kind);
  def.world.bounds = scenes::generate(kind, n).world;
  def.world.threadCount = 1;
  return def;
}

}  // namespace quadbin::test
