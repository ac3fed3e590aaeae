// restore enforces the limits that createBody and the setters enforce
// (docs/limits.md), with the same messages, and refuses derived values
// that disagree with what they derive from: a buffer crafted by a peer and
// resealed (its checksum recomputed as docs/snapshots.md describes) is
// either refused, the world unchanged, or a world that steps.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <quadbin/quadbin.hpp>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"
#include "support/snapshot_fuzz.hpp"

using namespace quadbin;
namespace fuzz = quadbin::test::fuzz;
using fuzz::Bytes;

namespace {

using SnapshotLimits = test::QuietLog;

constexpr std::size_t kBodies = 64 + 60;  // the body columns: after the header and the WorldDef

// Four balls, as the table was made.
Bytes fourBalls() {
  WorldDef def;
  def.threadCount = 1;
  World w(def);
  for (int i = 0; i < 4; ++i) {
    w.createBody(BodyDef::ball({20.0f + 10.0f * static_cast<float>(i), 50}, 1.0f, {1, 0}));
  }
  w.step(1.0f / 60.0f);
  return w.snapshot();
}

std::uint32_t bodyCount(const Bytes& b) {
  std::uint32_t n = 0;
  std::memcpy(&n, b.data() + 32, 4);
  return n;
}

// The offset of body i's value in float column k (0 x, 1 y, 2 vx, 3 vy,
// 4 angular velocity, 5 angle, ..., 11 mass, 12 inverse mass).
std::size_t column(const Bytes& b, std::uint32_t k, std::uint32_t i) {
  const std::uint32_t n = bodyCount(b);
  return kBodies + n + 4 * (std::size_t{k} * n + i);
}

void setFloat(Bytes& b, std::size_t at, float v) { std::memcpy(b.data() + at, &v, 4); }

World target() {
  WorldDef def;
  def.threadCount = 1;
  World w(def);
  w.createBody(BodyDef::ball({5, 5}, 2.0f, {1, 2}));
  return w;
}

void expectRefusedNaming(const Bytes& good, std::uint32_t k, float value, const char* field) {
  Bytes bad = good;
  setFloat(bad, column(bad, k, 0), value);
  fuzz::seal(bad);
  World w = target();
  const Bytes before = w.snapshot();
  try {
    w.restore(bad);
    ADD_FAILURE() << field << " = " << value << " was restored";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("body 0: "), std::string::npos) << what;
    EXPECT_NE(what.find(field), std::string::npos) << what;
  }
  EXPECT_EQ(w.snapshot(), before);
}

}  // namespace

// The table, rerun: every row refused, naming the body and field.
TEST_F(SnapshotLimits, ValuesPastTheLimitsAreRefusedByName) {
  const Bytes good = fourBalls();
  for (const float v : {3e38f, 1e30f, 1e9f}) {
    expectRefusedNaming(good, 0, v, "position");
    expectRefusedNaming(good, 1, v, "position");
  }
  for (const float v : {1e30f, 3e38f, 1e9f}) {
    expectRefusedNaming(good, 2, v, "velocity");
    expectRefusedNaming(good, 3, v, "velocity");
  }
  expectRefusedNaming(good, 4, 3e38f, "angularVelocity");
  expectRefusedNaming(good, 5, 3e38f, "angle");
  expectRefusedNaming(good, 5, 4.0f, "angle");  // the step keeps it in [-pi, pi]
  expectRefusedNaming(good, 11, 1e30f, "mass");
  expectRefusedNaming(good, 11, 2.0f, "inverse mass");  // in range, but 1 / mass disagrees
  expectRefusedNaming(good, 12, 0.25f, "inverse mass");
  expectRefusedNaming(good, 10, 1e8f, "radius");
  // The same limit, the same words as createBody's.
  World w = target();
  try {
    w.createBody(BodyDef::ball({50, 50}, 1.0f, {1e9f, 0}));
    ADD_FAILURE() << "createBody took a speed of 1e9";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("velocity = (1000000000, 0) is faster than 1e+08"),
              std::string::npos)
        << e.what();
  }
  Bytes bad = good;
  setFloat(bad, column(bad, 2, 0), 1e9f);
  setFloat(bad, column(bad, 3, 0), 0.0f);
  fuzz::seal(bad);
  try {
    w.restore(bad);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("body 0: velocity = (1000000000, 0) is faster than 1e+08"),
              std::string::npos)
        << e.what();
  }
}

// A crowd no step could take (every ball moved onto one point) is refused
// by restore as by createBodies.
TEST_F(SnapshotLimits, ACrowdPastThePairLimitIsRefused) {
  WorldDef def;
  def.bounds = {{0, 0}, {1000, 1000}};
  def.threadCount = 1;
  World w(def);
  std::vector<BodyDef> grid;
  for (int i = 0; i < 2000; ++i) {
    grid.push_back(BodyDef::ball(
        {5.0f + static_cast<float>(i % 50) * 4.0f, 5.0f + static_cast<float>(i / 50) * 4.0f},
        1.0f));
  }
  w.createBodies(grid);
  const Bytes good = w.snapshot();
  Bytes bad = good;
  for (std::uint32_t i = 0; i < 2000; ++i) {
    setFloat(bad, column(bad, 0, i), 500.0f);
    setFloat(bad, column(bad, 1, i), 500.0f);
  }
  fuzz::seal(bad);
  World other = target();
  const Bytes before = other.snapshot();
  try {
    other.restore(bad);
    ADD_FAILURE() << "a crowd of 2,000 on one point was restored";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pairs of overlapping boxes"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(other.snapshot(), before);
  EXPECT_EQ(fuzz::checkRestore(other, good), "");
}

// docs/snapshots.md's checksum, recomputed from the description alone, for
// buffers whose checksummed length is and is not a multiple of 8 (the
// final step runs on the zero-padded tail either way).
TEST_F(SnapshotLimits, TheChecksumIsTheDocumentedOne) {
  bool tails[2] = {false, false};
  for (int n = 1; n <= 16; ++n) {
    WorldDef def;
    def.threadCount = 1;
    World w(def);
    for (int i = 0; i < n; ++i)
      w.createBody(BodyDef::ball({5.0f + 5.0f * static_cast<float>(i), 5}, 1.0f));
    const Bytes b = w.snapshot();
    std::uint64_t stored = 0;
    std::memcpy(&stored, b.data() + b.size() - 8, 8);
    EXPECT_EQ(fuzz::documentedChecksum(b.data(), b.size() - 8), stored) << n << " balls";
    tails[(b.size() - 8) % 8 == 0 ? 0 : 1] = true;
  }
  EXPECT_TRUE(tails[0] && tails[1]) << "both an empty and a partial tail";
}

// Valid snapshots of every feature, mutated at random and resealed: each
// buffer is refused with the world unchanged, or accepted as a world that
// is its own snapshot and steps with every value finite.
TEST_F(SnapshotLimits, MutatedResealedSnapshotsAreRefusedOrHealthy) {
  const std::vector<Bytes> seeds = fuzz::seedSnapshots();
  WorldDef def;
  def.threadCount = 1;
  def.logLevel = LogLevel::Off;
  World w(def);
  std::uint32_t accepted = 0, tried = 0;
  for (const Bytes& seed : seeds) {
    ASSERT_EQ(fuzz::checkRestore(w, seed), "") << "a seed";
  }
  fuzz::Source src(11);
  for (int k = 0; k < 6000; ++k) {
    Bytes b = seeds[src.below(static_cast<std::uint32_t>(seeds.size()))];
    for (std::uint32_t m = 1 + src.below(3); m > 0; --m) fuzz::mutate(src, b);
    fuzz::seal(b);
    bool ok = false;
    ASSERT_EQ(fuzz::checkRestore(w, b, &ok), "") << "mutation " << k;
    accepted += ok ? 1u : 0u;
    ++tried;
  }
  EXPECT_GT(accepted, tried / 50) << "the mutations are too hostile to reach the values";
}
