// What may and may not be called while a world steps, queries from many
// threads between steps, and worlds sharing one task system.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <random>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/thread_pool_task_system.hpp"

namespace {

using namespace quadbin;

// Runs everything inline and, the first time the world hands it work,
// calls `during` (from inside the step, as another thread could).
class Spy final : public TaskSystem {
 public:
  std::function<void()> during;
  [[nodiscard]] std::uint32_t threadCount() const noexcept override { return 1; }

 protected:
  void runParallelFor(std::uint32_t count, std::uint32_t,
                      FunctionRef<void(std::uint32_t, std::uint32_t)> body) override {
    poke();
    body(0, count);
  }
  void runForkJoin(std::uint32_t count, FunctionRef<void(std::uint32_t)> task) override {
    poke();
    for (std::uint32_t i = 0; i < count; ++i) task(i);
  }

 private:
  void poke() {
    if (!during) return;
    auto f = std::move(during);
    during = nullptr;
    f();
  }
};

WorldDef quietDef() {
  WorldDef def;
  def.logLevel = LogLevel::Off;
  def.bounds = {{0, 0}, {200, 200}};
  return def;
}

void addBalls(World& w, int count) {
  for (int i = 0; i < count; ++i) {
    const float x = 5.0f + static_cast<float>(i % 60) * 3.0f;
    const float y = 5.0f + static_cast<float>(i / 60) * 3.0f;
    w.createBody(BodyDef::ball({x, y}, 1.0f, {static_cast<float>(i % 7) - 3.0f, 2.0f}));
  }
}

TEST(WorldThreads, CallsDuringAStepAreRefused) {
  auto spy = std::make_shared<Spy>();
  WorldDef def = quietDef();
  def.taskSystem = spy;
  def.broadPhase = BroadPhaseType::BinGrid;  // a parallel structure: the step hands out work
  // Enough balls that the step splits its work (the body passes' chunks
  // hold 16,384 bodies), whatever the structures' own chunk sizes.
  def.bounds = {{0, 0}, {1000, 1000}};
  World w(def);
  for (int i = 0; i < 30000; ++i) {
    const float x = 5.0f + static_cast<float>(i % 300) * 3.0f;
    const float y = 5.0f + static_cast<float>(i / 300) * 3.0f;
    w.createBody(BodyDef::ball({x, y}, 1.0f, {static_cast<float>(i % 7) - 3.0f, 2.0f}));
  }
  const BodyId ball = w.bodyAt(0);
  const std::vector<std::byte> saved = w.snapshot();
  int refused = 0, calls = 0;
  auto expectRefused = [&](auto&& call) {
    ++calls;
    try {
      call();
    } catch (const Error& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("World::step"), std::string::npos) << e.what();
    }
  };
  bool ran = false;
  spy->during = [&] {
    ran = true;
    EXPECT_TRUE(w.isStepping());
    std::vector<BodyId> ids;
    std::vector<RayHit> hits;
    expectRefused([&] { w.step(0.01f); });
    expectRefused([&] { (void)w.createBody(BodyDef::ball({100, 100}, 1)); });
    expectRefused([&] { w.destroyBody(ball); });
    expectRefused([&] { w.setPosition(ball, {50, 50}); });
    expectRefused([&] { w.setVelocity(ball, {1, 1}); });
    expectRefused([&] { (void)w.position(ball); });
    expectRefused([&] { (void)w.bodyAt(0); });
    expectRefused([&] { w.queryBox({{0, 0}, {10, 10}}, ids); });
    expectRefused([&] { w.queryRadius({5, 5}, 3, ids); });
    expectRefused([&] { w.raycastAll(Ray{{0, 0}, {1, 1}, 100}, hits); });
    expectRefused([&] { w.nearest({5, 5}, 3, ids); });
    expectRefused([&] { w.setBroadPhase(BroadPhaseType::Quadtree); });
    expectRefused([&] { w.setThreadCount(2); });
    expectRefused([&] { (void)w.isAwake(ball); });
    expectRefused([&] { w.setAwake(ball, true); });
    expectRefused([&] { (void)w.createBodies(std::vector{BodyDef::ball({100, 100}, 1)}); });
    expectRefused([&] { (void)w.positions(); });
    expectRefused([&] { (void)w.velocities(); });
    expectRefused([&] { (void)w.radii(); });
    expectRefused([&] { (void)w.snapshot(); });
    expectRefused([&] { w.restore(saved); });
  };
  const std::uint32_t before = w.bodyCount();
  w.step(1.0f / 60.0f);
  EXPECT_TRUE(ran);
  EXPECT_EQ(refused, calls);
  EXPECT_FALSE(w.isStepping());
  EXPECT_EQ(w.bodyCount(), before);
  // And everything works again after the step.
  EXPECT_NO_THROW((void)w.position(ball));
  EXPECT_NO_THROW(w.step(1.0f / 60.0f));
}

// Two threads stepping one world: each call either steps or is refused
// with an Error, never both at once (the guard has no window).
TEST(WorldThreads, TwoThreadsSteppingOneWorld) {
  WorldDef def = quietDef();
  def.threadCount = 1;
  World w(def);
  addBalls(w, 3);
  std::atomic<int> stepped{0}, refused{0}, calls{0};
  // One second at most (a stress test with a bound), 200,000 calls each.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  auto stepper = [&] {
    for (int i = 0; i < 200000 && std::chrono::steady_clock::now() < end; ++i) {
      calls.fetch_add(1, std::memory_order_relaxed);
      try {
        w.step(1.0f / 600.0f);
        stepped.fetch_add(1, std::memory_order_relaxed);
      } catch (const Error&) {
        refused.fetch_add(1, std::memory_order_relaxed);
      }
    }
  };
  std::thread a(stepper), b(stepper);
  a.join();
  b.join();
  EXPECT_EQ(stepped.load() + refused.load(), calls.load());
  EXPECT_GT(stepped.load(), 0);
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const Vec2 p = w.position(w.bodyAt(i));
    EXPECT_TRUE(std::isfinite(p.x) && std::isfinite(p.y));
  }
  EXPECT_NO_THROW(w.step(1.0f / 60.0f));
}

// Several threads step, change and read one world at once, for a bounded
// time: each call either runs alone (a change, a step) or beside other
// reads, or is refused with Error for that reason; the claim is one
// compare-and-swap, so no call slips through between a check and a claim.
// Afterwards the world holds exactly the bodies the successful calls made,
// and every one of them is finite. (TSan runs this: label "parallel".)
TEST(WorldThreads, StepsChangesAndReadsFromManyThreads) {
  WorldDef def = quietDef();
  def.taskSystem = test::makeTestTaskSystem(2);
  def.broadPhase = BroadPhaseType::BinGrid;
  def.gravity = {0, -10};
  World w(def);
  addBalls(w, 300);
  const std::uint32_t start = w.bodyCount();
  constexpr int kThreads = 4;
  struct Tally {
    int done = 0, refused = 0, steps = 0, created = 0, destroyed = 0;
    std::vector<BodyId> mine, gone;
    std::string wrong;  // an Error that is not a refusal for being busy
  };
  std::vector<Tally> tally(kThreads);
  std::atomic<bool> stop{false};
  auto worker = [&](int t) {
    std::mt19937 rng(static_cast<unsigned>(t) + 1);
    std::uniform_real_distribution<float> at(10.0f, 190.0f), speed(-20.0f, 20.0f);
    Tally& me = tally[static_cast<std::size_t>(t)];
    std::vector<BodyId> found;
    while (!stop.load(std::memory_order_relaxed)) {
      const auto pick = [&] { return me.mine[rng() % me.mine.size()]; };
      try {
        switch (rng() % 9) {
          case 0:
            w.step(1.0f / 120.0f);
            ++me.steps;
            break;
          case 1:
            me.mine.push_back(w.createBody(BodyDef::ball({at(rng), at(rng)}, 1.0f)));
            ++me.created;
            break;
          case 2:
            if (!me.mine.empty()) {
              w.destroyBody(me.mine.back());
              me.gone.push_back(me.mine.back());
              me.mine.pop_back();
              ++me.destroyed;
            }
            break;
          case 3:
            if (!me.mine.empty()) w.setVelocity(pick(), {speed(rng), speed(rng)});
            break;
          case 4:
            if (!me.mine.empty()) w.setPosition(pick(), {at(rng), at(rng)});
            break;
          case 5:
            w.setBroadPhase(rng() % 2 == 0 ? BroadPhaseType::BinGrid : BroadPhaseType::Quadtree);
            break;
          case 6:
            w.queryBox({{at(rng), at(rng)}, {195, 195}}, found);
            break;
          case 7:
            if (!me.mine.empty()) {
              const Vec2 p = w.position(pick());
              if (!std::isfinite(p.x)) me.wrong = "a position that is not finite";
            }
            break;
          default:
            if (!me.mine.empty()) w.setAwake(pick(), true);
            break;
        }
        ++me.done;
      } catch (const Error& e) {
        ++me.refused;
        if (std::string(e.what()).find("called while") == std::string::npos) me.wrong = e.what();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop.store(true, std::memory_order_relaxed);
  for (auto& t : threads) t.join();

  std::uint32_t expected = start;
  int steps = 0, refused = 0, done = 0;
  for (const Tally& me : tally) {
    EXPECT_EQ(me.wrong, "");
    expected += static_cast<std::uint32_t>(me.created - me.destroyed);
    steps += me.steps;
    refused += me.refused;
    done += me.done;
    for (const BodyId id : me.mine) EXPECT_TRUE(w.isValid(id));
    for (const BodyId id : me.gone) EXPECT_FALSE(w.isValid(id));
  }
  EXPECT_EQ(w.bodyCount(), expected);
  EXPECT_GT(steps, 0);
  EXPECT_GT(done, steps);
  std::printf("%d calls ran (%d steps), %d refused\n", done, steps, refused);
  for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
    const BodyId id = w.bodyAt(i);
    const Vec2 p = w.position(id), v = w.velocity(id);
    ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(v.x) &&
                std::isfinite(v.y));
  }
  EXPECT_NO_THROW(w.step(1.0f / 60.0f));
}

TEST(WorldThreads, QueriesFromManyThreadsBetweenSteps) {
  WorldDef def = quietDef();
  def.taskSystem = test::makeTestTaskSystem(2);
  World w(def);
  addBalls(w, 2000);
  for (int s = 0; s < 3; ++s) w.step(1.0f / 60.0f);
  // Expected answers, asked serially (after which the index is fresh).
  std::vector<std::vector<BodyId>> expected(16);
  for (int q = 0; q < 16; ++q) {
    const float x = static_cast<float>(q) * 11.0f;
    w.queryBox({{x, x}, {x + 20, x + 15}}, expected[q]);
  }
  for (int round = 0; round < 3; ++round) {
    w.step(1.0f / 60.0f);  // the query index is stale again: the first query refreshes it
    std::vector<std::vector<BodyId>> serial(16);
    for (int q = 0; q < 16; ++q) {
      const float x = static_cast<float>(q) * 11.0f;
      std::vector<BodyId> ids;
      w.queryBox({{x, x}, {x + 20, x + 15}}, ids);
      serial[q] = ids;
    }
    w.step(1.0f / 60.0f);
    std::vector<std::vector<BodyId>> again(16);
    {
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
          for (int q = t; q < 16; q += 4) {
            const float x = static_cast<float>(q) * 11.0f;
            w.queryBox({{x, x}, {x + 20, x + 15}}, again[q]);
            std::vector<RayHit> hits;
            w.raycastAll(Ray{{x, 0}, {0, 1}, 200}, hits);
          }
        });
      }
      for (auto& t : threads) t.join();
    }
    for (int q = 0; q < 16; ++q) {
      const float x = static_cast<float>(q) * 11.0f;
      std::vector<BodyId> ids;
      w.queryBox({{x, x}, {x + 20, x + 15}}, ids);
      EXPECT_EQ(again[q], ids) << "query " << q;
    }
  }
}

TEST(WorldThreads, WorldsShareOneTaskSystem) {
  auto shared = test::makeTestTaskSystem(3);
  const auto scene = scenes::generate(scenes::SceneKind::Uniform, 3000);
  auto finalBits = [&](std::shared_ptr<TaskSystem> tasks) {
    WorldDef def;
    def.logLevel = LogLevel::Off;
    def.taskSystem = std::move(tasks);
    World w = scenes::makeWorld(scene, def);
    for (int s = 0; s < 30; ++s) w.step(1.0f / 60.0f);
    std::vector<std::uint32_t> bits;
    for (std::uint32_t i = 0; i < w.bodyCount(); ++i) {
      const Vec2 p = w.position(w.bodyAt(i));
      bits.push_back(std::bit_cast<std::uint32_t>(p.x));
      bits.push_back(std::bit_cast<std::uint32_t>(p.y));
    }
    return bits;
  };
  const auto reference = finalBits(std::make_shared<SerialTaskSystem>());
  std::vector<std::uint32_t> a, b;
  std::thread ta([&] { a = finalBits(shared); });
  std::thread tb([&] { b = finalBits(shared); });
  ta.join();
  tb.join();
  EXPECT_EQ(a, reference);
  EXPECT_EQ(b, reference);
}

// Begin and end events in a crowd of more touching pairs than one chunk of
// the events stage's parallel diff (16,384): every end event names a pair
// that began and has not ended, every begin one that has not begun (nor
// ended in the same step: it touched all along), each
// step's events are in pair order, the pairs begun and not ended are as
// many as the step's touching pairs, and the events are the same with a
// serial task system and a pool of 3 threads (some bodies destroyed on
// the way: their ends come in order too).
TEST(WorldThreads, CrowdEventsFollowTheTouchingPairs) {
  using Pair = std::pair<std::uint64_t, std::uint64_t>;
  auto key = [](BodyId id) { return (std::uint64_t{id.index} << 32) | id.generation; };
  auto run = [&](std::shared_ptr<TaskSystem> tasks) {
    WorldDef def = quietDef();
    def.bounds = {{0, 0}, {300, 300}};
    def.taskSystem = std::move(tasks);
    World w(def);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> v(-20.0f, 20.0f);
    std::vector<BodyId> ids;
    for (int row = 0; row < 140; ++row) {
      for (int col = 0; col < 140; ++col) {
        const Vec2 p{2.0f + 1.98f * static_cast<float>(col),
                     2.0f + 1.98f * static_cast<float>(row)};
        ids.push_back(w.createBody(BodyDef::ball(p, 1.0f, {v(rng), v(rng)})));
      }
    }
    std::set<Pair> open;
    std::vector<Pair> log;  // every event, begins as (a, b), ends as (b, a)
    for (int step = 0; step < 6; ++step) {
      if (step == 3) {
        for (std::size_t k = 7; k < ids.size(); k += 501) w.destroyBody(ids[k]);
      }
      w.step(1.0f / 60.0f);
      auto check = [&](std::span<const ContactEvent> events, bool begins) {
        for (std::size_t k = 0; k < events.size(); ++k) {
          const Pair p{key(events[k].a), key(events[k].b)};
          if (k > 0) {
            const Pair before{key(events[k - 1].a), key(events[k - 1].b)};
            EXPECT_LT(before, p) << "events in pair order, step " << step;
          }
          EXPECT_EQ(open.count(p), begins ? 0u : 1u) << "step " << step;
          if (begins) {
            open.insert(p);
            log.push_back(p);
          } else {
            open.erase(p);
            log.emplace_back(p.second, p.first);
          }
        }
      };
      check(w.contactEndEvents(), false);
      std::set<Pair> ended;
      for (const ContactEvent& e : w.contactEndEvents()) ended.insert({key(e.a), key(e.b)});
      for (const ContactEvent& e : w.contactBeginEvents()) {
        EXPECT_EQ(ended.count({key(e.a), key(e.b)}), 0u) << "ended and begun, step " << step;
      }
      check(w.contactBeginEvents(), true);
      EXPECT_EQ(open.size(), w.stats().contacts) << "step " << step;
    }
    EXPECT_GT(w.stats().contacts, 16384u) << "more touching pairs than one chunk";
    return log;
  };
  const auto serial = run(std::make_shared<SerialTaskSystem>());
  EXPECT_EQ(run(test::makeTestTaskSystem(3)), serial);
}

TEST(WorldThreads, ThreadCountIsValidated) {
  WorldDef def = quietDef();
  def.threadCount = 5000;
  EXPECT_THROW(World{def}, Error);
  def.threadCount = 3;
  World w(def);
  EXPECT_EQ(w.taskSystem().threadCount(), 3u);
  def.threadCount = 1;
  EXPECT_EQ(World{def}.taskSystem().threadCount(), 1u);
}

}  // namespace
