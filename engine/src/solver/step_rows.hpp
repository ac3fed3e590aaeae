#pragma once
// Internal to the engine: what the solver's stages of one step share, as
// Box2D's step context: each awake ball's state during the solve, and the
// contacts prepared for solving (rows), in colour order, with the loop
// that visits them colour after colour. The contact set writes the rows
// (contacts/contact_set.hpp); the velocity, impact and position solvers
// (solver/) and the escapee re-query (contacts/escapee_query.hpp) read and
// change them; the contact set stores what persists at the step's end.

#include <algorithm>
#include <cstdint>
#include <quadbin/geometry.hpp>
#include <quadbin/tasks/parallel.hpp>
#include <quadbin/tasks/staged_loop.hpp>
#include <vector>

#include "bodies/body_store.hpp"
#include "contacts/contact.hpp"

namespace quadbin {

// Work split: constants, never the thread count.
inline constexpr std::uint32_t kContactChunk = 16384;
inline constexpr std::uint32_t kBodyChunk = 16384;
inline constexpr std::uint32_t kContactGrain = 1024;
// The colour loop's blocks of rows (claimed one at a time by the threads of
// its region): small enough that the threads finish a colour together.
// The loop runs in parallel only where some colour is longer than
// kContactGrain rows, as a parallelFor of that grain would.
inline constexpr std::uint32_t kRowBlock = 512;

// Rows ahead of the one being solved whose balls are prefetched: a colour's
// rows name balls scattered over the body arrays, and a row's work is a few
// loads and stores, so the loop waits on memory unless the loads start
// early. Prefetching reorders no arithmetic.
inline constexpr std::uint32_t kPrefetchAhead = 8;

/// Starts loading the cache line that holds `p` (a hint, never a fault).
inline void prefetch(const void* p) noexcept { __builtin_prefetch(p, 1, 3); }

/// passesOverRows' end of a pass for passes that stop once one changes no
/// row: the next pass would find nothing to do either.
inline bool untilUnchanged(std::uint32_t changed) noexcept { return changed != 0; }

struct StepRows {
  using Contact = contacts::Contact;
  enum Kind : std::uint8_t { kBall, kBox, kWall, kKinematic };  // kKinematic: kinematic.hpp
  /// What a contact is at the start of the step: touching and approaching
  /// slower than the restitution threshold (resting: the velocity
  /// solver's), touching and faster (a collision: an impact), or apart.
  enum Group : std::uint8_t { kResting, kTouchingCollision, kApart };
  static constexpr std::uint32_t kGroups = 3;

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
  // The friction of a row (same index as rows), made only when some ball
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
    float turn;        // a turning outline's surface speed along t beside its translation
    float shock;       // what the shock pass added to the row's normal impulse (not warm started)
  };
  // A contact prepared for the position correction (same order as rows):
  // the normal and overlap at the end of the step, compact for the passes.
  struct ShiftRow {
    std::uint32_t a, b;  // b = one past the balls (a zero shift) for walls and boxes
    float nx, ny;
    float ima, imb, mEff;
    float goal;   // normal shift the pair aims for: + separates, - may close a gap
    float shift;  // accumulated position impulse
    float pad;
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

  /// The start of the solve: each ball's state from the bodies, its
  /// fastest speed so far (its speed), no contacts found by looking again
  /// yet, the clock at 1.
  void beginSolve(const BodyStore& bodies, TaskSystem& tasks);

  /// Runs f(row) over the rows of groups up to `lastGroup`, colour after
  /// colour, the rows of a colour in parallel; returns how many calls
  /// returned true.
  template <class F>
  std::uint32_t forEachRow(TaskSystem& tasks, Group lastGroup, F&& f);
  /// The same, calling pre(row) a few rows ahead of f (prefetching the
  /// balls the row names).
  template <class F, class P>
  std::uint32_t forEachRow(TaskSystem& tasks, Group lastGroup, F&& f, P&& pre);
  /// The same over an array laid out like rows (rows' buckets), with
  /// `tail` more rows after the overflow group's, visited with it.
  template <class R, class F>
  std::uint32_t forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rowsIn, std::uint32_t tail,
                             F&& f);
  template <class R, class F, class P>
  std::uint32_t forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rowsIn, std::uint32_t tail,
                             F&& f, P&& pre);
  /// Up to `passes` passes of forEachRowIn in one parallel region;
  /// endPass(hits) after each pass says whether to go on.
  template <class R, class F, class P, class E>
  void passesOverRows(TaskSystem& tasks, Group lastGroup, R* rowsIn, std::uint32_t tail,
                      std::uint32_t passes, F&& f, P&& pre, E&& endPass);

  /// Index in rows of a row the colour loop hands out (for the arrays
  /// parallel to rows: shiftRows, frictionRows).
  [[nodiscard]] std::size_t rowIndex(const Row& r) const noexcept {
    return static_cast<std::size_t>(&r - rows.data());
  }
  /// Where ball i is at time t of the step, as the impacts so far left it.
  [[nodiscard]] Vec2 positionAt(std::uint32_t i, float t) const noexcept {
    const BallState& b = state[i];
    return b.p + b.corr + b.v * t;
  }
  /// An impulse dv on ball i at time t of the step. Inlined: it runs twice
  /// per collision, in the hottest loop of the step.
  [[gnu::always_inline]] void applyImpulse(std::uint32_t i, Vec2 dv, float t) {
    BallState& b = state[i];
    b.v += dv;
    // The body moved with its old velocity until t and moves with the new
    // one after: shift its end-of-step position so the path stays
    // continuous.
    b.corr -= dv * t;
    b.tLast = t;
    b.changed = clock;
    maxSpeed[i] = std::max(maxSpeed[i], length(b.v));
  }

  // Per ball.
  std::vector<BallState> state;
  std::vector<float> spin;      // angular velocity during the solve, with friction
  std::vector<float> maxSpeed;  // fastest the ball went in this step
  std::vector<float> margin;    // the travel its swept box allows

  // The rows, by colour and, within a colour, by group (the contact set's
  // counting sort): bucketStart holds kGroups (kColours + 1) + 1 offsets.
  std::vector<Row> rows;
  std::vector<std::uint32_t> bucketStart;
  std::vector<FrictionRow> frictionRows;  // beside rows, when friction is on
  std::vector<ShiftRow> shiftRows;        // rows then extraRows, for the position passes
  // Contacts found by looking again (escapee_query.hpp) and their rows, in
  // the same order: solved serially after the overflow group.
  std::vector<Contact> extra;
  std::vector<Row> extraRows;

  // Impact passes skip a row whose balls have not changed since they last
  // checked it: each ball's last change (BallState::changed) and each row's
  // last check on one clock that ticks once per colour of every sweep.
  std::uint32_t clock = 0;

 private:
  StagedLoop stages_;  // the colour loop's stages
};

// The colours are the stages of one StagedLoop (tasks/internal/quadbin/
// tasks/staged_loop.hpp): one fork-join region for all the colours of up to
// kPassesPerRegion passes, blocks of rows claimed by the threads, instead
// of a parallelFor per colour. The overflow group shares balls: one block.
template <class R, class F, class P, class E>
void StepRows::passesOverRows(TaskSystem& tasks, Group lastGroup, R* rowsIn, std::uint32_t tail,
                              std::uint32_t passes, F&& f, P&& pre, E&& endPass) {
  stages_.clear();
  bool large = false;
  for (std::uint32_t colour = 0; colour <= contacts::kColours; ++colour) {
    const std::uint32_t first = bucketStart[std::size_t{kGroups} * colour];
    std::uint32_t last = bucketStart[kGroups * colour + lastGroup + 1];
    if (colour == contacts::kColours) last += tail;
    if (first == last) continue;
    if (colour == contacts::kColours) {
      stages_.add(first, last - first, true);
    } else {  // each group's rows are in the order of their first ball
      const std::uint32_t* at = bucketStart.data() + std::size_t{kGroups} * colour;
      stages_.addSegments(first,
                          {at[1] - at[0], lastGroup >= kTouchingCollision ? at[2] - at[1] : 0,
                           lastGroup >= kApart ? at[3] - at[2] : 0});
    }
    large = large || (colour < contacts::kColours && last - first > kContactGrain);
  }
  // One atomic add per block of rows, never per row.
  auto run = [rowsIn, &f, &pre](std::uint32_t begin, std::uint32_t end) {
    std::uint32_t local = 0;
    const std::uint32_t warm = std::min(end, begin + kPrefetchAhead);
    for (std::uint32_t k = begin; k < warm; ++k) pre(rowsIn[k]);
    for (std::uint32_t k = begin; k < end; ++k) {
      if (k + kPrefetchAhead < end) pre(rowsIn[k + kPrefetchAhead]);
      local += f(rowsIn[k]) ? 1u : 0u;
    }
    return local;
  };
  // The clock ticks once per colour (before it), as the impact passes need.
  stages_.run(
      large ? tasks : serialTaskSystem(), kRowBlock, passes, run, [this] { ++clock; }, endPass);
}

template <class R, class F, class P>
std::uint32_t StepRows::forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rowsIn,
                                     std::uint32_t tail, F&& f, P&& pre) {
  std::uint32_t hits = 0;
  passesOverRows(tasks, lastGroup, rowsIn, tail, 1, f, pre, [&hits](std::uint32_t h) {
    hits = h;
    return false;
  });
  return hits;
}

template <class R, class F>
std::uint32_t StepRows::forEachRowIn(TaskSystem& tasks, Group lastGroup, R* rowsIn,
                                     std::uint32_t tail, F&& f) {
  return forEachRowIn(tasks, lastGroup, rowsIn, tail, f, [](const R&) {});
}

template <class F, class P>
std::uint32_t StepRows::forEachRow(TaskSystem& tasks, Group lastGroup, F&& f, P&& pre) {
  return forEachRowIn(tasks, lastGroup, rows.data(), 0, f, pre);
}

template <class F>
std::uint32_t StepRows::forEachRow(TaskSystem& tasks, Group lastGroup, F&& f) {
  return forEachRowIn(tasks, lastGroup, rows.data(), 0, f);
}

}  // namespace quadbin
