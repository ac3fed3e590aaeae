// space_order's rule and order against what they promise: scattered() on
// contact lists whose far share is known, mortonOrder() against a sort by
// the Morton key worked out here bit by bit, and Permutation against a
// gather by the order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <quadbin/engine/body.hpp>
#include <random>
#include <vector>

#include "world/space_order.hpp"

using namespace quadbin;

namespace {

contacts::Contact contact(std::uint32_t a, std::uint32_t b) {
  contacts::Contact c{};
  c.a = a;
  c.b = b;
  return c;
}

// `count` contacts of which every `farEvery`-th joins bodies 5,000 apart,
// the others neighbours; `walls` wall contacts after each.
std::vector<contacts::Contact> listOf(std::uint32_t count, std::uint32_t farEvery,
                                      std::uint32_t walls = 0) {
  std::vector<contacts::Contact> out;
  for (std::uint32_t k = 0; k < count; ++k) {
    const bool far = farEvery != 0 && k % farEvery == 0;
    out.push_back(contact(k, k + (far ? 5000 : 1)));
    for (std::uint32_t w = 0; w < walls; ++w) out.push_back(contact(k, contacts::kWallBase + w));
  }
  return out;
}

}  // namespace

TEST(SpaceOrderRule, ScatteredWhenMoreThanAQuarterIsFar) {
  EXPECT_FALSE(space_order::scattered(listOf(10000, 0)));
  EXPECT_FALSE(space_order::scattered(listOf(10000, 5)));  // a fifth
  EXPECT_TRUE(space_order::scattered(listOf(10000, 3)));   // a third
  EXPECT_TRUE(space_order::scattered(listOf(10000, 1)));
  // Exactly the bound, 1,024 apart, is near; one more is far.
  std::vector<contacts::Contact> edge(1000, contact(0, space_order::kNear));
  EXPECT_FALSE(space_order::scattered(edge));
  edge.assign(1000, contact(0, space_order::kNear + 1));
  EXPECT_TRUE(space_order::scattered(edge));
  // A static body may have the lower index: the distance either way.
  edge.assign(1000, contact(5000, 2));
  EXPECT_TRUE(space_order::scattered(edge));
}

TEST(SpaceOrderRule, WallsAndTooFewContactsDecideNothing) {
  EXPECT_FALSE(space_order::scattered({}));
  EXPECT_FALSE(space_order::scattered(listOf(space_order::kMinSamples - 1, 1)));
  EXPECT_TRUE(space_order::scattered(listOf(space_order::kMinSamples, 1)));
  // Walls are not counted: a third of the body contacts far, among many walls.
  EXPECT_TRUE(space_order::scattered(listOf(3000, 3, 4)));
  // Samples spread over a long list: far contacts only in its first half
  // are seen as half of them.
  std::vector<contacts::Contact> half = listOf(200000, 1);
  for (std::size_t k = 100000; k < half.size(); ++k) half[k].b = half[k].a + 1;
  EXPECT_TRUE(space_order::scattered(half));
  std::vector<contacts::Contact> eighth = listOf(200000, 1);
  for (std::size_t k = 25000; k < eighth.size(); ++k) eighth[k].b = eighth[k].a + 1;
  EXPECT_FALSE(space_order::scattered(eighth));
}

namespace {
void ball(BodyStore& bodies, Vec2 p) {
  bodies.push(BodyType::Ball, p, {}, {}, 0.5f, 1.0f, 0.0f, 0.0f);
}

// The Morton key of a centre, bit by bit, on the 2^32 grid over [min, max].
std::uint64_t key(float x, float y, float minX, float minY, float maxX, float maxY) {
  const auto cx =
      static_cast<std::uint64_t>((double{x} - minX) * (4294967295.0 / (double{maxX} - minX)));
  const auto cy =
      static_cast<std::uint64_t>((double{y} - minY) * (4294967295.0 / (double{maxY} - minY)));
  std::uint64_t k = 0;
  for (int bit = 0; bit < 32; ++bit) {
    k |= ((cx >> bit) & 1u) << (2 * bit);
    k |= ((cy >> bit) & 1u) << (2 * bit + 1);
  }
  return k;
}
}  // namespace

TEST(SpaceOrderRule, MortonOrderIsTheSortedKeysTiesInDenseOrder) {
  BodyStore bodies;
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> at(-50.0f, 150.0f);
  for (int i = 0; i < 3000; ++i) {
    // Every tenth body on the previous one's centre: a tie.
    const Vec2 p = i % 10 == 9 ? Vec2{bodies.px.back(), bodies.py.back()} : Vec2{at(rng), at(rng)};
    ball(bodies, p);
  }
  const auto [minX, maxX] = std::minmax_element(bodies.px.begin(), bodies.px.end());
  const auto [minY, maxY] = std::minmax_element(bodies.py.begin(), bodies.py.end());
  std::vector<std::pair<std::uint64_t, std::uint32_t>> expected;
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    expected.emplace_back(key(bodies.px[i], bodies.py[i], *minX, *minY, *maxX, *maxY), i);
  }
  std::sort(expected.begin(), expected.end());
  const std::vector<std::uint32_t> order = space_order::mortonOrder(bodies);
  ASSERT_EQ(order.size(), bodies.size());
  for (std::size_t k = 0; k < order.size(); ++k) ASSERT_EQ(order[k], expected[k].second) << k;
  // Bodies in that order already: nothing to do.
  BodyStore sorted;
  for (const std::uint32_t i : order) ball(sorted, {bodies.px[i], bodies.py[i]});
  EXPECT_TRUE(space_order::mortonOrder(sorted).empty());
}

// Permutation moves a column as a gather by the order would, and back,
// bit for bit: random orders, the identity, one swap, a single long cycle.
TEST(SpaceOrderRule, APermutationMovesAColumnAndBack) {
  std::mt19937 rng(6);
  for (const std::uint32_t n : {0u, 1u, 2u, 7u, 1000u, 20000u}) {
    std::vector<std::vector<std::uint32_t>> orders(4, std::vector<std::uint32_t>(n));
    for (auto& o : orders) std::iota(o.begin(), o.end(), 0u);
    std::shuffle(orders[1].begin(), orders[1].end(), rng);
    if (n >= 2) std::swap(orders[2][0], orders[2][n - 1]);
    if (n >= 2) std::rotate(orders[3].begin(), orders[3].begin() + 1, orders[3].end());
    for (const auto& order : orders) {
      std::vector<float> column(n);
      std::vector<Filter> filters(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        column[i] = static_cast<float>(rng()) * 0x1p-20f;
        filters[i] = {rng(), rng(), static_cast<std::int32_t>(i)};
      }
      Permutation p;
      p.assign(order);
      ASSERT_EQ(p.size(), n);
      std::vector<float> moved = column;
      std::vector<Filter> movedFilters = filters;
      p.move(moved, Permutation::Direction::Apply);
      p.move(movedFilters, Permutation::Direction::Apply);
      for (std::uint32_t k = 0; k < n; ++k) {
        ASSERT_EQ(moved[k], column[order[k]]) << n << " bodies, entry " << k;
        ASSERT_EQ(movedFilters[k], filters[order[k]]);
        ASSERT_EQ(p.newIndex(order[k]), k);
        ASSERT_EQ(p.oldIndex(k), order[k]);
      }
      p.move(moved, Permutation::Direction::Undo);
      p.move(movedFilters, Permutation::Direction::Undo);
      EXPECT_EQ(moved, column);
      EXPECT_TRUE(movedFilters == filters);
    }
  }
}
