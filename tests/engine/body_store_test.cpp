// The bodies' arrays (engine/src/bodies/body_store.hpp, filtering.hpp)
// grow geometrically when createBodies adds a few bodies at a time: each
// call reserves room for the total, which must not set the capacity to
// exactly that (every call would move every array: quadratic). Counted by
// the arrays' addresses, not timed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "bodies/capacity.hpp"
#include "bodies/filtering.hpp"
#include "support/array_moves.hpp"

namespace quadbin {
namespace {

using test::kMostMoves;
constexpr std::size_t kCount = test::kGrowths;

template <class T>
void countMove(std::vector<const T*>& seen, const std::vector<T>& v) {
  test::countMove(seen, std::span<const T>(v));
}

TEST(Capacity, ReserveGrowingDoubles) {
  std::vector<int> v;
  std::vector<const int*> moves;
  for (std::size_t k = 0; k < kCount; ++k) {
    reserveGrowing(v, v.size() + 1);
    const std::size_t capacity = v.capacity();
    v.push_back(static_cast<int>(k));
    EXPECT_EQ(v.capacity(), capacity);  // the push did not grow it
    countMove(moves, v);
  }
  EXPECT_LE(moves.size(), kMostMoves);
  reserveGrowing(v, 3);  // never shrinks
  EXPECT_GE(v.capacity(), kCount);
}

TEST(BodyStore, SmallBulkAddsGrowGeometrically) {
  BodyStore bodies;
  BodyFilters filters;
  std::vector<const float*> px;
  std::vector<const std::uint8_t*> awake;
  std::vector<const Filter*> filter;
  for (std::size_t k = 0; k < kCount; ++k) {
    bodies.reserve(bodies.size() + 1);
    filters.reserve(bodies.size() + 1);
    bodies.resize(bodies.size() + 1);
    filters.resize(bodies.size());
    const auto i = static_cast<std::uint32_t>(k);
    bodies.set(i, BodyType::Ball, {static_cast<float>(k), 0.0f}, {}, {0.5f, 0.5f}, 0.5f, 1.0f, 0.0f,
               0.0f);
    countMove(px, bodies.px);
    countMove(awake, bodies.awake);
    countMove(filter, filters.filter);
  }
  bodies.finishBulk(0);
  EXPECT_EQ(bodies.size(), kCount);
  EXPECT_FLOAT_EQ(bodies.px[kCount - 1], static_cast<float>(kCount - 1));
  EXPECT_LE(px.size(), kMostMoves);
  EXPECT_LE(awake.size(), kMostMoves);
  EXPECT_LE(filter.size(), kMostMoves);
}

}  // namespace
}  // namespace quadbin

namespace quadbin {
namespace {

// The largest radius follows removals and radius changes (a count of the
// bodies that have it: the column is rescanned only when the last of them
// goes), against the column's maximum.
TEST(BodyStore, LargestRadiusFollowsRemovals) {
  BodyStore store;
  const float radii[] = {1.0f, 3.0f, 2.0f, 3.0f, 1.0f, 2.0f, 3.0f, 0.5f};
  for (int k = 0; k < 40; ++k) {
    const float r = radii[k % 8];
    store.push(BodyType::Ball, {static_cast<float>(k), 0}, {}, {r, r}, r, 1.0f, 0.0f, 0.0f);
  }
  auto expectLargest = [&] {
    const float most =
        store.radius.empty() ? 0.0f : *std::max_element(store.radius.begin(), store.radius.end());
    ASSERT_EQ(store.maxRadius, most) << store.size() << " bodies";
    ASSERT_EQ(store.maxRadiusCount,
              static_cast<std::uint32_t>(
                  std::count(store.radius.begin(), store.radius.end(), store.maxRadius)));
  };
  expectLargest();
  // A radius change up, then down (world_settings' order: the new one
  // noted, then the old one dropped).
  const float old = store.radius[7];
  store.radius[7] = 5.0f;
  store.noteRadius(5.0f);
  store.dropRadius(old);
  expectLargest();
  store.radius[7] = 0.25f;
  store.noteRadius(0.25f);
  store.dropRadius(5.0f);
  expectLargest();
  // Removals from the middle and the end until none is left.
  while (store.size() != 0) {
    store.swapRemove(static_cast<std::uint32_t>(store.size() / 3));
    expectLargest();
  }
}

}  // namespace
}  // namespace quadbin
