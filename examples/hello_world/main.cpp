// A ball pit: 500 balls dropped into a closed box under gravity, stepped
// from a fixed-rate loop the way a game would.
#include <cstdio>
#include <quadbin/quadbin.hpp>

int main() {
  quadbin::WorldDef def;
  def.bounds = {{0, 0}, {80, 60}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.8f;
  quadbin::World world(def);

  world.createBody(quadbin::BodyDef::staticBox({{30, 0}, {50, 8}}));  // an obstacle
  for (int i = 0; i < 500; ++i) {
    const float x = 2.0f + static_cast<float>(i % 38) * 2.0f;
    const float y = 15.0f + static_cast<float>(i / 38) * 2.5f;
    world.createBody(quadbin::BodyDef::ball({x, y}, 0.8f, {static_cast<float>(i % 7) - 3, 0}));
  }

  double peak = 0.0;
  for (int frame = 0; frame < 600; ++frame) {  // ten seconds at 60 Hz
    world.step(1.0f / 60.0f);
    peak = peak > world.kineticEnergy() ? peak : world.kineticEnergy();
    if (frame % 120 == 0) {
      std::printf("t = %4.1f s  contacts = %4u  awake = %3u  kinetic energy = %9.3f\n",
                  frame / 60.0, world.stats().contacts, world.stats().awakeBodies,
                  world.kineticEnergy());
    }
  }
  // The pit has come to rest: its kinetic energy is below 1e-3 of its peak.
  const bool resting = world.kineticEnergy() < 1e-3 * peak;
  std::printf("%u bodies stepped; %s\n", world.bodyCount(),
              resting ? "the pit is at rest" : "the pit is STILL MOVING");
  return resting ? 0 : 1;
}
