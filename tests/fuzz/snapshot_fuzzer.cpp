// libFuzzer target: World::restore of the fuzzer's bytes, resealed first
// (support/snapshot_fuzz.hpp: the size field and the checksum recomputed,
// so that the mutations reach the validation), into a world that holds a
// body already. A refused buffer must leave that world bit-identical; an
// accepted one must be what the world then snapshots and must step with
// every value finite. Aborts on the first broken rule. Built by the `fuzz`
// preset (clang only); scripts/fuzz runs it from tests/fuzz/corpus/snapshot.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../support/snapshot_fuzz.hpp"

namespace fuzz = quadbin::test::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>(data[i]);
  fuzz::seal(bytes);
  quadbin::WorldDef def;
  def.threadCount = 1;
  def.logLevel = quadbin::LogLevel::Off;
  quadbin::World w(def);
  w.createBody(quadbin::BodyDef::ball({5, 5}, 2.0f, {1, 2}));
  const std::string failure = fuzz::checkRestore(w, bytes);
  if (!failure.empty()) {
    std::fprintf(stderr, "snapshot fuzzer: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
