#pragma once
// Internal to the engine: contacts and the solver that resolves them.
//
// Narrow phase (contacts/contact_set.cpp). The broad phase's candidate
// pairs that can touch within the step, plus the walls a ball can reach,
// become the step's contacts, in canonical order (a, then b), kept in the
// contact store (contacts/contact_store.hpp): one that was there in the
// last step keeps its accumulated impulse (warm starting) and its colour.
// Only new contacts are coloured, and ended ones give their colour back
// (contacts/constraint_graph.hpp): colours are batches of contacts that
// share no ball, so a batch is one parallel loop.
//
// Solve (contact_solver.cpp), three parts with a bounded cost each:
//  1. Contact iterations: sequential impulses with warm starting on the
//     contacts that touch at the start of the step and approach slower
//     than the restitution threshold (resting contacts, stacks, piles):
//     perfectly inelastic, a fixed number of sweeps.
//  2. Impacts: the exact time of impact and elastic impulse for every
//     other contact that closes during the step (a fast ball meeting
//     another, a wall or a box; a collision inside a crowd; momentum along
//     a chain, Newton's cradle), a bounded number of passes. Each impulse
//     is the textbook collision of two bodies, so e = 1 keeps kinetic
//     energy. Balls made faster than their swept box are queried again.
//     If the passes run out in a world with a restitution threshold, the
//     touching pairs still approaching stop, inelastically (piles rest).
//  3. Position correction: end-of-step overlaps removed by moving positions
//     only (no velocity change: no kinetic energy added): sequential
//     impulses on position shifts, a fixed number of passes, warm started
//     from the last step's shift impulses so that a crowd packed too tight
//     builds up the "pressure" that spreads it over a few steps.
//
// Determinism: every loop is over bodies or over one colour's contacts
// (disjoint balls), serial parts are in canonical order, and nothing
// depends on the thread count.

#include <algorithm>
#include <cstdint>
#include <quadbin/broadphase/broadphase.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/staged_loop.hpp>
#include <span>
#include <vector>

#include "bodies/body_store.hpp"
#include "bodies/filtering.hpp"
#include "contacts/constraint_graph.hpp"
#include "contacts/contact.hpp"
#include "contacts/contact_store.hpp"

namespace quadbin {

struct SolverSettings {
  float dt = 0.0f;
  float restitution = 1.0f;
  float restitutionThreshold = 0.0f;
  bool closedWorld = true;
  AABB bounds{};
  std::uint32_t velocityIterations = 8;
  std::uint32_t impactPasses = 8;
  std::uint32_t positionPasses = 4;
  bool friction = false;      // some ball has friction: the iterations solve it
  float wallFriction = 0.0f;  // the walls' coefficient
  // What the world holds this step (off: the stages skip that work).
  bool kinematic = true;  // some kinematic body
  bool spin = true;       // some body spins, or friction may make one spin
  Vec2 gravity{};         // with a restitution threshold: the shock pass's "up"
  /// Restitution for a collision at relative normal speed `approach` (> 0)
  /// between bodies whose combined restitution is `e` (restitutionOf).
  [[nodiscard]] float restitutionFor(float approach, float e) const noexcept {
    return approach < restitutionThreshold ? 0.0f : e;
  }
  /// The combined restitution of ball a and body b (a ball, a box, or a
  /// wall when b is past the bodies): the larger one, Box2D's rule; a
  /// wall's is the world's.
  [[nodiscard]] float restitutionOf(const BodyStore& bodies, std::uint32_t a,
                                    std::uint32_t b) const noexcept {
    const float eb = b < bodies.size() ? bodies.restitution[b] : restitution;
    return std::max(bodies.restitution[a], eb);
  }
  /// Gap between a ball (centre p, radius r) and wall `side` (0: min x,
  /// 1: max x, 2: min y, 3: max y); negative when it overlaps the wall.
  [[nodiscard]] float wallGap(Vec2 p, float r, std::uint32_t side) const noexcept {
    const float toWall = side == 0   ? p.x - bounds.min.x
                         : side == 1 ? bounds.max.x - p.x
                         : side == 2 ? p.y - bounds.min.y
                                     : bounds.max.y - p.y;
    return toWall - r;
  }
};

class ContactSolver {
 public:
  using Contact = contacts::Contact;
  /// A ball may outrun its swept box by this fraction of its radius before
  /// it is looked at again: less than a radius cannot carry it through
  /// anything, an overlap with a ball is separated at the end of the step,
  /// and static boxes are grown by it for the broad phase (their contacts
  /// are there, and guardBoxes keeps the ball out).
  static constexpr float kEscapeTolerance = 0.5f;
  /// Without a restitution threshold, two balls whose gap is under this
  /// fraction of the smaller radius (beyond what their velocities can
  /// close) still get a contact where one of them is in a crowd (markCrowded):
  /// the shift passes of a packed crowd move balls that far, and a pair with
  /// no contact is pushed into overlap unseen (docs/physics.md, "Position
  /// correction").
  static constexpr float kShiftReach = 0.3f;
  /// What a contact is at the start of the step: touching and approaching
  /// slower than the restitution threshold (resting: the iterations'),
  /// touching and faster (a collision: an impact), or apart.
  enum Group : std::uint8_t { kResting, kTouchingCollision, kApart };
  static constexpr std::uint32_t kGroups = 3;

  /// Wakes the sleeping islands that an awake ball can reach within the
  /// step (from the candidate pairs); returns how many balls woke.
  std::uint32_t wakeTouched(BodyStore& bodies, float dt, std::span<const Pair> pairs,
                            TaskSystem& tasks);
  /// The narrow phase: keeps the candidate pairs that can touch within the
  /// step, adds wall contacts, puts them in canonical order, carries over
  /// the last step's impulses and colours and colours the new ones.
  void buildContacts(const BodyStore& bodies, const SolverSettings& s, std::span<const Pair> pairs,
                     TaskSystem& tasks);
  /// The solve, in stages the step calls in this order:
  ///   solveResting, then up to kEscapeRounds rounds of solveImpacts and
  ///   findEscapees, each round with escapees but the last followed by
  ///   lookAgain; then stopApproaching.
  /// Rounds of "impacts, then look again for balls that outran their box".
  static constexpr std::uint32_t kEscapeRounds = 4;
  /// Warm start, the resting contacts' iterations and the shock pass:
  /// changes the balls' velocities (in the solver's state).
  void solveResting(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// The exact impacts of every contact that closes within the step, a
  /// bounded number of passes; returns how many impulses were applied.
  std::uint32_t solveImpacts(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// Finds the awake balls that the impacts made faster than their swept
  /// box allowed (not found before in this step); returns how many.
  std::uint32_t findEscapees(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// The escapee re-query: the balls findEscapees found last get bigger
  /// boxes (written into `boxes`, the swept boxes the broad phase holds),
  /// queried against the broad phase; the contacts found that the step
  /// does not have yet join it, coloured, for the impacts from now on.
  void lookAgain(BodyStore& bodies, const SolverSettings& s, const BroadPhase& broad,
                 std::vector<AABB>& boxes, TaskSystem& tasks);
  /// Where the impact passes ran out with a restitution threshold, the
  /// touching pairs still approaching stop, inelastically (piles rest).
  void stopApproaching(const SolverSettings& s, TaskSystem& tasks);
  /// After solve, the step's last four stages, in this order.
  /// Moves the awake balls and the kinematic bodies to their end-of-step
  /// positions (the solved velocities and the impacts' corrections).
  void integratePositions(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// Removes overlaps by moving positions only (shift passes, then the
  /// settling passes of calm contacts).
  void correctOverlaps(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  /// Clamps the balls to the walls of a closed world, keeps them out of
  /// static boxes (guardBoxes) and writes positions, velocities, spin and
  /// angles back to the bodies. Where neither kinematic bodies nor spin
  /// are (s.kinematic, s.spin off) the new positions go to undo's arrays,
  /// which are then swapped with the bodies': the step's save of them,
  /// without a copy (undo.saved.positions).
  void clampPositions(BodyStore& bodies, const SolverSettings& s, BodySnapshot& undo,
                      TaskSystem& tasks);
  /// Stores the contacts for the next step: impulses, shifts, whether they
  /// touched; the contacts found by looking again join the canonical list.
  void storeContacts(const SolverSettings& s, TaskSystem& tasks);
  // What persists from step to step is the contact store's and the
  // constraint graph's (contacts/): the world reaches them through these.
  /// Forgets the persistent contacts (body indices changed).
  void forget() noexcept { store_.forget(graph_); }
  /// A step that failed (World::Impl::rollBack): the contacts and colours
  /// as the step found them (ContactStore::rollBack).
  void rollBack(const BodyStore& bodies) noexcept { store_.rollBack(bodies, graph_); }
  /// The step went through.
  void commit() noexcept { store_.commit(); }
  /// A body destroyed (ContactStore::removeBody).
  void removeBody(const BodyStore& bodies, std::uint32_t removed, std::uint32_t last) noexcept {
    store_.removeBody(bodies, graph_, removed, last);
  }
  /// Body i's type is about to change (ContactStore::dropBody).
  void dropContactsOf(const BodyStore& bodies, std::uint32_t i) noexcept {
    store_.dropBody(bodies, graph_, i);
  }
  /// True when the contacts are in canonical order, name bodies below `n`
  /// and hold exactly the colours the graph records (debug checks).
  [[nodiscard]] bool consistent(const BodyStore& bodies) const {
    return store_.consistent(bodies, graph_);
  }
  /// The colours each ball's contacts hold (for World::snapshot).
  [[nodiscard]] std::span<const std::uint64_t> colourUse() const noexcept { return graph_.use(); }
  /// Replaces what persists from step to step, the contacts and the colours
  /// they hold (World::restore; snapshot.cpp); the rest is the next step's
  /// scratch.
  void restoreState(std::vector<Contact> contacts, std::vector<std::uint64_t> colourUse) noexcept;
  /// The contacts of the last step, in canonical order.
  [[nodiscard]] std::span<const Contact> contacts() const noexcept { return store_.contacts(); }
  /// Colours the last step used (for tests and statistics).
  [[nodiscard]] std::uint32_t colourCount() const noexcept { return colourCount_; }
  /// Contacts the iterations pushed apart in the last step.
  [[nodiscard]] std::uint32_t pushedContacts() const noexcept { return pushed_; }

  bool warnedEscapes = false;
  ContactFilter filter;  // set by the world before each step
  /// The world's collision filters (set once by the world): the step's
  /// pairs come filtered, and the pairs found by looking again are
  /// filtered against them. Null: everything collides.
  const BodyFilters* filters = nullptr;

 private:
  enum Kind : std::uint8_t { kBall, kBox, kWall, kKinematic };  // kKinematic: kinematic.hpp
  // A contact prepared for solving, stored in colour order.
  struct Row {
    std::uint32_t a, b;
    float nx, ny;           // unit normal from a to b at the start of the step
    float ima, imb;         // inverse masses (imb = 0: static box or wall)
    float mEff;             // 1 / (ima + imb)
    float target;           // the normal relative speed the iterations aim for
    float lambda;           // accumulated impulse
    float shift;            // accumulated position impulse (mass x length)
    std::uint32_t contact;  // index into the store's contacts
    std::uint32_t checked;  // sweep clock of its last impact check
    std::uint8_t kind;
    std::uint8_t group;    // kResting, kTouchingCollision or kApart
    std::uint8_t touched;  // touching, struck or separated in this step
  };
  // A contact prepared for the position correction (same order as rows_):
  // the normal and overlap at the end of the step, compact for the passes.
  struct ShiftRow {
    std::uint32_t a, b;  // b = the last entry of shift_ (always zero) for walls and boxes
    float nx, ny;
    float ima, imb, mEff;
    float goal;   // normal shift the pair aims for: + separates, - may close a gap
    float shift;  // accumulated position impulse
    float pad;
  };
  // The friction of a row (same index as rows_), made only when some ball
  // has friction. Balls are solid discs: inverse inertia 2 / (m r^2).
  struct FrictionRow {
    float mu;          // combined coefficient; 0 for rows that are not resting
    float tMass;       // 1 / (ima + imb + ra^2 ia + rb^2 ib)
    float ra, rb;      // lever arms to the contact point (rb = 0: wall or box)
    float ia, ib;      // inverse moments of inertia (ib = 0: wall or box)
    float lambda;      // accumulated tangent impulse
    float roll;        // most rolling-resistance impulse per unit of normal impulse
    float rollMass;    // 1 / (ia + ib)
    float rollLambda;  // accumulated rolling-resistance (angular) impulse
  };
  // A ball's state during the solve, in one cache line with its neighbours;
  // every field is written before it is read.
  struct BallState {  // NOLINT(cppcoreguidelines-pro-type-member-init)
    Vec2 p;           // position at the start of the step; at the end after integratePositions
    Vec2 v;           // velocity
    Vec2 corr;        // end-of-step position shift from impacts
    float tLast;      // time of the ball's last impact in this step
    // Clock of its last change (an impact): beside what an impact check
    // reads anyway, so that skipping an unchanged row costs no other line.
    std::uint32_t changed;
  };

  template <class Emit>
  void addCandidate(const BodyStore& bodies, std::uint32_t i, std::uint32_t j, bool keepSleeping,
                    Emit&& emit) const;
  template <class Emit>
  void addWalls(const BodyStore& bodies, const SolverSettings& s, std::uint32_t i,
                Emit&& emit) const;
  void buildRows(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  void makeRow(const BodyStore& bodies, const SolverSettings& s, const Contact& c, std::uint32_t k,
               Row& r) const;
  /// Runs f(row) over the rows of groups up to `lastGroup`, colour after
  /// colour, the rows of a colour in parallel; returns how many calls
  /// returned true.
  template <class F>
  std::uint32_t forEachRow(TaskSystem& tasks, Group lastGroup, F&& f);
  /// The same over an array laid out like rows_ (rows_'s buckets), with
  /// `tail` more rows after the overflow group's, visited with it.
  template <class R, class F>
  std::uint32_t forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rows, std::uint32_t tail,
                             F&& f);
  /// The same, calling pre(row) a few rows ahead of f (prefetching the
  /// balls the row names).
  template <class R, class F, class P>
  std::uint32_t forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rows, std::uint32_t tail, F&& f,
                             P&& pre);
  template <class F, class P>
  std::uint32_t forEachRow(TaskSystem& tasks, Group lastGroup, F&& f, P&& pre);
  /// Up to `passes` passes of forEachRowIn in one parallel region;
  /// endPass(hits) after each pass says whether to go on.
  template <class R, class F, class P, class E>
  void passesOverRows(TaskSystem& tasks, Group lastGroup, R* rows, std::uint32_t tail,
                      std::uint32_t passes, F&& f, P&& pre, E&& endPass);
  void sweep(TaskSystem& tasks, Group lastGroup, std::uint32_t iterations, bool friction);
  void buildFriction(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  std::uint32_t impactPasses(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  bool impact(const BodyStore& bodies, const SolverSettings& s, Row& r);
  bool impactBalls(const BodyStore& bodies, const SolverSettings& s, const Row& r);
  bool impactBox(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                 std::uint32_t box);
  bool impactWall(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                  std::uint32_t side);
  bool impactKinematic(const BodyStore& bodies, const SolverSettings& s, std::uint32_t a,
                       std::uint32_t k);
  void applyImpulse(std::uint32_t i, Vec2 dv, float t);
  /// The Coulomb friction of an impact at time t: the tangent impulse that
  /// stops the contact point's sliding, at most mu times the normal impulse
  /// jn, on ball a and, where b is a ball, on b (solid discs; n points from
  /// a to b; b's velocity and spin are read where it has them: a kinematic
  /// body's, never changed). Only where the pair has friction.
  struct ImpactOther {
    std::uint32_t index;  // kNoBody: a wall or a static box
    float radius;         // 0: a box or a wall (no lever)
    float invMass;        // 0: infinite mass
    bool moves;           // a ball or a kinematic body: its velocity and spin count
  };
  void rub(const BodyStore& bodies, std::uint32_t a, const ImpactOther& b, Vec2 n, float jn,
           float mu, float t);
  [[nodiscard]] ShiftRow makeShiftRow(const BodyStore& bodies, const SolverSettings& s, Row& r,
                                      std::uint32_t staticSlot) const;
  bool settle(const BodyStore& bodies, const SolverSettings& s, Row& r);
  // crowded_ from the last step's contacts (all 0 where there is a
  // restitution threshold): where kShiftReach applies.
  void markCrowded(const SolverSettings& s, std::uint32_t n, TaskSystem& tasks);
  // contact_shock.cpp: the resting rows once more, bottom-up, lower bodies fixed.
  bool orderForShock(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  void propagateShock(const SolverSettings& s);
  /// Index in rows_ of a row the colour loop hands out (for the arrays
  /// parallel to rows_: shiftRows_, frictionRows_).
  [[nodiscard]] std::size_t rowIndex(const Row& r) const noexcept {
    return static_cast<std::size_t>(&r - rows_.data());
  }
  // Held by the shift passes and lifted by settle(): a contact that carried
  // a load, or a resting one where there is a restitution threshold.
  [[nodiscard]] static bool isCalm(const SolverSettings& s, const Row& r) noexcept {
    return r.lambda > 0.0f || (r.group == kResting && s.restitutionThreshold > 0.0f);
  }
  void guardBoxes(const BodyStore& bodies, const SolverSettings& s, TaskSystem& tasks);
  // clampPositions without kinematic bodies and spin: p and v written back.
  void writeBack(BodyStore& bodies, const SolverSettings& s, BodySnapshot& undo, TaskSystem& tasks);
  /// Returns how many calm contacts there are (settle()'s work).
  std::uint32_t correctPositions(const BodyStore& bodies, const SolverSettings& s,
                                 TaskSystem& tasks);
  [[nodiscard]] Vec2 positionAt(std::uint32_t i, float t) const noexcept {
    const BallState& b = state_[i];
    return b.p + b.corr + b.v * t;
  }

  ContactStore store_;     // the persistent contacts
  ConstraintGraph graph_;  // the colours the contacts hold
  std::uint32_t colourCount_ = 0;
  std::uint32_t pushed_ = 0;
  bool impactsLeft_ = false;  // the impact passes of this step ran out

  // Step scratch.
  std::vector<float> margin_;  // per ball: the travel its swept box allows
  // Per ball: 1 where one of its last step's contacts kept a shift impulse
  // (markCrowded, before buildContacts replaces the contacts).
  std::vector<std::uint8_t> crowded_;
  std::vector<BallState> state_;
  std::vector<float> maxSpeed_;  // fastest the ball went in this step
  // Impact passes skip a row whose balls have not changed since they last
  // checked it: each ball's last change (BallState::changed) and each row's
  // last check on one clock that ticks once per colour of every sweep.
  std::uint32_t clock_ = 0;
  std::vector<Row> rows_;                   // by colour, contacts that touch first in each
  std::vector<std::uint32_t> bucketStart_;  // kGroups (kColours + 1) + 1 offsets into rows_
  StagedLoop stages_;                       // the colour loop's stages (contact_solver_rows.hpp)
  std::vector<Contact> extra_;              // contacts found by looking again
  std::vector<Row> extraRows_;              // their rows, in the same order
  std::vector<Row> canonicalRows_;          // rows in contact order, before the counting sort
  std::vector<Contact> batch_;              // one look-again's new contacts
  std::vector<Contact> extraSorted_;
  std::vector<std::uint32_t> escapees_;    // every ball whose box grew this step
  std::size_t lookedAt_ = 0;               // escapees_[lookedAt_..]: found last
  std::vector<FrictionRow> frictionRows_;  // beside rows_, when friction is on
  std::vector<float> spin_;                // per ball: angular velocity during the solve
  std::vector<ShiftRow> shiftRows_;        // rows_ then extraRows_, for the position passes
  std::vector<Vec2> shift_;  // per ball (+ one zero for static things): position shift
  OrderedBuffers<std::uint64_t> keyBuffers_;
  std::vector<std::uint64_t> keys_, keyScratch_;
  std::vector<std::uint32_t> radixCounts_;
  unsigned codeBits_ = 0;  // key = a << codeBits_ | code(b)
  OrderedBuffers<std::uint32_t> indexBuffers_;
  OrderedBuffers<Contact> extraBuffers_;
  std::vector<std::uint32_t> chunkCounts_;
  std::vector<std::uint64_t> shockKeys_, shockScratch_;  // contact_shock.cpp
  std::vector<std::uint32_t> shockCounts_;
  unsigned shockRowBits_ = 0;  // shock key = height bits << shockRowBits_ | row
};

}  // namespace quadbin
