// The snapshot buffer (docs/snapshots.md): every truncation, any flipped
// byte, another format version and inconsistent contents are refused with
// Error and the world unchanged; restore during a step is refused in
// world_threads_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <quadbin/quadbin.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"

namespace {

using namespace quadbin;
using Bytes = std::vector<std::byte>;

class SnapshotFormat : public test::QuietLog {
 protected:
  // A small busy world: balls on a box and the floor, some destroyed.
  static Bytes sample() {
    WorldDef def;
    def.bounds = {{0, 0}, {40, 40}};
    def.gravity = {0, -9.8f};
    def.timeToSleep = 0.1f;
    def.threadCount = 1;
    World w(def);
    w.createBody(BodyDef::staticBox({{10, 8}, {30, 10}}));
    for (int i = 0; i < 30; ++i) {
      const float x = 2.0f + static_cast<float>(i % 12) * 3.0f;
      const float y = 1.0f + static_cast<float>(i / 12) * 12.0f;
      w.createBody(BodyDef::ball({x, y}, 1.0f, {static_cast<float>(i % 3), 0}));
    }
    for (int s = 0; s < 30; ++s) w.step(1.0f / 60.0f);
    w.destroyBody(w.bodyAt(4));
    w.destroyBody(w.bodyAt(9));
    w.step(1.0f / 60.0f);
    return w.snapshot();
  }
  // The world restores are tried on: unlike the sample, so that a partial
  // restore would show.
  static World target() {
    WorldDef def;
    def.threadCount = 1;
    World w(def);
    for (int i = 0; i < 5; ++i) {
      w.createBody(BodyDef::ball({10.0f + 5.0f * static_cast<float>(i), 50}, 2.0f, {1, 2}));
    }
    w.step(0.01f);
    return w;
  }
  static void expectRefused(World& w, std::span<const std::byte> buffer, const Bytes& before,
                            const std::string& why = "") {
    try {
      w.restore(buffer);
      ADD_FAILURE() << "restored a bad buffer (" << why << ")";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
    EXPECT_EQ(w.snapshot(), before);
  }
  // The documented checksum, for buffers made inconsistent on purpose.
  static void reseal(Bytes& b) {
    std::uint64_t h = 0x51ED270B27A3C5E1ull ^ (b.size() - 8);
    const std::size_t words = (b.size() - 8) / 8;
    for (std::size_t k = 0; k < words; ++k) {
      std::uint64_t w = 0;
      std::memcpy(&w, b.data() + 8 * k, 8);
      h = (h ^ w) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 29;
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, b.data() + 8 * words, b.size() - 8 - 8 * words);
    h = (h ^ tail) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
    std::memcpy(b.data() + b.size() - 8, &h, 8);
  }
  template <class T>
  static T at(const Bytes& b, std::size_t offset) {
    T v;
    std::memcpy(&v, b.data() + offset, sizeof v);
    return v;
  }
  template <class T>
  static void set(Bytes& b, std::size_t offset, T v) {
    std::memcpy(b.data() + offset, &v, sizeof v);
  }
};

TEST_F(SnapshotFormat, HeaderDescribesTheBuffer) {
  const Bytes b = sample();
  EXPECT_EQ(std::memcmp(b.data(), "QBSNAP\r\n", 8), 0);
  EXPECT_EQ(at<std::uint32_t>(b, 8), 3u);            // format version
  EXPECT_EQ(at<std::uint32_t>(b, 12), 64u);          // header size
  EXPECT_EQ(at<std::uint32_t>(b, 16), 0x01020304u);  // byte order
  EXPECT_EQ(at<float>(b, 20), 1.0f / 3.0f);
  EXPECT_EQ(at<std::uint64_t>(b, 24), b.size());
  EXPECT_EQ(at<std::uint32_t>(b, 32), 29u);  // bodies
  EXPECT_EQ(at<std::uint32_t>(b, 36), 31u);  // slots
  EXPECT_EQ(at<std::uint32_t>(b, 40), 2u);   // free slots
  EXPECT_GT(at<std::uint32_t>(b, 44), 0u);   // contacts
  Bytes copy = b;
  reseal(copy);
  EXPECT_EQ(copy, b);  // the checksum is the documented one
}

TEST_F(SnapshotFormat, EveryTruncationIsRefused) {
  const Bytes b = sample();
  World w = target();
  const Bytes before = w.snapshot();
  for (std::size_t length = 0; length < b.size(); ++length) {
    expectRefused(w, std::span(b).first(length), before);
  }
  Bytes longer = b;
  longer.push_back(std::byte{0});
  expectRefused(w, longer, before, "the header says");
  w.restore(b);  // and the whole buffer is accepted
  EXPECT_EQ(w.snapshot(), b);
}

TEST_F(SnapshotFormat, AnyFlippedByteIsRefused) {
  const Bytes b = sample();
  World w = target();
  const Bytes before = w.snapshot();
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> mask(1, 255);
  for (std::size_t offset = 0; offset < b.size(); ++offset) {
    Bytes bad = b;
    bad[offset] ^= static_cast<std::byte>(mask(rng));
    expectRefused(w, bad, before);
  }
  // Several flips at once.
  std::uniform_int_distribution<std::size_t> where(0, b.size() - 1);
  for (int trial = 0; trial < 500; ++trial) {
    Bytes bad = b;
    for (int k = 0; k < 3; ++k) bad[where(rng)] ^= static_cast<std::byte>(mask(rng));
    if (bad != b) expectRefused(w, bad, before);
  }
}

TEST_F(SnapshotFormat, OtherVersionsAndMachinesAreRefused) {
  const Bytes b = sample();
  World w = target();
  const Bytes before = w.snapshot();
  Bytes bad = b;
  set<std::uint32_t>(bad, 8, 2);  // version 2: before the gravity scale
  reseal(bad);
  expectRefused(w, bad, before, "format version 2; this build reads versions 3 and 4");
  bad = b;
  set<std::uint32_t>(bad, 16, 0x04030201);
  reseal(bad);
  expectRefused(w, bad, before, "byte order");
  bad = b;
  set<float>(bad, 20, 0.333f);
  reseal(bad);
  expectRefused(w, bad, before, "float format");
  bad = b;
  bad[0] = std::byte{'X'};
  expectRefused(w, bad, before, "not a quadbin snapshot");
}

// Buffers with a valid checksum whose contents do not hold together: the
// checks that keep a crafted buffer from breaking the world.
TEST_F(SnapshotFormat, InconsistentContentsAreRefused) {
  const Bytes b = sample();
  World w = target();
  const Bytes before = w.snapshot();
  const std::size_t n = at<std::uint32_t>(b, 32);
  const std::size_t def = 64, bodies = def + 60;
  const std::size_t islandNext = bodies + n * (1 + 13 * 4 + 1 + 4);
  // The body columns (66 bytes each), largest radius and box count, then
  // user data and filters (28 bytes each), then materials, damping and
  // forces and the gravity scale (6 floats each).
  const std::size_t slotOf = bodies + n * 66 + 8 + n * 28 + n * 6 * 4;
  auto refusedWith = [&](auto change, const char* why) {
    Bytes bad = b;
    change(bad);
    reseal(bad);
    expectRefused(w, bad, before, why);
  };
  refusedWith([&](Bytes& x) { set<std::uint32_t>(x, 32, static_cast<std::uint32_t>(n + 1)); },
              "do not add up");
  refusedWith([&](Bytes& x) { x[def + 16] = std::byte{7}; }, "WorldDef.boundary");
  refusedWith([&](Bytes& x) { x[def + 16 + 1 + 8 + 4] = std::byte{2}; }, "is not 0 or 1");
  refusedWith([&](Bytes& x) { x[bodies] = std::byte{9}; }, "is not a BodyType");
  refusedWith(
      [&](Bytes& x) { set<float>(x, bodies + n + 4, std::numeric_limits<float>::infinity()); },
      "not finite");
  refusedWith(
      [&](Bytes& x) { set<std::uint32_t>(x, islandNext, static_cast<std::uint32_t>(n + 5)); },
      "island");
  refusedWith([&](Bytes& x) { set<std::uint32_t>(x, slotOf, at<std::uint32_t>(x, slotOf + 4)); },
              "taken twice");
  const std::size_t contacts = slotOf + 4 * n +
                               4 * static_cast<std::size_t>(at<std::uint32_t>(b, 36)) +
                               2 * sizeof(std::uint32_t);
  refusedWith([&](Bytes& x) { set<std::uint32_t>(x, contacts, static_cast<std::uint32_t>(n)); },
              "contact 0");
  refusedWith([&](Bytes& x) { x[contacts + 24] = std::byte{65}; }, "contact 0");
  w.restore(b);
  EXPECT_EQ(w.snapshot(), b);
}

}  // namespace
