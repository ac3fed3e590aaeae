// The pair limit kept at the door (engine/src/world/pair_budget.hpp): the
// count it keeps against a brute-force count of overlapping tight boxes,
// after creation, moves and removals, and its refusals, which change
// nothing.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/engine/world_def.hpp>
#include <quadbin/error.hpp>
#include <random>
#include <vector>

#include "bodies/body_store.hpp"
#include "queries/query_index.hpp"
#include "world/call_guard.hpp"
#include "world/pair_budget.hpp"

namespace quadbin {
namespace {

constexpr float kRadius = 1.0f;

// The world's parts the budget reads, with balls of radius 1.
struct Bodies {
  BodyStore store;
  QueryIndex queries;
  std::unique_ptr<BroadPhase> broad = makeBroadPhase(BroadPhaseType::BinGrid);
  std::unique_ptr<BroadPhase> spare = makeBroadPhase(BroadPhaseType::BinGrid);
  std::shared_ptr<TaskSystem> tasks = makeTaskSystem(2);
  Refusals refusals;
  PairBudget budget;

  PairBudget::Env env() { return {store, queries, {broad, spare}, tasks, refusals}; }
  void add(Vec2 p) {
    store.push(BodyType::Ball, p, {}, {kRadius, kRadius}, kRadius, 1.0f, 0.0f, 0.0f);
    queries.invalidate();
  }
  void move(std::uint32_t i, Vec2 p) {
    store.px[i] = p.x;
    store.py[i] = p.y;
    queries.invalidate();
  }
  void remove(std::uint32_t i) {
    store.swapRemove(i);
    queries.invalidate();
  }
  // Pairs of strictly overlapping tight boxes, by brute force.
  [[nodiscard]] std::uint64_t bruteForcePairs() const {
    std::uint64_t count = 0;
    for (std::uint32_t i = 0; i < store.size(); ++i) {
      for (std::uint32_t j = i + 1; j < store.size(); ++j) {
        count += overlaps(store.tightBox(i), store.tightBox(j)) ? 1u : 0u;
      }
    }
    return count;
  }
};

BodyDef ballAt(Vec2 p) {
  BodyDef d;
  d.position = p;
  d.radius = kRadius;
  return d;
}

// n balls in a square of side `side` around `centre`.
std::vector<BodyDef> patch(std::uint32_t n, Vec2 centre, float side, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-side / 2, side / 2);
  std::vector<BodyDef> defs;
  for (std::uint32_t k = 0; k < n; ++k) defs.push_back(ballAt(centre + Vec2{u(rng), u(rng)}));
  return defs;
}

// Enough bodies that the budget counts, admitted and added: a sparse patch
// of 1,200 and a dense one of 300.
void twoPatches(Bodies& b) {
  std::vector<BodyDef> defs = patch(1200, {0, 0}, 50.0f, 1);
  const std::vector<BodyDef> dense = patch(300, {100, 100}, 8.0f, 2);
  defs.insert(defs.end(), dense.begin(), dense.end());
  b.budget.admitBodies(b.env(), defs);
  for (const BodyDef& d : defs) b.add(d.position);
}

// Just under the limit's floor: 1,448 coincident balls give 1,047,628
// pairs, 1,449 give 1,049,076 (limits::kMinPairLimit is 1,048,576).
constexpr std::uint32_t kMostCoincident = 1448;

TEST(PairBudget, OnlyCrowdsThatCanPassTheLimitAreCounted) {
  EXPECT_FALSE(PairBudget::mayPassLimit(0));
  EXPECT_FALSE(PairBudget::mayPassLimit(kMostCoincident));
  EXPECT_TRUE(PairBudget::mayPassLimit(kMostCoincident + 1));
  EXPECT_TRUE(PairBudget::mayPassLimit(100000));  // 64 per body: 6,400,000
}

TEST(PairBudget, CountsWhatItAdmitsMovesAndForgets) {
  Bodies b;
  twoPatches(b);
  ASSERT_TRUE(b.budget.knownPairs().has_value());
  EXPECT_EQ(*b.budget.knownPairs(), b.bruteForcePairs());

  // One at a time, onto the dense patch.
  const BodyDef one = ballAt({100, 100});
  b.budget.admitBody(b.env(), one);
  b.add(one.position);
  EXPECT_EQ(*b.budget.knownPairs(), b.bruteForcePairs());

  // Moves out of, into and within the patches.
  std::mt19937 rng(3);
  for (int k = 0; k < 20; ++k) {
    const auto i = static_cast<std::uint32_t>(rng() % b.store.size());
    const Vec2 to = k % 2 == 0 ? Vec2{100, 100} : Vec2{-200.0f + static_cast<float>(k), 300};
    b.budget.admitMove(b.env(), i, {to - Vec2{kRadius, kRadius}, to + Vec2{kRadius, kRadius}},
                       BodyId{}, "setPosition");
    b.move(i, to);
    ASSERT_EQ(*b.budget.knownPairs(), b.bruteForcePairs()) << "move " << k;
  }

  // Removals, as destroyBody does: forget, then remove.
  for (int k = 0; k < 20; ++k) {
    const auto i = static_cast<std::uint32_t>(rng() % b.store.size());
    b.budget.forgetBody(b.env(), i);
    b.remove(i);
    ASSERT_EQ(*b.budget.knownPairs(), b.bruteForcePairs()) << "removal " << k;
  }
}

TEST(PairBudget, CountsManyMovesAtOnce) {
  Bodies b;
  twoPatches(b);
  // Moves out of, into and within the patches, some onto one another.
  std::mt19937 rng(9);
  for (int round = 0; round < 5; ++round) {
    std::vector<std::uint32_t> moving;
    for (std::uint32_t i = 0; i < b.store.size(); ++i) {
      if (rng() % 4 == 0) moving.push_back(i);
    }
    std::vector<AABB> boxes;
    std::vector<Vec2> to;
    for (std::size_t k = 0; k < moving.size(); ++k) {
      const Vec2 p = k % 3 == 0
                         ? Vec2{100, 100} + Vec2{static_cast<float>(k % 5), 0}
                         : Vec2{static_cast<float>(rng() % 300), static_cast<float>(rng() % 300)};
      to.push_back(p);
      const AABB box{p - Vec2{kRadius, kRadius}, p + Vec2{kRadius, kRadius}};
      boxes.push_back(box);
    }
    b.budget.admitMoves(b.env(), moving, boxes);
    for (std::size_t k = 0; k < moving.size(); ++k) b.move(moving[k], to[k]);
    ASSERT_EQ(*b.budget.knownPairs(), b.bruteForcePairs()) << "round " << round;
  }
}

TEST(PairBudget, RefusesACrowdPastTheLimitAndKeepsItsCount) {
  Bodies b;
  const std::vector<BodyDef> spread = patch(2000, {0, 0}, 400.0f, 4);
  b.budget.admitBodies(b.env(), spread);
  for (const BodyDef& d : spread) b.add(d.position);
  const std::uint64_t before = *b.budget.knownPairs();
  EXPECT_EQ(before, b.bruteForcePairs());

  // 1,449 more at one point pass the floor of the limit whatever else is there.
  const std::vector<BodyDef> crowd(kMostCoincident + 1, ballAt({500, 500}));
  EXPECT_THROW(b.budget.admitBodies(b.env(), crowd), Error);
  EXPECT_EQ(*b.budget.knownPairs(), before);

  // One by one, the same crowd is refused at the body that passes it.
  std::uint32_t admitted = 0;
  try {
    for (const BodyDef& d : crowd) {
      b.budget.admitBody(b.env(), d);
      b.add(d.position);
      ++admitted;
    }
  } catch (const Error&) {
  }
  EXPECT_LT(admitted, crowd.size());
  EXPECT_EQ(*b.budget.knownPairs(), b.bruteForcePairs());
  EXPECT_LE(*b.budget.knownPairs(), limits::maxPairs(b.store.size() + 1));

  // Nor can a body be moved into the crowd past the limit.
  const std::uint64_t crowded = *b.budget.knownPairs();
  const Vec2 to{500, 500};
  std::uint32_t refused = 0;
  for (std::uint32_t i = 0; i < 200 && refused == 0; ++i) {
    try {
      b.budget.admitMove(b.env(), i, {to - Vec2{kRadius, kRadius}, to + Vec2{kRadius, kRadius}},
                         BodyId{}, "setPosition");
      b.move(i, to);
    } catch (const Error&) {
      ++refused;
    }
  }
  EXPECT_EQ(refused, 1u);
  EXPECT_GE(*b.budget.knownPairs(), crowded);
  EXPECT_EQ(*b.budget.knownPairs(), b.bruteForcePairs());
}

TEST(PairBudget, ChecksARestoredWorld) {
  Bodies b;
  BodyStore restored;
  // A crowd just under the limit's floor, and apart from it 600 balls
  // that touch nothing: counted, since 2,048 bodies could pass the limit.
  for (std::uint32_t k = 0; k < 600; ++k) {
    const Vec2 p{10.0f * static_cast<float>(k), -50.0f};
    restored.push(BodyType::Ball, p, {}, {kRadius, kRadius}, kRadius, 1.0f, 0.0f, 0.0f);
  }
  for (std::uint32_t k = 0; k < kMostCoincident; ++k) {
    restored.push(BodyType::Ball, {7, 7}, {}, {kRadius, kRadius}, kRadius, 1.0f, 0.0f, 0.0f);
  }
  EXPECT_EQ(b.budget.checkRestored(b.env(), restored),
            std::uint64_t{kMostCoincident} * (kMostCoincident - 1) / 2);
  // One more ball in the crowd passes it.
  restored.push(BodyType::Ball, {7, 7}, {}, {kRadius, kRadius}, kRadius, 1.0f, 0.0f, 0.0f);
  EXPECT_THROW((void)b.budget.checkRestored(b.env(), restored), Error);
}

}  // namespace
}  // namespace quadbin
