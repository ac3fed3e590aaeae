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
#include <exception>
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

constexpr float kMapSize = 2048.0f;
constexpr std::uint32_t kSprites = 3000;

std::vector<Sprite> makeSprites() {
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
  return sprites;
}

// The pairs of overlapping sprites, by scanning every pair.
std::size_t bruteOverlaps(const std::vector<Sprite>& sprites) {
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < sprites.size(); ++a) {
    for (std::size_t b = a + 1; b < sprites.size(); ++b) {
      pairs += quadbin::overlaps(sprites[a].box(), sprites[b].box()) ? 1 : 0;
    }
  }
  return pairs;
}

// The game's sprites, the tree over them and what each frame reuses.
class Game {
 public:
  // Loose cells (looseness 2) keep small sprites that sit on a split line
  // out of the big nodes near the root; sprites that wander off the map are
  // kept in the tree's outside list, never lost.
  Game()
      : sprites_(makeSprites()),
        tree_({{0, 0}, {kMapSize, kMapSize}}, looseOptions(), SpriteBox{&sprites_}) {
    for (std::uint32_t id = 0; id < kSprites; ++id) tree_.add(id);
  }

  // One frame: move, render, AI, game logic; with `check`, every answer
  // against brute force.
  void frame(int number, bool check) {
    // Move: the tree needs each sprite's previous box to find it.
    for (std::uint32_t id = 0; id < kSprites; ++id) {
      const quadbin::AABB previous = sprites_[id].box();
      sprites_[id].position += sprites_[id].velocity * kDt;
      tree_.update(id, previous);
    }

    // Render: only what the camera sees.
    const quadbin::Vec2 cameraCentre{1024.0f + 600.0f * static_cast<float>(number % 60) / 60.0f,
                                     1024.0f};
    const quadbin::AABB camera = quadbin::AABB::fromCenterHalf(cameraCentre, {320.0f, 180.0f});
    visible_.clear();
    tree_.query(camera, visible_);
    if (check) mismatches += visible_.size() != bruteCount(sprites_, camera) ? 1 : 0;

    // AI: each guard looks for other sprites within 64 units (box test).
    for (std::uint32_t id = 0; id < kSprites; ++id) {
      if (!sprites_[id].guard) continue;
      const quadbin::AABB sight = quadbin::AABB::fromCenterHalf(sprites_[id].position, {64, 64});
      nearby_.clear();
      tree_.query(sight, nearby_);
      if (check) mismatches += nearby_.size() != bruteCount(sprites_, sight) ? 1 : 0;
      alerts += nearby_.size() - 1;  // the guard sees itself
    }

    // Game logic: every pair of overlapping sprites, each once.
    overlapping_.clear();
    tree_.findAllIntersections(overlapping_);
    if (check) {
      mismatches += overlapping_.size() != bruteOverlaps(sprites_) ? 1 : 0;
      std::printf(
          "frame %3d: %4zu visible, %4zu overlapping pairs, %zu outside the root (off the map)\n",
          number, visible_.size(), overlapping_.size(), tree_.outsideCount());
    }
  }

  [[nodiscard]] const SpriteTree& tree() const { return tree_; }

  std::size_t mismatches = 0;
  std::size_t alerts = 0;

 private:
  static constexpr float kDt = 1.0f / 30.0f;
  static quadbin::QuadtreeContainerOptions looseOptions() {
    quadbin::QuadtreeContainerOptions options;
    options.looseness = 2.0f;
    return options;
  }

  std::vector<Sprite> sprites_;
  SpriteTree tree_;
  std::vector<std::uint32_t> visible_;  // reused every frame: no allocation
  std::vector<std::uint32_t> nearby_;   // after the first frames
  std::vector<std::pair<std::uint32_t, std::uint32_t>> overlapping_;
};

}  // namespace

int main() {
  try {
    Game game;
    for (int frame = 0; frame < 120; ++frame) {
      game.frame(frame, frame % 30 == 0);  // brute force is slow: check every 30th frame
    }
    const SpriteTree& tree = game.tree();
    const quadbin::QuadtreeContainerStats stats = tree.stats();
    std::printf("tree: %zu values, %zu nodes, depth %zu, largest node %zu values\n", tree.size(),
                stats.nodes, stats.depth, stats.largestNode);
    std::printf("guards noticed %zu sprites in total; %zu mismatches against brute force\n",
                game.alerts, game.mismatches);
    return game.mismatches == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quadtree_container: %s\n", e.what());
    return 2;
  }
}
