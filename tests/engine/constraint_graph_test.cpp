// The constraint graph (engine/src/contacts/constraint_graph.hpp) against a
// brute-force reference: colours are batches of contacts that share no
// ball, each new contact takes the lowest colour free at both ends, and
// colours given back (ended contacts, a removed body) are free again.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/constraint_graph.hpp"
#include "contacts/contact.hpp"
#include "support/contact_fixtures.hpp"

namespace quadbin {
namespace {

using contacts::Contact;
using contacts::isWall;
using contacts::kColours;

// Random contacts in canonical order: ball-ball (a < b), ball-box, ball-wall.
std::vector<Contact> randomContacts(std::mt19937& rng, std::uint32_t balls, std::uint32_t boxes,
                                    std::size_t count) {
  std::vector<Contact> out;
  for (const auto& [a, b] : test::randomPairs(rng, balls, boxes, count)) {
    out.push_back({a, b, 0.0f, 0, 0});
  }
  return out;
}

// The balls (not boxes or walls) a contact writes.
std::vector<std::uint32_t> ballsOf(const Contact& c, const BodyStore& bodies) {
  std::vector<std::uint32_t> out{c.a};
  if (!isWall(c.b) && bodies.isBall(c.b)) out.push_back(c.b);
  return out;
}

// No two contacts of one colour share a ball, and each contact's colour was
// the lowest free at both of its ends when it was coloured (greedy, in order).
void expectGreedyColouring(const std::vector<Contact>& cs, const BodyStore& bodies) {
  std::vector<std::set<std::uint32_t>> held(bodies.size());
  for (const Contact& c : cs) {
    std::uint32_t lowest = 0;
    while (lowest < kColours) {
      bool taken = false;
      for (const std::uint32_t i : ballsOf(c, bodies)) taken = taken || held[i].count(lowest) != 0;
      if (!taken) break;
      ++lowest;
    }
    ASSERT_EQ(c.colour, lowest) << "contact " << c.a << "-" << c.b;
    if (lowest == kColours) continue;
    for (const std::uint32_t i : ballsOf(c, bodies)) held[i].insert(lowest);
  }
}

TEST(ConstraintGraph, ColoursGreedilySoThatNoBallHasTwoContactsOfOneColour) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    const BodyStore bodies = test::ballsThenBoxes(40, 6);
    std::vector<Contact> cs = randomContacts(rng, 40, 6, 300);
    ConstraintGraph graph;
    graph.resize(bodies.size());
    for (Contact& c : cs) c.colour = graph.colour(bodies, c.a, c.b);
    expectGreedyColouring(cs, bodies);
    EXPECT_TRUE(graph.matches(cs, bodies));
    // Static boxes and walls hold no colour.
    for (std::uint32_t i = 40; i < 46; ++i) EXPECT_EQ(graph.use()[i], 0u);
  }
}

TEST(ConstraintGraph, ABallWithMoreContactsThanColoursOverflowsToTheSerialGroup) {
  const BodyStore bodies = test::ballsThenBoxes(kColours + 3, 0);
  ConstraintGraph graph;
  graph.resize(bodies.size());
  std::vector<std::uint8_t> colours;
  for (std::uint32_t j = 1; j < kColours + 3; ++j) colours.push_back(graph.colour(bodies, 0, j));
  for (std::uint32_t j = 0; j < kColours; ++j) EXPECT_EQ(colours[j], j);
  EXPECT_EQ(colours[kColours], kColours);
  EXPECT_EQ(colours[kColours + 1], kColours);
  EXPECT_EQ(graph.use()[0], ~std::uint64_t{0});
}

TEST(ConstraintGraph, ColoursGivenBackAreFreeAgainAndTheUseMatchesWhatRemains) {
  std::mt19937 rng(7);
  const BodyStore bodies = test::ballsThenBoxes(30, 4);
  std::vector<Contact> cs = randomContacts(rng, 30, 4, 200);
  ConstraintGraph graph;
  graph.resize(bodies.size());
  for (Contact& c : cs) c.colour = graph.colour(bodies, c.a, c.b);
  // Every third contact ends: half given back concurrently, half one end at a time.
  std::vector<Contact> kept;
  for (std::size_t k = 0; k < cs.size(); ++k) {
    if (k % 3 != 0) {
      kept.push_back(cs[k]);
    } else if (k % 2 == 0) {
      graph.giveBackConcurrently(cs[k]);
    } else {
      for (const std::uint32_t i : ballsOf(cs[k], bodies)) graph.giveBack(i, cs[k].colour);
    }
  }
  EXPECT_TRUE(graph.matches(kept, bodies));
  // A new contact takes the lowest colour now free at both ends.
  const Contact probe = kept.front();
  std::uint64_t taken = graph.use()[probe.a];
  if (!isWall(probe.b) && bodies.isBall(probe.b)) taken |= graph.use()[probe.b];
  if (taken != ~std::uint64_t{0}) {
    const auto expected = static_cast<std::uint8_t>(std::countr_zero(~taken));
    EXPECT_EQ(graph.colour(bodies, probe.a, probe.b), expected);
  }
  graph.clear();
  EXPECT_TRUE(graph.matches({}, bodies));
}

TEST(ConstraintGraph, ARemovedBodysSlotTakesTheLastBodysColours) {
  const BodyStore bodies = test::ballsThenBoxes(6, 0);
  ConstraintGraph graph;
  graph.resize(bodies.size());
  ASSERT_EQ(graph.colour(bodies, 4, 5), 0);
  ASSERT_EQ(graph.colour(bodies, 3, 5), 1);
  const std::uint64_t lastUse = graph.use()[5];
  graph.giveBack(4, 0);  // body 1 goes: its contacts ended (none here)
  graph.moveBody(1, 5);
  ASSERT_EQ(graph.use().size(), 5u);
  EXPECT_EQ(graph.use()[1], lastUse);
  graph.moveBody(4, 4);  // the last body removed: nothing moves
  EXPECT_EQ(graph.use().size(), 4u);
}

TEST(ConstraintGraph, RebuildFromContactsAfterARollback) {
  std::mt19937 rng(11);
  const BodyStore bodies = test::ballsThenBoxes(25, 3);
  std::vector<Contact> cs = randomContacts(rng, 25, 3, 120);
  ConstraintGraph graph;
  graph.resize(bodies.size());
  for (Contact& c : cs) c.colour = graph.colour(bodies, c.a, c.b);
  const std::vector<std::uint64_t> before(graph.use().begin(), graph.use().end());
  graph.clear();
  graph.rebuild(cs, bodies);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), graph.use().begin(), graph.use().end()));
}

}  // namespace
}  // namespace quadbin
