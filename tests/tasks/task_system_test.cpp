// The task seam: the serial, oneTBB and test thread-pool systems run every
// index exactly once, nest, propagate exceptions; the deterministic helpers
// give the same answer on all of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <numeric>
#include <quadbin/error.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/task_system.hpp>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/thread_pool_task_system.hpp"

namespace {

using namespace quadbin;

struct NamedSystem {
  const char* name;
  std::shared_ptr<TaskSystem> system;
};

std::vector<NamedSystem> systems() {
  std::vector<NamedSystem> all;
  all.push_back({"serial", std::make_shared<SerialTaskSystem>()});
  all.push_back({"pool-3", std::make_shared<test::ThreadPoolTaskSystem>(3)});
#if !defined(__SANITIZE_THREAD__)
  // Uninstrumented TBB: its hand-offs look like races to TSan.
  all.push_back({"tbb-2", makeTbbTaskSystem(2)});
  all.push_back({"tbb-8", makeTbbTaskSystem(8)});
#endif
  return all;
}

TEST(TaskSystem, ParallelForCoversEveryIndexOnce) {
  for (auto& [name, ts] : systems()) {
    for (std::uint32_t count : {0u, 1u, 7u, 1000u, 100003u}) {
      for (std::uint32_t grain : {0u, 1u, 13u, 4096u}) {
        std::vector<std::atomic<int>> hits(count);
        ts->parallelFor(count, grain, [&](std::uint32_t begin, std::uint32_t end) {
          ASSERT_LT(begin, end);
          for (std::uint32_t i = begin; i < end; ++i) hits[i].fetch_add(1);
        });
        for (std::uint32_t i = 0; i < count; ++i) {
          ASSERT_EQ(hits[i].load(), 1) << name << " count " << count << " grain " << grain;
        }
      }
    }
  }
}

TEST(TaskSystem, ForkJoinNestsAndRunsEveryTaskOnce) {
  for (auto& [name, system] : systems()) {
    TaskSystem* ts = system.get();  // a plain pointer: lambdas capture no structured binding
    std::vector<std::atomic<int>> hits(std::size_t{64} * 100);
    ts->forkJoin(64, [&](std::uint32_t outer) {
      ts->parallelFor(100, 3, [&](std::uint32_t begin, std::uint32_t end) {
        for (std::uint32_t i = begin; i < end; ++i) hits[outer * 100 + i].fetch_add(1);
      });
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1) << name;
  }
}

TEST(TaskSystem, ExceptionsReachTheCaller) {
  for (auto& [name, ts] : systems()) {
    EXPECT_THROW(ts->parallelFor(1000, 10,
                                 [](std::uint32_t begin, std::uint32_t end) {
                                   if (begin <= 500 && 500 < end) throw std::runtime_error("boom");
                                 }),
                 std::runtime_error)
        << name;
    // Still usable afterwards.
    std::atomic<int> sum{0};
    ts->forkJoin(10, [&](std::uint32_t i) { sum += static_cast<int>(i); });
    EXPECT_EQ(sum.load(), 45) << name;
  }
}

TEST(TaskSystem, ThreadCounts) {
  EXPECT_EQ(makeTaskSystem(1)->threadCount(), 1u);
  EXPECT_EQ(serialTaskSystem().threadCount(), 1u);
  EXPECT_EQ(makeTaskSystem(0)->threadCount(), hardwareThreads());
  EXPECT_EQ(makeTbbTaskSystem(5)->threadCount(), 5u);
  EXPECT_THROW((void)makeTbbTaskSystem(5000), Error);
}

TEST(TaskSystem, SeveralCallersAtOnce) {
  // Two external threads sharing one system (two worlds on one scheduler).
  for (auto& [name, system] : systems()) {
    TaskSystem* ts = system.get();  // a plain pointer: lambdas capture no structured binding
    std::vector<std::uint64_t> sums(2, 0);
    std::vector<std::thread> callers;
    for (int c = 0; c < 2; ++c) {
      callers.emplace_back([&, c] {
        for (int rep = 0; rep < 20; ++rep) {
          std::vector<std::uint32_t> v(5000);
          ts->parallelFor(5000, 100, [&](std::uint32_t begin, std::uint32_t end) {
            for (std::uint32_t i = begin; i < end; ++i) v[i] = i;
          });
          sums[c] += std::accumulate(v.begin(), v.end(), std::uint64_t{0});
        }
      });
    }
    for (auto& t : callers) t.join();
    EXPECT_EQ(sums[0], 20ull * 4999 * 5000 / 2) << name;
    EXPECT_EQ(sums[1], sums[0]) << name;
  }
}

// n random keys of `bits` bits, radix-sorted on every task system, against
// std::sort.
void expectRadixSortMatchesStdSort(std::mt19937_64& rng, std::size_t n, unsigned bits) {
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = rng() & mask;
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  for (auto& [name, ts] : systems()) {
    auto sorted = keys;
    std::vector<std::uint64_t> scratch;
    std::vector<std::uint32_t> counts;
    parallelRadixSort(*ts, sorted, scratch, counts, bits);
    ASSERT_EQ(sorted, expected) << name << " n " << n << " bits " << bits;
  }
}

TEST(ParallelHelpers, RadixSortMatchesStdSort) {
  std::mt19937_64 rng(7);
  for (std::uint32_t n : {0u, 1u, 100u, 4097u, 40000u, 70000u, 300000u, 600000u}) {
    expectRadixSortMatchesStdSort(rng, n, 41);
  }
}

// Key widths that split into digits of different sizes (one pass of 1 bit,
// 3 of 12 for the contacts' 34, 6 of 11 for a full word).
TEST(ParallelHelpers, RadixSortAnyKeyWidth) {
  std::mt19937_64 rng(11);
  for (const unsigned bits : {1u, 11u, 12u, 13u, 24u, 25u, 34u, 37u, 63u, 64u}) {
    expectRadixSortMatchesStdSort(rng, 100000, bits);
  }
}

// Keys that leave their declared top bits unused (counted again on the bits
// that differ) or crowd into one top bucket (one long run), and keys all
// equal: still std::sort's order.
TEST(ParallelHelpers, RadixSortNarrowAndSkewedKeys) {
  std::mt19937_64 rng(17);
  for (const std::uint32_t n : {20000u, 300000u}) {
    std::vector<std::uint64_t> narrow(n), skewed(n), equal(n, 12345);
    for (auto& k : narrow) k = rng() & 0xFFFFF;  // 20 of 41 declared bits
    for (std::uint32_t i = 0; i < n; ++i) {
      // Nine in ten share the top 8 of 41 bits.
      const std::uint64_t top = i % 10 == 0 ? rng() & 0xFF : 0x80;
      skewed[i] = top << 33 | (rng() & ((std::uint64_t{1} << 33) - 1));
    }
    for (auto* keys : {&narrow, &skewed, &equal}) {
      auto expected = *keys;
      std::sort(expected.begin(), expected.end());
      for (auto& [name, ts] : systems()) {
        auto sorted = *keys;
        std::vector<std::uint64_t> scratch;
        std::vector<std::uint32_t> counts;
        parallelRadixSort(*ts, sorted, scratch, counts, 41);
        ASSERT_EQ(sorted, expected) << name << " n " << n;
      }
    }
  }
}

// The low bits ride along unsorted: keys of a few distinct high parts, each
// carrying a payload below that falls with the index, come out as
// std::stable_sort on the high part puts them (equal high parts in index
// order, so their payloads falling: a sort on the whole key would turn
// them round), on every task system.
TEST(ParallelHelpers, RadixSortLowBitsRideAlong) {
  std::mt19937_64 rng(13);
  for (const std::uint32_t n : {2u, 1000u, 40000u, 300000u}) {
    for (const unsigned highBits : {1u, 7u, 20u, 34u}) {
      const auto lowBits = static_cast<unsigned>(std::bit_width(n));
      std::vector<std::uint64_t> keys(n);
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t high = rng() & ((std::uint64_t{1} << highBits) - 1);
        keys[i] = high << lowBits | (n - 1 - i);
      }
      auto expected = keys;
      std::stable_sort(
          expected.begin(), expected.end(),
          [lowBits](std::uint64_t l, std::uint64_t r) { return (l >> lowBits) < (r >> lowBits); });
      for (auto& [name, ts] : systems()) {
        auto sorted = keys;
        std::vector<std::uint64_t> scratch;
        std::vector<std::uint32_t> counts;
        parallelRadixSort(*ts, sorted, scratch, counts, highBits + lowBits, lowBits);
        ASSERT_EQ(sorted, expected) << name << " n " << n << " high bits " << highBits;
      }
    }
  }
}

TEST(ParallelHelpers, OrderedBuffersConcatenateInChunkOrder) {
  for (auto& [name, ts] : systems()) {
    OrderedBuffers<std::uint32_t> buffers;
    std::vector<std::uint32_t> out{999};
    const std::uint32_t n = 100000;
    buffers.reset(chunkCount(n, 1000));
    forEachChunk(*ts, n, 1000, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t i = begin; i < end; ++i) {
        if (i % 3 == 0) buffers[c].push_back(i);
      }
    });
    buffers.appendTo(*ts, out);
    std::vector<std::uint32_t> expected{999};
    for (std::uint32_t i = 0; i < n; i += 3) expected.push_back(i);
    EXPECT_EQ(out, expected) << name;
  }
}

// Past the serial threshold the copy is cut by output range, across
// buffer boundaries: buffers of very different sizes, empty ones among
// them, appended after a prefix and assigned over a longer list.
TEST(ParallelHelpers, OrderedBuffersCopyUnevenBuffersInParallel) {
  for (auto& [name, ts] : systems()) {
    OrderedBuffers<std::uint32_t> buffers;
    const std::uint32_t chunks = 301;
    buffers.reset(chunks);
    std::vector<std::uint32_t> expected;
    std::uint32_t value = 0;
    for (std::uint32_t c = 0; c < chunks; ++c) {
      const std::uint32_t size = c % 7 == 0 ? 0 : (c * 7919u) % 6000u + (c % 50 == 1 ? 90000u : 0u);
      for (std::uint32_t k = 0; k < size; ++k) {
        buffers[c].push_back(value);
        expected.push_back(value++);
      }
    }
    ASSERT_GT(expected.size() * sizeof(std::uint32_t), std::size_t{1} << 20);
    std::vector<std::uint32_t> appended{7, 8, 9};
    buffers.appendTo(*ts, appended);
    std::vector<std::uint32_t> withPrefix{7, 8, 9};
    withPrefix.insert(withPrefix.end(), expected.begin(), expected.end());
    EXPECT_EQ(appended, withPrefix) << name;
    std::vector<std::uint32_t> assigned(expected.size() + 5000, 42);
    buffers.assignTo(*ts, assigned);
    EXPECT_EQ(assigned, expected) << name;
  }
}

}  // namespace
