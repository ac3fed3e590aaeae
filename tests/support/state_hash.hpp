// A world's state as one number, for "bit-identical" checks: FNV-1a over
// the bits of every body's position and velocity in dense order (and, with
// spin, its angular velocity and angle). Equal hashes: equal states.
#pragma once

#include <cstdint>
#include <cstring>
#include <quadbin/engine/world.hpp>

namespace test {

inline std::uint64_t hashState(const quadbin::World& w, bool withSpin = false) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](float f) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  };
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const quadbin::BodyId id = w.bodyAt(i);
    const quadbin::Vec2 p = w.position(id), v = w.velocity(id);
    mix(p.x);
    mix(p.y);
    mix(v.x);
    mix(v.y);
    if (withSpin) {
      mix(w.angularVelocity(id));
      mix(w.angle(id));
    }
  }
  return h;
}

}  // namespace test
