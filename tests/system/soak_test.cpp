// Soak: a long run of a large world with bodies destroyed and created in
// every step, whose memory must stay flat once warm. Label "soak": CI runs
// it in Release only (`scripts/test soak`; docs/testing.md).
//
// QUADBIN_SOAK_STEPS and QUADBIN_SOAK_BALLS set the size; the default is
// 10,000 steps of 20,000 balls in an optimised build (52 s on two shared
// cores under load, 25 s of CPU), 100 steps in Debug.
#include <gtest/gtest.h>

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <string>
#include <vector>

// Live heap bytes of operator new (the library's containers and ours):
// every global new and delete of this binary goes through these.
namespace {
std::atomic<long long> liveBytes{0};
void* allocate(std::size_t size, std::size_t align = 0) {
  void* p = align > alignof(std::max_align_t)
                ? std::aligned_alloc(align, (size + align - 1) / align * align)
                : std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  liveBytes.fetch_add(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}
void release(void* p) noexcept {
  if (p == nullptr) return;
  liveBytes.fetch_sub(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, std::align_val_t a) {
  return allocate(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return allocate(size, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }

namespace {

using namespace quadbin;

long envOr(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atol(v) : fallback;
}

// Resident memory of this process in KiB (Linux), or -1.
long residentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

#ifdef NDEBUG
constexpr long kDefaultSteps = 10000;
#else
constexpr long kDefaultSteps = 100;  // a Debug step is ten times slower
#endif

TEST(Soak, CreateAndDestroyEveryStepWithFlatMemory) {
  const long steps = envOr("QUADBIN_SOAK_STEPS", kDefaultSteps);
  const auto balls = static_cast<std::uint32_t>(envOr("QUADBIN_SOAK_BALLS", 20000));
  constexpr int kChurn = 20;  // bodies destroyed and created per step
  const scenes::Scene scene = scenes::generate(scenes::SceneKind::Uniform, balls);
  WorldDef def = scenes::worldDefFor(scenes::SceneKind::Uniform);
  def.logLevel = LogLevel::Off;
  def.threadCount = 0;
  World w = scenes::makeWorld(scene, def);
  const AABB bounds = w.def().bounds;
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const auto radius = static_cast<float>(scene.r[0]);

  const long warmUp = std::max(1L, std::min(1000L, steps / 10));
  long long liveWarm = 0, livePeak = 0;
  long rssWarm = 0, rssPeak = 0;
  const auto start = std::chrono::steady_clock::now();
  for (long s = 0; s < steps; ++s) {
    for (int k = 0; k < kChurn; ++k) {
      w.destroyBody(w.bodyAt(static_cast<std::uint32_t>(rng() % w.bodyCount())));
    }
    for (int k = 0; k < kChurn; ++k) {
      const Vec2 p{bounds.min.x + radius + unit(rng) * (bounds.extents().x - 2 * radius),
                   bounds.min.y + radius + unit(rng) * (bounds.extents().y - 2 * radius)};
      w.createBody(BodyDef::ball(p, radius, {unit(rng) * 20 - 10, unit(rng) * 20 - 10}));
    }
    w.step(1.0f / 60.0f);
    ASSERT_EQ(w.bodyCount(), balls);
    if (s + 1 == warmUp) {
      liveWarm = liveBytes.load();
      rssWarm = residentKiB();
    } else if (s + 1 > warmUp) {
      livePeak = std::max(livePeak, liveBytes.load());
      rssPeak = std::max(rssPeak, residentKiB());
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("soak: %ld steps of %u balls (%d destroyed and created per step) in %.1f s\n", steps,
              balls, kChurn, seconds);
  std::printf("soak: live heap %.1f MiB after %ld warm-up steps, peak %.1f MiB after\n",
              static_cast<double>(liveWarm) / 1048576.0, warmUp,
              static_cast<double>(livePeak) / 1048576.0);
  std::printf("soak: RSS %.1f MiB after warm-up, peak %.1f MiB after\n",
              static_cast<double>(rssWarm) / 1024.0, static_cast<double>(rssPeak) / 1024.0);
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const Vec2 p = w.position(w.bodyAt(i));
    ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
  }
  if (steps <= warmUp) return;
  // Flat: the heap may still grow by what a slightly busier step needs
  // (the largest contact count so far sets the buffers), 2% at most; RSS
  // likewise (it also holds freed pages the allocator keeps).
  EXPECT_LE(livePeak, liveWarm + liveWarm / 50 + (256 << 10));
  EXPECT_LE(rssPeak, rssWarm + rssWarm / 20 + 4096);
}

}  // namespace
