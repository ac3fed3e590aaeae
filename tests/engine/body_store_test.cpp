// The bodies' arrays (engine/src/bodies/body_store.hpp, filtering.hpp)
// grow geometrically when createBodies adds a few bodies at a time: each
// call reserves room for the total, which must not set the capacity to
// exactly that (every call would move every array: quadratic). Counted by
// the arrays' addresses, not timed.
#include <gtest/gtest.h>

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
