// The bodies' handles (engine/src/world/body_ids.hpp) against a model: a
// list of live handles in dense order, the generation of every slot and the
// free slots as a stack, driven by random adds, removals, bulk adds and
// renumberings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "support/array_moves.hpp"
#include "world/body_ids.hpp"

namespace quadbin {
namespace {

constexpr std::uint32_t kWorld = 7;

struct Model {
  std::vector<BodyId> dense;              // live handles in dense order
  std::vector<std::uint32_t> generation;  // per slot
  std::vector<std::uint32_t> freeSlots;   // the next one handed out last

  std::uint32_t add() {
    std::uint32_t slot = 0;
    if (!freeSlots.empty()) {
      slot = freeSlots.back();
      freeSlots.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(generation.size());
      generation.push_back(0);
    }
    dense.push_back({slot, generation[slot], kWorld});
    return slot;
  }
  void remove(std::uint32_t i) {
    const BodyId gone = dense[i];
    dense[i] = dense.back();
    dense.pop_back();
    ++generation[gone.index];
    freeSlots.push_back(gone.index);
  }
};

void expectSame(const BodyIds& ids, const Model& m) {
  ASSERT_EQ(ids.size(), m.dense.size());
  ASSERT_EQ(ids.slotCount(), m.generation.size());
  for (std::uint32_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids.idAt(i, kWorld), m.dense[i]) << "dense " << i;
    EXPECT_TRUE(ids.isValid(m.dense[i], kWorld));
    EXPECT_EQ(ids.dense(m.dense[i]), i);
  }
  for (const std::uint32_t slot : m.freeSlots) {
    EXPECT_FALSE(ids.isValid({slot, m.generation[slot], kWorld}, kWorld));
    EXPECT_EQ(ids.denseOf()[slot], BodyIds::kNone);
  }
  EXPECT_TRUE(std::equal(m.freeSlots.begin(), m.freeSlots.end(), ids.freeSlots().begin(),
                         ids.freeSlots().end()));
}

TEST(BodyIds, AddRemoveBulkAndRenumberMatchTheModel) {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed);
    BodyIds ids;
    Model m;
    for (int round = 0; round < 400; ++round) {
      const auto what = static_cast<std::uint32_t>(rng() % 10);
      if (what < 4 || m.dense.empty()) {
        EXPECT_EQ(ids.add(), m.add());
      } else if (what < 7) {
        const auto i = static_cast<std::uint32_t>(rng() % m.dense.size());
        const BodyId gone = m.dense[i];
        ids.remove(gone, i);
        m.remove(i);
        EXPECT_FALSE(ids.isValid(gone, kWorld)) << "a removed handle";
      } else if (what < 9) {
        const std::size_t count = rng() % 12;
        const std::uint32_t first = ids.size();
        ids.reserveBulk(count);
        std::vector<std::uint32_t> slots(count);
        for (std::size_t k = count; k-- > 0;) slots[k] = ids.bulkSlot(k, first);  // any order
        ids.finishBulk();
        for (std::size_t k = 0; k < count; ++k) EXPECT_EQ(slots[k], m.add());
      } else {
        std::vector<std::uint32_t> order(m.dense.size());
        std::iota(order.begin(), order.end(), 0u);
        std::shuffle(order.begin(), order.end(), rng);
        Permutation p;
        p.assign(order);
        const bool back = rng() % 2 == 0;  // renumbered, and sometimes back again
        ids.renumber(p, Permutation::Direction::Apply);
        if (back) {
          ids.renumber(p, Permutation::Direction::Undo);
          expectSame(ids, m);
        }
        if (back) ids.renumber(p, Permutation::Direction::Apply);
        std::vector<BodyId> next;
        for (const std::uint32_t k : order) next.push_back(m.dense[k]);
        m.dense = next;
      }
      expectSame(ids, m);
    }
  }
}

TEST(BodyIds, AHandleFromAnotherWorldOrANullOneIsNotValid) {
  BodyIds ids;
  const std::uint32_t slot = ids.add();
  EXPECT_TRUE(ids.isValid({slot, 0, kWorld}, kWorld));
  EXPECT_FALSE(ids.isValid({slot, 0, kWorld + 1}, kWorld));
  EXPECT_FALSE(ids.isValid({slot, 1, kWorld}, kWorld));
  EXPECT_FALSE(ids.isValid(BodyId{}, kWorld));
}

// Bodies created one by one, then destroyed one by one, move each array a
// logarithmic number of times, not once per call: createBody and
// destroyBody stay amortised O(1) (a reserve of one more element per call
// made creating 1,000,000 bodies quadratic). Counted by the arrays'
// addresses, not timed.
TEST(BodyIds, OneByOneGrowsGeometrically) {
  using test::countMove;
  using test::kMostMoves;
  constexpr auto kCount = static_cast<std::uint32_t>(test::kGrowths);
  BodyIds ids;
  std::vector<const std::uint32_t*> slotOf;
  std::vector<const std::uint32_t*> denseOf;
  std::vector<const std::uint32_t*> generation;
  std::vector<const std::uint32_t*> freeSlots;
  for (std::uint32_t k = 0; k < kCount; ++k) {
    ids.add();
    countMove(slotOf, ids.slotOf());
    countMove(denseOf, ids.denseOf());
    countMove(generation, ids.generation());
  }
  for (std::uint32_t k = 0; k < kCount; ++k) {
    const std::uint32_t dense = ids.size() - 1 - (k % ids.size());
    ids.remove(ids.idAt(dense, kWorld), dense);
    countMove(freeSlots, ids.freeSlots());
  }
  EXPECT_EQ(ids.size(), 0U);
  EXPECT_EQ(ids.freeSlots().size(), kCount);
  EXPECT_LE(slotOf.size(), kMostMoves);
  EXPECT_LE(denseOf.size(), kMostMoves);
  EXPECT_LE(generation.size(), kMostMoves);
  EXPECT_LE(freeSlots.size(), kMostMoves);
}

}  // namespace
}  // namespace quadbin
