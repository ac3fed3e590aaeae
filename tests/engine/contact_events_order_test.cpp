// The touching pairs' and hit events' order (engine/src/events/): each
// chunk of contacts checks its own keys for order as it makes them, and
// the joins between chunks are checked after; keys out of order only where
// two chunks meet must still be sorted before they become events.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"
#include "events/contact_events.hpp"
#include "events/sensor_set.hpp"
#include "support/contact_fixtures.hpp"

namespace quadbin {
namespace {

// Contact k joins dense balls 2k and 2k + 1. The slots run backwards by
// chunk of contacts (passChunk: 16,384 contacts in chunks of 1,024):
// chunk 0's balls have the highest slots, in order within the chunk, so
// every chunk's keys are sorted and every join between chunks is not.
TEST(ContactEventsOrder, KeysOutOfOrderOnlyBetweenChunksComeOutSorted) {
  constexpr std::uint32_t kContacts = 16384, kChunk = passChunk(kContacts);
  constexpr std::uint32_t kChunks = kContacts / kChunk;
  static_assert(kChunks > 1);
  constexpr std::uint32_t n = 2 * kContacts;
  const BodyStore bodies = test::ballsThenBoxes(n, 0);
  std::vector<contacts::Contact> cs(kContacts);
  for (std::uint32_t k = 0; k < kContacts; ++k) cs[k] = {2 * k, 2 * k + 1, 0.0f, 0, 1};
  std::vector<std::uint32_t> slotOf(n), denseOf(n), generation(n, 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t c = i / (2 * kChunk);
    slotOf[i] = (kChunks - 1 - c) * 2 * kChunk + i % (2 * kChunk);
    denseOf[slotOf[i]] = i;
  }
  for (const unsigned threads : {1u, 3u}) {
    auto tasks = makeTaskSystem(threads);
    ContactEvents events;
    EXPECT_EQ(events.update({bodies, cs, slotOf, denseOf, generation, 0, false}, *tasks),
              kContacts);
    const std::span<ContactEvent> begins = events.nextBegin();
    ASSERT_EQ(begins.size(), kContacts);
    for (std::size_t k = 0; k < begins.size(); ++k) {  // every pair once, by slot
      EXPECT_EQ(begins[k].a.index, 2 * k) << "threads " << threads;
      EXPECT_EQ(begins[k].b.index, 2 * k + 1);
    }
    events.commit();
    ContactEvents::Settled settled;
    events.settled(settled);
    EXPECT_TRUE(std::is_sorted(settled.touching.begin(), settled.touching.end()));
    EXPECT_EQ(settled.touching.size(), kContacts);
  }
}

// Every ball hits the left wall (its contact k with wall 0); the slots run
// backwards by chunk of contacts as above.
TEST(ContactEventsOrder, HitsOutOfOrderOnlyBetweenChunksComeOutSorted) {
  constexpr std::uint32_t kBalls = 16384, kChunk = passChunk(kBalls), kChunks = kBalls / kChunk;
  static_assert(kChunks > 1);
  const BodyStore bodies = test::ballsThenBoxes(kBalls, 0);
  std::vector<contacts::Contact> cs(kBalls);
  for (std::uint32_t k = 0; k < kBalls; ++k) cs[k] = {k, contacts::wall(0), 0.0f, 0, 1};
  std::vector<std::uint32_t> slotOf(kBalls), generation(kBalls, 1);
  for (std::uint32_t i = 0; i < kBalls; ++i) {
    slotOf[i] = (kChunks - 1 - i / kChunk) * kChunk + i % kChunk;
  }
  const std::vector<float> v0x(kBalls, -5.0f), v0y(kBalls, 0.0f);
  const std::vector<std::uint8_t> awake0(kBalls, 0);
  const EventGeometry geometry{bodies, v0x, v0y, awake0, {0.0f, 0.0f}, {{0, 0}, {5000, 10}}};
  const IdMap ids{slotOf, generation, 0};
  for (const unsigned threads : {1u, 3u}) {
    auto tasks = makeTaskSystem(threads);
    OrderedBuffers<ContactHitEvent> buffers;
    HitSortSpace space;
    std::vector<ContactHitEvent> out;
    geometry.hits(cs, ids, 1.0f, buffers, space, out, *tasks);
    ASSERT_EQ(out.size(), kBalls);
    for (std::uint32_t k = 0; k < kBalls; ++k) {  // by slot
      EXPECT_EQ(out[k].a.index, k) << "threads " << threads;
      EXPECT_EQ(out[k].wall, WallSide::MinX);
    }
  }
}

}  // namespace
}  // namespace quadbin
