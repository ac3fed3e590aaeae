// Writes the snapshot fuzzer's seed corpus (support/snapshot_fuzz.hpp's
// seedSnapshots: the reference scenes and a world with every feature) into
// the folder given, one file per snapshot:
//   build/dev/tests/snapshot_seeds tests/fuzz/corpus/snapshot
// The files are committed; rerun it when the snapshot format changes.
#include <cstdio>
#include <fstream>
#include <string>

#include "../support/snapshot_fuzz.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: snapshot_seeds DIR\n");
    return 2;
  }
  const auto seeds = quadbin::test::fuzz::seedSnapshots();
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    const std::string path = std::string(argv[1]) + "/seed-" + std::to_string(k + 1);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(seeds[k].data()),
              static_cast<std::streamsize>(seeds[k].size()));
    if (!out) {
      std::fprintf(stderr, "snapshot_seeds: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::printf("%zu seeds written to %s\n", seeds.size(), argv[1]);
  return 0;
}
