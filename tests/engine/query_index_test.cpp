// The queries' index after a step (engine/src/queries/query_index.hpp,
// QueryIndex::stepped): the broad phase as the step left it is taken as
// the structure, and the bodies whose tight box its boxes do not contain
// (moved after it took them) or whose box the step replaced go to the
// delta. Every body a tight-box query touches must be among the candidates,
// against brute force, also where the index falls back to a refill.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <random>
#include <vector>

#include "bodies/body_store.hpp"
#include "queries/query_index.hpp"

namespace quadbin {
namespace {

struct Stepped {
  BodyStore store;
  QueryIndex queries;
  std::unique_ptr<BroadPhase> broad = makeBroadPhase(BroadPhaseType::BinGrid);
  std::unique_ptr<BroadPhase> spare = makeBroadPhase(BroadPhaseType::BinGrid);
  std::shared_ptr<TaskSystem> tasks = makeTaskSystem(2);
  std::vector<AABB> held;            // the step's box of each body
  std::vector<std::uint32_t> grown;  // bodies whose held box the broad phase does not hold

  // n balls; every `outsideEvery`-th has moved wholly out of its held box,
  // every 11th's held box grew after the broad phase took the boxes (it
  // holds a box far away for it).
  Stepped(std::uint32_t n, std::uint32_t outsideEvery) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> pos(0, 300);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Vec2 p{pos(rng), pos(rng)};
      store.push(BodyType::Ball, p, {}, {1, 1}, 1, 1.0f, 0.0f, 0.0f);
    }
    std::vector<AABB> taken(n);
    held.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      AABB b = store.tightBox(i);
      b = {b.min - Vec2{0.5f, 0.5f}, b.max + Vec2{0.5f, 0.5f}};
      if (i % outsideEvery == 0) b = {b.min + Vec2{4, 0}, b.max + Vec2{4, 0}};
      held[i] = b;
      taken[i] = b;
      if (i % 11 == 5) {
        grown.push_back(i);
        taken[i] = {Vec2{-900, -900}, Vec2{-899, -899}};
      }
    }
    broad->update(taken);
    queries.stepped(held, grown);
  }

  [[nodiscard]] std::vector<std::uint32_t> candidates(const AABB& box) {
    queries.refresh(store, *tasks);
    std::vector<std::uint32_t> found;
    queries.candidates(box, static_cast<std::uint32_t>(store.size()), {broad, spare}, found);
    std::vector<std::uint32_t> exact;
    for (const std::uint32_t j : found) {
      if (touches(store.tightBox(j), box)) exact.push_back(j);
    }
    std::sort(exact.begin(), exact.end());
    exact.erase(std::unique(exact.begin(), exact.end()), exact.end());
    return exact;
  }
  [[nodiscard]] std::vector<std::uint32_t> brute(const AABB& box) const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t j = 0; j < store.size(); ++j) {
      if (touches(store.tightBox(j), box)) out.push_back(j);
    }
    return out;
  }
  // Each body's own tight box, and boxes around it, against brute force.
  void expectExact() {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> pos(0, 300), side(0, 8);
    for (std::uint32_t i = 0; i < store.size(); i += 3) {
      const AABB own = store.tightBox(i);
      ASSERT_EQ(candidates(own), brute(own)) << "body " << i;
    }
    for (int k = 0; k < 300; ++k) {
      const Vec2 p{pos(rng), pos(rng)};
      const AABB box{p, p + Vec2{side(rng), side(rng)}};
      ASSERT_EQ(candidates(box), brute(box)) << "box " << k;
    }
  }
};

TEST(QueryIndexAfterAStep, BodiesOutsideTheirBoxesAndGrownOnesAreFound) {
  Stepped s(4000, 7);
  s.expectExact();
}

// More than a quarter outside: a refill instead, as exact.
TEST(QueryIndexAfterAStep, ManyBodiesOutsideFallBackToARefill) {
  Stepped s(4000, 2);
  s.expectExact();
}

// Changes before the first query (a move, a removal that renumbers the
// last body): the step's boxes are dropped, and the next query refills.
TEST(QueryIndexAfterAStep, ChangesBeforeTheFirstQueryStayExact) {
  Stepped s(4000, 7);
  s.store.px[3] += 50.0f;
  s.queries.changed(3, 4, s.store);
  s.store.swapRemove(10);
  s.queries.changed(10, 11, s.store);
  s.expectExact();
}

}  // namespace
}  // namespace quadbin
