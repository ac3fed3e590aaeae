#include <gtest/gtest.h>

#include <quadbin/geometry.hpp>

using namespace quadbin;

TEST(Vec2, Arithmetic) {
  const Vec2 a{1, 2}, b{3, -4};
  EXPECT_EQ(a + b, (Vec2{4, -2}));
  EXPECT_EQ(a - b, (Vec2{-2, 6}));
  EXPECT_EQ(a * 2.0f, (Vec2{2, 4}));
  EXPECT_FLOAT_EQ(dot(a, b), -5.0f);
  EXPECT_FLOAT_EQ(cross(a, b), -10.0f);
  EXPECT_FLOAT_EQ(length(Vec2{3, 4}), 5.0f);
  EXPECT_EQ(normalizeOr(Vec2{0, 0}), (Vec2{1, 0}));
  EXPECT_EQ(normalizeOr(Vec2{0, 2}), (Vec2{0, 1}));
}

TEST(AABB, StrictOverlapExcludesTouching) {
  const AABB a{{0, 0}, {1, 1}};
  EXPECT_TRUE(overlaps(a, AABB{{0.5f, 0.5f}, {2, 2}}));
  EXPECT_FALSE(overlaps(a, AABB{{1, 0}, {2, 1}}));  // shares an edge
  EXPECT_TRUE(touches(a, AABB{{1, 0}, {2, 1}}));
  EXPECT_FALSE(overlaps(a, AABB{{2, 2}, {3, 3}}));
}

TEST(AABB, ZeroSizeBoxOverlapsOnlyInterior) {
  const AABB point{{0.5f, 0.5f}, {0.5f, 0.5f}};
  EXPECT_TRUE(overlaps(point, AABB{{0, 0}, {1, 1}}));
  EXPECT_FALSE(overlaps(point, AABB{{0.5f, 0}, {1, 1}}));  // on the border
  EXPECT_FALSE(overlaps(point, point));
}

TEST(AABB, ContainsUnionAreaIntersection) {
  const AABB a{{0, 0}, {2, 1}}, b{{1, -1}, {3, 0.5f}};
  EXPECT_TRUE(contains(a, AABB{{0, 0}, {1, 1}}));
  EXPECT_FALSE(contains(a, b));
  EXPECT_TRUE(contains(a, Vec2{2, 1}));
  EXPECT_EQ(unionOf(a, b), (AABB{{0, -1}, {3, 1}}));
  EXPECT_EQ(intersectionOf(a, b), (AABB{{1, 0}, {2, 0.5f}}));
  EXPECT_FLOAT_EQ(a.area(), 2.0f);
  EXPECT_FLOAT_EQ(a.perimeter(), 6.0f);
  EXPECT_EQ(a.center(), (Vec2{1, 0.5f}));
  EXPECT_FALSE(intersectionOf(a, AABB{{5, 5}, {6, 6}}).isValid());
  EXPECT_EQ(closestPoint(a, Vec2{5, -3}), (Vec2{2, 0}));
  EXPECT_EQ(AABB::fromCircle({1, 1}, 2), (AABB{{-1, -1}, {3, 3}}));
}

TEST(Circle, Overlaps) {
  const Circle c{{0, 0}, 1};
  EXPECT_TRUE(overlaps(c, Circle{{1.5f, 0}, 1}));
  EXPECT_FALSE(overlaps(c, Circle{{2, 0}, 1}));  // touching only
  EXPECT_TRUE(overlaps(c, AABB{{0.5f, -5}, {3, 5}}));
  EXPECT_FALSE(overlaps(c, AABB{{0.8f, 0.8f}, {3, 3}}));  // corner just outside
  EXPECT_EQ(c.bounds(), (AABB{{-1, -1}, {1, 1}}));
}

TEST(Ray, HitsBoxAndCircle) {
  const Ray ray{{0, 0}, {1, 0}, 10};
  auto t = raycast(ray, AABB{{2, -1}, {3, 1}});
  ASSERT_TRUE(t);
  EXPECT_FLOAT_EQ(*t, 2.0f);
  EXPECT_FALSE(raycast(ray, AABB{{2, 1.5f}, {3, 2}}));
  EXPECT_FALSE(raycast(Ray{{0, 0}, {1, 0}, 1}, AABB{{2, -1}, {3, 1}}));  // too short
  t = raycast(ray, Circle{{5, 0}, 1});
  ASSERT_TRUE(t);
  EXPECT_FLOAT_EQ(*t, 4.0f);
  EXPECT_FALSE(raycast(ray, Circle{{-5, 0}, 1}));  // behind
  t = raycast(ray, Circle{{0, 0}, 1});             // starts inside
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 0.0f);
  EXPECT_EQ(ray.bounds(), (AABB{{0, 0}, {10, 0}}));
}

// A direction component so small that its inverse overflows is parallel:
// a box whose face passes through the origin is hit as the point box is
// (the broad-phase fuzzer's case: quadtree nodes and brute force agreed no
// more).
TEST(RayBox, DenormalDirectionIsParallel) {
  const quadbin::Ray ray{{0.0f, 0.0f}, {0.0f, -2.80259693e-45f}, 1.0f};
  EXPECT_TRUE(quadbin::raycast(ray, quadbin::AABB{{0.0f, 0.0f}, {0.0f, 0.0f}}));
  EXPECT_TRUE(quadbin::raycast(ray, quadbin::AABB{{-1.0f, 0.0f}, {1.0f, 1.0f}}));
  EXPECT_FALSE(quadbin::raycast(ray, quadbin::AABB{{-1.0f, 0.5f}, {1.0f, 1.0f}}));
}
