// libFuzzer target: the World API fuzzer of support/world_fuzz.hpp with its
// choices read from the fuzzer's bytes. Aborts on the first broken
// invariant. Built by the `fuzz` preset (clang only); scripts/fuzz runs it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../support/world_fuzz.hpp"

namespace fuzz = quadbin::test::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Source src(data, size);
  const std::string failure = fuzz::runWorld(src, 64, 48);
  if (!failure.empty()) {
    std::fprintf(stderr, "world fuzzer: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
