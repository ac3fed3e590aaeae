// libFuzzer target: quadbin-perf's scene-file reader on arbitrary bytes
// (support/scene_file_fuzz.hpp). The first byte picks the placement rule,
// the rest is the file. Built by the `fuzz` preset; scripts/fuzz runs it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "../support/scene_file_fuzz.hpp"

namespace fuzz = quadbin::test::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto placement = (data[0] & 1u) != 0 ? quadbin::scenes::Placement::Anywhere
                                             : quadbin::scenes::Placement::InsideWorld;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string failure = fuzz::checkSceneBytes(bytes, placement);
  if (!failure.empty()) {
    std::fprintf(stderr, "scene-file fuzzer: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
