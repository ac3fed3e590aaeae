// DistributedWorld::checkpoint and restore under mpirun: on another number
// of ranks (each rank alone, MPI_COMM_SELF) every body comes back with its
// state; on the same ranks the steps go on bit for bit; a missing or
// damaged checkpoint is refused on every rank with the world unchanged.
// (A run aborted mid-checkpoint: checkpoint_run.cpp.)
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <quadbin/mpi/distributed_world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

#include "mpi_scenes.hpp"
#include "mpi_support.hpp"

using namespace quadbin;
using quadbin::mpi::DistributedWorld;
using quadbin::mpi::GatheredBody;

namespace {

constexpr std::uint32_t kN = 2000;
constexpr float kDt = 1.0f / 60.0f;

mpi::DistributedDef definition() { return test::distributedDef(scenes::SceneKind::Mixed, kN); }

std::vector<BodyDef> bodies() {
  std::vector<BodyDef> defs = test::ballDefs(scenes::SceneKind::Mixed, kN);
  const scenes::Scene s = scenes::generate(scenes::SceneKind::Mixed, kN);
  // An obstacle every rank holds.
  const Vec2 mid = (s.world.min + s.world.max) * 0.5f;
  defs.push_back(BodyDef::staticBox(AABB{mid, mid + Vec2{4.0f, 2.0f}}));
  return defs;
}

// A folder every rank sees, named the same on all.
std::string folder(const char* name) {
  std::string dir =
      (std::filesystem::temp_directory_path() / ("quadbin_mpi_" + std::string(name))).string();
  if (test::mpiRank() == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

bool sameBits(const std::vector<GatheredBody>& a, const std::vector<GatheredBody>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || !test::sameBits(a[i].position, b[i].position) ||
        !test::sameBits(a[i].velocity, b[i].velocity)) {
      return false;
    }
  }
  return true;
}

TEST(Checkpoint, SameRanksGoOnBitForBitOtherRanksGetEveryBody) {
  const std::string dir = folder("same_and_other");
  DistributedWorld world(MPI_COMM_WORLD, definition());
  (void)world.createBodies(test::mpiRank() == 0 ? bodies() : std::vector<BodyDef>{});
  for (int step = 0; step < 40; ++step) world.step(kDt);
  world.checkpoint(dir);
  std::vector<GatheredBody> atCheckpoint, later, resumed;
  world.gather(atCheckpoint);
  for (int step = 0; step < 40; ++step) world.step(kDt);
  world.gather(later);

  // The same ranks: back to the checkpoint, then the same 40 steps.
  world.restore(dir);
  EXPECT_EQ(world.bodyCount(), kN + 1);
  for (int step = 0; step < 40; ++step) world.step(kDt);
  world.gather(resumed);
  if (test::mpiRank() == 0) {
    EXPECT_EQ(resumed.size(), kN + 1);
    EXPECT_TRUE(sameBits(resumed, later)) << "the resumed steps differ";
  }

  // Each rank alone (another number of ranks, unless there is one): every
  // body as the checkpoint left it.
  const std::vector<GatheredBody> expected = test::broadcastFromRoot(atCheckpoint);
  DistributedWorld alone(MPI_COMM_SELF, definition());
  alone.restore(dir);
  std::vector<GatheredBody> got;
  alone.gather(got);
  EXPECT_EQ(alone.bodyCount(), kN + 1);
  EXPECT_TRUE(sameBits(got, expected));
  alone.step(kDt);  // and it steps
}

TEST(Checkpoint, AMissingOrDamagedOneIsRefusedWithTheWorldUnchanged) {
  const std::string dir = folder("damaged");
  DistributedWorld world(MPI_COMM_WORLD, definition());
  (void)world.createBodies(test::mpiRank() == 0 ? bodies() : std::vector<BodyDef>{});
  EXPECT_THROW(world.restore(dir), Error);  // nothing written yet
  world.checkpoint(dir);
  world.step(kDt);
  std::vector<GatheredBody> before, after;
  world.gather(before);
  if (test::mpiRank() == 0) {
    std::string name;
    std::ifstream(std::filesystem::path(dir) / "current") >> name;
    std::fstream f(std::filesystem::path(dir) / name / "rank-0.bin",
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x5a');
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_THROW(world.restore(dir), Error);
  world.gather(after);
  if (test::mpiRank() == 0) {
    EXPECT_TRUE(sameBits(before, after));
  }
  // Another world's settings.
  mpi::DistributedDef other = definition();
  other.world.restitution = 0.5f;
  DistributedWorld stranger(MPI_COMM_WORLD, other);
  world.checkpoint(dir);
  EXPECT_THROW(stranger.restore(dir), Error);
}

}  // namespace
