// DistributedWorld under mpirun: no ball lost or repeated while balls
// migrate, one rank bit-identical to a World, P ranks bit-identical run to
// run, energy and overlaps against the single process, queries, and bad
// input refused on every rank with nothing changed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <quadbin/mpi/distributed_world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

#include "mpi_scenes.hpp"
#include "mpi_support.hpp"

using namespace quadbin;
using quadbin::mpi::DistributedWorld;
using quadbin::mpi::GatheredBody;
using quadbin::mpi::GlobalId;

namespace {

using test::ballDefs;
using test::distributedDef;

std::uint64_t bits(Vec2 v) {
  return (std::uint64_t{std::bit_cast<std::uint32_t>(v.x)} << 32) |
         std::bit_cast<std::uint32_t>(v.y);
}

double kineticEnergy(const std::vector<GatheredBody>& bodies) {
  double e = 0.0;
  for (const GatheredBody& b : bodies) {
    if (b.type == BodyType::Ball) {
      e += 0.5 * b.mass *
           (double{b.velocity.x} * b.velocity.x + double{b.velocity.y} * b.velocity.y);
    }
  }
  return e;
}

// Pairs of balls that overlap (centres nearer than the radii's sum).
std::uint64_t overlaps(const std::vector<GatheredBody>& b) {
  std::vector<std::size_t> order(b.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return b[i].position.x < b[j].position.x; });
  float widest = 0.0f;
  for (const GatheredBody& g : b) widest = std::max(widest, g.radius);
  std::uint64_t count = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const GatheredBody& p = b[order[k]];
    for (std::size_t m = k + 1; m < order.size(); ++m) {
      const GatheredBody& q = b[order[m]];
      if (q.position.x - p.position.x > p.radius + widest) break;
      const double dx = double{q.position.x} - p.position.x,
                   dy = double{q.position.y} - p.position.y;
      const double reach = double{p.radius} + q.radius;
      if (dx * dx + dy * dy < reach * reach) ++count;
    }
  }
  return count;
}

class DistributedScenes : public ::testing::TestWithParam<scenes::SceneKind> {};

// 1,000 steps with balls crossing the borders: every step the ranks' balls
// together are exactly the created ones, each once.
TEST_P(DistributedScenes, NoBallLostOrRepeatedOverAThousandSteps) {
  const int rank = test::mpiRank(), ranks = test::mpiRanks();
  constexpr std::uint32_t kN = 2000;
  DistributedWorld world(MPI_COMM_WORLD, distributedDef(GetParam(), kN));
  const std::vector<BodyDef> defs = ballDefs(GetParam(), kN);
  // Each rank creates a share of the balls, wherever they lie.
  std::vector<BodyDef> mine;
  for (auto i = static_cast<std::size_t>(rank); i < defs.size();
       i += static_cast<std::size_t>(ranks)) {
    mine.push_back(defs[i]);
  }
  const std::vector<GlobalId> ids = world.createBodies(mine);
  ASSERT_EQ(ids.size(), mine.size());
  EXPECT_EQ(world.bodyCount(), kN);
  std::uint64_t migrated = 0;
  for (int step = 0; step < 1000; ++step) {
    world.step(1.0f / 60.0f);
    migrated += world.stats().migrated;
    const std::vector<GlobalId> all = test::gatherAll(world.ownedIds());
    bool good = true;
    if (rank == 0) {
      std::vector<GlobalId> sorted = all;
      std::sort(sorted.begin(), sorted.end());
      good = sorted.size() == kN;
      for (std::uint32_t i = 0; good && i < kN; ++i) good = sorted[i] == i;
      EXPECT_TRUE(good) << "step " << step << ": " << sorted.size() << " balls held";
    }
    if (!test::rootSays(good)) break;
  }
  const std::uint64_t allMigrated = test::sumAll(migrated);
  if (ranks > 1) {
    EXPECT_GT(allMigrated, 0u) << "no ball crossed a border";
  }
}

INSTANTIATE_TEST_SUITE_P(ReferenceScenes, DistributedScenes,
                         ::testing::Values(scenes::SceneKind::Uniform, scenes::SceneKind::Clustered,
                                           scenes::SceneKind::Mixed),
                         [](const auto& p) { return std::string(scenes::toString(p.param)); });

// On one rank (MPI_COMM_SELF: every process runs it alone) the distributed
// world is a World: the same bits after 300 steps, walls and obstacles
// included.
TEST(DistributedWorld, OneRankIsBitIdenticalToAWorld) {
  constexpr std::uint32_t kN = 1500;
  const mpi::DistributedDef def = distributedDef(scenes::SceneKind::Mixed, kN);
  std::vector<BodyDef> defs = ballDefs(scenes::SceneKind::Mixed, kN);
  const AABB b = def.world.bounds;
  const Vec2 mid = (b.min + b.max) * 0.5f;
  defs.insert(defs.begin() + 10, BodyDef::staticBox(AABB{mid, mid + Vec2{3.0f, 1.0f}}));
  World single(def.world);
  const std::vector<BodyId> singleIds = single.createBodies(defs);
  DistributedWorld world(MPI_COMM_SELF, def);
  (void)world.createBodies(defs);
  for (int step = 0; step < 300; ++step) {
    single.step(1.0f / 60.0f);
    world.step(1.0f / 60.0f);
  }
  std::vector<GatheredBody> all;
  world.gather(all);
  ASSERT_EQ(all.size(), defs.size());
  for (std::size_t i = 0; i < defs.size(); ++i) {
    EXPECT_EQ(all[i].id, i);
    EXPECT_EQ(bits(all[i].position), bits(single.position(singleIds[i]))) << "body " << i;
    EXPECT_EQ(bits(all[i].velocity), bits(single.velocity(singleIds[i]))) << "body " << i;
  }
}

// The same P ranks twice: the same bits.
TEST(DistributedWorld, TheSameRanksGiveTheSameBitsTwice) {
  constexpr std::uint32_t kN = 2000;
  std::vector<std::vector<GatheredBody>> runs;
  for (int run = 0; run < 2; ++run) {
    DistributedWorld world(MPI_COMM_WORLD, distributedDef(scenes::SceneKind::Clustered, kN));
    std::vector<BodyDef> mine;
    if (test::mpiRank() == 0) mine = ballDefs(scenes::SceneKind::Clustered, kN);
    (void)world.createBodies(mine);
    for (int step = 0; step < 200; ++step) world.step(1.0f / 60.0f);
    runs.emplace_back();
    world.gather(runs.back());
  }
  if (test::mpiRank() != 0) return;
  ASSERT_EQ(runs[0].size(), kN);
  ASSERT_EQ(runs[1].size(), kN);
  for (std::size_t i = 0; i < kN; ++i) {
    EXPECT_EQ(bits(runs[0][i].position), bits(runs[1][i].position)) << "ball " << i;
    EXPECT_EQ(bits(runs[0][i].velocity), bits(runs[1][i].velocity)) << "ball " << i;
  }
}

// e = 1: the energy drifts under 0.1 % over 600 steps, and the overlaps left
// are no more than 1.2 times the single process's (plus one pair for the
// noise of a few).
TEST(DistributedWorld, EnergyAndOverlapsMatchTheSingleProcess) {
  if (test::mpiRanks() > 4) GTEST_SKIP() << "measured for 2 and 4 ranks (docs/distributed.md)";
  for (const scenes::SceneKind kind :
       {scenes::SceneKind::Uniform, scenes::SceneKind::Clustered, scenes::SceneKind::Mixed}) {
    constexpr std::uint32_t kN = 10000;
    const mpi::DistributedDef def = distributedDef(kind, kN);
    const std::vector<BodyDef> defs = ballDefs(kind, kN);
    DistributedWorld world(MPI_COMM_WORLD, def);
    (void)world.createBodies(test::mpiRank() == 0 ? defs : std::vector<BodyDef>{});
    std::vector<GatheredBody> start, end;
    world.gather(start);
    for (int step = 0; step < 600; ++step) world.step(1.0f / 60.0f);
    world.gather(end);
    if (test::mpiRank() != 0) continue;
    World single(def.world);
    (void)single.createBodies(defs);
    for (int step = 0; step < 600; ++step) single.step(1.0f / 60.0f);
    std::vector<GatheredBody> alone;
    for (std::uint32_t i = 0; i < single.bodyCount(); ++i) {
      const BodyId id = single.bodyAt(i);
      alone.push_back({i, BodyType::Ball, single.position(id), single.velocity(id),
                       single.radius(id), single.mass(id)});
    }
    const double e0 = kineticEnergy(start), e1 = kineticEnergy(end);
    EXPECT_LT(std::fabs(e1 - e0) / e0, 1e-3) << scenes::toString(kind);
    const std::uint64_t left = overlaps(end), reference = overlaps(alone);
    EXPECT_LE(static_cast<double>(left), 1.2 * static_cast<double>(reference) + 1.0)
        << scenes::toString(kind) << ": " << left << " overlapping pairs, single process "
        << reference;
  }
}

// Before any step every rank holds the created state: queries over all
// ranks answer as one World does.
TEST(DistributedWorld, QueriesAnswerAsOneWorld) {
  constexpr std::uint32_t kN = 3000;
  const mpi::DistributedDef def = distributedDef(scenes::SceneKind::Uniform, kN);
  const std::vector<BodyDef> defs = ballDefs(scenes::SceneKind::Uniform, kN);
  DistributedWorld world(MPI_COMM_WORLD, def);
  (void)world.createBodies(test::mpiRank() == 0 ? defs : std::vector<BodyDef>{});
  World single(def.world);
  const std::vector<BodyId> ids = single.createBodies(defs);
  const AABB b = def.world.bounds;
  const Vec2 size = b.max - b.min;
  for (int k = 0; k < 20; ++k) {
    const float f = static_cast<float>(k) / 20.0f;
    const AABB box{b.min + Vec2{size.x * f, size.y * 0.3f},
                   b.min + Vec2{size.x * f + size.x * 0.17f, size.y * 0.45f}};
    std::vector<GlobalId> found;
    world.queryBox(box, found);
    std::vector<BodyId> expected;
    single.queryBox(box, expected);
    std::vector<GlobalId> expectedIds;
    for (const BodyId id : expected) {
      expectedIds.push_back(
          static_cast<GlobalId>(std::find(ids.begin(), ids.end(), id) - ids.begin()));
    }
    std::sort(expectedIds.begin(), expectedIds.end());
    EXPECT_EQ(found, expectedIds) << "box " << k;
    const Ray ray{b.min + Vec2{size.x * 0.01f, size.y * f}, Vec2{1.0f, 0.1f}, size.x};
    const auto hit = world.raycast(ray);
    const auto one = single.raycast(ray);
    ASSERT_EQ(hit.has_value(), one.has_value());
    if (!one) continue;
    EXPECT_EQ(hit->t, one->t) << "ray " << k;
    EXPECT_EQ(hit->body.has_value(), !one->body.isNull());
    if (hit->body && !one->body.isNull()) {
      EXPECT_EQ(*hit->body,
                static_cast<GlobalId>(std::find(ids.begin(), ids.end(), one->body) - ids.begin()));
    }
  }
  // After a step, each touching pair is reported by exactly one rank.
  world.step(1.0f / 60.0f);
  std::vector<mpi::GlobalPair> mine;
  world.contactPairs(mine);
  std::vector<mpi::GlobalPair> all = test::gatherAll(mine);
  if (test::mpiRank() == 0) {
    std::sort(all.begin(), all.end());
    EXPECT_FALSE(all.empty());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  }
}

// Bad input: refused on every rank, nothing created or moved.
TEST(DistributedWorld, BadInputIsRefusedOnEveryRankWithNothingChanged) {
  const int rank = test::mpiRank(), ranks = test::mpiRanks();
  mpi::DistributedDef def;
  def.world.bounds = {{0.0f, 0.0f}, {100.0f, 100.0f}};
  DistributedWorld world(MPI_COMM_WORLD, def);
  std::vector<BodyDef> mine = {
      BodyDef::ball({10.0f + 80.0f * static_cast<float>(rank) / static_cast<float>(ranks), 50.0f},
                    1.0f, {3.0f, 1.0f})};
  (void)world.createBodies(mine);
  const std::vector<Vec2> before = world.gatherPositions();
  // One rank's ball lies outside the closed world.
  std::vector<BodyDef> bad = {BodyDef::ball({50.0f, 30.0f + static_cast<float>(rank)}, 1.0f)};
  if (rank == ranks - 1) bad.push_back(BodyDef::ball({150.0f, 50.0f}, 1.0f));
  EXPECT_THROW((void)world.createBodies(bad), Error);
  EXPECT_EQ(world.bodyCount(), static_cast<std::uint64_t>(ranks));
  EXPECT_EQ(test::sumAll(world.ownedIds().size()), static_cast<std::uint64_t>(ranks));
  // A dt World refuses, and (with more than one rank) a dt that differs.
  EXPECT_THROW(world.step(-1.0f), Error);
  if (ranks > 1) {
    EXPECT_THROW(world.step(rank == 0 ? 0.01f : 0.02f), Error);
  }
  EXPECT_EQ(world.gatherPositions(), before);
  // Settings that differ between ranks.
  if (ranks > 1) {
    mpi::DistributedDef other = def;
    other.world.gravity = {0.0f, rank == ranks - 1 ? -9.8f : 0.0f};
    EXPECT_THROW(DistributedWorld(MPI_COMM_WORLD, other), Error);
  }
  world.step(0.01f);
  EXPECT_EQ(world.gatherPositions().size(), rank == 0 ? static_cast<std::size_t>(ranks) : 0u);
}

}  // namespace
