// Golden hashes: the final state of each reference scene after 300 steps,
// hashed and pinned, for every broad phase the world can use. Any change to
// what the simulation computes (a solver tweak, a new feature that leaks
// into worlds that do not use it, a different pair order) changes a hash
// and fails here; a change that is meant to alter results updates the
// constants below in the same commit, with the reason in its message.
//
// The hash is FNV-1a (64 bit) over the raw bits of x, y, vx, vy, the
// angular velocity of every body in bodyAt() order, then the sum of the
// steps' contact counts. The world puts its contact list in canonical order
// before solving, so every structure gives the same bits: one hash per
// scene and size. 1,000 balls run in every build; 20,000 balls (the three
// elastic scenes, every structure but brute force) only in optimised builds
// (release, asan), where a step is about ten times faster than in Debug.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <quadbin/quadbin.hpp>
#include <quadbin/scenes/scene.hpp>
#include <string>
#include <vector>

namespace {

using namespace quadbin;

constexpr int kSteps = 300;

struct Golden {
  scenes::SceneKind scene;
  std::uint32_t n;
  std::uint64_t hash;
  // With WorldDef::autoLayout off: the bodies stay in the order the scene
  // created them (a 1,000-ball world is never renumbered: its bodies are
  // all within 1,024 of each other in memory).
  std::uint64_t asCreated;
};

// Pinned at commit 767e1d3's behaviour (the solver of issue 10 with
// friction; frictionless e = 1 reference scenes, the pile with friction 0.5
// and rolling resistance 0.1, sleeping on). The pile's hash was re-pinned
// when the solver got its shock pass for resting contacts under gravity
// (docs/physics.md, "Tall piles"): it changes worlds with gravity and a
// restitution threshold only. The three elastic scenes were re-pinned when
// the shift passes of worlds without a restitution threshold began to aim
// for a clearance of 2 % of the smaller radius on overlapping or already
// pushed pairs (fewer overlapping pairs in packed crowds), and again when,
// in the same worlds, two balls closer than 0.3 of the smaller radius, one
// of them in a crowd (a contact of the last step kept a shift impulse), got
// a contact even where their velocities cannot close the gap, so that the
// shift passes no longer push them into overlap unseen (kShiftReach); and
// again when the shift passes of a step in which no contact is calm (every
// elastic scene's) began to take the settling passes' share too
// (2 x positionPasses). The pile's was re-pinned when the exact impacts got
// Coulomb friction (the pile's balls have friction 0.5; the frictionless
// scenes are unchanged). The 20,000-ball scenes' were re-pinned when the
// world began to keep its bodies in space order by itself
// (WorldDef::autoLayout): their second step renumbers them, which changes
// the order of bodyAt() and, in the last bits, the steps after it (new
// contacts are coloured in another order); their hashes with the order as
// created are the ones pinned before, and are checked too. The pile's was
// re-pinned when the sweeps of resting contacts with friction under gravity
// were over-relaxed (docs/physics.md, "Tall piles"; the elastic scenes have
// no impulse on their resting rows and are unchanged), and when the shock
// pass's impulses stopped being warm started.
constexpr Golden kGolden[] = {
    {scenes::SceneKind::Uniform, 1000, 0x08440c5412574d6bull, 0x08440c5412574d6bull},
    {scenes::SceneKind::Clustered, 1000, 0x483fede6cc0a82b1ull, 0x483fede6cc0a82b1ull},
    {scenes::SceneKind::Mixed, 1000, 0xa10fe30a76c0524dull, 0xa10fe30a76c0524dull},
    {scenes::SceneKind::Pile, 1000, 0xaa1213acee06b939ull, 0xaa1213acee06b939ull},
    {scenes::SceneKind::Uniform, 20000, 0x0653542a7e995d3bull, 0xc8cfe2c13c65c9dfull},
    {scenes::SceneKind::Clustered, 20000, 0xae2e3b0f75df1313ull, 0xf83f467ed20be377ull},
    {scenes::SceneKind::Mixed, 20000, 0xc11a4d440f3b4270ull, 0xd049574948b96b22ull},
};

struct Case {
  BroadPhaseType type;
  Golden golden;
  bool asCreated = false;  // WorldDef::autoLayout off
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Golden& g : kGolden) {
    for (BroadPhaseType t : allBroadPhaseTypes()) {
      // Brute force is the oracle the other structures are checked against
      // at every size; at 20,000 balls it would take minutes here.
      if (t == BroadPhaseType::BruteForce && g.n > 1000) continue;
      all.push_back({t, g});
    }
    // The order as created, on the one structure: the other results of
    // the simulation are unchanged by the renumbering's existence.
    if (g.n > 1000) all.push_back({BroadPhaseType::Auto, g, true});
  }
  return all;
}

std::string caseName(const testing::TestParamInfo<Case>& info) {
  std::string name = std::string(scenes::toString(info.param.golden.scene)) + "_" +
                     std::to_string(info.param.golden.n) + "_" +
                     std::string(toString(info.param.type)) +
                     (info.param.asCreated ? "_as_created" : "");
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class Fnv {
 public:
  void add(std::uint64_t word) {
    for (int i = 0; i < 8; ++i) {
      h_ ^= (word >> (8 * i)) & 0xffu;
      h_ *= 0x100000001b3ull;
    }
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

std::uint64_t finalHash(const Case& c) {
  const auto scene = scenes::generate(c.golden.scene, c.golden.n);
  WorldDef def = scenes::worldDefFor(c.golden.scene);
  def.broadPhase = c.type;
  def.threadCount = 2;
  def.autoLayout = !c.asCreated;
  def.logLevel = LogLevel::Error;
  World world = scenes::makeWorld(scene, def);
  const auto dt = static_cast<float>(scenes::kDefaultDt);
  std::uint64_t contacts = 0;
  for (int step = 0; step < kSteps; ++step) {
    world.step(dt);
    contacts += world.stats().contacts;
  }
  Fnv fnv;
  for (std::uint32_t i = 0; i < world.bodyCount(); ++i) {
    const BodyId id = world.bodyAt(i);
    const Vec2 p = world.position(id), v = world.velocity(id);
    const float w = world.type(id) == BodyType::Ball ? world.angularVelocity(id) : 0.0f;
    for (float f : {p.x, p.y, v.x, v.y, w}) fnv.add(std::bit_cast<std::uint32_t>(f));
  }
  fnv.add(contacts);
  return fnv.value();
}

class GoldenHash : public testing::TestWithParam<Case> {};

TEST_P(GoldenHash, FinalStateAfter300Steps) {
  const Case c = GetParam();
#if !defined(NDEBUG) || defined(__SANITIZE_THREAD__)
  if (c.golden.n > 1000) GTEST_SKIP() << "20,000 balls run in optimised builds only";
#endif
  EXPECT_EQ(finalHash(c), c.asCreated ? c.golden.asCreated : c.golden.hash)
      << "the simulation's results changed: if that is meant, pin the new hash (0x" << std::hex
      << finalHash(c) << ")";
}

INSTANTIATE_TEST_SUITE_P(ReferenceScenes, GoldenHash, testing::ValuesIn(cases()), caseName);

}  // namespace
