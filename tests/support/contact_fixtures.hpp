#pragma once
// Fixtures for the tests of the engine's internal contact classes
// (engine_internal_tests): a BodyStore of balls then static boxes, and
// random canonical pairs among them and the walls.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"

namespace quadbin::test {

using Key = std::pair<std::uint32_t, std::uint32_t>;

// `balls` balls, then `boxes` static boxes.
inline BodyStore ballsThenBoxes(std::uint32_t balls, std::uint32_t boxes) {
  BodyStore b;
  for (std::uint32_t i = 0; i < balls; ++i) {
    b.push(BodyType::Ball, {float(i), 0.0f}, {}, {1.0f, 1.0f}, 1.0f, 1.0f, 0.0f, 0.0f);
  }
  for (std::uint32_t i = 0; i < boxes; ++i) {
    b.push(BodyType::StaticBox, {float(i), 5.0f}, {}, {1.0f, 1.0f}, 0.0f,
           std::numeric_limits<float>::infinity(), 0.0f, 0.0f);
  }
  return b;
}

// `count` distinct pairs in canonical order (a < b): ball-ball, ball-box,
// ball-wall (contacts::wall), about 7 : 2 : 1 (boxes' share to balls when
// there is none).
inline std::vector<Key> randomPairs(std::mt19937& rng, std::uint32_t balls, std::uint32_t boxes,
                                    std::size_t count) {
  std::set<Key> pairs;
  std::uniform_int_distribution<std::uint32_t> ball(0, balls - 1), kind(0, 9),
      box(balls, balls + std::max(boxes, 1u) - 1), side(0, 3);
  while (pairs.size() < count) {
    const std::uint32_t a = ball(rng), k = kind(rng);
    std::uint32_t b = contacts::wall(side(rng));  // k = 9
    if (k < 7 || (k < 9 && boxes == 0)) {
      b = ball(rng);
    } else if (k < 9) {
      b = box(rng);
    }
    if (b != a) pairs.emplace(std::min(a, b), std::max(a, b));
  }
  return {pairs.begin(), pairs.end()};
}

}  // namespace quadbin::test
