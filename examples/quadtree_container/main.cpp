// quadbin::Quadtree as a plain spatial index in a small top-down game:
// sprites wander over a 2048 x 2048 map; each frame the renderer asks which
// sprites the camera sees, guards look for intruders near them, and the
// game lists overlapping sprites. The tree holds sprite ids (uint32_t) and
// reads their boxes from the game's own array.
//
// Every answer is checked against a brute-force scan: the program exits
// with 1 on a mismatch, so ctest runs it as a test.
#include <cstdint>
#include <cstdio>
#include <quadbin/broadphase/quadtree_container.hpp>
#include <random>
#include <vector>

namespace {

struct Sprite {
  quadbin::Vec2 position;
  quadbin::Vec2 velocity;
  float halfSize;
  bool guard;
  [[nodiscard]] quadbin::AABB box() const {
    return quadbin::AABB::fromCenterHalf(position, {halfSize, halfSize});
  }
};

// GetBox: a sprite id -> its box, read from the game's array (no copy).
struct SpriteBox {
  const std::vector<Sprite>* sprites;
  quadbin::AABB operator()(std::uint32_t id) const { return (*sprites)[id].box(); }
};

using SpriteTree = quadbin::Quadtree<std::uint32_t, SpriteBox>;

// The answer a query must give, by scanning every sprite.
std::size_t bruteCount(const std::vector<Sprite>& sprites, const quadbin::AABB& area) {
  std::size_t count = 0;
  for (const Sprite& s : sprites) count += quadbin::touches(s.box(), area) ? 1 : 0;
  return count;
}

}  // namespace

int main() {
  constexpr float kMapSize = 2048.0f;
  constexpr std::uint32_t kSprites = 3000;
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> place(0.0f, kMapSize);
  std::uniform_real_distribution<float> speed(-40.0f, 40.0f);
  std::uniform_real_distribution<float> size(2.0f, 12.0f);

  std::vector<Sprite> sprites;
  for (std::uint32_t i = 0; i < kSprites; ++i) {
    // One sprite in a hundred is a bird, fast enough to fly off the map.
    const float boost = i % 100 == 1 ? 20.0f : 1.0f;
    sprites.push_back({{place(rng), place(rng)},
                       {speed(rng) * boost, speed(rng) * boost},
                       size(rng),
                       i % 50 == 0});
  }

  // Loose cells (looseness 2) keep small sprites that sit on a split line out
  // of the big nodes near the root; sprites that wander off the map are kept
  // in the tree's outside list, never lost.
  quadbin::QuadtreeContainerOptions options;
  options.looseness = 2.0f;
  SpriteTree tree({{0, 0}, {kMapSize, kMapSize}}, options, SpriteBox{&sprites});
  for (std::uint32_t id = 0; id < kSprites; ++id) tree.add(id);

  std::vector<std::uint32_t> visible;  // reused every frame: no allocation
  std::vector<std::uint32_t> nearby;   // after the first frames
  std::vector<std::pair<std::uint32_t, std::uint32_t>> overlapping;
  std::size_t mismatches = 0;
  std::size_t alerts = 0;
  const float dt = 1.0f / 30.0f;

  for (int frame = 0; frame < 120; ++frame) {
    const bool check = frame % 30 == 0;  // brute force is slow: check every 30th frame
    // Move: the tree needs each sprite's previous box to find it.
    for (std::uint32_t id = 0; id < kSprites; ++id) {
      const quadbin::AABB previous = sprites[id].box();
      sprites[id].position += sprites[id].velocity * dt;
      tree.update(id, previous);
    }

    // Render: only what the camera sees.
    const quadbin::Vec2 cameraCentre{1024.0f + 600.0f * static_cast<float>(frame % 60) / 60.0f,
                                     1024.0f};
    const quadbin::AABB camera = quadbin::AABB::fromCenterHalf(cameraCentre, {320.0f, 180.0f});
    visible.clear();
    tree.query(camera, visible);
    if (check) mismatches += visible.size() != bruteCount(sprites, camera) ? 1 : 0;

    // AI: each guard looks for other sprites within 64 units (box test).
    for (std::uint32_t id = 0; id < kSprites; ++id) {
      if (!sprites[id].guard) continue;
      const quadbin::AABB sight = quadbin::AABB::fromCenterHalf(sprites[id].position, {64, 64});
      nearby.clear();
      tree.query(sight, nearby);
      if (check) mismatches += nearby.size() != bruteCount(sprites, sight) ? 1 : 0;
      alerts += nearby.size() - 1;  // the guard sees itself
    }

    // Game logic: every pair of overlapping sprites, each once.
    overlapping.clear();
    tree.findAllIntersections(overlapping);
    if (check) {
      std::size_t expectedPairs = 0;
      for (std::uint32_t a = 0; a < kSprites; ++a) {
        for (std::uint32_t b = a + 1; b < kSprites; ++b) {
          expectedPairs += quadbin::overlaps(sprites[a].box(), sprites[b].box()) ? 1 : 0;
        }
      }
      mismatches += overlapping.size() != expectedPairs ? 1 : 0;
      std::printf(
          "frame %3d: %4zu visible, %4zu overlapping pairs, %zu outside the root (off the map)\n",
          frame, visible.size(), overlapping.size(), tree.outsideCount());
    }
  }

  const quadbin::QuadtreeContainerStats stats = tree.stats();
  std::printf("tree: %zu values, %zu nodes, depth %zu, largest node %zu values\n", tree.size(),
              stats.nodes, stats.depth, stats.largestNode);
  std::printf("guards noticed %zu sprites in total; %zu mismatches against brute force\n", alerts,
              mismatches);
  return mismatches == 0 ? 0 : 1;
}
