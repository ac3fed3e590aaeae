// A ball pit: 500 balls dropped into a closed box under gravity, stepped
// from a fixed-rate loop the way a game would.
#include <cstdio>
#include <quadbin/quadbin.hpp>

int main() {
  quadbin::WorldDef def;
  def.bounds = {{0, 0}, {80, 60}};
  def.gravity = {0, -9.8f};
  def.restitution = 0.8f;
  def.restitutionThreshold = 1.0f;  // slower collisions do not bounce (Box2D's default)
  quadbin::World world(def);

  world.createBody(quadbin::BodyDef::staticBox({{30, 0}, {50, 8}}));  // an obstacle
  for (int i = 0; i < 500; ++i) {
    const float x = 2.0f + static_cast<float>(i % 38) * 2.0f;
    const float y = 15.0f + static_cast<float>(i / 38) * 2.5f;
    auto ball = quadbin::BodyDef::ball({x, y}, 0.8f, {static_cast<float>(i % 7) - 3, 0});
    ball.friction = 0.5f;           // the balls roll and the pile stops sliding
    ball.rollingResistance = 0.1f;  // a ball rolling on the floor stops
    world.createBody(ball);
  }

  double peak = 0.0;
  for (int frame = 0; frame < 900; ++frame) {  // fifteen seconds at 60 Hz
    world.step(1.0f / 60.0f);
    peak = peak > world.kineticEnergy() ? peak : world.kineticEnergy();
    if (frame % 180 == 0) {
      std::printf("t = %4.1f s  contacts = %4u  awake = %3u  kinetic energy = %9.3f\n",
                  frame / 60.0, world.stats().contacts, world.stats().awakeBodies,
                  world.kineticEnergy());
    }
  }
  // The pit has come to rest (kinetic energy below 1e-3 of its peak) and
  // fallen asleep (no ball simulated any more).
  const bool resting = world.kineticEnergy() < 1e-3 * peak;
  const bool asleep = world.stats().awakeBodies == 0;
  std::printf("quadbin %s: %u bodies stepped; %s\n", QUADBIN_VERSION_STRING, world.bodyCount(),
              !resting ? "the pit is STILL MOVING"
              : asleep ? "the pit is at rest and asleep"
                       : "the pit is at rest but NOT ASLEEP");
  return resting && asleep ? 0 : 1;
}
