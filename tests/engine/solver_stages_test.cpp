// The step's solver stages one at a time (engine/src/contacts/contact_set.hpp,
// escapee_query.hpp, solver/step_rows.hpp, velocity_solver.hpp,
// impact_solver.hpp, position_solver.hpp), on hand-made bodies, each
// against what the textbook or a brute-force count says.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <random>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact_set.hpp"
#include "contacts/escapee_query.hpp"
#include "solver/impact_solver.hpp"
#include "solver/position_solver.hpp"
#include "solver/solver_settings.hpp"
#include "solver/step_rows.hpp"
#include "solver/velocity_solver.hpp"

namespace quadbin {
namespace {

constexpr float kDt = 1.0f / 60.0f;

// The stages as the world wires them, over bodies made here.
struct Stages {
  BodyStore bodies;
  StepRows step;
  ContactSet contactSet{step};
  EscapeeQuery escapees{step};
  VelocitySolver velocity{step};
  ImpactSolver impacts{step};
  PositionSolver positions{step};
  std::shared_ptr<TaskSystem> tasks = makeTaskSystem(2);
  SolverSettings s;

  Stages() {
    s.dt = kDt;
    s.restitution = 1.0f;
    s.restitutionThreshold = 0.0f;
    s.bounds = {{-100, -100}, {100, 100}};
    s.kinematic = false;
    s.spin = false;
  }
  std::uint32_t ball(Vec2 p, Vec2 v, float r = 1.0f, float e = 1.0f) {
    bodies.push(BodyType::Ball, p, v, {r, r}, r, 1.0f, 0.0f, 0.0f);
    const auto i = static_cast<std::uint32_t>(bodies.size() - 1);
    bodies.setMaterial(i, e, 0.0f, 0.0f);
    return i;
  }
  // Every pair of bodies, as a brute-force broad phase would give them.
  [[nodiscard]] std::vector<Pair> allPairs() const {
    std::vector<Pair> pairs;
    for (std::uint32_t i = 0; i < bodies.size(); ++i) {
      for (std::uint32_t j = i + 1; j < bodies.size(); ++j) pairs.push_back({i, j});
    }
    return pairs;
  }
  void build() { contactSet.build(bodies, s, allPairs(), *tasks); }
  void beginSolve() {
    step.beginSolve(bodies, *tasks);
    escapees.beginSolve();
    impacts.beginSolve();
  }
  // The solve of the bodies made so far, up to the position correction.
  void solveAndCorrect() {
    build();
    beginSolve();
    velocity.solveResting(bodies, s, contactSet.contacts(), *tasks);
    (void)impacts.solve(bodies, s, *tasks);
    positions.integratePositions(bodies, s, *tasks);
    positions.correctOverlaps(bodies, s, *tasks);
  }
  [[nodiscard]] Vec2 momentum() const {
    Vec2 sum{};
    for (const StepRows::BallState& b : step.state) sum += b.v;  // unit masses
    return sum;
  }
};

TEST(ContactSet, KeepsThePairsThatCanTouchInCanonicalOrder) {
  Stages st;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> at(-30.0f, 30.0f), speed(-20.0f, 20.0f);
  for (int k = 0; k < 300; ++k) st.ball({at(rng), at(rng)}, {speed(rng), speed(rng)});
  st.build();
  // The pairs whose gap the two balls can close within the step (the
  // margins: each ball's travel), by brute force: each must be a contact.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> expected;
  const BodyStore& b = st.bodies;
  for (std::uint32_t i = 0; i < b.size(); ++i) {
    for (std::uint32_t j = i + 1; j < b.size(); ++j) {
      const float gap = length(Vec2{b.px[j] - b.px[i], b.py[j] - b.py[i]}) - 2.0f;
      const float reach = (length(Vec2{b.vx[i], b.vy[i]}) + length(Vec2{b.vx[j], b.vy[j]})) * kDt;
      if (gap <= reach * 0.999f) expected.emplace_back(i, j);
    }
  }
  const auto contacts = st.contactSet.contacts();
  ASSERT_FALSE(contacts.empty());
  for (std::size_t k = 1; k < contacts.size(); ++k) {
    EXPECT_TRUE(contacts[k - 1].a < contacts[k].a ||
                (contacts[k - 1].a == contacts[k].a && contacts[k - 1].b < contacts[k].b));
  }
  for (const auto& [i, j] : expected) {
    bool found = false;
    for (const auto& c : contacts) found = found || (c.a == i && c.b == j);
    EXPECT_TRUE(found) << i << " " << j;
  }
  // Each contact is a row, in a colour whose rows share no ball.
  EXPECT_EQ(st.step.rows.size(), contacts.size());
  EXPECT_GE(st.contactSet.colourCount(), 1u);
}

TEST(StepRows, VisitsEveryRowOnceColourAfterColour) {
  Stages st;
  // A chain of touching balls: neighbours share a ball, so at least two colours.
  for (int k = 0; k < 40; ++k) st.ball({2.0f * static_cast<float>(k) - 40.0f, 0}, {0, 0});
  st.build();
  st.beginSolve();
  std::vector<int> seen(st.step.rows.size(), 0);
  const std::uint32_t clockBefore = st.step.clock;
  const std::uint32_t hits =
      st.step.forEachRow(*st.tasks, StepRows::kApart, [&](const StepRows::Row& r) {
        ++seen[st.step.rowIndex(r)];
        return r.a % 2 == 0;
      });
  for (const int count : seen) EXPECT_EQ(count, 1);
  std::uint32_t even = 0;
  for (const StepRows::Row& r : st.step.rows) even += r.a % 2 == 0 ? 1u : 0u;
  EXPECT_EQ(hits, even);
  EXPECT_GE(st.step.clock - clockBefore, st.contactSet.colourCount());
}

TEST(ImpactSolver, HeadOnElasticBallsExchangeVelocities) {
  Stages st;
  st.ball({-1.25f, 0}, {30, 0});
  st.ball({1.25f, 0}, {-10, 0});
  st.build();
  st.beginSolve();
  st.velocity.solveResting(st.bodies, st.s, st.contactSet.contacts(), *st.tasks);
  const Vec2 before = st.momentum();
  EXPECT_EQ(st.impacts.solve(st.bodies, st.s, *st.tasks), 1u);  // one collision
  EXPECT_NEAR(st.step.state[0].v.x, -10.0f, 1e-4f);
  EXPECT_NEAR(st.step.state[1].v.x, 30.0f, 1e-4f);
  EXPECT_NEAR(st.momentum().x, before.x, 1e-4f);
  // They met at time 1/80 (gap 0.5 closing at 40): each path is continuous.
  st.positions.integratePositions(st.bodies, st.s, *st.tasks);
  const float t = 1.0f / 80.0f;
  EXPECT_NEAR(st.step.state[0].p.x, -1.25f + 30.0f * t - 10.0f * (kDt - t), 1e-4f);
  EXPECT_FALSE(st.impacts.impactsLeft());
}

TEST(VelocitySolver, RestingPairStopsApproachingAndKeepsMomentum) {
  Stages st;
  st.s.restitutionThreshold = 1.0f;  // slow approaches are resting contacts
  st.ball({0, 0}, {0.2f, 0.1f});
  st.ball({2.0f, 0}, {-0.3f, 0});
  st.build();
  ASSERT_EQ(st.step.rows.size(), 1u);
  EXPECT_EQ(st.step.rows[0].group, StepRows::kResting);
  st.beginSolve();
  st.velocity.solveResting(st.bodies, st.s, st.contactSet.contacts(), *st.tasks);
  const Vec2 va = st.step.state[0].v, vb = st.step.state[1].v;
  EXPECT_NEAR(vb.x - va.x, 0.0f, 1e-6f);  // perfectly inelastic along the normal
  EXPECT_NEAR(va.x + vb.x, -0.1f, 1e-6f);
  EXPECT_NEAR(va.y, 0.1f, 1e-6f);  // no friction: the tangent is untouched
  EXPECT_GT(st.step.rows[0].lambda, 0.0f);
}

TEST(PositionSolver, RemovesAnOverlapAndKeepsTheCentreOfMass) {
  Stages st;
  st.s.positionPasses = 4;
  st.ball({0, 0}, {0, 0});
  st.ball({1.5f, 0.2f}, {0, 0});  // overlapping by about 0.49
  st.solveAndCorrect();
  // Without boxes, kinematic bodies or spin the shifts are added as the
  // positions are written back (one pass over the balls fewer).
  BodySnapshot undo;
  undo.save(st.bodies, {false, false, false, false}, *st.tasks);  // as a step without spin
  st.positions.clampPositions(st.bodies, st.s, undo, *st.tasks);
  const Vec2 pa = st.step.state[0].p, pb = st.step.state[1].p;
  EXPECT_GE(length(pb - pa), 2.0f - 1e-4f);
  EXPECT_NEAR((pa.x + pb.x) / 2, 0.75f, 1e-5f);
  EXPECT_NEAR((pa.y + pb.y) / 2, 0.1f, 1e-5f);
  // Velocities untouched: no kinetic energy added.
  EXPECT_EQ(st.step.state[0].v, (Vec2{0, 0}));
  EXPECT_EQ(st.bodies.px[1], pb.x);
  EXPECT_EQ(st.bodies.py[0], pa.y);
  st.contactSet.store(st.s, *st.tasks);
  EXPECT_GT(st.contactSet.contacts()[0].shift, 0.0f);  // warm starts the next step
}

// Where something runs between them (here spin: the write-back of angles),
// the position correction moves the balls itself.
TEST(PositionSolver, ShiftsAtOnceWhereTheWriteBackIsNotTheLastPass) {
  Stages st;
  st.s.positionPasses = 4;
  st.s.spin = true;
  st.ball({0, 0}, {0, 0});
  st.ball({1.5f, 0.2f}, {0, 0});
  st.solveAndCorrect();
  const Vec2 pa = st.step.state[0].p, pb = st.step.state[1].p;
  EXPECT_GE(length(pb - pa), 2.0f - 1e-4f);
  EXPECT_NEAR((pa.x + pb.x) / 2, 0.75f, 1e-5f);
  BodySnapshot undo;
  undo.save(st.bodies, {true, true, false, false}, *st.tasks);
  st.positions.clampPositions(st.bodies, st.s, undo, *st.tasks);
  EXPECT_EQ(st.bodies.px[1], pb.x);  // nothing added twice
  EXPECT_EQ(st.bodies.py[1], pb.y);
}

TEST(EscapeeQuery, FindsTheBallsImpactsMadeFasterThanTheirBox) {
  Stages st;
  // A fast ball strikes a resting one; the struck ball's box allowed no
  // travel at all, so it escapes, and looking again finds the wall.
  st.s.bounds = {{-10, -10}, {3, 10}};
  st.ball({-3.0f, 0}, {120, 0});
  st.ball({0.5f, 0}, {0, 0});
  st.build();
  st.beginSolve();
  st.velocity.solveResting(st.bodies, st.s, st.contactSet.contacts(), *st.tasks);
  EXPECT_GE(st.impacts.solve(st.bodies, st.s, *st.tasks), 1u);
  EXPECT_EQ(st.escapees.find(st.bodies, st.s, *st.tasks), 1u);
  std::vector<AABB> boxes;
  st.bodies.sweptBoxes(kDt, 0.0f, false, boxes, *st.tasks);
  auto broad = makeBroadPhase(BroadPhaseType::BruteForce);
  broad->update(boxes);
  st.escapees.lookAgain(st.bodies, st.s, *broad, boxes, st.contactSet, *st.tasks);
  ASSERT_EQ(st.step.extra.size(), 1u);
  EXPECT_EQ(st.step.extra[0].a, 1u);
  EXPECT_TRUE(contacts::isWall(st.step.extra[0].b));
  EXPECT_EQ(boxes[1].max.x, 0.5f + 1.0f + st.step.maxSpeed[1] * kDt);
  // Nothing new the second time.
  EXPECT_EQ(st.escapees.find(st.bodies, st.s, *st.tasks), 0u);
}

}  // namespace
}  // namespace quadbin
