// The World API fuzzer (support/world_fuzz.hpp) on seeded programs and the
// scene-file reader (support/scene_file_fuzz.hpp) on the issue's cases,
// and the snapshot fuzzer's contract (support/snapshot_fuzz.hpp) on its
// seeds and their mutations, plus the libFuzzer targets' committed seed
// corpora (tests/fuzz/corpus/)
// replayed as they stand (each World program runs on 1 and on 3 threads and
// must end in the same snapshot bytes). Set QUADBIN_FUZZ_SECONDS to run the
// seeded world programs longer (a failure prints its seed).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/quiet_log.hpp"
#include "support/scene_file_fuzz.hpp"
#include "support/snapshot_fuzz.hpp"
#include "support/world_fuzz.hpp"

using namespace quadbin;
namespace fuzz = quadbin::test::fuzz;

namespace {

std::vector<std::string> corpus(const char* target) {
  std::vector<std::string> out;
  const std::filesystem::path dir = std::filesystem::path(QUADBIN_FUZZ_CORPUS) / target;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

double budgetSeconds() {
  const char* env = std::getenv("QUADBIN_FUZZ_SECONDS");
  return env != nullptr ? std::atof(env) : 0.0;
}

using WorldFuzz = test::QuietLog;
using SceneFileFuzz = test::QuietLog;
using SnapshotFuzz = test::QuietLog;

}  // namespace

TEST_F(WorldFuzz, SeededProgramsKeepTheInvariants) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (std::uint64_t seed = 1; seed <= 60 || elapsed() < budgetSeconds(); ++seed) {
    fuzz::Source src(seed);
    const std::string failure = fuzz::runWorld(src, 64, 48);
    ASSERT_EQ(failure, "") << "seed " << seed;
  }
}

TEST_F(WorldFuzz, TheSeedCorpusKeepsTheInvariants) {
  const auto inputs = corpus("world");
  ASSERT_FALSE(inputs.empty());
  for (const std::string& bytes : inputs) {
    fuzz::Source src(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    EXPECT_EQ(fuzz::runWorld(src, 64, 48), "");
  }
}

// The cases issue 12 listed, and the seed corpus (first byte: placement).
TEST_F(SceneFileFuzz, TheIssuesCasesAndTheSeedCorpusFollowTheContract) {
  const std::string header = "# world 0 0 100 100\nx,y,vx,vy,radius\n";
  const std::vector<std::string> cases = {
      header + "50,50,0,0,1e-310\n",
      "# world 0 0 100 100 junk\nx,y,vx,vy,radius\n",
      header + "150,50,0,0,1\n",
      header + "50,50,0,0,500\n",
      "# world 0 0 1e-50 1e-50\nx,y,vx,vy,radius\n",
      header + "50,50,0,0," + std::string(1000000, '1') + "\n",
      header + "50 ,50,0,0,1 \n",
      header + "50,50,0,0\n",
      "",
      "\n\n\n",
  };
  for (const std::string& c : cases) {
    for (const auto placement : {scenes::Placement::InsideWorld, scenes::Placement::Anywhere}) {
      EXPECT_EQ(fuzz::checkSceneBytes(c, placement), "") << c.substr(0, 80);
    }
  }
  const auto inputs = corpus("scene_file");
  ASSERT_FALSE(inputs.empty());
  for (const std::string& bytes : inputs) {
    if (bytes.empty()) continue;
    const auto placement = (static_cast<unsigned char>(bytes[0]) & 1u) != 0
                               ? scenes::Placement::Anywhere
                               : scenes::Placement::InsideWorld;
    EXPECT_EQ(fuzz::checkSceneBytes(std::string_view(bytes).substr(1), placement), "")
        << bytes.substr(0, 80);
  }
}

// The snapshot fuzzer's committed seeds are accepted as they stand and are
// what the seed writer makes now (rerun build/dev/tests/snapshot_seeds
// tests/fuzz/corpus/snapshot when the format changes); each seed mutated
// and resealed is refused with the world unchanged, or is a healthy world.
TEST_F(SnapshotFuzz, TheSeedCorpusAndItsMutationsFollowTheContract) {
  const auto inputs = corpus("snapshot");
  const auto seeds = fuzz::seedSnapshots();
  ASSERT_GE(inputs.size(), seeds.size());
  WorldDef def;
  def.threadCount = 1;
  World w(def);
  fuzz::Source src(3);
  auto bytesOf = [](const std::string& text) {
    fuzz::Bytes b(text.size());
    if (!b.empty()) std::memcpy(b.data(), text.data(), b.size());
    return b;
  };
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    const bool found = std::any_of(inputs.begin(), inputs.end(),
                                   [&](const std::string& in) { return bytesOf(in) == seeds[k]; });
    EXPECT_TRUE(found) << "seed " << k + 1 << " is not in the corpus as the writer makes it now";
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    fuzz::Bytes b = bytesOf(inputs[k]);
    fuzz::seal(b);  // as the fuzz target does
    EXPECT_EQ(fuzz::checkRestore(w, b), "") << "corpus file " << k;
    for (int m = 0; m < 300; ++m) {
      fuzz::Bytes bad = b;
      fuzz::mutate(src, bad);
      fuzz::seal(bad);
      ASSERT_EQ(fuzz::checkRestore(w, bad), "") << "corpus file " << k << ", mutation " << m;
    }
  }
}
