// The contact store (engine/src/contacts/contact_store.hpp) against
// brute-force references: carry-over keeps what persists and gives back
// the colours of what ended, a failed step rolls back bit for bit, merged
// contacts land in canonical order, and a destroyed body takes its contacts
// with it while the moved body's keep their impulses under its new index.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <quadbin/tasks/task_system.hpp>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "bodies/body_store.hpp"
#include "bodies/permutation.hpp"
#include "contacts/constraint_graph.hpp"
#include "contacts/contact.hpp"
#include "contacts/contact_store.hpp"
#include "support/contact_fixtures.hpp"

namespace quadbin {
namespace {

using contacts::Contact;
using test::Key;
using test::randomPairs;

// One step of the store: the given pairs, new ones coloured, impulses set
// from `impulse` (as a solver would write them).
void step(ContactStore& cs, ConstraintGraph& graph, const BodyStore& bodies,
          const std::vector<Key>& pairs, float impulse, TaskSystem& tasks) {
  const std::span<Contact> out = cs.beginStep(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    out[k] = {pairs[k].first, pairs[k].second, 0.0f, 0xff, 0};
  }
  graph.resize(bodies.size());
  cs.carryOver(graph, bodies, tasks);
  cs.colourNew(graph, bodies, tasks);
  for (Contact& c : cs.contacts()) c.lambda += impulse;
}

std::map<Key, Contact> byPair(std::span<const Contact> cs) {
  std::map<Key, Contact> m;
  for (const Contact& c : cs) m.emplace(Key{c.a, c.b}, c);
  return m;
}

TEST(ContactStore, CarryOverKeepsImpulsesAndColoursOfContactsThatStay) {
  auto tasks = makeTaskSystem(2);
  const BodyStore bodies = test::ballsThenBoxes(60, 5);
  ContactStore cs;
  ConstraintGraph graph;
  std::mt19937 rng(3);
  std::vector<Key> pairs = randomPairs(rng, 60, 5, 450);
  step(cs, graph, bodies, pairs, 1.0f, *tasks);
  cs.commit();
  for (int round = 0; round < 6; ++round) {
    const std::map<Key, Contact> before = byPair(cs.contacts());
    // Keep about two thirds, add new ones.
    std::vector<Key> next;
    for (const Key& k : pairs) {
      if (rng() % 3 != 0) next.push_back(k);
    }
    for (const Key& k : randomPairs(rng, 60, 5, 150)) next.push_back(k);
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    step(cs, graph, bodies, next, 1.0f, *tasks);
    cs.commit();
    for (const Contact& c : cs.contacts()) {
      const auto it = before.find({c.a, c.b});
      if (it == before.end()) {
        EXPECT_EQ(c.lambda, 1.0f);  // new: nothing carried
      } else {
        EXPECT_EQ(c.lambda, it->second.lambda + 1.0f);
        EXPECT_EQ(c.colour, it->second.colour);
      }
    }
    EXPECT_TRUE(cs.consistent(bodies, graph)) << "round " << round;
    pairs = next;
  }
}

// The greedy rule in canonical order, checked contact by contact: a new
// contact's colour is the lowest one that neither ball holds through a
// contact that stayed or a new contact before it (or kColours when all are
// held), so a colouring in any other order fails here.
void expectCanonicalGreedyColours(std::span<const Contact> now,
                                  const std::map<Key, Contact>& before, const BodyStore& bodies) {
  std::map<std::uint32_t, std::uint64_t> held;  // per ball, from the stayed contacts
  auto holds = [&](std::uint32_t i) { return !contacts::isWall(i) && bodies.isBall(i); };
  auto take = [&](const Contact& c) {
    if (c.colour >= contacts::kColours) return;
    held[c.a] |= std::uint64_t{1} << c.colour;
    if (holds(c.b)) held[c.b] |= std::uint64_t{1} << c.colour;
  };
  for (const Contact& c : now) {
    if (before.count({c.a, c.b}) != 0) take(c);
  }
  for (const Contact& c : now) {
    if (before.count({c.a, c.b}) != 0) continue;
    const std::uint64_t taken = held[c.a] | (holds(c.b) ? held[c.b] : 0);
    const std::uint32_t expected = taken == ~std::uint64_t{0}
                                       ? contacts::kColours
                                       : static_cast<std::uint32_t>(std::countr_zero(~taken));
    ASSERT_EQ(c.colour, expected) << "contact " << c.a << "-" << c.b;
    take(c);
  }
}

// Pairs of nearby balls (b - a from 1 to `reach`), some with a box or a
// wall, as a crowd in space order has them (most within one chunk of
// carryOver); `reach` 0: randomPairs (most cross chunks).
std::vector<Key> pairsWithin(std::mt19937& rng, std::uint32_t balls, std::uint32_t boxes,
                             std::size_t count, std::uint32_t reach) {
  if (reach == 0) return randomPairs(rng, balls, boxes, count);
  std::set<Key> pairs;
  std::uniform_int_distribution<std::uint32_t> ball(0, balls - 1), kind(0, 19), near(1, reach),
      box(balls, balls + boxes - 1), side(0, 3);
  while (pairs.size() < count) {
    const std::uint32_t a = ball(rng), k = kind(rng);
    std::uint32_t b = a + near(rng);
    if (k == 0) b = box(rng);
    if (k == 1) b = contacts::wall(side(rng));
    if (b < balls || k < 2) pairs.emplace(a, b);
  }
  return {pairs.begin(), pairs.end()};
}

TEST(ContactStore, NewContactsTakeTheLowestFreeColourInCanonicalOrder) {
  const BodyStore bodies = test::ballsThenBoxes(6000, 6);
  for (const std::uint32_t reach : {0u, 6u, 300u}) {
    for (const std::uint32_t threads : {1u, 4u}) {
      std::mt19937 rng(11);
      auto tasks = makeTaskSystem(threads);
      ContactStore cs;
      ConstraintGraph graph;
      // Many chunks of carryOver, and more new contacts than colourNew
      // colours on one thread.
      std::vector<Key> pairs = pairsWithin(rng, 6000, 6, 20000, reach);
      step(cs, graph, bodies, pairs, 1.0f, *tasks);
      expectCanonicalGreedyColours(cs.contacts(), {}, bodies);
      cs.commit();
      for (int round = 0; round < 3; ++round) {
        const std::map<Key, Contact> before = byPair(cs.contacts());
        std::vector<Key> next;  // most stay, some end, some begin
        for (const Key& k : pairs) {
          if (rng() % 4 != 0) next.push_back(k);
        }
        for (const Key& k : pairsWithin(rng, 6000, 6, 6000, reach)) next.push_back(k);
        std::sort(next.begin(), next.end());
        next.erase(std::unique(next.begin(), next.end()), next.end());
        step(cs, graph, bodies, next, 1.0f, *tasks);
        expectCanonicalGreedyColours(cs.contacts(), before, bodies);
        EXPECT_TRUE(cs.consistent(bodies, graph)) << "reach " << reach << " round " << round;
        cs.commit();
        pairs = next;
      }
    }
  }
}

TEST(ContactStore, ARolledBackStepLeavesTheContactsAndColoursAsBefore) {
  auto tasks = makeTaskSystem(2);
  const BodyStore bodies = test::ballsThenBoxes(40, 3);
  ContactStore cs;
  ConstraintGraph graph;
  std::mt19937 rng(5);
  step(cs, graph, bodies, randomPairs(rng, 40, 3, 200), 2.0f, *tasks);
  cs.commit();
  const std::vector<Contact> before(cs.contacts().begin(), cs.contacts().end());
  const std::vector<std::uint64_t> use(graph.use().begin(), graph.use().end());
  step(cs, graph, bodies, randomPairs(rng, 40, 3, 250), 1.0f, *tasks);
  cs.rollBack(bodies, graph);
  ASSERT_EQ(cs.contacts().size(), before.size());
  for (std::size_t k = 0; k < before.size(); ++k) {
    EXPECT_TRUE(contacts::sameBodies(cs.contacts()[k], before[k]));
    EXPECT_EQ(cs.contacts()[k].lambda, before[k].lambda);
    EXPECT_EQ(cs.contacts()[k].colour, before[k].colour);
  }
  EXPECT_TRUE(std::equal(use.begin(), use.end(), graph.use().begin(), graph.use().end()));
}

TEST(ContactStore, MergedContactsLandInCanonicalOrder) {
  auto tasks = makeTaskSystem(2);
  const BodyStore bodies = test::ballsThenBoxes(50, 4);
  ContactStore cs;
  ConstraintGraph graph;
  std::mt19937 rng(9);
  std::vector<Key> all = randomPairs(rng, 50, 4, 400);
  std::vector<Key> first, later;
  for (const Key& k : all) (rng() % 5 == 0 ? later : first).push_back(k);
  step(cs, graph, bodies, first, 1.0f, *tasks);
  std::vector<Contact> extra;
  const std::vector<Key> backwards(later.rbegin(), later.rend());
  for (const auto& [a, b] : backwards) {  // any order
    Contact c{a, b, 0.0f, graph.colour(bodies, a, b), 0};
    EXPECT_FALSE(cs.contains(c));
    extra.push_back(c);
  }
  cs.merge(extra, *tasks);
  ASSERT_EQ(cs.contacts().size(), all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    EXPECT_EQ(Key(cs.contacts()[k].a, cs.contacts()[k].b), all[k]);
    EXPECT_TRUE(cs.contains(cs.contacts()[k]));
  }
  EXPECT_TRUE(cs.consistent(bodies, graph));
}

TEST(ContactStore, ADestroyedBodyTakesItsContactsAndTheMovedBodyKeepsItsOwn) {
  auto tasks = makeTaskSystem(2);
  for (std::uint32_t removed : {0u, 7u, 20u, 29u}) {
    BodyStore bodies = test::ballsThenBoxes(30, 0);
    ContactStore cs;
    ConstraintGraph graph;
    std::mt19937 rng(removed + 1);
    step(cs, graph, bodies, randomPairs(rng, 30, 0, 120), 0.0f, *tasks);
    cs.commit();
    for (Contact& c : cs.contacts()) c.lambda = float(c.a * 100 + c.b);  // marks the pair
    const std::uint32_t last = 29;
    // Brute force: drop the removed body's contacts, rename last -> removed.
    std::map<Key, float> expected;
    for (const Contact& c : cs.contacts()) {
      if (c.a == removed || c.b == removed) continue;
      const std::uint32_t a = c.a == last ? removed : c.a;
      const std::uint32_t b = contacts::isWall(c.b) || c.b != last ? c.b : removed;
      expected[{std::min(a, b), std::max(a, b)}] = c.lambda;
    }
    bodies.swapRemove(removed);
    cs.removeBody(bodies, graph, removed, last);
    ASSERT_EQ(cs.contacts().size(), expected.size());
    auto it = expected.begin();
    for (const Contact& c : cs.contacts()) {
      EXPECT_EQ(Key(c.a, c.b), it->first);
      EXPECT_EQ(c.lambda, it->second);
      ++it;
    }
    EXPECT_TRUE(cs.consistent(bodies, graph)) << "removed " << removed;
  }
}

// A renumbering of a few bodies sorts only their contacts and merges them
// back (all of them where the room for it was not reserved); of every
// body, all of them: either way every contact names its
// bodies' new indices, in canonical order, with its impulse, as renaming
// them all and sorting gives; undone, the list is as before.
TEST(ContactStore, ARenumberingKeepsCanonicalOrderAndImpulses) {
  auto tasks = makeTaskSystem(2);
  const std::uint32_t n = 40;
  std::vector<std::uint32_t> identity(n);
  for (std::uint32_t i = 0; i < n; ++i) identity[i] = i;
  std::vector<std::vector<std::uint32_t>> orders;
  orders.push_back(identity);
  std::swap(orders.back()[3], orders.back()[17]);  // two bodies
  orders.push_back(identity);                      // a cycle of three and a pair
  orders.back()[5] = 21;
  orders.back()[21] = 9;
  orders.back()[9] = 5;
  std::swap(orders.back()[0], orders.back()[39]);
  orders.push_back(identity);  // every body
  std::reverse(orders.back().begin(), orders.back().end());
  for (const bool room : {true, false}) {
    for (const std::vector<std::uint32_t>& order : orders) {
      BodyStore bodies = test::ballsThenBoxes(30, 10);
      ContactStore cs;
      ConstraintGraph graph;
      std::mt19937 rng(3);
      step(cs, graph, bodies, randomPairs(rng, 30, 10, 150), 0.0f, *tasks);
      cs.commit();
      for (Contact& c : cs.contacts()) c.lambda = float(c.a * 100 + c.b);  // marks the pair
      const std::vector<Contact> before(cs.contacts().begin(), cs.contacts().end());
      Permutation p;
      p.assign(order);
      bodies.renumber(p, Permutation::Direction::Apply);
      std::vector<Contact> expected = before;
      for (Contact& c : expected) {
        c.a = p.newIndex(c.a);
        if (!contacts::isWall(c.b)) c.b = p.newIndex(c.b);
        contacts::orient(c, bodies);
      }
      std::sort(expected.begin(), expected.end());
      if (room) cs.reserveRenumber();  // else (no merge yet) all sorted in place
      cs.renumber(p, Permutation::Direction::Apply, bodies);
      ASSERT_EQ(cs.contacts().size(), expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        ASSERT_EQ(Key(cs.contacts()[k].a, cs.contacts()[k].b), Key(expected[k].a, expected[k].b));
        ASSERT_EQ(cs.contacts()[k].lambda, expected[k].lambda);
      }
      bodies.renumber(p, Permutation::Direction::Undo);
      cs.renumber(p, Permutation::Direction::Undo, bodies);
      ASSERT_EQ(cs.contacts().size(), before.size());
      for (std::size_t k = 0; k < before.size(); ++k) {
        ASSERT_EQ(Key(cs.contacts()[k].a, cs.contacts()[k].b), Key(before[k].a, before[k].b));
        ASSERT_EQ(cs.contacts()[k].lambda, before[k].lambda);
      }
    }
  }
}

}  // namespace
}  // namespace quadbin
