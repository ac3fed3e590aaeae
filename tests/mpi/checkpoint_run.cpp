// A run cut short and resumed (ctest mpi_checkpoint_abort): `crash DIR`
// steps the clustered scene, checkpoints at step 50, steps to 70 and starts
// a second checkpoint that the last rank never joins: it aborts the whole
// job (MPI_Abort) instead. `resume DIR` restores the last complete
// checkpoint, steps to 100 and compares every body, bit for bit, with an
// uninterrupted run of 100 steps on as many ranks. Exit 0: the same.
#include <mpi.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <quadbin/mpi/distributed_world.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

#include "mpi_scenes.hpp"
#include "mpi_support.hpp"

using namespace quadbin;

namespace {

constexpr std::uint32_t kN = 3000;
constexpr float kDt = 1.0f / 60.0f;

mpi::DistributedDef definition() { return test::distributedDef(scenes::SceneKind::Clustered, kN); }

void create(mpi::DistributedWorld& world) {
  (void)world.createBodies(world.rank() == 0 ? test::ballDefs(scenes::SceneKind::Clustered, kN)
                                             : std::vector<BodyDef>{});
}

bool same(const std::vector<mpi::GatheredBody>& a, const std::vector<mpi::GatheredBody>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || !test::sameBits(a[i].position, b[i].position) ||
        !test::sameBits(a[i].velocity, b[i].velocity)) {
      std::fprintf(stderr, "body %zu differs\n", i);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: checkpoint_run crash|resume DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string mode = argv[1], dir = argv[2];
  int result = 0;
  {
    mpi::DistributedWorld world(MPI_COMM_WORLD, definition());
    if (mode == "crash") {
      create(world);
      for (int step = 0; step < 70; ++step) {
        if (step == 50) world.checkpoint(dir);
        world.step(kDt);
      }
      if (world.rank() == world.ranks() - 1) MPI_Abort(MPI_COMM_WORLD, 3);
      world.checkpoint(dir);  // never completes: the last rank is gone
      result = 4;             // not reached
    } else {
      world.restore(dir);
      for (int step = 50; step < 100; ++step) world.step(kDt);
      std::vector<mpi::GatheredBody> resumed, straight;
      world.gather(resumed);
      mpi::DistributedWorld again(MPI_COMM_WORLD, definition());
      create(again);
      for (int step = 0; step < 100; ++step) again.step(kDt);
      again.gather(straight);
      if (world.rank() == 0) {
        result = resumed.size() == kN && same(resumed, straight) ? 0 : 1;
        std::printf("checkpoint_run: resumed run %s the uninterrupted one (%zu bodies)\n",
                    result == 0 ? "equals" : "DIFFERS from", resumed.size());
      }
      MPI_Bcast(&result, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return result;
}
