// Workload A over MPI (DistributedBoxes): every frame, the pairs all ranks
// report together, each once, equal the single process's on the same
// boxes (the same broad phase over all of them), on every reference scene,
// with balls migrating between strips.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <quadbin/mpi/distributed_boxes.hpp>
#include <quadbin/scenes/scene.hpp>
#include <vector>

#include "mpi_support.hpp"

using namespace quadbin;
using quadbin::mpi::GlobalPair;
using quadbin::mpi::MovingBall;

namespace {

std::vector<GlobalPair> singleProcessPairs(const scenes::Scene& s, BroadPhaseType type) {
  std::vector<AABB> boxes;
  scenes::boxes(s, boxes);
  const auto bp = makeBroadPhase(type);
  bp->setBounds(s.world);
  bp->update(boxes);
  std::vector<Pair> pairs;
  bp->findPairs(pairs);
  std::vector<GlobalPair> out;
  out.reserve(pairs.size());
  for (const Pair p : pairs) out.push_back({p.a, p.b});
  std::sort(out.begin(), out.end());
  return out;
}

class WorkloadAOverMpi : public ::testing::TestWithParam<scenes::SceneKind> {};

TEST_P(WorkloadAOverMpi, RanksReportTheSingleProcessPairsEachOnce) {
  const int rank = test::mpiRank(), ranks = test::mpiRanks();
  constexpr std::uint32_t kN = 12000;
  scenes::Scene reference = scenes::generate(GetParam(), kN);
  mpi::DistributedBoxes boxes(MPI_COMM_WORLD, reference.minX, reference.minY, reference.maxX,
                              reference.maxY);
  // Rank 0 holds the scene at first: add() routes each ball to its owner.
  std::vector<MovingBall> mine;
  if (rank == 0) {
    for (std::uint32_t i = 0; i < kN; ++i) {
      mine.push_back(
          {i, reference.x[i], reference.y[i], reference.vx[i], reference.vy[i], reference.r[i]});
    }
  }
  boxes.add(mine);
  std::uint64_t migrated = 0, ghosts = 0;
  for (int frame = 0; frame <= 40; ++frame) {
    if (frame == 0) {
      boxes.findPairs();
    } else {
      boxes.frame(scenes::kDefaultDt);
      scenes::advance(reference);
    }
    migrated += boxes.stats().migrated;
    ghosts += boxes.ghosts();
    const std::vector<GlobalPair> all = test::gatherAll<GlobalPair>(boxes.pairs());
    std::vector<MovingBall> owned = test::gatherAll<MovingBall>(boxes.owned());
    bool good = true;
    if (rank == 0) {
      // Every ball at exactly one rank, moved exactly as the reference's.
      std::sort(owned.begin(), owned.end(),
                [](const MovingBall& a, const MovingBall& b) { return a.id < b.id; });
      good = owned.size() == kN;
      for (std::uint32_t i = 0; good && i < kN; ++i) {
        good = owned[i].id == i && owned[i].x == reference.x[i] && owned[i].y == reference.y[i];
      }
      EXPECT_TRUE(good) << "balls lost, repeated or moved otherwise, frame " << frame;
      std::vector<GlobalPair> sorted = all;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
          << "a pair reported twice, frame " << frame;
      const auto expected = singleProcessPairs(reference, BroadPhaseType::BinGrid);
      EXPECT_TRUE(sorted == expected) << "frame " << frame << ": " << sorted.size()
                                      << " pairs reported, " << expected.size() << " expected";
      good = good && sorted == expected;
    }
    if (!test::rootSays(good)) break;
  }
  const std::uint64_t allMigrated = test::sumAll(migrated);
  if (ranks > 1) {
    EXPECT_GT(allMigrated, 0u) << "no ball crossed a border: the test tests nothing";
  } else {
    EXPECT_EQ(ghosts, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(ReferenceScenes, WorkloadAOverMpi,
                         ::testing::Values(scenes::SceneKind::Uniform, scenes::SceneKind::Clustered,
                                           scenes::SceneKind::Mixed),
                         [](const auto& p) { return std::string(scenes::toString(p.param)); });

TEST(DistributedBoxesInput, AnIdGivenTwiceIsRefusedOnEveryRank) {
  const int rank = test::mpiRank(), ranks = test::mpiRanks();
  mpi::DistributedBoxes boxes(MPI_COMM_WORLD, 0.0, 0.0, 100.0, 100.0);
  // Each rank gives id 7 (rank 0 alone: twice), at the other end of the world.
  std::vector<MovingBall> mine = {{7, 99.0 - rank, 50.0, 0.0, 0.0, 1.0}};
  if (ranks == 1) mine.push_back({7, 1.0, 50.0, 0.0, 0.0, 1.0});
  EXPECT_THROW(boxes.add(mine), Error);
  EXPECT_TRUE(boxes.owned().empty());
  const std::vector<MovingBall> bad = {
      {static_cast<mpi::GlobalId>(rank), 50.0, 50.0, 0.0, 0.0, rank == ranks - 1 ? -1.0 : 1.0}};
  EXPECT_THROW(boxes.add(bad), Error);
  EXPECT_TRUE(boxes.owned().empty());
}

}  // namespace
