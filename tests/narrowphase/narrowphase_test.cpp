#include <gtest/gtest.h>

#include <cmath>
#include <quadbin/narrowphase.hpp>

using namespace quadbin;

TEST(CircleCircle, ContactNormalDepthPoint) {
  auto c = collide(Circle{{0, 0}, 1}, Circle{{1.5f, 0}, 1});
  ASSERT_TRUE(c);
  EXPECT_FLOAT_EQ(c->normal.x, 1.0f);
  EXPECT_FLOAT_EQ(c->normal.y, 0.0f);
  EXPECT_FLOAT_EQ(c->depth, 0.5f);
  EXPECT_FLOAT_EQ(c->point.x, 0.75f);
  EXPECT_FALSE(collide(Circle{{0, 0}, 1}, Circle{{2.5f, 0}, 1}));
  auto touching = collide(Circle{{0, 0}, 1}, Circle{{0, 2}, 1});
  ASSERT_TRUE(touching);
  EXPECT_FLOAT_EQ(touching->depth, 0.0f);
  EXPECT_FLOAT_EQ(touching->normal.y, 1.0f);
}

TEST(CircleCircle, ConcentricGetsAUnitNormal) {
  auto c = collide(Circle{{1, 1}, 1}, Circle{{1, 1}, 2});
  ASSERT_TRUE(c);
  EXPECT_FLOAT_EQ(length(c->normal), 1.0f);
  EXPECT_FLOAT_EQ(c->depth, 3.0f);
}

TEST(CircleBox, OutsideAndInside) {
  const AABB box{{0, 0}, {4, 2}};
  auto c = collide(Circle{{2, 2.5f}, 1}, box);  // above the top face
  ASSERT_TRUE(c);
  EXPECT_FLOAT_EQ(c->normal.y, -1.0f);  // from circle down into the box
  EXPECT_FLOAT_EQ(c->depth, 0.5f);
  auto corner = collide(Circle{{4.5f, 2.5f}, 1}, box);
  ASSERT_TRUE(corner);
  EXPECT_NEAR(corner->normal.x, -std::sqrt(0.5f), 1e-6f);
  EXPECT_NEAR(corner->depth, 1.0f - std::sqrt(0.5f), 1e-6f);
  EXPECT_FALSE(collide(Circle{{5, 3}, 1}, box));
  auto inside = collide(Circle{{0.5f, 1}, 0.25f}, box);  // nearest face: left
  ASSERT_TRUE(inside);
  EXPECT_FLOAT_EQ(inside->normal.x, 1.0f);  // the circle leaves to the left (-normal)
  EXPECT_FLOAT_EQ(inside->depth, 0.75f);
}

TEST(BoxBox, LeastOverlapAxis) {
  auto c = collide(AABB{{0, 0}, {2, 2}}, AABB{{1.5f, 0.5f}, {4, 1.5f}});
  ASSERT_TRUE(c);
  EXPECT_FLOAT_EQ(c->normal.x, 1.0f);
  EXPECT_FLOAT_EQ(c->depth, 0.5f);
  auto v = collide(AABB{{0, 0}, {2, 2}}, AABB{{0.5f, -3}, {1.5f, 0.25f}});
  ASSERT_TRUE(v);
  EXPECT_FLOAT_EQ(v->normal.y, -1.0f);
  EXPECT_FLOAT_EQ(v->depth, 0.25f);
  EXPECT_FALSE(collide(AABB{{0, 0}, {1, 1}}, AABB{{2, 2}, {3, 3}}));
}

TEST(TimeOfImpact, CirclesHeadOnAndMiss) {
  auto t = timeOfImpact(Circle{{0, 0}, 1}, {1, 0}, Circle{{10, 0}, 1}, {-1, 0}, 10);
  ASSERT_TRUE(t);
  EXPECT_FLOAT_EQ(*t, 4.0f);
  EXPECT_FALSE(timeOfImpact(Circle{{0, 0}, 1}, {1, 0}, Circle{{10, 5}, 1}, {-1, 0}, 10));
  EXPECT_FALSE(timeOfImpact(Circle{{0, 0}, 1}, {1, 0}, Circle{{10, 0}, 1}, {-1, 0}, 3));
  auto overlapping = timeOfImpact(Circle{{0, 0}, 1}, {}, Circle{{1, 0}, 1}, {}, 1);
  ASSERT_TRUE(overlapping);
  EXPECT_EQ(*overlapping, 0.0f);
}

TEST(TimeOfImpact, CircleAgainstBoxFaceAndCorner) {
  const AABB box{{10, -1}, {12, 1}};
  auto face = timeOfImpact(Circle{{0, 0}, 1}, {1, 0}, box, 100);
  ASSERT_TRUE(face);
  EXPECT_FLOAT_EQ(*face, 9.0f);
  auto corner = timeOfImpact(Circle{{0, 1.5f}, 1}, {1, 0}, AABB{{10, -1}, {12, 1}}, 100);
  ASSERT_TRUE(corner);
  // Touches the corner (10, 1) when the centre is at x = 10 - sqrt(1 - 0.25).
  EXPECT_NEAR(*corner, 10.0f - std::sqrt(0.75f), 1e-4f);
  EXPECT_FALSE(timeOfImpact(Circle{{0, 2.9f}, 1}, {1, 0}, AABB{{10, -1}, {12, 1}}, 100));
}

TEST(RaycastRounded, MissesTheCornerSquare) {
  // The grown box's corner square is hit, the rounded corner is not.
  const AABB box{{0, 0}, {2, 2}};
  const Ray ray{{-2, 2.7f}, {1, 0.2f}, 10};
  EXPECT_TRUE(raycast(ray, box.expanded(1)));
  EXPECT_FALSE(raycastRounded(ray, box, 1));
  EXPECT_TRUE(raycastRounded(Ray{{-2, 1}, {1, 0}, 10}, box, 1));
}

TEST(OutwardNormal, OutsideAndInside) {
  const AABB box{{0, 0}, {4, 2}};
  EXPECT_EQ(outwardNormal(box, {2, 5}), (Vec2{0, 1}));
  EXPECT_EQ(outwardNormal(box, {-1, 1}), (Vec2{-1, 0}));
  EXPECT_EQ(outwardNormal(box, {3.9f, 1}), (Vec2{1, 0}));
}
