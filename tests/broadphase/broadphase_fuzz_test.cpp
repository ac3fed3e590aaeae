// The differential fuzzer (support/broadphase_fuzz.hpp) on every broad phase
// and a few option sets, serially and on oneTBB: seeded programs of adds,
// removes, moves, box and ray queries with boxes from every scale of float,
// each answer checked against brute force, memory against its bound, and
// the pairs' order on oneTBB against the serial run.
//
// CI runs a fixed set of seeds (a few seconds in all). Set
// QUADBIN_FUZZ_SECONDS to fuzz longer: each variant then keeps drawing new
// seeds for its share of that time, and a failure prints its seed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <quadbin/broadphase.hpp>
#include <quadbin/tasks/task_system.hpp>

#include "support/broadphase_fuzz.hpp"

using namespace quadbin;
namespace fuzz = quadbin::test::fuzz;

namespace {

constexpr std::uint32_t kSteps = 40;
constexpr std::uint32_t kMaxBoxes = 40;
constexpr std::uint64_t kSeeds = 12;  // per variant, in CI

double budgetSeconds() {
  const char* env = std::getenv("QUADBIN_FUZZ_SECONDS");
  return env != nullptr ? std::atof(env) : 0.0;
}

class Fuzz : public testing::TestWithParam<fuzz::Variant> {};

std::string name(const testing::TestParamInfo<fuzz::Variant>& info) {
  std::string s = info.param.name;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

}  // namespace

TEST_P(Fuzz, MatchesBruteForceSeriallyAndOnTbb) {
  const fuzz::Variant& v = GetParam();
  const auto tbb = makeTbbTaskSystem(2);
  const double budget = budgetSeconds() / static_cast<double>(fuzz::variants().size());
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::size_t worstMemory = 0;
  for (std::uint64_t seed = 1; seed <= kSeeds || elapsed() < budget; ++seed) {
    fuzz::Outcome outcomes[2];
    for (int t = 0; t < 2; ++t) {
      fuzz::Source src(seed);
      auto bp = v.make();
      if (t == 1) bp->setTaskSystem(tbb);
      outcomes[t] = fuzz::run(src, *bp, kSteps, kMaxBoxes);
      ASSERT_TRUE(outcomes[t].failure.empty()) << v.name << (t == 1 ? " on oneTBB" : " serially")
                                               << ", seed " << seed << ": " << outcomes[t].failure;
      worstMemory = std::max(worstMemory, outcomes[t].largestMemory);
    }
    ASSERT_EQ(outcomes[0].pairHash, outcomes[1].pairHash)
        << v.name << ", seed " << seed << ": pairs in another order on oneTBB";
  }
  RecordProperty("worst_bytes_per_box", static_cast<int>(worstMemory));
}

INSTANTIATE_TEST_SUITE_P(BroadPhases, Fuzz, testing::ValuesIn(fuzz::variants()), name);

TEST_P(Fuzz, RefusesNonFiniteAndInvertedInputUnchanged) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  auto bp = GetParam().make();
  const std::vector<AABB> good = {{{0, 0}, {2, 2}}, {{1, 1}, {3, 3}}, {{10, 10}, {11, 11}}};
  bp->update(good);
  std::vector<Pair> before;
  bp->findPairs(before);
  ASSERT_EQ(before.size(), 1u);
  const AABB bad[] = {{{kNaN, 0}, {1, 1}}, {{0, 0}, {1, kNaN}},       {{-kInf, 0}, {1, 1}},
                      {{0, 0}, {kInf, 1}}, {{0, kInf}, {kInf, kInf}}, {{2, 0}, {1, 1}},
                      {{0, 1}, {1, 0.5f}}};
  for (const AABB& b : bad) {
    std::vector<AABB> boxes = good;
    boxes.push_back(b);
    EXPECT_THROW(bp->update(boxes), Error) << fuzz::detail::text(b);
    std::vector<Pair> after;
    bp->findPairs(after);
    EXPECT_EQ(after, before) << "changed by a refused update";
    EXPECT_EQ(bp->size(), good.size());
  }
  // Queries: NaN or inverted refused; infinite sides mean "everything that way".
  std::vector<std::uint32_t> out;
  EXPECT_THROW(bp->query({{kNaN, 0}, {1, 1}}, out), Error);
  EXPECT_THROW(bp->query({{2, 0}, {1, 1}}, out), Error);
  EXPECT_THROW(bp->queryRay(Ray{{0, kNaN}, {1, 0}, 1}, out), Error);
  EXPECT_THROW(bp->queryRay(Ray{{0, 0}, {kInf, 0}, 1}, out), Error);
  EXPECT_THROW(bp->queryRay(Ray{{0, 0}, {1, 0}, kInf}, out), Error);
  out.clear();
  bp->query({{-kInf, -kInf}, {kInf, 1.5f}}, out);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (std::vector<std::uint32_t>{0, 1}));
}
