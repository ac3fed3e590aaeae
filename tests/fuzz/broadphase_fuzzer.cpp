// libFuzzer target: the differential fuzzer of support/broadphase_fuzz.hpp
// with its choices read from the fuzzer's bytes. The first byte picks the
// structure (every type and option set of fuzz::variants()), the second
// the task system; the rest is the program. Aborts on the first answer that
// differs from brute force. Built by the `fuzz` preset (clang only):
//
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build/fuzz/tests/broadphase_fuzzer -max_total_time=600
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <quadbin/tasks/task_system.hpp>

#include "../support/broadphase_fuzz.hpp"

namespace fuzz = quadbin::test::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto variants = fuzz::variants();
  static const auto tbb = quadbin::makeTbbTaskSystem(2);
  if (size < 2) return 0;
  const fuzz::Variant& v = variants[data[0] % variants.size()];
  auto bp = v.make();
  if (data[1] & 1u) bp->setTaskSystem(tbb);
  fuzz::Source src(data + 2, size - 2);
  const fuzz::Outcome o = fuzz::run(src, *bp, 64, 48);
  if (!o.failure.empty()) {
    std::fprintf(stderr, "%s%s: %s\n", v.name.c_str(), (data[1] & 1u) ? " on oneTBB" : "",
                 o.failure.c_str());
    std::abort();
  }
  return 0;
}
