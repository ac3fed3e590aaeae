// The queries after the steps of a large world (QueryIndex::kAdoptFrom
// bodies or more): each step's broad phase becomes the queries' structure,
// and the delta the step before left (its changed bodies) is emptied by
// clearing only its own marks; the bodies the step left outside their
// swept boxes go into the delta. Over many steps with changes between
// them, every body must still be found by a query at each of its extreme
// points, and answers must equal brute force: a mark left behind, or a
// body missing from the delta, hides a body or names one that is not
// there.
#include <gtest/gtest.h>

#include <algorithm>
#include <quadbin/quadbin.hpp>
#include <random>

#include "support/query_oracle.hpp"

using namespace quadbin;
using quadbin::test::bruteBox;
using quadbin::test::indices;
using quadbin::test::paramName;

namespace {

class AdoptedQueries : public ::testing::TestWithParam<BroadPhaseType> {};

TEST_P(AdoptedQueries, EveryBodyIsFoundAfterManySteps) {
  WorldDef def;
  def.bounds = {{0, 0}, {200, 200}};
  def.gravity = {0, 0};
  def.broadPhase = GetParam();
  World w(def);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(1, 199), u(0, 1), vel(-20, 20);
  std::vector<BodyDef> defs;
  for (int i = 0; i < 20000; ++i) {  // a gas: the position correction moves some
    defs.push_back(BodyDef::ball({pos(rng), pos(rng)}, 0.3f + 0.2f * u(rng), {vel(rng), vel(rng)}));
  }
  w.createBodies(defs);
  std::vector<BodyId> found;
  for (int s = 0; s < 8; ++s) {
    w.step(1.0f / 60.0f);
    // Every body by a speck at each of its four extreme points (the first
    // query takes the step's structure): a body the step pushed out of its
    // swept box is found there only through the delta.
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const BodyId id = w.bodyAt(i);
      const Vec2 p = w.position(id);
      const float r = w.radius(id);
      const float e = r * 1e-3f;
      for (const Vec2 d : {Vec2{r, 0}, Vec2{-r, 0}, Vec2{0, r}, Vec2{0, -r}}) {
        w.queryBox({p + d - Vec2{e, e}, p + d + Vec2{e, e}}, found);
        ASSERT_NE(std::find(found.begin(), found.end(), id), found.end())
            << "step " << s << ", body " << i;
      }
    }
    // Then changes, each one into the delta, with queries among them.
    for (int c = 0; c < 300; ++c) {
      const auto n = w.bodyCount();
      const auto i = static_cast<std::uint32_t>(u(rng) * static_cast<float>(n - 1));
      if (c % 10 == 0) {
        w.destroyBody(w.bodyAt(i));
      } else if (c % 10 == 1) {
        w.createBody(BodyDef::ball({pos(rng), pos(rng)}, 0.6f));
      } else {
        w.setPosition(w.bodyAt(i), {pos(rng), pos(rng)});
      }
      if (c % 30 == 0) {
        const Vec2 p{pos(rng), pos(rng)};
        const AABB box{p, p + Vec2{4 * u(rng), 4 * u(rng)}};
        w.queryBox(box, found);
        ASSERT_EQ(indices(found), bruteBox(w, box)) << "step " << s << ", change " << c;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GridsAndAuto, AdoptedQueries,
                         ::testing::Values(BroadPhaseType::BinGrid, BroadPhaseType::Auto),
                         paramName);

}  // namespace
